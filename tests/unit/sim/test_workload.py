import pytest

from ssdlab.errors import UsageError
from ssdlab.sim import TraceOp, Workload, parse_workload
from ssdlab.sim.workload import validate_workload


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("uniform", Workload()),
        ("random", Workload()),
        ("seq", Workload(kind="sequential")),
        ("hotcold:80/20", Workload(kind="hotcold", hot_write_fraction=0.8, hot_space_fraction=0.2)),
        ("hotcold:90/10", Workload(kind="hotcold", hot_write_fraction=0.9, hot_space_fraction=0.1)),
        ("jesd219", Workload(kind="jesd219")),
        ("uniform,read=30%,trim=5%", Workload(read_fraction=0.3, trim_fraction=0.05)),
        ("seq,pages=32,span=50", Workload(kind="sequential", request_pages=32, span_fraction=0.5)),
    ],
)
def test_parse_workload(text: str, expected: Workload) -> None:
    got = parse_workload(text)
    assert got.kind == expected.kind
    for name in ("hot_write_fraction", "hot_space_fraction", "read_fraction", "trim_fraction"):
        assert getattr(got, name) == pytest.approx(getattr(expected, name))
    assert got.request_pages == expected.request_pages
    assert got.span_fraction == pytest.approx(expected.span_fraction)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("zipf", "unknown workload"),
        ("hotcold:80", "WRITES/SPACE"),
        ("hotcold:100/20", "must be in"),
        ("uniform,read=60%,trim=40%", "no writes"),
        ("uniform,read=abc", "not a number"),
        ("uniform,pages=0", "at least one page"),
        ("uniform,pages=1.5", "whole number"),
        ("uniform,span=0", "span"),
        ("uniform,colour=red", "unknown workload option"),
        ("uniform,read", "KEY=VALUE"),
        ("seq:5", "takes no"),
    ],
)
def test_bad_workload_text_is_refused(text: str, reason: str) -> None:
    with pytest.raises(UsageError, match=reason):
        parse_workload(text)


def test_write_fraction_and_descriptions() -> None:
    w = parse_workload("hotcold:90/10,read=30%,trim=10%,pages=2")
    assert w.write_fraction == pytest.approx(0.6)
    assert (
        w.describe()
        == "hot/cold 90 % of writes to 10 % of the span, 2 pages, 30 % reads, 10 % TRIM"
    )
    assert parse_workload("jesd219").describe().startswith("JESD219")
    trace = Workload(kind="trace", trace=(TraceOp("write", 0, 4096), TraceOp("read", 0, 4096)))
    assert trace.describe() == "trace replay (2 requests, 1 writes)"


def test_trace_workloads_need_writes() -> None:
    with pytest.raises(UsageError, match="no writes"):
        validate_workload(Workload(kind="trace", trace=(TraceOp("read", 0, 4096),)))
    with pytest.raises(UsageError, match="needs trace"):
        validate_workload(Workload(kind="trace"))
    with pytest.raises(UsageError, match="trace operations given"):
        validate_workload(Workload(trace=(TraceOp("write", 0, 4096),)))
