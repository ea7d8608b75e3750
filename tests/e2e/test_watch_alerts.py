"""`ssdlab watch` that alerts, through the real command line, on replayed smartctl snapshots
(this VM has no SMART): hooks fire once per rise, failing and hanging hooks never stop the
sampling, a restarted watch does not fire again, --no-wake asks smartctl not to wake the drive,
--textfile writes node_exporter's file and --print-systemd-unit prints units systemd accepts."""

import dataclasses
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ssdlab.store.findings import load_findings
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab
from tests.replay_logs import HOUR_S, wear_series, write_log

FIRST_SNAPSHOT_S = 1714564801.0  # Wed May  1 12:00:01 UTC 2024, the fixture's first snapshot
UNCORRECTABLE = [0, 2, 2, 2, 5, 5, 5, 5]  # rises once, stays, rises again
TEMPERATURE = [35, 40, 61, 62, 50, 63, 40, 40]  # crosses 60, stays, clears, crosses again

RECORDER = """\
import json, pathlib, sys
folder = pathlib.Path(sys.argv[1])
folder.mkdir(exist_ok=True)
document = json.load(sys.stdin)
(folder / f"{len(list(folder.iterdir())):03d}.json").write_text(json.dumps(document))
"""
FAILING = "import sys\nsys.stdin.read()\nsys.stderr.write('pager unreachable')\nsys.exit(1)\n"
HANGING = "import time\ntime.sleep(600)\n"


def replay_log(tmp_path: Path) -> Path:
    snapshots = [
        dataclasses.replace(s, uncorrectable=u, temperature_c=t)
        for s, u, t in zip(wear_series(8), UNCORRECTABLE, TEMPERATURE, strict=True)
    ]
    return write_log(tmp_path / "smart.log", snapshots)


def hook(tmp_path: Path, name: str, body: str, *args: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body, encoding="utf-8")
    return " ".join([sys.executable, str(path), *args])


def watch(tmp_path: Path, log: Path, *extra: str) -> list[str]:
    return ["watch", "--health-replay", str(log), "--every", "0.1s", "--db",
            str(tmp_path / "db"), "--max-temperature", "60", "--min-days-left", "0",
            *extra]  # fmt: skip


def recorded(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def stored_alerts(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs WHERE kind = 'watch'").fetchone()
        return [f.body for f in load_findings(conn, run_id) if f.name.startswith("watch-alert-")
                and f.name != "watch-alert-state"]  # fmt: skip


def test_hooks_fire_once_per_rise_and_failing_hooks_never_stop_sampling(tmp_path: Path) -> None:
    log = replay_log(tmp_path)
    # the hook time limit runs from each hook's start: on a loaded machine the recording hook
    # may not get through in 1 s, so the limit grows until only the hanging hook reaches it
    for limit in ("1s", "8s", "64s"):
        got = tmp_path / f"got-{limit}"
        (tmp_path / "db").unlink(missing_ok=True)
        result = run_ssdlab(
            *watch(tmp_path, log, "--count", "8", "--hook-timeout", limit),
            "--on-alert", hook(tmp_path, "record", RECORDER, str(got)),
            "--on-alert", hook(tmp_path, "fail", FAILING),
            "--on-alert", hook(tmp_path, "hang", HANGING),
        )  # fmt: skip
        if result.stderr.count("time limit") == 4:
            break
    assert result.code == 0, result.stderr
    assert "8 samples stored" in result.stdout  # every sample taken despite the hooks
    alerts = recorded(got)
    assert [(a["alert"], a["value"]) for a in alerts] == [
        ("uncorrectable_errors-increased", 2),
        ("temperature-high", 61),
        ("uncorrectable_errors-increased", 5),
        ("temperature-high", 63),
    ]
    first = alerts[0]
    assert first == {
        "format": "ssdlab-alert",
        "format_version": 1,
        "alert": "uncorrectable_errors-increased",
        "severity": "critical",
        "device": f"replay:{log}",
        "serial": first["serial"],
        "model": "CT1000MX500SSD1",
        "firmware": first["firmware"],
        "host": first["host"],
        "value": 2,
        "previous": 0,
        "message": "uncorrectable errors rose from 0 to 2",
        "taken_at_s": FIRST_SNAPSHOT_S + HOUR_S,  # the replay's time, not the clock's
        "run_id": 1,
    }
    assert all(first[key] for key in ("serial", "firmware", "host"))
    assert alerts[1]["threshold"] == 60
    assert "previous" not in alerts[1]
    assert alerts[2]["previous"] == 2
    assert result.stderr.count("exited with status 1") == 4
    assert result.stderr.count("time limit") == 4
    assert "Traceback" not in result.stderr
    stored = stored_alerts(tmp_path / "db")
    assert [s["alert"]["alert"] for s in stored] == [a["alert"] for a in alerts]
    hooks = stored[0]["hooks"]
    assert hooks[0]["error"] is None
    assert hooks[1]["exit_code"] == 1
    assert "pager unreachable" in hooks[1]["stderr"]
    assert hooks[2]["timed_out"] is True


def test_a_restarted_watch_does_not_fire_again(tmp_path: Path) -> None:
    log = replay_log(tmp_path)
    got = tmp_path / "got"
    recorder = hook(tmp_path, "record", RECORDER, str(got))
    first = run_ssdlab(*watch(tmp_path, log, "--count", "4", "--on-alert", recorder))
    assert first.code == 0, first.stderr
    assert [a["alert"] for a in recorded(got)] == [
        "uncorrectable_errors-increased",
        "temperature-high",
    ]
    again = run_ssdlab(*watch(tmp_path, log, "--count", "10", "--on-alert", recorder))
    assert again.code == 0, again.stderr
    assert "8 samples stored, 2 alert(s) this time" in again.stdout  # the replay went on
    later = recorded(got)[2:]
    assert [(a["alert"], a["value"], a.get("previous")) for a in later] == [
        ("uncorrectable_errors-increased", 5, 2),
        ("temperature-high", 63, None),
    ]
    assert len(stored_alerts(tmp_path / "db")) == 4
    fresh = run_ssdlab(*watch(tmp_path, log, "--count", "2", "--new", "--on-alert", recorder))
    assert fresh.code == 0, fresh.stderr
    assert recorded(got)[4]["alert"] == "uncorrectable_errors-increased"  # a new baseline


def test_textfile_each_sample_and_a_failing_write_does_not_stop(tmp_path: Path) -> None:
    log = replay_log(tmp_path)
    folder = tmp_path / "textfile"
    folder.mkdir()
    result = run_ssdlab(*watch(tmp_path, log, "--count", "2", "--textfile", str(folder)))
    assert result.code == 0, result.stderr
    text = (folder / "ssdlab.prom").read_text()
    assert "ssdlab_" in text
    assert "CT1000MX500SSD1" in text
    missing = tmp_path / "no-such-folder"
    failed = run_ssdlab(*watch(tmp_path, log, "--count", "2", "--textfile", str(missing)))
    assert failed.code == 0, failed.stderr
    assert failed.stderr.count("sampling continues") == 2
    assert "4 samples stored" in failed.stdout
    assert "Traceback" not in failed.stderr


def test_usage_errors_say_what_to_do(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    no_device = run_ssdlab("watch", "--db", db, "--count", "1")
    assert no_device.code == 2
    assert "--health-replay" in no_device.stderr
    bad_hook = run_ssdlab("watch", "--health-replay", str(replay_log(tmp_path)), "--db", db,
                          "--on-alert", "'unclosed")  # fmt: skip
    assert bad_hook.code == 2
    assert "quote" in bad_hook.stderr
    assert "Traceback" not in no_device.stderr + bad_hook.stderr


def test_the_systemd_unit_is_one_long_running_service(tmp_path: Path) -> None:
    db = tmp_path / "db"
    args = ["watch", "--health-replay", str(replay_log(tmp_path)), "--every", "10m",
            "--on-alert", "/usr/local/bin/page 'disk $1 100%'", "--db", str(db)]  # fmt: skip
    unit = run_ssdlab(*args, "--print-systemd-unit")
    assert unit.code == 0, unit.stderr
    assert not db.exists()  # printing the unit runs nothing
    sections = [line for line in unit.stdout.splitlines() if line.startswith("[")]
    assert sections == ["[Unit]", "[Service]", "[Install]"]
    exec_line = next(line for line in unit.stdout.splitlines() if line.startswith("ExecStart="))
    assert "-m ssdlab watch" in exec_line
    assert "--print-systemd-unit" not in exec_line
    assert "\"/usr/local/bin/page 'disk $$1 100%%'\"" in exec_line  # quoted as systemd reads it
    assert "Restart=on-failure" in unit.stdout
    if shutil.which("systemd-analyze"):
        unit_file = tmp_path / "ssdlab-watch.service"
        unit_file.write_text(unit.stdout)
        verified = subprocess.run(["systemd-analyze", "verify", str(unit_file)],
                                  capture_output=True, text=True, check=False)  # fmt: skip
        assert verified.returncode == 0, verified.stderr
    new = run_ssdlab(*args, "--new", "--print-systemd-unit")
    assert new.code == 2
    assert "leave out --new" in new.stderr


@needs_loop
@pytest.mark.loop
def test_no_wake_asks_smartctl_not_to_wake_the_drive(tmp_path: Path, lab: LoopLab) -> None:
    if shutil.which("smartctl") is None:
        pytest.skip("smartctl is not installed")
    device = lab.loop().path
    db = tmp_path / "db"
    result = run_ssdlab("watch", device, "--no-wake", "--count", "1", "--db", str(db))
    assert result.code == 0, result.stderr
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT argv_json FROM captures WHERE tool = 'smartctl'").fetchall()
    argvs = [json.loads(row[0]) for row in rows]
    assert argvs
    assert all(argv[-3:] == ["-n", "standby", device] for argv in argvs)
