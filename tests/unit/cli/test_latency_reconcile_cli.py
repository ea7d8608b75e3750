"""`ssdlab latency LOG… --c3-before F --c3-after F` from the command line: the reconciliation's
JSON for a per-I/O log written here with chosen latencies and C3h pages composed at nvme-cli's
offsets (tests/ocp_pages.py), read as nvme-cli's JSON and as the raw page; a real fio per-I/O log
(tests/data/fio/logs/per-io, made by the job.fio there); refusals in one line."""

import json
from pathlib import Path

import pytest

from ssdlab.cli.main import main
from tests.ocp_pages import C0_PAGES, c3_json, compose_c3_counts

PER_IO = Path(__file__).resolve().parents[2] / "data" / "fio" / "logs" / "per-io"
MS = 1_000_000


def _write_pair(
    tmp_path: Path,
    deltas: dict[tuple[int, str], int],
    as_json: bool,
    before_timer: int = 12,
    timer: int = 12,
) -> tuple[Path, Path]:
    pages = (
        compose_c3_counts(timer=before_timer, thresholds=(0, 1, 3, 9)),
        compose_c3_counts(deltas, timer=timer, thresholds=(0, 1, 3, 9)),
    )
    paths = []
    for name, page in zip(("before", "after"), pages, strict=True):
        path = tmp_path / f"c3-{name}.{'json' if as_json else 'bin'}"
        if as_json:
            path.write_text(json.dumps(c3_json(page)))
        else:
            path.write_bytes(page)
        paths.append(path)
    return paths[0], paths[1]


def _synthetic_log(tmp_path: Path) -> Path:
    """Reads: 3 below A, 2 in [A, B), 1 in [C, D), 2 at or above D (5, 10, 20, 50 ms)."""
    latencies = [1 * MS, 2 * MS, 4 * MS, 6 * MS, 9 * MS, 30 * MS, 55 * MS, 70 * MS]
    path = tmp_path / "syn_lat.1.log"
    path.write_text("".join(f"{i}, {ns}, 0, 4096, 0\n" for i, ns in enumerate(latencies)))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The exit code, the output, and the error (a usage line and the one line that says)."""
    code = main(["latency", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("as_json", [True, False])
def test_the_json_reconciles_each_bucket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, as_json: bool
) -> None:
    before, after = _write_pair(tmp_path, {(0, "read"): 2, (2, "read"): 2}, as_json, timer=13)
    log = _synthetic_log(tmp_path)
    code, out, _ = _run(capsys, str(log), "--c3-before", str(before), "--c3-after", str(after),
                        "--json")  # fmt: skip
    assert code == 0
    found = json.loads(out)["reconciliation"]
    assert found["conclusive"] is True
    assert found["thresholds_ms"] == {"A": 5.0, "B": 10.0, "C": 20.0, "D": 50.0}
    assert found["host_latency"] == "lat"
    reads = found["operations"]["read"]
    assert (reads["host_ios"], reads["host_below_threshold_a"]) == (8, 3)
    # >= D: host 2, device 0; >= C: 3, 2; >= B: 3, 2; >= A: 5, 4
    assert [
        (b["host_ios"], b["device_commands"], b["matched"], b["host_only"], b["device_only"])
        for b in reads["buckets"]
    ] == [(2, 2, 4, 1, 0), (0, 0, 2, 1, 0), (1, 2, 2, 1, 0), (2, 0, 0, 2, 0)]
    assert list(found["operations"]) == ["read"]


def test_a_real_fio_log_stays_below_threshold_a(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The job's 500 I/Os on a file all completed in under 5 ms (its slowest read 4.29 ms), so
    none is above threshold A; the two reads the drive counted there were other I/O."""
    before, after = _write_pair(tmp_path, {(0, "read"): 2}, as_json=False)
    logs = sorted(PER_IO.glob("job_lat.*.log"))
    lines = [line.split(",") for log in logs for line in log.read_text().splitlines()]
    reads = sum(1 for fields in lines if int(fields[2]) == 0)
    writes = len(lines) - reads
    assert max(int(fields[1]) for fields in lines) < 5 * MS
    code, out, _ = _run(capsys, *map(str, logs), "--c3-before", str(before), "--c3-after",
                        str(after), "--json")  # fmt: skip
    assert code == 0
    found = json.loads(out)["reconciliation"]["operations"]
    assert (found["read"]["host_ios"], found["read"]["host_below_threshold_a"]) == (reads, reads)
    assert (found["write"]["host_ios"], found["write"]["host_below_threshold_a"]) == (
        writes,
        writes,
    )
    assert [b["device_only"] for b in found["read"]["buckets"]] == [2, 0, 0, 0]
    assert {b["matched"] for b in found["read"]["buckets"]} == {0}


def test_the_terminal_shows_the_table_and_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _write_pair(tmp_path, {(3, "read"): 1}, as_json=True)
    log = _synthetic_log(tmp_path)
    code, out, _ = _run(capsys, str(log), "--c3-before", str(before), "--c3-after", str(after))
    assert code == 0
    assert "OCP latency monitor (C3h) against the host log" in out
    assert "host-only" in out
    assert "conclusive" in out


def test_a_restarted_window_is_inconclusive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _write_pair(tmp_path, {}, as_json=True, before_timer=20, timer=2)
    log = _synthetic_log(tmp_path)
    code, out, _ = _run(capsys, str(log), "--c3-before", str(before), "--c3-after", str(after),
                        "--json")  # fmt: skip
    found = json.loads(out)["reconciliation"]
    assert code == 0
    assert found["conclusive"] is False
    assert found["reason"] == (
        "the Active Bucket Timer went back (6000 s to 600 s): the active counters restarted "
        "during the run"
    )
    assert {b["matched"] for b in found["operations"]["read"]["buckets"]} == {None}


def test_a_c0_page_for_c3_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, after = _write_pair(tmp_path, {}, as_json=False)
    log = _synthetic_log(tmp_path)
    code, _, err = _run(capsys, str(log), "--c3-before", str(C0_PAGES[1]), "--c3-after",
                        str(after))  # fmt: skip
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"ssdlab: error: {C0_PAGES[1]} is not an OCP Latency Monitor log (C3h): save one with "
        "'nvme ocp latency-monitor-log /dev/nvme0 -o json > FILE'"
    )


def test_pages_of_two_versions_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, _ = _write_pair(tmp_path, {}, as_json=False)
    after = tmp_path / "v3.bin"
    after.write_bytes(compose_c3_counts(thresholds=(0, 1, 3, 9), version=3))
    code, _, err = _run(capsys, str(_synthetic_log(tmp_path)), "--c3-before", str(before),
                        "--c3-after", str(after))  # fmt: skip
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"ssdlab: error: {before}, {after}: the C3h pages are of log page versions 4 and 3 "
        "(firmware changed?): read both around one run"
    )


def test_one_read_alone_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, _ = _write_pair(tmp_path, {}, as_json=True)
    code, _, err = _run(capsys, str(_synthetic_log(tmp_path)), "--c3-before", str(before))
    assert code == 2
    assert "give both C3h reads: ssdlab latency LOG… --c3-before" in err


@pytest.mark.parametrize(
    ("log", "says"),
    [
        (
            PER_IO.parent / "avg" / "avg_lat.1.log",
            "the logs hold window means (log_avg_msec), not one latency per I/O",
        ),
        (
            PER_IO / "job_slat.1.log",
            "a submission latency (slat) log does not hold the command's latency",
        ),
    ],
)
def test_logs_without_each_ios_latency_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], log: Path, says: str
) -> None:
    before, after = _write_pair(tmp_path, {}, as_json=True)
    code, _, err = _run(capsys, str(log), "--c3-before", str(before), "--c3-after", str(after))
    assert code == 2
    assert says in err.strip().splitlines()[-1]
