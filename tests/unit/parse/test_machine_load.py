"""The machine check's parsers on real /proc captures (tests/data/machine/)."""

from pathlib import Path

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.machine import CpuTicks, DiskCounters
from ssdlab.parse.machine_load import fio_io, parse_diskstats, parse_own_ticks, parse_proc_stat

DATA = Path(__file__).resolve().parents[2] / "data" / "machine"
FIO = Path(__file__).resolve().parents[2] / "data" / "fio"


def test_a_devices_diskstats_line_is_read_by_name() -> None:
    text = (DATA / "diskstats.before").read_text()
    assert parse_diskstats(text, "loop6") == DiskCounters(
        reads=823436,
        sectors_read=175715690,
        writes=1124828,
        sectors_written=110427971,
        discards=1031,
        sectors_discarded=539683312,
    )
    assert parse_diskstats(text, "loop") is None  # a name, not a prefix


def test_a_kernel_without_discard_columns_gives_none_for_them() -> None:
    line = "   8       0 sda 10 0 80 5 20 0 160 7 0 12 12"
    counters = parse_diskstats(line, "sda")
    assert counters is not None
    assert (counters.sectors_written, counters.discards, counters.sectors_discarded) == (
        160,
        None,
        None,
    )


def test_a_malformed_diskstats_line_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse_diskstats("   8 0 sda 10 x 80", "sda")


def test_the_cpu_line_gives_busy_and_total_ticks() -> None:
    ticks = parse_proc_stat((DATA / "stat.before").read_text())
    # cpu  2279115 1735 342885 140145 4903 0 15796 2548 0 0; two cpuN lines
    assert ticks == CpuTicks(
        busy=2279115 + 1735 + 342885,
        total=2279115 + 1735 + 342885 + 140145 + 4903 + 0 + 15796 + 2548,
        cpus=2,
    )


def test_own_ticks_are_utime_stime_cutime_cstime() -> None:
    assert parse_own_ticks((DATA / "self-stat.txt").read_text()) == 0
    name_with_parens = "42 (a) b) (c) R 1 1 1 0 -1 0 0 0 0 0 11 22 33 44 20 0 1 0 5 6 7"
    assert parse_own_ticks(name_with_parens) == 11 + 22 + 33 + 44
    with pytest.raises(ParseError):
        parse_own_ticks("42 (short) R 1")


def test_fio_io_sums_the_jobs_of_a_real_output() -> None:
    done = fio_io((FIO / "randrw-70-30.json").read_text())
    assert done.read_bytes > 0
    assert done.written_bytes > 0
    assert done.trimmed_bytes == 0
    assert done.ios is not None
    assert done.ios > 0
