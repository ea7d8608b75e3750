"""compare and --fail-if judge a latency tail by its interval, never by the point values: a
p99 beyond doubt past the limit fails, one whose interval straddles it is inconclusive, and a
p99 the I/Os cannot bound is inconclusive too."""

from ssdlab.analysis.compare import (
    TAIL_LEVEL,
    FailRule,
    MeasuredTest,
    compare_tail,
    gate_outcome,
)
from ssdlab.analysis.tail_intervals import table_tail
from ssdlab.analysis.verdict_state import Outcome

TABLE = [(50.0, 100.0), (90.0, 150.0), (95.0, 180.0), (98.0, 190.0), (99.0, 200.0),
         (99.5, 210.0), (99.9, 260.0)]  # fmt: skip


def tail_of(n: int, scale: float) -> tuple[MeasuredTest, object]:
    test = MeasuredTest("rnd4k-q1t1-read", "RND4K Q1T1 read", True, (1.0,), (1.0,), 0, (), (),
                        (), (), ())  # fmt: skip
    return test, table_tail([(p, v * scale) for p, v in TABLE], n, 99.0, TAIL_LEVEL)


RULE = FailRule("rnd4k-q1t1-read-p99", 20.0)


def test_a_tail_far_past_the_limit_fails_and_one_that_straddles_it_is_inconclusive() -> None:
    far = compare_tail(tail_of(100_000, 1.0), tail_of(100_000, 2.0), 5.0)  # type: ignore[arg-type]
    assert far.key == "rnd4k-q1t1-read-p99"
    assert far.ratio_interval is not None
    assert gate_outcome(RULE, far) is Outcome.FAIL
    near = compare_tail(tail_of(100_000, 1.0), tail_of(100_000, 1.25), 5.0)  # type: ignore[arg-type]
    assert near.ratio == 1.25  # past the +20 % limit as a point value ...
    assert gate_outcome(RULE, near) is Outcome.INCONCLUSIVE  # ... but not beyond doubt


def test_a_tail_the_ios_cannot_bound_is_inconclusive() -> None:
    few = compare_tail(tail_of(100_000, 1.0), tail_of(300, 3.0), 5.0)  # type: ignore[arg-type]
    assert few.ratio is None
    assert gate_outcome(RULE, few) is Outcome.INCONCLUSIVE
