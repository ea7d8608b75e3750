import pytest

from ssdlab.errors import ParseError, UsageError
from ssdlab.sim import TraceOp, Workload, read_trace
from ssdlab.sim.trace import parse_blkparse, parse_fio_iolog, parse_msr_csv

BLKPARSE = """\
  8,16   1        1     0.000000000  5529  Q  WS 274432 + 8 [fio]
  8,16   1        2     0.000001000  5529  G  WS 274432 + 8 [fio]
  8,16   1        3     0.000002000  5529  D  WS 274432 + 8 [fio]
  8,16   1        4     0.000100000  5529  D   R 0 + 16 [fio]
  8,16   1        5     0.000200000  5529  D   D 2048 + 2048 [fstrim]
  8,16   1        6     0.000300000  5529  D  FN [kworker]
  8,16   1        7     0.000400000  5529  C  WS 274432 + 8 [0]
CPU1 (sdb):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
"""


def test_blkparse_replays_issued_events_in_bytes() -> None:
    assert parse_blkparse(BLKPARSE) == (
        TraceOp("write", 274432 * 512, 4096, 0.000002),
        TraceOp("read", 0, 8192, 0.0001),
        TraceOp("trim", 2048 * 512, 2048 * 512, 0.0002),
    )


def test_blkparse_without_d_events_uses_queued_ones() -> None:
    text = "8,0 0 1 0.5 1 Q W 8 + 8 [dd]\n"
    assert parse_blkparse(text) == (TraceOp("write", 4096, 4096, 0.5),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("8,16 1 1 0.0 5529 D WS 274432 8 [fio]\n", "line 1: expected 'SECTOR \\+ COUNT'"),
        ("8,16 1 1 0.0 5529 D WS 274432 + 8 [fio]\ngarbage\n", "line 2: not a blkparse"),
        ("8,16 1 1 0.0 5529 D WS -8 + 8 [fio]\n", "line 1: sector -8 is negative"),
        ("8,16 1 1 x 5529 D WS 8 + 8 [fio]\n", "line 1: time 'x' is not a number"),
    ],
)
def test_malformed_blkparse_lines_name_their_line(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_blkparse(text)


MSR = """\
Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
128166372003061629,hm,1,Read,3154152448,4096,1331
128166372016382155,hm,1,Write,8192,16384,10406
"""


def test_msr_csv_offsets_are_bytes_and_times_filetime_ticks() -> None:
    ops = parse_msr_csv(MSR)
    assert [(o.op, o.offset_bytes, o.length_bytes) for o in ops] == [
        ("read", 3154152448, 4096),
        ("write", 8192, 16384),
    ]
    assert ops[1].time_s == pytest.approx((128166372016382155 - 128166372003061629) * 1e-7)


def test_malformed_msr_lines_name_their_line() -> None:
    with pytest.raises(ParseError, match="line 4: type must be Read or Write"):
        parse_msr_csv(MSR + "128166372016382155,hm,1,Flush,0,0,1\n")
    with pytest.raises(ParseError, match="line 2: MSR trace lines have 7 fields"):
        parse_msr_csv("1,hm,1,Read,0,4096,5\n2,hm,1,Read,0,4096\n")


def test_fio_iolog_v2_and_v3() -> None:
    v2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n"
    v2 += "/dev/sdb wait 100\n/dev/sdb trim 8192 65536\n/dev/sdb close\n"
    assert parse_fio_iolog(v2) == (TraceOp("write", 0, 4096), TraceOp("trim", 8192, 65536))
    v3 = "fio version 3 iolog\n0 /dev/sdb add\n10 /dev/sdb open\n1500 /dev/sdb read 4096 8192\n"
    assert parse_fio_iolog(v3) == (TraceOp("read", 4096, 8192, 0.0015),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fio version 4 iolog\n", "line 1: expected"),
        ("fio version 2 iolog\nf write 0\n", "line 2: write needs an offset"),
        ("fio version 2 iolog\nf write 0 4096\nf smash 0 1\n", "line 3: unknown iolog action"),
        ("fio version 3 iolog\n5 f wait 10\n", "line 2: 'wait' is not allowed"),
        ("fio version 3 iolog\nabc f write 0 4096\n", "line 2: timestamp"),
    ],
)
def test_malformed_iolog_lines_name_their_line(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_fio_iolog(text)


def test_read_trace_detects_the_format_and_checks_capacity() -> None:
    assert read_trace(MSR)[1].op == "write"
    assert read_trace("fio version 2 iolog\nf write 0 4096\n") == (TraceOp("write", 0, 4096),)
    assert len(read_trace(BLKPARSE, "blkparse")) == 3
    with pytest.raises(UsageError, match="beyond the drive's logical capacity"):
        read_trace(MSR, capacity_bytes=2**30)
    with pytest.raises(ParseError, match="holds no"):
        read_trace("fio version 2 iolog\nf open\n")
    with pytest.raises(UsageError, match="unknown trace format"):
        read_trace(MSR, "spc")  # type: ignore[arg-type]


def test_trace_beyond_capacity_is_rejected_before_the_simulation_runs(core: str) -> None:
    from ssdlab.sim import SimConfig, simulate

    config = SimConfig.from_spare(2**24, 0.25, "logical", pages_per_block=16)
    trace = (TraceOp("write", 0, 4096), TraceOp("write", 2**24 - 4096, 8192))
    with pytest.raises(UsageError, match="trace request 2"):
        simulate(
            config,
            Workload(kind="trace", trace=trace),
            host_bytes=2**20,
            interval_bytes=2**18,
            core=core,
        )
