"""The cache profile's bytes axis from a real fio 3.33 run that stalls: its averaged bandwidth
log miscounts the bytes, its histogram log counts them exactly (tests/data/fio/logs-write-stall:
16 MiB in 1 MiB blocks capped at 4 MiB/s, a 1.5 s pause after every 6 blocks, both logs at
500 ms)."""

import json
from itertools import pairwise
from pathlib import Path

import pytest

from ssdlab.analysis.write_series import bytes_series
from ssdlab.model.result import SeriesPoint
from ssdlab.model.step import StepResult
from ssdlab.parse.fio_hist_log import parse_hist_log
from ssdlab.parse.fio_hist_series import hist_write_series
from ssdlab.parse.fio_log import parse_interval_logs

DATA = Path(__file__).resolve().parents[2] / "data" / "fio" / "logs-write-stall"
MiB = 1024 * 1024
BW_LOG = "write-stall_bw.1.log"
HIST_LOG = "write-stall_clat_hist.1.log"


def _logs() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in DATA.glob("*.log")}


def _step(series: tuple[SeriesPoint, ...]) -> StepResult:
    return StepResult("write", "write", "write", 1, False, 0.0, 0.0, None, None, None, None, series)


def _write() -> dict[str, int]:
    job = json.loads((DATA / "write-stall.json").read_text(encoding="utf-8"))["jobs"][0]
    return dict(job["write"])


def _written() -> int:
    return int(_write()["io_bytes"])


def _total() -> tuple[int, float]:
    return _written(), _write()["runtime"] / 1000


def test_the_bandwidth_log_counts_bytes_never_written_across_a_stall() -> None:
    series = parse_interval_logs({BW_LOG: _logs()[BW_LOG]}, 500)
    axis = bytes_series(_step(series))
    assert _written() == 16 * MiB
    # 4096, 4104 and 4096 KiB/s for 0.5 s each, then 12,312 KiB/s (the mean of the one
    # sample after the pause) over the 1.5 s since the entry before: 25.2 MB
    assert axis[-1][0] == pytest.approx((4096 + 4104 + 4096) * 1024 * 0.5 + 12312 * 1024 * 1.5)
    assert axis[-1][0] > 1.5 * _written()


def test_the_histogram_log_gives_the_bytes_written_exactly() -> None:
    logs = _logs()
    series = hist_write_series(logs, 500, _total())
    axis = bytes_series(_step(series))
    # the lines' own I/Os, added up to each point's time: every point is exact
    records = parse_hist_log(logs[HIST_LOG], relayed=False)
    done = {r.time_ms: sum(x.ios for x in records if x.time_ms <= r.time_ms) for r in records}
    assert [p.elapsed_s for p in series] == [0.501, 1.001, 2.752, 4.265]
    for point, (written, _) in list(zip(series, axis, strict=True))[:-1]:
        assert written == pytest.approx(done[round(point.elapsed_s * 1000)] * MiB, rel=1e-12)
    # the window across the first pause is its bytes over its whole length
    assert series[2].bw_bytes_per_s == pytest.approx(2 * MiB / 1.751)
    # the last I/O is in no line (fio writes none for the I/Os after the last one closed):
    # fio's own count ends the series at the write's runtime, 4,265 ms
    assert _write()["runtime"] == 4265
    assert axis[-1][0] == pytest.approx(_written(), rel=1e-12)
    alone = bytes_series(_step(hist_write_series(logs, 500)))
    assert alone[-1][0] == pytest.approx(_written() - MiB, rel=1e-12)


def test_the_catch_up_lines_after_a_stall_join_the_next_point() -> None:
    times = [r.time_ms for r in parse_hist_log(_logs()[HIST_LOG], relayed=False)]
    # fio closes an interval at each of the completions just after a pause, 1 ms apart
    assert times == [501, 1001, 2752, 2753, 2754, 4261, 4262, 4263]
    ends = [0.0, *(p.elapsed_s for p in hist_write_series(_logs(), 500, _total()))]
    assert min(b - a for a, b in pairwise(ends)) >= 0.25


def test_no_series_without_one_histogram_log_of_writes() -> None:
    logs = _logs()
    assert hist_write_series({BW_LOG: logs[BW_LOG]}, 500) == ()
    two = {HIST_LOG: logs[HIST_LOG], "write-stall_clat_hist.2.log": logs[HIST_LOG]}
    assert hist_write_series(two, 500) == ()


def test_a_write_shorter_than_an_interval_is_one_window_of_fios_own_count() -> None:
    # fio opens the log and writes no line when no interval closed (iolog.c flush_log with
    # no samples): the write's bytes and runtime from its JSON are the one point
    (point,) = hist_write_series({HIST_LOG: ""}, 500, (MiB, 0.3))
    assert point.elapsed_s == pytest.approx(0.3)
    assert point.bw_bytes_per_s == pytest.approx(MiB / 0.3)
    assert point.iops is None
    assert hist_write_series({HIST_LOG: ""}, 500) == ()
