"""`ssdlab metrics` on stores the CLI made from real SMART captures, replayed wear logs and a
real quick run, and on a store of many kinds of runs (tests/unit/app/metrics_stores.py); every
output checked by Prometheus' own `promtool check metrics`."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ssdlab.analysis.wear import analyse_series
from ssdlab.app.metrics import MetricsRequest, store_metrics
from ssdlab.cli import metrics as metrics_cli
from ssdlab.cli.main import main
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding
from ssdlab.system.health_replay import HealthReplay
from tests.conftest import ROOT, load_json_object, needs_fio, shared_smart_sample
from tests.e2e.conftest import FAST, run_ssdlab
from tests.replay_logs import wear_series, write_log
from tests.unit.app.metrics_stores import varied_store

# promtool's lint asks for seconds; the dashboard and alert rules read days to end of life
ALLOWED_LINT: set[str] = set()
Samples = dict[str, list[tuple[dict[str, str], float]]]


def promtool_check(text: str) -> None:
    """Prometheus' own check of a text exposition: it parses, and lints clean but for the
    naming choice above."""
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian package prometheus)")
    done = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True, check=False
    )
    problems = {line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()}
    assert done.returncode in (0, 3), problems  # 3: lint findings only
    assert problems <= ALLOWED_LINT, problems


def metrics(db: Path, *extra: str) -> str:
    result = run_ssdlab("metrics", "--db", str(db), *extra)
    assert result.code == 0, result.stderr
    promtool_check(result.stdout)
    return result.stdout


def samples_of(text: str) -> Samples:
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def only(samples: Samples, name: str) -> float:
    assert len(samples.get(name, [])) == 1, (name, samples.get(name))
    return samples[name][0][1]


def health(db: Path, *args: str) -> None:
    result = run_ssdlab("health", *args, "--db", str(db))
    assert result.code == 0, result.stderr


NVME_CAPTURES = [
    "crucial-p2-CT250P2SSD8-nvme.json",
    "samsung-pm9a1-MZVL21T0HCLR-nvme.json",
    "intel-p4510-SSDPE2KX020T8-nvme.json",
    "samsung-970evo-500GB-nvme-x.json",
]


@pytest.mark.parametrize("name", NVME_CAPTURES)
def test_nvme_capture_figures_are_the_captures_own(tmp_path: Path, name: str) -> None:
    path = shared_smart_sample(name)
    doc = load_json_object(path)
    log = doc["nvme_smart_health_information_log"]
    db = tmp_path / "db"
    health(db, str(path))
    found = samples_of(metrics(db))
    (labels, _), *_ = found["ssdlab_drive_info"]
    assert labels["model"] == doc["model_name"]
    assert labels["serial"] == doc["serial_number"]
    assert labels["firmware"] == doc["firmware_version"]
    assert labels["host"] == ""  # a saved file: the drive is not one of this machine's
    assert only(found, "ssdlab_drive_temperature_celsius") == doc["temperature"]["current"]
    assert only(found, "ssdlab_drive_wear_used_ratio") == pytest.approx(
        log["percentage_used"] / 100
    )
    assert only(found, "ssdlab_drive_available_spare_ratio") == pytest.approx(
        log["available_spare"] / 100
    )
    assert only(found, "ssdlab_drive_power_on_seconds") == log["power_on_hours"] * 3600
    assert only(found, "ssdlab_drive_host_written_bytes_total") == log["data_units_written"] * (
        512000
    )
    assert only(found, "ssdlab_drive_media_errors_total") == log["media_errors"]
    assert only(found, "ssdlab_drive_critical_warning") == log["critical_warning"]
    assert only(found, "ssdlab_drive_sample_timestamp_seconds") == doc["local_time"]["time_t"]
    # one sample: no series, so no wear rate, no recent WAF and no end of life — absent, not 0
    for absent in ("ssdlab_drive_wear_rate_ratio_per_day", "ssdlab_drive_end_of_life_seconds"):
        assert absent not in found
    assert all(labels["window"] != "recent" for labels, _ in found.get(
        "ssdlab_drive_write_amplification", []
    ))  # fmt: skip


def test_sata_capture_and_project_data_side_by_side(tmp_path: Path) -> None:
    sata = shared_smart_sample("samsung-860evo-500GB-sata-x.json")
    doc = load_json_object(sata)
    db = tmp_path / "db"
    health(db, str(sata))
    health(db, str(ROOT / "tests" / "data" / "smart" / "nvme-cli-2.x-smart-log.json"))
    found = samples_of(metrics(db))
    assert len(found["ssdlab_drive_info"]) == 2
    by_model = {
        labels["model"]: value for labels, value in found["ssdlab_drive_temperature_celsius"]
    }
    assert by_model[doc["model_name"]] == doc["temperature"]["current"]
    attributes = {a["id"]: a for a in doc["ata_smart_attributes"]["table"]}
    wear = {labels["model"]: value for labels, value in found["ssdlab_drive_wear_used_ratio"]}
    # Samsung's Wear_Leveling_Count (177): normalised value counts down from 100
    assert wear[doc["model_name"]] == pytest.approx((100 - attributes[177]["value"]) / 100)
    # a SATA drive has no NVMe critical warning: absent for it, present (0) for the NVMe one
    warning_models = {labels["model"] for labels, _ in found["ssdlab_drive_critical_warning"]}
    assert doc["model_name"] not in warning_models
    assert len(warning_models) == 1


def test_replayed_wear_log_gives_waf_wear_rate_and_end_of_life(tmp_path: Path) -> None:
    log = write_log(tmp_path / "wear.log", wear_series(8, waf=3.0))
    db = tmp_path / "db"
    health(db, "--import", str(log))
    found = samples_of(metrics(db))
    waf = {labels["window"]: v for labels, v in found["ssdlab_drive_write_amplification"]}
    assert waf["recent"] == pytest.approx(3.0, rel=1e-6)
    assert "to_date" in waf  # the drive's whole history: NAND / host totals
    # one point of wear an hour: 24 % a day
    assert only(found, "ssdlab_drive_wear_rate_ratio_per_day") == pytest.approx(0.24)
    replay = HealthReplay(str(log))
    samples = [s for s in (replay().sample for _ in range(8)) if s is not None]
    offline = analyse_series(samples)
    assert only(found, "ssdlab_drive_end_of_life_seconds") == pytest.approx(
        offline.projection.days_to_eol * 86400
    )
    assert offline.wear_fit.quantisation_error_pct is not None
    assert only(found, "ssdlab_drive_end_of_life_error_ratio") == pytest.approx(
        offline.wear_fit.quantisation_error_pct / 100
    )
    assert only(found, "ssdlab_drive_wear_used_ratio") == pytest.approx(0.12)
    assert only(found, "ssdlab_drive_temperature_celsius") == 35
    assert only(found, "ssdlab_drive_uncorrectable_errors_total") == 0


def _quick(tmp_path: Path, db: Path, *extra: str) -> int:
    result = run_ssdlab("quick", str(tmp_path), *FAST, *extra, "--json", "--db", str(db))
    assert result.code == 0, result.stderr
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT max(id) FROM runs WHERE profile = 'quick'").fetchone()
    return int(run_id)


@needs_fio
def test_quick_run_gives_benchmark_metrics_and_baseline_regressions(tmp_path: Path) -> None:
    db = tmp_path / "store" / "db"
    db.parent.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    # an earlier run of the read tests (5 fio runs, not 13): for them too, the latest run is
    # the one exported
    _quick(work, db, "--mode", "read")
    run_id = _quick(work, db)  # the latest run is the one exported
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT step_key, bw_bytes_per_s, iops FROM step_results"
            " WHERE run_id = ? AND discarded = 0",
            (run_id,),
        ).fetchall()
        (ended_at_s,) = conn.execute(
            "SELECT ended_at_s FROM runs WHERE id = ?", (run_id,)
        ).fetchone()
    found = samples_of(metrics(db))
    throughput = {
        labels["test"]: v for labels, v in found["ssdlab_benchmark_throughput_bytes_per_second"]
    }
    assert throughput == pytest.approx({key: bw for key, bw, _ in rows})
    iops = {labels["test"]: v for labels, v in found["ssdlab_benchmark_iops"]}
    assert iops == pytest.approx({key: value for key, _, value in rows})
    latency = {labels["test"]: v for labels, v in found["ssdlab_benchmark_latency_mean_seconds"]}
    assert all(0 < v < 10 for v in latency.values())
    p99 = {labels["test"]: v for labels, v in found["ssdlab_benchmark_latency_p99_seconds"]}
    assert set(p99) == {key for key in throughput if not key.endswith("-mix")}
    stamps = [v for _, v in found["ssdlab_benchmark_timestamp_seconds"]]
    assert len(stamps) == len(throughput)
    assert all(v == pytest.approx(ended_at_s) for v in stamps)
    assert "ssdlab_benchmark_regression" not in found  # not judged against a baseline
    # a baseline judgement stored on the run reaches the regression flag
    keys = sorted(throughput)
    body = {
        "name": "nightly",
        "reference_run_ids": [run_id - 1],
        "tests": [
            {"key": keys[0], "verdict": "worse", "change_pct": -12.0, "p_value": 0.001,
             "regression": True},
            {"key": keys[1], "verdict": "not significant", "change_pct": -1.0, "p_value": 0.4,
             "regression": False},
        ],
    }  # fmt: skip
    with sqlite3.connect(db) as conn:
        add_finding(conn, run_id, "baseline", "verdict", body, time.time())
    found = samples_of(metrics(db))
    flags = {
        (labels["test"], labels["baseline"]): v
        for labels, v in found["ssdlab_benchmark_regression"]
    }
    assert flags == {(keys[0], "nightly"): 1.0, (keys[1], "nightly"): 0.0}


@needs_fio
def test_endurance_run_progress(tmp_path: Path) -> None:
    log = write_log(tmp_path / "wear.log", wear_series(8))
    db = tmp_path / "db"
    result = run_ssdlab(
        "endure", str(tmp_path / "e.dat"), "--size", "8MiB", "--iodepth", "4",
        "--log-interval", "0.1", "--health-every", "0.1", "--iteration-time", "0.4",
        "--until-wear", "3", "--for", "60", "--health-replay", str(log), "--json",
        "--db", str(db),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    found = samples_of(metrics(db))
    ((labels, progress),) = found["ssdlab_endurance_progress_ratio"]
    assert progress == 1.0  # stopped: --until-wear reached
    assert labels["run"] == str(doc["run"]["id"])
    assert labels["model"] == "CT1000MX500SSD1"
    written = only(found, "ssdlab_endurance_written_bytes_total")
    assert written == doc["result"]["status"]["written_bytes"]


def test_textfile_is_written_atomically_and_replaced(tmp_path: Path) -> None:
    db = tmp_path / "db"
    health(db, str(ROOT / "tests" / "data" / "smart" / "nvme-cli-2.x-smart-log.json"))
    folder = tmp_path / "textfile"
    folder.mkdir()
    first = run_ssdlab("metrics", "--db", str(db), "--textfile", str(folder))
    assert first.code == 0, first.stderr
    prom = folder / "ssdlab.prom"
    assert os.listdir(folder) == ["ssdlab.prom"]  # no temporary file left behind
    text = prom.read_text(encoding="utf-8")
    promtool_check(text)
    assert text == metrics(db)
    inode = prom.stat().st_ino
    health(db, str(shared_smart_sample("crucial-p2-CT250P2SSD8-nvme.json")))
    second = run_ssdlab("metrics", "--db", str(db), "--textfile", str(folder))
    assert second.code == 0, second.stderr
    assert os.listdir(folder) == ["ssdlab.prom"]
    assert prom.stat().st_ino != inode  # a new file renamed over the old one
    assert len(samples_of(prom.read_text(encoding="utf-8"))["ssdlab_drive_info"]) == 2


def test_textfile_refuses_a_missing_folder_and_a_device(tmp_path: Path) -> None:
    db = tmp_path / "db"
    missing = run_ssdlab("metrics", "--db", str(db), "--textfile", str(tmp_path / "nope"))
    assert missing.code != 0
    assert "no such folder" in missing.stderr
    device = run_ssdlab("metrics", "--db", str(db), "--textfile", "/dev/null")
    assert device.code != 0
    assert not (tmp_path / "nope").exists()


def test_an_empty_store_describes_every_family_without_samples(tmp_path: Path) -> None:
    text = metrics(tmp_path / "db")
    assert "# TYPE ssdlab_drive_temperature_celsius gauge" in text
    assert samples_of(text) == {}


@pytest.mark.parametrize(("what", "name"), [("rules", "ssdlab-alerts.yml"),
                                            ("dashboard", "ssdlab-dashboard.json")])  # fmt: skip
def test_shipped_files_are_printed_as_they_are(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    what: str,
    name: str,
) -> None:
    package = tmp_path / "placeholder_monitoring"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / name).write_text(f"placeholder {what}: ünïcode\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(metrics_cli, "MONITORING_PACKAGE", "placeholder_monitoring")
    assert main(["metrics", what, "--db", str(tmp_path / "db")]) == 0
    assert capsys.readouterr().out == f"placeholder {what}: ünïcode\n"
    sys.modules.pop("placeholder_monitoring", None)


@pytest.mark.parametrize(("what", "name"), [("rules", "ssdlab-alerts.yml"),
                                            ("dashboard", "ssdlab-dashboard.json")])  # fmt: skip
def test_the_shipped_files_of_this_ssdlab(tmp_path: Path, what: str, name: str) -> None:
    shipped = ROOT / "src" / "ssdlab" / "monitoring" / name
    if not shipped.exists():
        pytest.skip(f"{shipped} is not there yet")
    result = run_ssdlab("metrics", what, "--db", str(tmp_path / "db"))
    assert result.code == 0, result.stderr
    assert result.stdout == shipped.read_text(encoding="utf-8")


def test_textfile_with_rules_is_a_usage_error(tmp_path: Path) -> None:
    result = run_ssdlab(
        "metrics", "rules", "--textfile", str(tmp_path), "--db", str(tmp_path / "db")
    )
    assert result.code == 2
    assert "--textfile" in result.stderr


def test_the_command_prints_and_writes_what_the_exporter_gives(tmp_path: Path) -> None:
    store = varied_store(tmp_path)
    printed = metrics(store.path)
    folder = tmp_path / "textfile"
    folder.mkdir()
    written = run_ssdlab("metrics", "--db", str(store.path), "--textfile", str(folder))
    assert written.code == 0, written.stderr
    conn = open_store(store.path)
    expected = store_metrics(conn, MetricsRequest(time.time()))
    assert printed == expected
    assert (folder / "ssdlab.prom").read_text(encoding="utf-8") == expected
    found = samples_of(printed)
    assert len(found["ssdlab_drive_info"]) == 11
    assert {labels["host"] for labels, _ in found["ssdlab_drive_info"]} == {
        "", "lab-central", "lab-7", "lab-8", "lab-9"
    }  # fmt: skip
