"""`ssdlab node …` (what `ssdlab fleet` calls on each node over SSH) and `--start-at`, with the
real command: facts, a detached job that outlives its caller, following it from offsets, jobs
whose supervisor is gone, the target checks, and a synchronized start."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    LoopLab,
    needs_loop,
    run_ssdlab,
    ssdlab_argv,
    ssdlab_env,
    start_ssdlab,
)
from tests.e2e.orphans import wait_gone

pytestmark = needs_fio

# the cheapest quick run: every test once, 8 MiB, short passes
QUICK = ["--size", "8MiB", "--measure", "0.3", "--count", "1", "--interval", "0"]
# an SSH session's command: `node start` (its argv), then the session lives on until hung up
CALLER = "import subprocess, sys, time; subprocess.run(sys.argv[1:], check=True); time.sleep(600)"
QUICK += ["--preset", "real", "--mode", "read"]


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def node(*args: str) -> Any:
    done = run_ssdlab("node", *args)
    assert done.code == 0, done.stderr
    return json.loads(done.stdout)


def test_facts_say_what_the_node_has(tmp_path: Path) -> None:
    target = tmp_path / "file.bin"
    target.write_bytes(b"x" * 4096)
    facts = node("facts", "--directory", str(tmp_path), "--target", str(target))
    for field in ("ssdlab_version", "python", "hostname", "is_root", "boot_id", "time_s"):
        assert field in facts, field
    fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True)
    assert facts["tools"]["fio"]["version"] == fio.stdout.strip().splitlines()[0]
    assert set(facts["tools"]) == {"fio", "smartctl", "nvme"}
    assert facts["direct_io"] == {str(tmp_path): None} or "O_DIRECT" in str(facts["direct_io"])
    summary = facts["targets"][str(target)]
    assert summary["exists"] is True
    assert summary["is_block_device"] is False
    assert summary["size_bytes"] == 4096


@dataclass
class FinishedJob:
    jobs_dir: Path
    job: str
    records: list[dict[str, Any]]


@pytest.fixture(scope="module")
def finished_job(tmp_path_factory: pytest.TempPathFactory) -> FinishedJob:
    """A quick run started by `node start` from a caller in its own session, whose whole
    process group is then hung up and killed (an SSH session going away); followed to its end."""
    folder = tmp_path_factory.mktemp("node")
    jobs_dir = folder / "jobs"
    start = ssdlab_argv("node", "start", "--jobs-dir", str(jobs_dir), "--")
    start += ["quick", str(folder), *QUICK, "--db", str(folder / "s.db"), "--json"]
    caller = subprocess.Popen(
        [sys.executable, "-c", CALLER, *start],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=ssdlab_env(),
        start_new_session=True,
    )
    assert caller.stdout is not None
    started = json.loads(caller.stdout.readline())
    os.killpg(caller.pid, signal.SIGHUP)
    os.killpg(caller.pid, signal.SIGKILL)
    caller.wait(timeout=HANG_S)
    caller.stdout.close()
    assert set(started) == {"job", "dir", "pid"}
    follow = run_ssdlab("node", "follow", started["job"], "--jobs-dir", str(jobs_dir))
    assert follow.code == 0, follow.stderr
    return FinishedJob(jobs_dir, started["job"], lines_of(follow.stdout))


def _text(records: list[dict[str, Any]], stream: str) -> str:
    return "".join(r["text"] for r in records if r.get("stream") == stream)


def test_a_job_outlives_its_caller_and_follow_reads_it_to_the_end(
    finished_job: FinishedJob,
) -> None:
    *output, end = finished_job.records
    assert end["exit"] == 0
    assert isinstance(end["ended_at_s"], float)
    document = json.loads(_text(output, "stdout"))
    assert document["run"]["status"] == "complete"
    assert "[1/" in _text(output, "stderr")  # the progress lines, as a log shows them


def test_follow_from_offsets_repeats_nothing(finished_job: FinishedJob) -> None:
    records = finished_job.records
    stderr = _text(records, "stderr").encode()
    stdout = _text(records, "stdout").encode()
    offsets = [r["offset"] for r in records if r.get("stream") == "stderr"]
    middle = offsets[len(offsets) // 2]
    point = f"{finished_job.job}:{len(stdout)}:{middle}"
    follow = run_ssdlab("node", "follow", point, "--jobs-dir", str(finished_job.jobs_dir))
    assert follow.code == 0, follow.stderr
    resumed = lines_of(follow.stdout)
    assert _text(resumed, "stderr").encode() == stderr[middle:]
    assert _text(resumed, "stdout") == ""
    assert resumed[-1]["exit"] == 0


def test_a_batch_starts_every_target_and_one_follow_reads_them_all(tmp_path: Path) -> None:
    """What a fleet does on a node: one `node start --batch` for all its targets, one of them
    refused by its run's own checks (--destroy-data on a file), and one `node follow` for
    both, each record naming its job."""
    jobs_dir = tmp_path / "jobs"
    good = ["quick", str(tmp_path), *QUICK, "--db", str(tmp_path / "a.db"), "--json"]
    refused = [*good[:-3], "--db", str(tmp_path / "b.db"), "--destroy-data", str(tmp_path)]
    batch = json.dumps([good, refused])
    done = subprocess.run(
        ssdlab_argv("node", "start", "--batch", "--jobs-dir", str(jobs_dir)),
        input=batch,
        capture_output=True,
        text=True,
        env=ssdlab_env(),
        timeout=HANG_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout)
    assert [set(each) for each in started] == [{"job", "dir", "pid"}] * 2
    jobs = [each["job"] for each in started]
    follow = run_ssdlab("node", "follow", *jobs, "--jobs-dir", str(jobs_dir))
    assert follow.code == 0, follow.stderr
    records = lines_of(follow.stdout)
    assert {r["job"] for r in records} == set(jobs)
    ends = {r["job"]: r["exit"] for r in records if "exit" in r}
    assert ends == {jobs[0]: 0, jobs[1]: 2}
    mine = [r for r in records if r["job"] == jobs[0]]
    assert json.loads(_text(mine, "stdout"))["run"]["status"] == "complete"
    both = run_ssdlab("node", "start", "--batch", "--jobs-dir", str(jobs_dir), "--", "quick")
    assert both.code == 2
    assert "on stdin (--batch) or after --" in both.stderr


def test_jobs_lists_the_job_exited_with_its_code(finished_job: FinishedJob) -> None:
    (listed,) = node("jobs", "--jobs-dir", str(finished_job.jobs_dir))
    assert listed["job"] == finished_job.job
    assert (listed["state"], listed["exit"]) == ("exited", 0)
    assert listed["argv"][0] == "quick"
    assert listed["started_at_s"] <= listed["ended_at_s"]


def _wait_for(path: Path, text: str, timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not (path.exists() and text in path.read_text(errors="replace")):
        assert time.monotonic() < deadline, f"{path} never said {text!r}"
        time.sleep(0.05)


def test_a_job_whose_supervisor_was_killed_is_lost(tmp_path: Path) -> None:
    jobs_dir = tmp_path / "jobs"
    later = f"{time.time() + 600:.3f}"  # the run waits: nothing is measured or stored
    started = node(
        "start", "--jobs-dir", str(jobs_dir), "--",
        "quick", str(tmp_path), *QUICK, "--db", str(tmp_path / "s.db"), "--start-at", later,
    )  # fmt: skip
    folder = Path(started["dir"])
    job = json.loads((folder / "job.json").read_text())
    try:
        _wait_for(folder / "stderr", "starting at")
        os.kill(job["supervisor_pid"], signal.SIGKILL)
        wait_gone([job["supervisor_pid"]])
        (listed,) = node("jobs", "--jobs-dir", str(jobs_dir))
        assert listed["state"] == "lost"
        assert "still runs" in listed["lost"]
        follow = run_ssdlab("node", "follow", started["job"], "--jobs-dir", str(jobs_dir))
        end = lines_of(follow.stdout)[-1]
        assert end["exit"] is None
        assert "ended without recording an exit code" in end["lost"]
    finally:
        os.kill(job["child_pid"], signal.SIGTERM)  # it stops its wait cleanly
        wait_gone([job["child_pid"]])


def test_check_accepts_a_file_target_and_refuses_destroy_data_on_it(tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "s.db")]
    assert node("check", str(tmp_path), "--size", "8MiB", *db) == {"ok": True}
    refused = node("check", str(tmp_path), "--destroy-data", "/dev/null", *db)
    assert refused["ok"] is False
    assert "is not one; file targets never need it" in refused["reason"]
    assert not (tmp_path / "s.db").exists()  # a check opens nothing for writing


@needs_loop
def test_check_refuses_a_mounted_device(lab: LoopLab) -> None:
    loop = lab.loop()
    db = ["--db", str(lab.folder / "s.db")]
    size = ["--size", "16MiB"]
    assert node("check", loop.path, *size, "--destroy-data", loop.path, *db) == {"ok": True}
    unnamed = node("check", loop.path, *size, *db)
    assert "repeat the device: --destroy-data" in unnamed["reason"]
    lab.mount_new_ext4(loop.path)
    mounted = node("check", loop.path, *size, "--destroy-data", loop.path, *db)
    assert mounted["ok"] is False
    assert "is mounted at" in mounted["reason"]


def _stored_run(db: Path) -> tuple[float, float, dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        started, plan = conn.execute("SELECT started_at_s, plan_json FROM runs").fetchone()
        (first,) = conn.execute("SELECT MIN(started_at_s) FROM captures").fetchone()
    return started, first, dict(json.loads(plan)["params"])


# ssdlab gets to the start time after its checks, which take longer the more loaded the
# machine: a start it reached too late to wait for (it then starts at once, or refuses a time
# more than 5 s past) is tried again with a margin four times as long, so the test waits for a
# start ssdlab waits for, and asserts no duration.
START_MARGINS_S = (2.0, 8.0, 32.0, 128.0)


def test_start_at_starts_no_earlier_and_is_stored(tmp_path: Path) -> None:
    for margin in START_MARGINS_S:
        db = tmp_path / f"s-{margin:g}.db"
        start_at = round(time.time() + margin, 3)
        done = run_ssdlab(
            "quick", str(tmp_path), *QUICK, "--db", str(db), "--start-at", str(start_at)
        )
        if "ssdlab: starting at " in done.stderr:
            break
    assert done.code == 0, done.stderr
    assert "ssdlab: starting at " in done.stderr
    started, first_capture, params = _stored_run(db)
    assert params["start_at_s"] == start_at
    assert started >= start_at
    assert first_capture >= start_at


@pytest.mark.parametrize(
    ("when", "words"),
    [
        # a fixed instant: a test id made from the clock differs between xdist's workers
        ("1700000000", "s in the past: the clocks of the hosts may disagree"),
        ("2030-01-01T12:00:00", "has no timezone"),
    ],
)
def test_start_at_refuses_a_past_time_or_one_without_zone(
    tmp_path: Path, when: str, words: str
) -> None:
    db = tmp_path / "s.db"
    done = run_ssdlab("quick", str(tmp_path), *QUICK, "--db", str(db), "--start-at", when)
    assert done.code == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    assert not db.exists()


def test_sigint_while_waiting_for_the_start_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    later = f"{time.time() + 600:.3f}"
    waiting = start_ssdlab("quick", str(tmp_path), *QUICK, "--db", str(db), "--start-at", later)
    assert waiting.stderr is not None
    assert "starting at" in waiting.stderr.readline()
    waiting.send_signal(signal.SIGINT)
    _out, err = waiting.communicate(timeout=HANG_S)
    assert waiting.returncode == 130
    assert "nothing was run or stored" in err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
    assert not list(tmp_path.glob("ssdlab-*.tmp"))


def test_a_dropped_follower_ends_quietly_and_the_job_runs_on(tmp_path: Path) -> None:
    jobs_dir = tmp_path / "jobs"
    later = f"{time.time() + 600:.3f}"
    started = node(
        "start", "--jobs-dir", str(jobs_dir), "--",
        "quick", str(tmp_path), *QUICK, "--db", str(tmp_path / "s.db"), "--start-at", later,
    )  # fmt: skip
    folder = Path(started["dir"])
    follow = start_ssdlab("node", "follow", started["job"], "--jobs-dir", str(jobs_dir))
    assert follow.stdout is not None
    assert "starting at" in json.loads(follow.stdout.readline())["text"]
    follow.stdout.close()  # the connection is gone
    follow.send_signal(signal.SIGHUP)
    _out, err = follow.communicate(timeout=HANG_S)
    assert err == ""
    (listed,) = node("jobs", "--jobs-dir", str(jobs_dir))
    assert listed["state"] == "running"
    os.kill(started["pid"], signal.SIGTERM)  # the supervisor passes it on: a clean stop
    wait_gone([started["pid"]])
    assert json.loads((folder / "exit.json").read_text())["exit"] == 130
