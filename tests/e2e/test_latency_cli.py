"""`ssdlab latency` on real fio logs, and `ssdlab import job.json --logs` of a real tiny fio run
whose report shows the logs' percentiles, histogram and time series."""

import json
import sqlite3
import subprocess
from pathlib import Path

from ssdlab.report.latency import latency_log_data
from ssdlab.runner.latency_logs import reduce_latency_logs
from tests.conftest import HANG_S, ROOT, needs_fio
from tests.e2e.conftest import run_ssdlab

LOGS = ROOT / "tests" / "data" / "fio" / "logs"
PER_IO = LOGS / "per-io"
PCT_KEYS = ["50", "90", "95", "99", "99.9", "99.99", "99.999", "99.9999"]


def test_latency_json_has_the_documented_keys_and_the_reference_numbers() -> None:
    logs = [str(PER_IO / "job_clat.1.log"), str(PER_IO / "job_clat.2.log")]
    done = run_ssdlab("latency", *logs, "--json")
    assert done.code == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["files"] == logs
    assert (got["kind"], got["values"]) == ("clat", "per-io")
    assert got["core"] in ("compiled", "python")
    assert set(got["directions"]) == {"read", "write"}
    for found in got["directions"].values():
        assert list(found["percentiles_ns"]) == PCT_KEYS
        assert {"count", "mean_ns", "series", "histogram"} <= set(found)
        assert found["series"][0].keys() == {"elapsed_s", "ios", "mean_ns", "p99_ns"}
    reference = latency_log_data(reduce_latency_logs([Path(p) for p in logs], "python"))
    assert got["directions"] == json.loads(json.dumps(reference["directions"]))


def test_latency_prints_a_table_in_human_units() -> None:
    done = run_ssdlab("latency", str(PER_IO / "job_lat.*.log"))  # a quoted glob is expanded
    assert done.code == 0, done.stderr
    assert "p99.9999" in done.stdout
    assert "µs" in done.stdout
    assert "read latency histogram" in done.stdout
    assert "█" in done.stdout
    assert "job_lat.2.log" in done.stdout


def test_averaged_logs_are_labelled_and_other_logs_refused() -> None:
    avg = run_ssdlab("latency", str(LOGS / "avg" / "avg_lat.1.log"), "--json")
    assert avg.code == 0, avg.stderr
    doc = json.loads(avg.stdout)
    assert doc["values"] == "averaged"
    assert "not latency percentiles" in doc["note"]
    shown = run_ssdlab("latency", str(LOGS / "avg" / "avg_lat.1.log"))
    assert "percentiles of means" in shown.stdout
    bw = run_ssdlab("latency", str(LOGS / "avg" / "avg_bw.1.log"))
    assert bw.code != 0
    assert "not a latency log" in bw.stderr
    assert "Traceback" not in bw.stderr
    missing = run_ssdlab("latency", str(PER_IO / "nothing_*.log"))
    assert missing.code != 0
    assert "matches no file" in missing.stderr


def _tiny_fio_job(folder: Path) -> Path:
    subprocess.run(
        [
            "fio", "--name=tiny", f"--filename={folder / 'data.bin'}", "--size=4m",
            "--rw=randrw", "--bs=4k", "--rate_iops=200,100", "--time_based", "--runtime=1",
            "--write_lat_log=tiny", "--write_bw_log=tiny", "--write_iops_log=tiny",
            "--output-format=json", "--output=job.json",
        ],
        cwd=folder, check=True, capture_output=True, timeout=HANG_S,
    )  # fmt: skip
    return folder / "job.json"


@needs_fio
def test_import_with_logs_stores_them_and_reports_their_latency(tmp_path: Path) -> None:
    job = _tiny_fio_job(tmp_path)
    db = str(tmp_path / "db")
    done = run_ssdlab("import", str(job), "--logs", str(tmp_path / "tiny_*.log"), "--db", db)
    assert done.code == 0, done.stderr
    assert "log(s)" in done.stdout
    with sqlite3.connect(db) as conn:
        names = {n for (n,) in conn.execute("SELECT name FROM capture_files")}
    assert {"logs/tiny_lat.1.log", "logs/tiny_clat.1.log", "logs/tiny_bw.1.log"} <= names
    shown = json.loads(run_ssdlab("show", "1", "--json", "--db", db).stdout)
    lat = shown["latency_logs"]["lat"]
    assert lat["directions"]["read"]["count"] > 0
    assert list(lat["directions"]["read"]["percentiles_ns"]) == PCT_KEYS
    reference = latency_log_data(reduce_latency_logs([tmp_path / "tiny_lat.1.log"], "python"))
    assert (
        lat["directions"]["read"]["percentiles_ns"]
        == reference["directions"]["read"]["percentiles_ns"]
    )
    report = tmp_path / "x.html"
    assert run_ssdlab("report", "1", "-o", str(report), "--db", db).code == 0
    html = report.read_text()
    for section in ("LAT latency percentiles", "LAT latency histogram", "LAT latency per second"):
        assert section in html, section
    assert "latency-log-lat-percentiles" in html


@needs_fio
def test_import_refuses_a_log_of_another_job_and_an_empty_glob(tmp_path: Path) -> None:
    job = _tiny_fio_job(tmp_path)
    db = str(tmp_path / "db")
    other = run_ssdlab("import", str(job), "--logs", str(PER_IO / "job_lat.1.log"), "--db", db)
    assert other.code != 0
    assert "not of a job in this fio JSON" in other.stderr
    assert len(other.stderr.strip().splitlines()[-1]) > 0
    empty = run_ssdlab("import", str(job), "--logs", str(tmp_path / "nope_*.log"), "--db", db)
    assert empty.code != 0
    assert "matches no file" in empty.stderr
    broken = tmp_path / "tiny_lat.1.log"
    broken.write_text("0, 100, 0, 4096, 0\nnot a line\n")
    bad = run_ssdlab("import", str(job), "--logs", str(broken), "--db", db)
    assert bad.code != 0
    assert "tiny_lat.1.log: line 2" in bad.stderr
    assert "Traceback" not in bad.stderr
    if Path(db).exists():  # nothing was stored by the refused imports
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
