"""`ssdlab run endurance` end to end with real fio: files and loop devices, stop conditions, a
replayed health recording, safety stops, kill -9 and resume, --continue and the systemd unit;
and `ssdlab endure`, its spelling before, still at work for a release."""

import contextlib
import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from ssdlab.analysis.wear import analyse_series
from ssdlab.profiles.endurance import JESD219_LARGE, JESD219_SMALL
from ssdlab.store.captures import load_fio_outputs
from ssdlab.system.health_replay import HealthReplay
from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    LoopLab,
    needs_loop,
    run_ssdlab,
    sha256_of,
    ssdlab_argv,
    ssdlab_env,
    start_ssdlab,
)
from tests.e2e.hints import hinted
from tests.e2e.orphans import kill_9_during_fio, wait_gone
from tests.replay_logs import wear_series, write_log

pytestmark = needs_fio

TINY = ["--size", "8MiB", "--iodepth", "4", "--log-interval", "0.1", "--health-every", "0.1"]


def status(db: Path, run: str = "last") -> dict[str, Any]:
    result = run_ssdlab("status", run, "--json", "--db", str(db))
    assert result.code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def iteration_rows(db: Path) -> list[int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT round_index FROM step_results WHERE step_key = 'iteration' ORDER BY id"
        ).fetchall()
    return [int(r[0]) for r in rows]


def assert_integrity(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_until_written_on_a_file_stops_after_the_iteration_that_reaches_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db"
    result = run_ssdlab(
        "run", "endurance", str(tmp_path / "e.dat"), *TINY, "--iteration-bytes", "4MiB",
        "--until-written", "12MB", "--json", "--db", str(db),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["run"]["status"] == "complete"
    assert "--until-written reached" in doc["run"]["status_reason"]
    its = doc["result"]["status"]["iterations"]
    # 4 MiB = 4,194,304 B an iteration: 12 MB is passed in the third
    assert [i["index"] for i in its] == [1, 2, 3]
    assert all(i["written_bytes"] == 4 * 2**20 for i in its)
    assert all(i["ended_at_s"] >= i["started_at_s"] > 0 for i in its)
    assert iteration_rows(db) == [1, 2, 3]
    assert not (tmp_path / "e.dat").exists()  # a complete run removes the file it made
    shown = status(db)["result"]["status"]
    assert shown["written_bytes"] == 3 * 4 * 2**20
    assert shown["series"] is None
    assert "no health samples" in shown["notes"][0]


def test_plan_and_run_endurance_are_the_same_profile(tmp_path: Path) -> None:
    plan = run_ssdlab("plan", "endurance", str(tmp_path / "p.dat"), "--workload",
                      "jesd219-enterprise", "--iteration-bytes", "1MiB", "--size", "8MiB",
                      "--check")  # fmt: skip
    assert plan.code == 0, plan.stderr
    assert "blockalign=512" in plan.stdout
    assert "number_ios=" in plan.stdout
    db = tmp_path / "db"
    run = run_ssdlab("run", "endurance", str(tmp_path / "r.dat"), *TINY,
                     "--iteration-time", "0.3", "--for", "0.5", "--db", str(db))  # fmt: skip
    assert run.code == 0, run.stderr
    assert "--for reached" in run.stdout
    assert iteration_rows(db) == [1, 2]


@needs_loop
@pytest.mark.loop
def test_jesd219_enterprise_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop().path
    db = tmp_path / "db"
    refused = run_ssdlab(
        "run", "endurance", device, "--workload", "jesd219-enterprise", "--db", str(db)
    )
    assert refused.code == 3
    assert "--destroy-data" in refused.stderr
    before = sha256_of(device, 32 * 2**20)
    result = run_ssdlab(
        "run", "endurance", device, "--destroy-data", device, "--workload", "jesd219-enterprise",
        "--iteration-bytes", "2MiB", "--until-written", "4MiB", "--log-interval", "0.1",
        "--json", "--db", str(db),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    its = doc["result"]["status"]["iterations"]
    assert len(its) >= 2
    assert doc["run"]["status"] == "complete"
    # each iteration: the planned 268 I/Os of its two jobs (27 below 4 KiB, 241 of 4 KiB and
    # more: JESD219's 1:9), by fio's own count (group_reporting sums the two jobs), and bytes
    # within six standard deviations of what those random transfer sizes give (randrepeat=0:
    # the bound fails about once in 10^9 iterations)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        run_id = conn.execute("SELECT id FROM runs WHERE uuid = ?", (doc["run"]["uuid"],))
        outputs = load_fio_outputs(conn, run_id.fetchone()[0])
    ios = [job["write"]["total_ios"] for out in outputs.values() for job in json.loads(out)["jobs"]]
    assert ios, "no fio output stored"
    assert set(ios) == {268}, ios
    mean, sd = _jesd219_bytes(27, 241)
    written = [i["written_bytes"] for i in its]
    assert all(abs(w - mean) < 6 * sd for w in written), (written, mean, sd)
    assert sha256_of(device, 32 * 2**20) != before  # it did write to the device it was given


def _jesd219_bytes(small_ios: int, large_ios: int) -> tuple[float, float]:
    """Mean and standard deviation of the bytes of `small_ios` + `large_ios` random transfers
    drawn from JESD219's two size tables."""
    mean = variance = 0.0
    for count, table in ((small_ios, JESD219_SMALL), (large_ios, JESD219_LARGE)):
        weight = sum(share for _, share in table)
        m = sum(size * share for size, share in table) / weight
        mean += count * m
        variance += count * sum(share * (size - m) ** 2 for size, share in table) / weight
    return mean, math.sqrt(variance)


def test_replayed_health_drives_wear_stop_and_projection(tmp_path: Path) -> None:
    log = write_log(tmp_path / "wear.log", wear_series(8))
    db = tmp_path / "db"
    result = run_ssdlab(
        "run", "endurance", str(tmp_path / "e.dat"), *TINY, "--iteration-time", "0.4",
        "--until-wear", "3", "--for", "60", "--health-replay", str(log), "--last-hours", "2",
        "--json", "--db", str(db),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert "--until-wear reached" in doc["run"]["status_reason"]
    st = doc["result"]["status"]
    assert st["replayed_from"] == str(log)
    assert any("REPLAYED" in note for note in st["notes"])
    series = st["series"]
    n = len(series["sample_times_s"])
    assert n >= 4  # the sample before the run, then at least 3 more while fio ran
    # the same projection as the offline analysis of the same recording's first n snapshots
    replay = HealthReplay(str(log))
    samples = [s for s in (replay().sample for _ in range(n)) if s is not None]
    offline = analyse_series(samples, last_hours=2.0)
    assert series["projection"]["days_to_eol"] == pytest.approx(offline.projection.days_to_eol)
    assert series["wear_fit"]["pct_per_day"] == pytest.approx(24.0)
    assert series["overall"]["waf"]["waf"] == pytest.approx(3.0, rel=1e-6)
    with sqlite3.connect(db) as conn:
        phases = [r[0] for r in conn.execute("SELECT phase FROM health_samples ORDER BY id")]
        tools = {r[0] for r in conn.execute("SELECT tool FROM captures WHERE tool != 'fio'")}
    assert phases[0] == "before"
    assert "during" in phases
    assert tools == {"replay"}
    with sqlite3.connect(db) as conn:
        fio = conn.execute("SELECT started_at_s, ended_at_s FROM captures WHERE tool = 'fio'")
        spans = fio.fetchall()
        sampled = [
            r[0] for r in conn.execute("SELECT started_at_s FROM captures WHERE tool = 'replay'")
        ]
    # samples were taken while fio was writing, not only between iterations
    assert any(a < t < b for t in sampled for a, b in spans)
    report = tmp_path / "report.html"
    made = run_ssdlab("report", "last", "-o", str(report), "--db", str(db))
    assert made.code == 0, made.stderr
    html = report.read_text()
    assert "Wear over time" in html
    assert "replayed" in html.lower()


def test_a_hot_drive_is_a_safety_stop_that_can_resume(tmp_path: Path) -> None:
    snaps = wear_series(30)
    snaps[3] = snaps[3].__class__(**{**snaps[3].__dict__, "temperature_c": 81})
    log = write_log(tmp_path / "hot.log", snaps)
    db = tmp_path / "db"
    result = run_ssdlab(
        "run", "endurance", str(tmp_path / "e.dat"), *TINY, "--iteration-time", "0.5",
        "--for", "30", "--health-replay", str(log), "--max-temperature", "75",
        "--db", str(db),
    )  # fmt: skip
    assert result.code == 5, result.stderr
    assert "temperature 81 °C is above the limit of 75 °C" in result.stderr
    command = hinted(result.stderr, "resume")  # what the message says to run next
    assert command == ["resume", "1", "--db", str(db)]
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert runs[0]["status"] == "interrupted"
    assert runs[0]["status_reason"].startswith("safety stop: temperature 81")
    done = iteration_rows(db)
    assert done == list(range(1, len(done) + 1))  # the cut-short iteration is not counted
    assert (tmp_path / "e.dat").exists()  # kept for the resume
    again = run_ssdlab(*command, "--for", "1")
    assert again.code == 0, again.stderr  # judged by a fresh sample, no longer hot
    after = iteration_rows(db)
    assert after == list(range(1, len(after) + 1))
    assert len(after) > len(done)
    with sqlite3.connect(db) as conn:
        phases = [r[0] for r in conn.execute("SELECT phase FROM health_samples ORDER BY id")]
        names = {r[0] for r in conn.execute("SELECT name FROM findings")}
    assert "resumed" in phases
    assert {"safety-stop", "stop-conditions-changed"} <= names
    assert_integrity(db)


def test_kill_9_mid_iteration_then_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    db = tmp_path / "db"
    target = tmp_path / "e.dat"
    argv = ssdlab_argv("run", "endurance", str(target), *TINY, "--iteration-time", "1",
                       "--for", "4", "--db", str(db))  # fmt: skip
    child = subprocess.Popen(argv, env=ssdlab_env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + HANG_S
    while len(_safe_rows(db)) < 2:
        assert time.monotonic() < deadline, "no 2 iterations stored"
        assert child.poll() is None, "no 2 iterations stored"
        time.sleep(0.05)
    orphans = kill_9_during_fio(child, "runtime=1\n")  # inside the third or the fourth
    kept = iteration_rows(db)
    # the finished iterations are all kept and the one cut short is not
    assert kept == list(range(1, len(kept) + 1))
    assert 2 <= len(kept) < 4
    wait_gone(orphans)  # fio ends with ssdlab (not at the end of its iteration)
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert runs[0]["status"] == "interrupted"
    resumed = run_ssdlab("resume", str(runs[0]["id"]), "--json", "--db", str(db))
    assert resumed.code == 0, resumed.stderr
    doc = json.loads(resumed.stdout)
    assert doc["run"]["status"] == "complete"
    assert "--for reached" in doc["run"]["status_reason"]
    assert iteration_rows(db) == [1, 2, 3, 4]  # none lost, none twice
    assert_integrity(db)


def _safe_rows(db: Path) -> list[int]:
    try:
        return iteration_rows(db) if db.exists() else []
    except sqlite3.OperationalError:
        return []


def test_continue_starts_once_and_the_systemd_unit_uses_it(tmp_path: Path) -> None:
    db = tmp_path / "db"
    target = str(tmp_path / "e.dat")
    args = [
        "run",
        "endurance",
        target,
        *TINY,
        "--iteration-time",
        "0.3",
        "--for",
        "0.3",
        "--db",
        str(db),
    ]
    unit = run_ssdlab(*args, "--print-systemd-unit")
    assert unit.code == 0, unit.stderr
    exec_line = next(line for line in unit.stdout.splitlines() if line.startswith("ExecStart="))
    assert "--continue" in exec_line
    assert "-m ssdlab run endurance" in exec_line
    assert "RestartPreventExitStatus=2 3 5" in unit.stdout
    assert "KillSignal=SIGINT" in unit.stdout
    assert not db.exists()  # printing the unit runs nothing
    if shutil.which("systemd-analyze"):
        unit_file = tmp_path / "ssdlab-endure.service"
        unit_file.write_text(unit.stdout)
        verified = subprocess.run(["systemd-analyze", "verify", str(unit_file)],
                                  capture_output=True, text=True, check=False)  # fmt: skip
        assert verified.returncode == 0, verified.stderr
    bad = run_ssdlab(
        "run", "endurance", str(tmp_path / "a\nExecStartPre=/bin/true"), "--print-systemd-unit"
    )
    assert bad.code == 2
    assert "line break" in bad.stderr
    first = run_ssdlab(*args, "--continue")
    assert first.code == 0, first.stderr
    second = run_ssdlab(*args, "--continue")
    assert second.code == 0
    assert "is complete" in second.stdout
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert len(runs) == 1


def test_until_wear_needs_a_drive_that_reports_wear(tmp_path: Path) -> None:
    result = run_ssdlab("run", "endurance", str(tmp_path / "e.dat"), *TINY, "--until-wear", "1",
                        "--db", str(tmp_path / "db"))  # fmt: skip
    assert result.code == 1
    assert "wear indicator" in result.stderr
    assert "Traceback" not in result.stderr


def test_endure_the_spelling_before_still_works_and_names_the_new_one(tmp_path: Path) -> None:
    db, target = tmp_path / "db", tmp_path / "e.dat"
    child = start_ssdlab("endure", str(target), *TINY, "--iteration-time", "0.3", "--for", "60",
                         "--db", str(db))  # fmt: skip
    deadline = time.monotonic() + HANG_S
    while not _safe_rows(db):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "no iteration stored"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    said = [line for line in stderr.splitlines() if "deprecated" in line]
    assert said == [
        "ssdlab: 'ssdlab endure' is deprecated and goes in the next release; use "
        "'ssdlab run endurance'"
    ]
    command = hinted(stderr, "resume")  # the interrupt names the command that continues it
    assert command == ["resume", "1", "--db", str(db)]
    again = run_ssdlab("endure", "--resume", "last", "--for", "0.1", "--db", str(db))
    assert again.code == 0, again.stderr
    assert "use 'ssdlab resume RUN'" in again.stderr
    unit = run_ssdlab("endure", str(target), *TINY, "--print-systemd-unit", "--db", str(db))
    assert unit.code == 0, unit.stderr
    exec_line = next(line for line in unit.stdout.splitlines() if line.startswith("ExecStart="))
    assert "-m ssdlab run endurance" in exec_line  # the unit outlives the old spelling


def test_resume_continues_an_interrupted_endurance_run_as_the_hint_says(tmp_path: Path) -> None:
    db, target = tmp_path / "db", tmp_path / "e.dat"
    child = start_ssdlab("run", "endurance", str(target), *TINY, "--iteration-time", "0.3",
                         "--for", "60", "--db", str(db))  # fmt: skip
    deadline = time.monotonic() + HANG_S
    while not _safe_rows(db):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "no iteration stored"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    assert "deprecated" not in stderr
    command = hinted(stderr, "resume")
    assert f"'ssdlab {' '.join(command)}' continues it" in stderr
    resumed = run_ssdlab(*command, "--until-written", "1KiB", "--json")
    assert resumed.code == 0, resumed.stderr
    doc = json.loads(resumed.stdout)
    assert doc["run"]["status"] == "complete"
    assert "--until-written reached" in doc["run"]["status_reason"]
    assert not target.exists()  # complete: the test file the run made is removed


def _fill(folder: Path) -> Path:
    """Fill `folder`'s file system: a file written until the disk is full."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as handle:
        while True:
            handle.write(b"\0" * 65536)
            handle.flush()
            os.fsync(handle.fileno())
    return filler


@needs_loop
@pytest.mark.loop
def test_a_full_store_names_the_resume_that_continues_the_run(tmp_path: Path, lab: LoopLab) -> None:
    mount = lab.mount_new_ext4(lab.loop(8 * 2**20).path)
    db = mount / "db"
    child = start_ssdlab("run", "endurance", str(tmp_path / "e.dat"), *TINY,
                         "--iteration-time", "0.5", "--for", "60", "--db", str(db))  # fmt: skip
    deadline = time.monotonic() + HANG_S
    while len(_safe_rows(db)) < 2:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "no 2 iterations stored"
        time.sleep(0.05)
    filler = _fill(mount)  # the next iteration's raw output no longer fits
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 1, stderr
    (said,) = [line for line in stderr.splitlines() if line.startswith("ssdlab: error:")]
    assert "cannot write to the run store" in said
    command = hinted(said, "resume")  # the run it was writing, in the store it was using
    assert command == ["resume", "1", "--db", str(db)], stderr
    filler.unlink()
    resumed = run_ssdlab(*command, "--for", "0.1")
    assert resumed.code == 0, resumed.stderr
    assert_integrity(db)


def test_status_of_another_kind_of_run_names_the_show_that_shows_it(tmp_path: Path) -> None:
    db = tmp_path / "db"
    quick = run_ssdlab("quick", str(tmp_path), "--size", "8MiB", "--measure", "0.2", "--count",
                       "1", "--interval", "0", "--preset", "real", "--mode", "read",
                       "--db", str(db))  # fmt: skip
    assert quick.code == 0, quick.stderr
    refused = run_ssdlab("status", "last", "--db", str(db))
    assert refused.code == 2
    command = hinted(refused.stderr, "show")
    assert command == ["show", "1", "--db", str(db)]
    shown = run_ssdlab(*command)
    assert shown.code == 0, shown.stderr
