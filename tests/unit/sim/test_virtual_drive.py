"""The served drive's FTL (sim/virtual_drive.py), its health log (sim/drive_health.py, read back
by parse/virtual_drive_health.py) and drawn configurations (sim/random_config.py).

The oracle for the drive is the simulator itself: the same requests replayed through
`simulate` as a trace give the same counters on either core."""

import json
import math

import pytest

from ssdlab.errors import UsageError
from ssdlab.parse.virtual_drive_health import read_virtual_drive_health
from ssdlab.sim import SimConfig, TraceOp, Workload, simulate
from ssdlab.sim.drive_health import DATA_UNIT_BYTES, DriveLabel, health_document
from ssdlab.sim.ftl import SplitMix64
from ssdlab.sim.random_config import config_digest, config_json, draw_config
from ssdlab.sim.virtual_drive import VirtualDrive

PAGE = 4096
MiB = 2**20


def _config(**kw: object) -> SimConfig:
    base: dict[str, object] = {"pages_per_block": 32, "slc_dynamic": True}
    base.update(kw)
    return SimConfig.from_spare(8 * MiB, 0.12, "logical", **base)  # type: ignore[arg-type]


def _requests(n: int, seed: int, capacity: int) -> list[TraceOp]:
    """Random writes of 1-8 pages, some unaligned, and a few discards and reads."""
    rng = SplitMix64(seed)
    ops = []
    for _ in range(n):
        kind = rng.below(20)
        length = (1 + rng.below(8)) * PAGE - (rng.below(2) * 512)
        offset = rng.below(capacity - length) // 512 * 512
        op = "trim" if kind == 0 else "read" if kind == 1 else "write"
        ops.append(TraceOp(op=op, offset_bytes=offset, length_bytes=length))
    return ops


def _drive_after(config: SimConfig, ops: list[TraceOp]) -> VirtualDrive:
    drive = VirtualDrive(config)
    for op in ops:
        getattr(drive, op.op)(op.offset_bytes, op.length_bytes)
    return drive


@pytest.mark.parametrize("initial", ["empty", "full", "steady"])
def test_the_drive_counts_what_the_simulator_counts_for_the_same_requests(
    core: str, initial: str
) -> None:
    config = _config(initial_state=initial)
    ops = _requests(6000, seed=7, capacity=config.logical_bytes)
    while ops[-1].op != "write":  # the replay ends with the last write
        ops.pop()
    drive = _drive_after(config, ops).counters()
    replay = simulate(
        config,
        Workload(kind="trace", trace=tuple(ops)),
        host_bytes=drive.host_write_bytes,
        interval_bytes=drive.host_write_bytes,
        core=core,
    )
    last = replay.intervals[-1]
    assert len(replay.intervals) == 1
    assert drive.host_write_bytes == last.host_write_bytes
    assert drive.nand_write_bytes == last.nand_write_bytes
    assert drive.nand_write_bytes > drive.host_write_bytes  # GC and folding happened
    assert drive.trim_bytes == last.trim_bytes
    assert drive.host_read_bytes == last.host_read_bytes
    assert drive.erase_count_min == last.erase_count_min
    assert drive.erase_count_max == last.erase_count_max
    assert drive.erase_count_avg == pytest.approx(last.erase_count_avg)
    assert drive.free_blocks == last.free_blocks
    assert drive.slc_used_bytes == last.slc_used_bytes
    assert drive.model_time_s == pytest.approx(last.elapsed_s, rel=1e-9)


def test_a_request_costs_its_nand_work_over_the_parallel_units() -> None:
    config = _config()
    t = config.timing
    drive = VirtualDrive(config)
    into_slc = drive.write(0, 4 * PAGE)
    assert into_slc == pytest.approx(4 * t.slc_program_us / t.parallel_units / 1e6)
    assert drive.read(0, PAGE) == pytest.approx(t.page_read_us / t.parallel_units / 1e6)
    assert drive.read(PAGE * 100, PAGE) == 0  # never written: no NAND read
    assert drive.trim(0, PAGE) == 0


def test_a_request_outside_the_drive_is_refused() -> None:
    drive = VirtualDrive(_config())
    with pytest.raises(UsageError, match="outside the drive"):
        drive.write(8 * MiB - PAGE, 2 * PAGE)


def _label(rated: float = 3000.0) -> DriveLabel:
    return DriveLabel("SIM-1", "0.1.0", 8 * MiB, rated, "ab" * 32)


def test_the_health_log_reads_back_as_a_drive_does() -> None:
    config = _config()
    drive = _drive_after(config, _requests(4000, seed=3, capacity=config.logical_bytes))
    counters = drive.counters()
    text = json.dumps(health_document(counters, _label(rated=100.0), 7300.0, 1.8e9))
    sample, notes = read_virtual_drive_health(text)
    units = math.ceil(counters.host_write_bytes / DATA_UNIT_BYTES)
    assert sample.host_written_bytes.value == units * DATA_UNIT_BYTES
    assert sample.nand_written_bytes.value == counters.nand_write_bytes
    assert sample.erase_count_max.value == counters.erase_count_max
    assert sample.erase_count_min.value == counters.erase_count_min
    assert sample.erase_count_avg.value == math.floor(counters.erase_count_avg)
    assert sample.wear_used_pct.value == math.ceil(100 * counters.erase_count_avg / 100.0)
    assert sample.rated_pe_cycles.value == 100.0
    assert sample.power_on_hours.value == 2
    assert sample.temperature_c.value is None  # not modelled: unknown, not 0
    assert sample.identity.serial == "SIM-1"
    assert sample.taken_at_s == 1.8e9
    assert notes == (
        f"virtual drive: {counters.free_blocks} of {counters.total_blocks} erase blocks free "
        f"({100 * counters.free_blocks / counters.total_blocks:.1f} %)",
    )


def test_a_drive_served_without_c0_reports_no_nand_writes() -> None:
    """`sim serve --no-c0`: host writes and wear as before, NAND bytes and erase counts
    unknown (None), as a consumer drive without a NAND counter reports them."""
    config = _config()
    drive = _drive_after(config, _requests(2000, seed=4, capacity=config.logical_bytes))
    counters = drive.counters()
    document = health_document(counters, _label(), 60.0, 1.8e9, c0=False)
    assert "ocp_smart_add_log" not in document
    sample, _notes = read_virtual_drive_health(json.dumps(document))
    units = math.ceil(counters.host_write_bytes / DATA_UNIT_BYTES)
    assert sample.host_written_bytes.value == units * DATA_UNIT_BYTES
    assert sample.nand_written_bytes.value is None
    assert sample.erase_count_avg.value is None
    assert sample.erase_count_max.value is None
    assert sample.rated_pe_cycles.value == 3000.0
    assert "OCP C0 JSON" not in sample.sources


def test_a_file_that_is_not_a_virtual_drives_health_is_refused() -> None:
    from ssdlab.errors import ParseError

    with pytest.raises(ParseError, match="not a virtual drive"):
        read_virtual_drive_health('{"format": "ssdlab-health"}')


def test_drawn_configurations_are_valid_repeatable_and_differ() -> None:
    drawn = [draw_config(seed, 256 * MiB) for seed in range(200)]
    assert draw_config(5, 256 * MiB) == drawn[5]
    assert len({config_digest(c) for c in drawn}) == 200
    assert all(c.logical_bytes == 256 * MiB for c in drawn)
    spares = [c.spare_of_logical for c in drawn]
    assert min(spares) < 0.12
    assert max(spares) > 0.4
    assert {c.gc_policy.value for c in drawn} == {"greedy", "cost-benefit", "fifo", "d-choices"}
    assert any(c.slc_static_bytes for c in drawn)
    assert any(c.slc_dynamic and not c.slc_static_bytes for c in drawn)
    assert any(not c.slc_dynamic and not c.slc_static_bytes for c in drawn)
    assert config_json(drawn[0])["gc_policy"] == drawn[0].gc_policy.value


@pytest.mark.parametrize(
    ("seed", "digest"),
    [
        (0, "6f38ac14c8012cfd583d82fc0b98321feac687de287c226fca3553a44195c948"),
        (1, "2233538af0269ea2477c7cbf10167b525842347284acdf2e13aa60149e421e04"),
        (42, "34f26293a32c33384ce2867280e96d58c292d81b4c7f92a7139a757bc80d1f7d"),
        (2**63, "282aa1bb40b4a8bbe14b20d9638e8471d7a9d0da37572485faf7f4a39c2a02d6"),
    ],
)
def test_a_seed_draws_the_drive_it_always_drew(seed: int, digest: str) -> None:
    """`--random-config SEED` draws the same drive in every version (a campaign's recorded
    results name drives by seed): these digests were drawn before idle GC existed."""
    assert config_digest(draw_config(seed, 256 * MiB)) == digest
