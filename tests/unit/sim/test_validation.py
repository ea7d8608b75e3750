"""The simulator against ftl.md: analytic WA models, its computed tables and field data.

Run on the Rust core (the Python core is checked at a few points at the end). Sizes follow
ftl.md Appendix A where it matters (4096 blocks × 64 pages); the analytic warm start
(`initial_state="steady"`) replaces most of the warm-up writes.
"""

import pytest

from ssdlab.sim import GcPolicy, SimConfig, Workload, parse_workload, simulate
from ssdlab.sim.analytic import (
    lifetime_ratio,
    trim_live_fraction,
    wa_fifo,
    wa_fifo_hotcold,
    wa_greedy,
    wa_random,
)
from tests.unit.sim.conftest import needs_rust

PAGE = 4096


def drive(
    blocks: int,
    pages_per_block: int,
    alpha: float,
    policy: GcPolicy = GcPolicy.GREEDY,
    initial: str = "steady",
) -> SimConfig:
    logical_pages = round(blocks * pages_per_block / alpha)
    return SimConfig(
        logical_bytes=logical_pages * PAGE,
        physical_bytes=blocks * pages_per_block * PAGE,
        pages_per_block=pages_per_block,
        gc_policy=policy,
        initial_state=initial,
    )


def measured_waf(
    config: SimConfig, workload: Workload, warm: int, measure: int, core: str = "rust"
) -> float:
    """WA over `measure` logical-capacity writes after `warm` of them."""
    r = simulate(
        config,
        workload,
        host_bytes=config.logical_bytes * (warm + measure),
        interval_bytes=config.logical_bytes,
        core=core,
    )
    a, b = r.intervals[warm - 1], r.intervals[-1]
    return (b.nand_write_bytes - a.nand_write_bytes) / (b.host_write_bytes - a.host_write_bytes)


# ftl.md §2.3 Tables A and B: spare value → (greedy sim Np=64, greedy sim Np=256)
TABLE_A = {
    0.07: (7.04, 7.63),
    0.125: (4.40, 4.62),
    0.20: (3.06, 3.16),
    0.25: (2.60, 2.67),
    0.28: (2.41, 2.46),
    0.50: (1.68, 1.71),
}
TABLE_B = {
    0.07: (6.64, 7.16),
    0.125: (3.96, 4.13),
    0.20: (2.60, 2.67),
    0.25: (2.14, 2.19),
    0.28: (1.94, 1.98),
    0.50: (1.24, 1.25),
}
CASES = [
    (convention, spare, np_, sims[i])
    for convention, table in (("logical", TABLE_A), ("physical", TABLE_B))
    for spare, sims in table.items()
    for i, np_ in enumerate((64, 256))
]


@needs_rust
@pytest.mark.parametrize(("convention", "spare", "pages_per_block", "table_sim"), CASES)
def test_uniform_greedy_reproduces_the_wa_table(
    convention: str, spare: float, pages_per_block: int, table_sim: float
) -> None:
    alpha = 1 + spare if convention == "logical" else 1 / (1 - spare)
    blocks = 4096 if pages_per_block == 64 else 2048
    config = drive(blocks, pages_per_block, alpha)
    waf = measured_waf(config, Workload(), warm=1, measure=2)
    assert waf == pytest.approx(wa_greedy(config.alpha, pages_per_block), rel=0.02)
    assert waf == pytest.approx(table_sim, rel=0.02)


@needs_rust
@pytest.mark.parametrize("alpha", [1.0737, 1.1429, 1.25, 1.5])
def test_fifo_and_random_victims_follow_their_closed_forms(alpha: float) -> None:
    fifo = measured_waf(drive(4096, 64, alpha, GcPolicy.FIFO), Workload(), warm=2, measure=2)
    assert fifo == pytest.approx(wa_fifo(alpha), rel=0.01)
    rnd = measured_waf(drive(4096, 64, alpha, GcPolicy.RANDOM), Workload(), warm=1, measure=2)
    assert rnd == pytest.approx(wa_random(alpha), rel=0.02)


@needs_rust
def test_policies_rank_as_the_literature_says() -> None:
    wafs = {
        policy: measured_waf(drive(2048, 64, 1.0737, policy), Workload(), warm=1, measure=2)
        for policy in GcPolicy
    }
    greedy, dchoices = wafs[GcPolicy.GREEDY], wafs[GcPolicy.D_CHOICES]
    assert greedy < dchoices < wafs[GcPolicy.FIFO] < wafs[GcPolicy.RANDOM]
    assert wafs[GcPolicy.COST_BENEFIT] < wafs[GcPolicy.FIFO]


# ftl.md §2.4: (α, workload, greedy sim Np=64)
HOTCOLD = [
    (1.0737, "80/20", 7.07),
    (1.0737, "90/10", 7.63),
    (1.25, "80/20", 2.86),
    (1.25, "90/10", 3.08),
    (1.5, "90/10", 2.05),
]


@needs_rust
@pytest.mark.parametrize(("alpha", "skew", "greedy_sim"), HOTCOLD)
def test_hot_cold_skew_raises_wa(alpha: float, skew: str, greedy_sim: float) -> None:
    workload = parse_workload(f"hotcold:{skew}")
    greedy = measured_waf(drive(4096, 64, alpha), workload, warm=3, measure=2)
    assert greedy == pytest.approx(greedy_sim, rel=0.02)
    assert greedy > wa_greedy(alpha, 64)  # skew without separation costs
    fifo = measured_waf(drive(4096, 64, alpha, GcPolicy.FIFO), workload, warm=3, measure=2)
    writes, space = (int(x) / 100 for x in skew.split("/"))
    assert fifo == pytest.approx(wa_fifo_hotcold(alpha, writes, space), rel=0.01)


@needs_rust
@pytest.mark.parametrize(
    ("alpha", "q", "greedy_sim"), [(1.0737, 0.1, 2.99), (1.0737, 0.3, 1.30), (1.1429, 0.2, 1.64)]
)
def test_trim_acts_as_extra_spare(alpha: float, q: float, greedy_sim: float) -> None:
    config = drive(4096, 64, alpha, initial="full")
    waf = measured_waf(config, Workload(trim_fraction=q), warm=6, measure=2)
    assert waf == pytest.approx(greedy_sim, rel=0.02)
    assert waf == pytest.approx(wa_greedy(alpha / trim_live_fraction(q), 64), rel=0.02)


@needs_rust
def test_x25m_lifetime_ratios_at_0_10_20_percent_free() -> None:
    """Field: 14.5 / 34 / 52 TB of endurance at 0 / 10 / 20 % of the LBAs never written."""
    # 80 GB ÷ 32 on 80 GiB ÷ 32 of flash (the same spare ratio). LBAs never written are not
    # live data for the FTL, so 10 % / 20 % free is a logical size of 72 / 64 GB (ftl.md §3.1).
    physical = 85_899_345_920 // 32
    wafs = []
    for free in (0.0, 0.1, 0.2):
        logical = round(80_000_000_000 * (1 - free) / 32 / 4096) * 4096
        x25m = SimConfig(
            logical_bytes=logical,
            physical_bytes=physical,
            pages_per_block=128,
            initial_state="steady",
        )
        wafs.append(measured_waf(x25m, Workload(), warm=1, measure=2))
    # the same by workload: random writes that never touch the last 20 % of the LBAs
    full_size = SimConfig(
        logical_bytes=round(80e9 / 32 / 4096) * 4096, physical_bytes=physical, pages_per_block=128
    )
    spanned = measured_waf(full_size, Workload(span_fraction=0.8), warm=8, measure=2)
    assert spanned == pytest.approx(wafs[2], rel=0.02)
    ratios = [lifetime_ratio(wafs[0], w) for w in wafs[1:]]
    measured = [34 / 14.5, 52 / 14.5]
    for got, field in zip(ratios, measured, strict=True):
        assert got == pytest.approx(field, rel=0.11)  # the models' 0–11 % (ftl.md §3.1)
    assert ratios[0] == pytest.approx(2.20, rel=0.02)  # greedy Np=128 model
    assert ratios[1] == pytest.approx(3.31, rel=0.02)


@needs_rust
def test_c300_full_range_4k_random_writes_have_wa_7_to_8() -> None:
    c300 = SimConfig.from_spare(2**30, 0.0737, "logical", pages_per_block=256, initial_state="full")
    waf = measured_waf(c300, Workload(), warm=3, measure=2)
    assert 7.0 <= waf <= 8.0


@pytest.mark.parametrize(("spare", "policy"), [(0.25, GcPolicy.GREEDY), (0.5, GcPolicy.FIFO)])
def test_python_core_matches_the_models_too(spare: float, policy: GcPolicy) -> None:
    config = drive(512, 64, 1 + spare, policy)
    waf = measured_waf(config, Workload(), warm=1, measure=2, core="python")
    model = wa_greedy(config.alpha, 64) if policy is GcPolicy.GREEDY else wa_fifo(config.alpha)
    assert waf == pytest.approx(model, rel=0.02)
