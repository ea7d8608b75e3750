"""parse_interval_logs against real fio 3.33 logs, checked with an independent computation."""

import contextlib
import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.model.result import SeriesPoint
from ssdlab.parse.fio_log import parse_interval_logs
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "fio"
PER_JOB = DATA / "logs-randrw-nj2"
COMBINED = DATA / "logs-randread-nj2-combined"
DIRECTIONS = {0: "read", 1: "write"}


def load(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in directory.glob("*.log")}


def rows(path: Path) -> list[tuple[int, int, int]]:
    """Independent reader: (time_ms, value, ddir) with the csv module."""
    with path.open(newline="") as handle:
        return [(int(r[0]), int(r[1]), int(r[2])) for r in csv.reader(handle) if r]


def by_point(points: tuple[SeriesPoint, ...]) -> dict[tuple[float, str], SeriesPoint]:
    return {(p.elapsed_s, p.direction): p for p in points}


def test_fio_log_names() -> None:
    """What fio 3.33 names the files: one per job and kind, or one per kind with per_job_logs=0."""
    assert sorted(load(PER_JOB)) == [
        f"randrw-nj2_{kind}.{job}.log"
        for kind in ("bw", "clat", "iops", "lat", "slat")
        for job in (1, 2)
    ]
    assert sorted(load(COMBINED)) == [
        f"randread-nj2-combined_{kind}.log" for kind in ("bw", "clat", "iops", "lat", "slat")
    ]


def test_per_job_bw_and_iops_are_sums_over_jobs() -> None:
    points = by_point(parse_interval_logs(load(PER_JOB), interval_ms=1000))
    for kind in ("bw", "iops"):
        expected: dict[tuple[float, str], float] = defaultdict(float)
        for job in (1, 2):
            for time_ms, value, ddir in rows(PER_JOB / f"randrw-nj2_{kind}.{job}.log"):
                expected[round(time_ms / 1000) * 1.0, DIRECTIONS[ddir]] += value
        assert len(expected) == 4  # 2 seconds x read/write: fio logs no bw for the 3rd second
        for key, total in expected.items():
            if kind == "bw":
                assert points[key].bw_bytes_per_s == total * 1024  # KiB/s -> B/s
            else:
                assert points[key].iops == total


def test_per_job_lat_is_iops_weighted_mean() -> None:
    points = by_point(parse_interval_logs(load(PER_JOB), interval_ms=1000))
    lat = {job: rows(PER_JOB / f"randrw-nj2_lat.{job}.log") for job in (1, 2)}
    iops = {job: rows(PER_JOB / f"randrw-nj2_iops.{job}.log") for job in (1, 2)}
    for second in (1, 2):
        for ddir, direction in DIRECTIONS.items():
            values, weights = [], []
            for job in (1, 2):
                values.append(
                    next(v for t, v, d in lat[job] if round(t / 1000) == second and d == ddir)
                )
                weights.append(
                    next(v for t, v, d in iops[job] if round(t / 1000) == second and d == ddir)
                )
            expected = float(np.average(values, weights=weights))
            assert points[float(second), direction].lat_mean_ns == pytest.approx(
                expected, rel=1e-12
            )


def test_last_second_has_latency_but_no_bandwidth() -> None:
    """fio logs no bw/iops for the last second, and two lat records per job at 3000 ms: the
    full window, then the drain of the I/O still in flight. The first one counts."""
    points = by_point(parse_interval_logs(load(PER_JOB), interval_ms=1000))
    for ddir, direction in DIRECTIONS.items():
        point = points[3.0, direction]
        assert point.bw_bytes_per_s is None
        assert point.iops is None
        firsts = []
        for job in (1, 2):
            at_3s = [
                v
                for t, v, d in rows(PER_JOB / f"randrw-nj2_lat.{job}.log")
                if t == 3000 and d == ddir
            ]
            assert len(at_3s) == 2
            firsts.append(at_3s[0])
        assert point.lat_mean_ns == pytest.approx(np.mean(firsts))


def test_combined_file_sums_jobs_and_refuses_partial_totals() -> None:
    points = by_point(parse_interval_logs(load(COMBINED), interval_ms=1000))
    bw_rows = rows(COMBINED / "randread-nj2-combined_bw.log")
    for second in (1, 2):
        expected = sum(v for t, v, _d in bw_rows if round(t / 1000) == second)
        assert points[float(second), "read"].bw_bytes_per_s == expected * 1024
    # only one of the two jobs logged a bw record for the 3rd second: a partial sum is unknown
    assert [t for t, _v, _d in bw_rows].count(3000) == 1
    assert points[3.0, "read"].bw_bytes_per_s is None
    assert points[3.0, "read"].iops is None
    assert points[3.0, "read"].lat_mean_ns is not None


def test_inferred_interval_matches_explicit() -> None:
    for directory in (PER_JOB, COMBINED):
        assert parse_interval_logs(load(directory)) == parse_interval_logs(load(directory), 1000)


def test_points_sorted_and_at_interval_ends() -> None:
    points = parse_interval_logs(load(PER_JOB))
    assert [(p.elapsed_s, p.direction) for p in points] == [
        (1.0, "read"),
        (1.0, "write"),
        (2.0, "read"),
        (2.0, "write"),
        (3.0, "read"),
        (3.0, "write"),
    ]


def test_log_prio_and_log_offset_columns() -> None:
    # lines as fio 3.33 wrote them with log_prio=1 (hex prio) and with log_offset=1
    logs = {
        "P_lat.1.log": "500, 67093, 0, 0, 0x0000\n1000, 78507, 0, 0, 0x0000\n",
        "Q_lat.2.log": "500, 76495, 0, 0, 0, 0\n1000, 79209, 0, 0, 0, 0\n",
    }
    points = parse_interval_logs(logs)
    assert [(p.elapsed_s, p.lat_mean_ns) for p in points] == [
        (0.5, (67093 + 76495) / 2),
        (1.0, (78507 + 79209) / 2),
    ]


def test_trim_ignored_and_half_rounds_up() -> None:
    logs = {"P_iops.1.log": "1000, 5, 0, 0, 0\n1000, 7, 2, 0, 0\n2500, 9, 1, 0, 0\n"}
    points = parse_interval_logs(logs, interval_ms=1000)
    assert [(p.elapsed_s, p.direction, p.iops) for p in points] == [
        (1.0, "read", 5.0),
        (3.0, "write", 9.0),  # 2.5 -> 3, not banker's rounding to 2
    ]


def test_empty_input() -> None:
    assert parse_interval_logs({}) == ()
    assert parse_interval_logs({"P_slat.1.log": "", "P_bw.1.log": "\n"}) == ()


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("P_bw.1.log", "1000, 5, 0, 0, 0\n2000, x, 0, 0, 0\n", "P_bw.1.log line 2"),
        ("P_bw.1.log", "1000, 5, 0, 0, 0\n\n1000 5 0 0 0\n", "P_bw.1.log line 3"),
        ("P_lat.3.log", "1000, 5, 7, 0, 0\n", "P_lat.3.log line 1"),
        ("P_lat.3.log", "1000, -5, 0, 0, 0\n", "P_lat.3.log line 1"),
        ("P_lat.3.log", "1000, nan, 0, 0, 0\n", "P_lat.3.log line 1"),
        ("P_lat.3.log", "1000, 5, 0, 0, 0, 0, 0, 0\n", "P_lat.3.log line 1"),
        ("P_iops.1.log", "0, 1, 0, 4096, 0\n", "per-I/O log"),
        ("P_clat_hist.1.log", "1000, 0, 4096, 0\n", "P_clat_hist.1.log"),
        ("notes.txt", "", "notes.txt"),
    ],
)
def test_malformed_raises_parse_error_naming_file_and_line(
    name: str, text: str, message: str
) -> None:
    with pytest.raises(ParseError, match=message):
        parse_interval_logs({name: text})


def test_two_logs_for_one_job_is_an_error() -> None:
    with pytest.raises(ParseError, match="job 1"):
        parse_interval_logs({"A_bw.1.log": "1000, 1, 0, 0, 0\n", "B_bw.1.log": ""})


def test_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="interval_ms"):
        parse_interval_logs({}, interval_ms=0)


@given(st.dictionaries(st.text(max_size=20), st.text(max_size=200), max_size=3))
def test_random_text_only_parse_error(logs: dict[str, str]) -> None:
    with contextlib.suppress(ParseError):
        parse_interval_logs(logs)


@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 10**7), st.integers(-2, 2)), min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_sum_over_random_jobs(jobs: list[list[tuple[int, int]]]) -> None:
    """Per-job bw logs with one record per second (jitter ±2 ms): each point is the job sum."""
    seconds = min(len(samples) for samples in jobs)
    logs = {
        f"P_bw.{job}.log": "".join(
            f"{second * 1000 + jitter}, {value}, 0, 0, 0\n"
            for second, (value, jitter) in enumerate(samples[:seconds], start=1)
        )
        for job, samples in enumerate(jobs, start=1)
    }
    points = parse_interval_logs(logs, interval_ms=1000)
    assert [p.elapsed_s for p in points] == [float(s) for s in range(1, seconds + 1)]
    for point in points:
        index = int(point.elapsed_s) - 1
        assert point.bw_bytes_per_s == 1024 * sum(samples[index][0] for samples in jobs)
