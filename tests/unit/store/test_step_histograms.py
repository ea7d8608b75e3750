"""A quick step's per-second latency histograms (schema 10): parsed from fio's histogram logs,
stored with the step, read back checked, and merged over drives into the histogram of all
their I/Os together — checked against the histogram of the latencies themselves."""

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from ssdlab.analysis.latency_stream import bucket_of
from ssdlab.analysis.merged_latency import (
    PERCENTILES,
    merge_records,
    merged_latency,
    percentile_of,
    stored_records,
)
from ssdlab.errors import ParseError, StoreError
from ssdlab.model.fio_buckets import FIO_PLAT_BITS, FIO_PLAT_BUCKETS
from ssdlab.model.step_histogram import SecondHistogram
from ssdlab.parse.fio_hist_log import is_hist_log, second_histograms
from ssdlab.store.captures import add_capture
from ssdlab.store.db import open_store
from ssdlab.store.step_histograms import run_step_histograms
from ssdlab.store.steps import add_step_result, delete_step_results
from tests.unit.store.test_store import FIO_CAPTURE, measured_step, new_run


def _counts(latencies_ns: list[int]) -> np.ndarray:
    buckets = [min(bucket_of(v, FIO_PLAT_BITS), FIO_PLAT_BUCKETS - 1) for v in latencies_ns]
    return np.bincount(np.array(buckets, dtype=np.int64), minlength=FIO_PLAT_BUCKETS)


def _line(time_ms: int, ddir: int, latencies_ns: list[int]) -> str:
    """A line of fio 3.33's histogram log (time, ddir, bs, 1,856 counts; fio puts spaces)."""
    return ", ".join(str(v) for v in (time_ms, ddir, 4096, *_counts(latencies_ns).tolist()))


def _latencies(seed: int, n: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.lognormal(mean=11.0, sigma=1.2, size=n)]


# two drives, two seconds each of reads, one second of writes on the first
DRIVE_A = {(0, 1): _latencies(1, 3000), (0, 2): _latencies(2, 2500), (1, 1): _latencies(3, 400)}
DRIVE_B = {(0, 1): _latencies(4, 1800), (0, 2): _latencies(5, 900)}


def _log(drive: dict[tuple[int, int], list[int]]) -> dict[str, str]:
    """The drive's I/Os split over two jobs' logs (numjobs=2), a lat log beside them."""
    job1 = [_line(s * 1000 + 3, d, v[::2]) for (d, s), v in drive.items()]
    job2 = [_line(s * 1000 + 7, d, v[1::2]) for (d, s), v in drive.items()]
    return {
        "t-p1_clat_hist.1.log": "\n".join(job1) + "\n",
        "t-p1_clat_hist.2.log": "\n".join(job2) + "\n",
        "t-p1_lat.1.log": "1000, 500, 0, 4096, 0\n",
    }


def _stored(conn: sqlite3.Connection, drive: dict[tuple[int, int], list[int]]) -> int:
    """A run whose one measured step logged `drive`'s I/Os; its logs kept raw as the runner
    keeps them, the histograms parsed from them stored with the step."""
    run_id = new_run(conn)
    logs = _log(drive)
    capture_id = add_capture(conn, run_id, FIO_CAPTURE, logs)
    add_step_result(conn, run_id, measured_step(capture_id), second_histograms(logs))
    return run_id


def test_only_histogram_logs_are_read_and_jobs_add_per_second() -> None:
    assert is_hist_log("t-p1_clat_hist.2.log")
    assert not is_hist_log("t-p1_clat.2.log")
    assert not is_hist_log("t-p1_lat.1.log")
    found = second_histograms(_log(DRIVE_A))
    assert [(h.direction, h.second, h.ios) for h in found] == [
        ("read", 1, 3000),
        ("read", 2, 2500),
        ("write", 1, 400),
    ]
    dense = np.zeros(FIO_PLAT_BUCKETS, dtype=np.int64)
    for bucket, count in found[0].counts:
        dense[bucket] = count
    assert (dense == _counts(DRIVE_A[0, 1])).all()


def test_a_histogram_log_that_is_not_fios_names_its_file() -> None:
    with pytest.raises(ParseError, match=r"x_clat_hist\.1\.log: line 1"):
        second_histograms({"x_clat_hist.1.log": "1000, 0, 4096, 1, 2\n"})


def test_stored_histograms_merged_are_the_histogram_of_all_the_latencies(
    tmp_path: Path,
) -> None:
    conn = open_store(tmp_path / "db")
    runs = [_stored(conn, DRIVE_A), _stored(conn, DRIVE_B)]
    stored = [run_step_histograms(conn, r)[("rnd4k-q1t1-read", 1)] for r in runs]
    merged = merge_records(stored_records(h) for h in stored)
    summary = merged_latency({str(r): stored_records(h) for r, h in zip(runs, stored, strict=True)})
    for ddir, name in ((0, "read"), (1, "write")):
        every = [
            v for d in (DRIVE_A, DRIVE_B) for (dd, _), vs in d.items() if dd == ddir for v in vs
        ]
        truth = _counts(every)
        assert (merged[ddir].total == truth).all()
        assert summary[name].ios == len(every)
        for pct, value in summary[name].percentiles_ns:
            if value is not None:
                assert value == percentile_of(truth, pct, FIO_PLAT_BITS, FIO_PLAT_BUCKETS - 1)
    assert [p for p, v in summary["read"].percentiles_ns if v is not None] == list(PERCENTILES)
    assert {s.second: s.ios for s in summary["read"].seconds} == {1: 3000 + 1800, 2: 2500 + 900}
    assert summary["write"].percentiles_ns[1] == (
        99.0,
        percentile_of(_counts(DRIVE_A[1, 1]), 99.0, FIO_PLAT_BITS, FIO_PLAT_BUCKETS - 1),
    )


def test_a_repeated_round_takes_its_histograms_with_it(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    run_id = _stored(conn, DRIVE_A)
    delete_step_results(conn, run_id, [("rnd4k-q1t1-read", 1)])
    assert run_step_histograms(conn, run_id) == {}
    assert conn.execute("SELECT COUNT(*) FROM step_histograms").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("counts", "ios", "said"),
    [
        ([[1856, 1]], 1, "ascending below 1,856"),
        ([[5, 1], [5, 1]], 2, "ascending"),
        ([[5, 0]], 0, "I/Os are not from 1"),
        ([[5, 2]], 3, "sum of its buckets"),
    ],
)
def test_a_stored_histogram_that_ssdlab_would_not_write_is_a_store_error(
    tmp_path: Path, counts: list[list[int]], ios: int, said: str
) -> None:
    conn = open_store(tmp_path / "db")
    run_id = _stored(conn, DRIVE_B)
    conn.execute(
        "UPDATE step_histograms SET counts_json = ?, ios = ? WHERE second = 1",
        (json.dumps(counts), ios),
    )
    with pytest.raises(StoreError, match=said):
        run_step_histograms(conn, run_id)


def test_a_second_histogram_counts_its_ios() -> None:
    assert SecondHistogram("read", 1, ((3, 5), (9, 2))).ios == 7
