"""The knee of a threads × queue-depth sweep: hand-built matrices with known answers, numpy as
an oracle for the Pareto front and the power maximum, and properties of both rules."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.analysis.knee import SweepCell, pareto_front, select_knee

US = 1000.0  # ns


def cell(
    numjobs: int,
    iodepth: int,
    iops: float,
    p99_us: float | None,
    mean_us: float | None = None,
    p999_us: float | None = None,
) -> SweepCell:
    return SweepCell(
        numjobs,
        iodepth,
        iops,
        iops * 4096,
        None if mean_us is None else mean_us * US,
        None if p99_us is None else p99_us * US,
        None if p999_us is None else p999_us * US,
        None,
    )


T1Q1 = cell(1, 1, 10_000, 100)
T1Q4 = cell(1, 4, 38_000, 110)
T1Q16 = cell(1, 16, 140_000, 130)
T1Q32 = cell(1, 32, 220_000, 180)
T4Q32 = cell(4, 32, 260_000, 600)
T8Q32 = cell(8, 32, 262_000, 1500)
T2Q32 = cell(2, 32, 200_000, 400)  # beaten by T1Q32 in both
SWEEP = [T1Q1, T1Q4, T1Q16, T1Q32, T4Q32, T8Q32, T2Q32]


def test_knee_without_a_bound_is_the_most_iops_per_latency() -> None:
    # IOPS / p99 µs: 100, 345, 1077, 1222, 433, 175, 500
    verdict = select_knee(SWEEP)
    assert verdict.method == "max IOPS/latency"
    assert verdict.reason is None
    assert verdict.knee == T1Q32
    assert verdict.front == (T1Q1, T1Q4, T1Q16, T1Q32, T4Q32, T8Q32)
    assert verdict.peak == T8Q32
    assert verdict.knee_latency_ns == 180 * US
    assert verdict.knee_iops_of_peak_pct == pytest.approx(100 * 220 / 262)
    assert verdict.next_on_front == T4Q32
    assert verdict.next_iops_gain_pct == pytest.approx(100 * (260 - 220) / 220)
    assert verdict.next_latency_increase_pct == pytest.approx(100 * (600 - 180) / 180)
    assert verdict.cells == tuple(SWEEP)
    assert verdict.excluded == ()


@pytest.mark.parametrize(
    ("bound_us", "want"),
    [(100, T1Q1), (150, T1Q16), (180, T1Q32), (400, T1Q32), (1000, T4Q32), (1e6, T8Q32)],
)
def test_most_iops_within_the_bound(bound_us: float, want: SweepCell) -> None:
    verdict = select_knee(SWEEP, max_latency_ns=bound_us * US)
    assert verdict.method == "latency bound"
    assert verdict.knee == want
    assert verdict.max_latency_ns == bound_us * US


def test_no_cell_within_the_bound_says_which_comes_closest() -> None:
    verdict = select_knee(SWEEP, max_latency_ns=50 * US)
    assert verdict.knee is None
    assert verdict.knee_iops_of_peak_pct is None
    assert verdict.reason == "no cell has p99 latency ≤ 50.0 µs; the lowest is 100.0 µs at T1 Q1"
    assert verdict.peak == T8Q32


def test_last_cell_on_the_front_has_nothing_beyond() -> None:
    verdict = select_knee(SWEEP, max_latency_ns=1e9)
    assert verdict.knee == T8Q32
    assert verdict.next_on_front is None
    assert verdict.next_iops_gain_pct is None


def test_latency_metric_changes_the_answer() -> None:
    a = cell(1, 8, 100_000, p99_us=300, mean_us=80)
    b = cell(1, 32, 300_000, p99_us=2000, mean_us=106)
    assert select_knee([a, b]).knee == a  # by p99: 333 vs 150 IOPS/µs
    assert select_knee([a, b], latency_metric="mean").knee == b  # by mean: 1250 vs 2830


def test_ties_go_to_lower_latency_then_fewer_outstanding_then_fewer_jobs() -> None:
    slow = cell(4, 16, 100_000, 200)
    fast = cell(8, 16, 100_000, 150)
    assert select_knee([slow, fast], max_latency_ns=1e9).knee == fast
    wide, narrow, few_jobs = (
        cell(8, 16, 100_000, 150),
        cell(4, 8, 100_000, 150),
        cell(1, 32, 100_000, 150),
    )
    assert select_knee([wide, narrow], max_latency_ns=1e9).knee == narrow
    assert select_knee([wide, narrow]).knee == narrow
    assert select_knee([narrow, few_jobs]).knee == few_jobs  # both 32 outstanding


def test_cells_without_the_latency_or_without_io_are_excluded() -> None:
    no_p999 = cell(1, 1, 10_000, 100)
    with_p999 = cell(1, 2, 19_000, 110, p999_us=300)
    idle = cell(1, 4, 0, 120, p999_us=130)
    verdict = select_knee([no_p999, with_p999, idle], latency_metric="p999")
    assert verdict.usable == (with_p999,)
    assert verdict.excluded == (no_p999, idle)
    assert verdict.knee == with_p999
    assert verdict.latency_metric == "p999"


def test_nothing_usable() -> None:
    assert select_knee([]).reason == "the sweep has no cells"
    verdict = select_knee([cell(1, 1, 10_000, None)])
    assert verdict.knee is None
    assert verdict.peak is None
    assert verdict.reason == "no cell has both IOPS and a p99 latency to choose by"


def test_littles_law_device_knee_is_where_it_saturates() -> None:
    """IOPS = N / latency with latency = max(80 µs, N / 500k IOPS): saturation at N = 40.

    On the {1..32}² grid the power IOPS/latency peaks at 32 outstanding (400k IOPS at 80 µs)
    and falls at 64 (500k at 128 µs)."""
    grid = [1, 2, 4, 8, 16, 32]
    cells = []
    for jobs, depth in itertools.product(grid, grid):
        n = jobs * depth
        latency_s = max(80e-6, n / 500_000)
        cells.append(cell(jobs, depth, n / latency_s, latency_s * 1e6, mean_us=latency_s * 1e6))
    verdict = select_knee(cells, latency_metric="mean")
    assert verdict.knee is not None
    assert (verdict.knee.numjobs, verdict.knee.iodepth) == (1, 32)
    assert verdict.knee.iops == pytest.approx(400_000)
    bounded = select_knee(cells, latency_metric="mean", max_latency_ns=200 * US)
    assert bounded.knee is not None
    assert bounded.knee.iops == pytest.approx(500_000)
    assert bounded.knee.outstanding == 64  # the fewest outstanding I/Os at the top IOPS


def test_invalid_requests_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown latency metric"):
        select_knee(SWEEP, latency_metric="p95")
    for bound in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="max_latency_ns"):
            select_knee(SWEEP, max_latency_ns=bound)
    with pytest.raises(ValueError, match="numjobs and iodepth"):
        cell(0, 1, 1.0, 1.0)
    with pytest.raises(ValueError, match="iops"):
        cell(1, 1, -1.0, 1.0)
    with pytest.raises(ValueError, match="lat_p99_ns"):
        cell(1, 1, 1.0, math.nan)
    with pytest.raises(ValueError, match="unknown latency metric"):
        T1Q1.latency_ns("p50")


def test_cell_helpers() -> None:
    assert T4Q32.outstanding == 128
    assert T4Q32.label == "T4 Q32"
    assert T4Q32.latency_ns("p99") == 600 * US
    assert T4Q32.latency_ns("max") is None


# --- properties -------------------------------------------------------------------------------

CELLS = st.lists(
    st.builds(
        cell,
        st.sampled_from([1, 2, 4, 8, 16, 32]),
        st.sampled_from([1, 2, 4, 8, 16, 32]),
        st.integers(1, 1000).map(lambda k: k * 1000.0),
        st.integers(10, 5000).map(float),
    ),
    min_size=1,
    max_size=36,
)


def dominated_by(base: SweepCell, iops_factor: float, latency_factor: float) -> SweepCell:
    assert base.lat_p99_ns is not None
    return cell(
        base.numjobs,
        base.iodepth,
        base.iops * iops_factor,
        base.lat_p99_ns / US * latency_factor,
    )


@given(
    cells=CELLS,
    pick=st.integers(0, 35),
    iops_factor=st.sampled_from([1.0, 0.99, 0.5, 0.01]),
    latency_factor=st.sampled_from([1.0, 1.01, 2.0, 100.0]),
    bound_us=st.none() | st.floats(10, 6000),
)
def test_adding_a_dominated_cell_never_changes_the_knee(
    cells: list[SweepCell],
    pick: int,
    iops_factor: float,
    latency_factor: float,
    bound_us: float | None,
) -> None:
    if iops_factor == 1.0 and latency_factor == 1.0:
        latency_factor = 1.5  # strictly worse in at least one
    extra = dominated_by(cells[pick % len(cells)], iops_factor, latency_factor)
    bound = None if bound_us is None else bound_us * US
    before = select_knee(cells, max_latency_ns=bound)
    after = select_knee([*cells, extra], max_latency_ns=bound)
    assert after.knee == before.knee
    assert after.front == before.front
    assert after.next_on_front == before.next_on_front


@given(cells=CELLS, a_us=st.floats(10, 6000), b_us=st.floats(10, 6000))
def test_a_looser_bound_never_gives_fewer_iops(
    cells: list[SweepCell], a_us: float, b_us: float
) -> None:
    tight, loose = sorted((a_us * US, b_us * US))
    t = select_knee(cells, max_latency_ns=tight).knee
    loose_knee = select_knee(cells, max_latency_ns=loose).knee
    if t is not None:
        assert loose_knee is not None
        assert loose_knee.iops >= t.iops


@given(CELLS)
def test_front_matches_numpy_brute_force(cells: list[SweepCell]) -> None:
    iops = np.array([c.iops for c in cells])
    lat = np.array([c.lat_p99_ns for c in cells], dtype=float)
    better_or_equal = (iops[:, None] >= iops[None, :]) & (lat[:, None] <= lat[None, :])
    strictly = (iops[:, None] > iops[None, :]) | (lat[:, None] < lat[None, :])
    dominated = (better_or_equal & strictly).any(axis=0)
    want = sorted((cells[i] for i in np.flatnonzero(~dominated)), key=id)
    assert sorted(pareto_front(cells), key=id) == want


@given(CELLS)
def test_knee_has_the_greatest_power_and_obeys_the_rule(cells: list[SweepCell]) -> None:
    verdict = select_knee(cells)
    knee = verdict.knee
    assert knee is not None
    assert knee.lat_p99_ns is not None
    power = np.array([c.iops / c.lat_p99_ns for c in cells if c.lat_p99_ns])
    assert knee.iops / knee.lat_p99_ns == pytest.approx(power.max(), rel=1e-12)
    assert knee in verdict.front
    for other in cells:
        assert other.lat_p99_ns is not None
        gain = math.log(other.iops / knee.iops)
        cost = math.log(other.lat_p99_ns / knee.lat_p99_ns)
        # beyond the knee: < 1 % IOPS per 1 % latency; before it: the knee bought ≥ 1 per 1
        assert gain <= cost + 1e-12


@given(cells=CELLS, iops_exp=st.integers(-20, 20), latency_exp=st.integers(-20, 20))
def test_knee_does_not_depend_on_units(
    cells: list[SweepCell], iops_exp: int, latency_exp: int
) -> None:
    """Scales are powers of two, so that cells of exactly equal power stay exactly equal."""
    iops_scale, latency_scale = 2.0**iops_exp, 2.0**latency_exp
    scaled = [
        cell(c.numjobs, c.iodepth, c.iops * iops_scale, (c.lat_p99_ns or 0) / US * latency_scale)
        for c in cells
    ]
    knee, scaled_knee = select_knee(cells).knee, select_knee(scaled).knee
    assert knee is not None
    assert scaled_knee is not None
    assert scaled_knee.iops == pytest.approx(knee.iops * iops_scale)
    assert scaled_knee.lat_p99_ns == pytest.approx((knee.lat_p99_ns or 0) * latency_scale)
