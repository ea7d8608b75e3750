"""`sim sweep` options → one simulated drive per value, the varied parameter only (the options
made a request as the command line makes it, the points by app/sim_setup.py)."""

import pytest

from ssdlab.app.sim_setup import sweep_points
from ssdlab.cli.main import build_parser
from ssdlab.cli.sim import request_from
from ssdlab.errors import UsageError
from ssdlab.runner.sim import SimPlan


def _points(*argv: str) -> tuple[str, list[SimPlan]]:
    args = build_parser().parse_args(
        ["sim", "sweep", "--capacity", "8MiB", "--pages-per-block", "16", *argv]
    )
    parameter, points = sweep_points(request_from(args))
    return parameter, list(points)


def test_each_parameter_changes_only_its_own_field() -> None:
    _, spare = _points("--spare", "7,28", "--spare-of", "physical")
    low, high = (p.config for p in spare)
    assert low.spare_of_physical < high.spare_of_physical
    assert low.logical_bytes == high.logical_bytes

    _, skew = _points("--skew", "50/50,90/10")
    uniform, hot = (p.workload for p in skew)
    assert uniform.kind == "uniform"
    assert (hot.kind, hot.hot_write_fraction, hot.hot_space_fraction) == ("hotcold", 0.9, 0.1)

    _, trim = _points("--trim", "0,20%")
    assert [p.workload.trim_fraction for p in trim] == [0.0, 0.2]

    parameter, fill = _points("--fill", "100,80")
    assert parameter == "fill"
    assert [p.workload.span_fraction for p in fill] == [1.0, 0.8]
    assert len({p.config for p in fill}) == 1


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        ((), "exactly one of"),
        (("--spare", "7", "--trim", "10"), "exactly one of"),
        (("--skew", "80"), "WRITES/SPACE"),
        (("--trim", "100"), "trim fraction"),
        (("--fill", "100,80", "--initial", "steady"), "needs an empty start"),
        (("--fill", "0"), "span"),
    ],
)
def test_bad_sweeps_are_refused_with_the_reason(argv: tuple[str, ...], reason: str) -> None:
    with pytest.raises(UsageError, match=reason):
        _points(*argv)
