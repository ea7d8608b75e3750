"""Detached jobs read back: ids, job folders, exit records, and following their output (several
jobs at once, each record naming its job) from byte offsets without repeats."""

import json
import os
import signal
import time
from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.system import detached


def test_job_ids_sort_by_time_and_differ() -> None:
    first = detached.new_job_id(1_800_000_000.5)
    later = detached.new_job_id(1_800_000_001.0)
    assert first < later
    assert first.startswith("20270115T080000.500Z-")
    assert len({detached.new_job_id() for _ in range(100)}) == 100


@pytest.mark.parametrize("job", ["", "..", ".hidden", "a/b", "../etc"])
def test_a_job_id_cannot_lead_out_of_the_jobs_folder(tmp_path: Path, job: str) -> None:
    with pytest.raises(UsageError, match="is not a job id"):
        detached.job_dir(tmp_path, job)


def test_an_unknown_job_is_named(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="there is no job nope"):
        detached.job_dir(tmp_path, "nope")


def test_the_listing_hint_names_the_jobs_folder(tmp_path: Path) -> None:
    jobs = tmp_path / "other jobs"
    with pytest.raises(UsageError) as refused:
        detached.job_dir(jobs, "nope")
    assert f"\"ssdlab node jobs --jobs-dir '{jobs}'\" lists them" in str(refused.value)


def test_json_is_written_whole_by_rename(tmp_path: Path) -> None:
    path = tmp_path / "exit.json"
    detached.write_json_atomic(path, {"exit": 0})
    detached.write_json_atomic(path, {"exit": 3})
    assert detached.read_json(path) == {"exit": 3}
    assert [p.name for p in tmp_path.iterdir()] == ["exit.json"]


def test_an_exit_by_signal_is_recorded_as_a_shell_would() -> None:
    record = detached._exit_record(-signal.SIGKILL)
    assert record["exit"] == 137
    assert record["signal"] == "SIGKILL"
    assert detached._exit_record(2)["exit"] == 2


def _job(tmp_path: Path, name: str = "20270115T080000.500Z-00000000", **job: object) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    detached.write_json_atomic(folder / detached.ARGV_FILE, ["quick"])
    record = {
        "argv": ["quick"],
        "supervisor_pid": os.getpid(),
        "supervisor_start_ticks": detached.process_start_ticks(os.getpid()),
        "child_pid": None,
        "started_at_s": time.time(),
        "hostname": "here",
        "boot_id": detached.read_boot_id(),
        **job,
    }
    detached.write_json_atomic(folder / detached.JOB_FILE, record)
    return folder


def test_follow_reads_whole_lines_then_the_rest_and_the_exit(tmp_path: Path) -> None:
    folder = _job(tmp_path)
    job = folder.name
    (folder / "stderr").write_bytes(b"one\ntw")
    (folder / "stdout").write_bytes(b"")
    offsets = {"stdout": 0, "stderr": 0}
    follow = detached.follow_jobs({folder: offsets}, sleep=lambda _s: None)
    assert next(follow) == {"job": job, "stream": "stderr", "offset": 0, "text": "one\n"}
    (folder / "stderr").write_bytes(b"one\ntwo")
    (folder / "stdout").write_bytes(b'{"run": 1}\n')
    detached.write_json_atomic(folder / detached.EXIT_FILE, {"exit": 0, "ended_at_s": 5.0})
    *rest, end = list(follow)
    assert sorted(rest, key=str) == [
        {"job": job, "stream": "stderr", "offset": 4, "text": "two"},  # the rest, at the end
        {"job": job, "stream": "stdout", "offset": 0, "text": '{"run": 1}\n'},
    ]
    assert end == {"job": job, "exit": 0, "ended_at_s": 5.0}
    assert offsets == {"stdout": 11, "stderr": 7}


def test_follow_from_offsets_repeats_nothing(tmp_path: Path) -> None:
    folder = _job(tmp_path)
    (folder / "stderr").write_bytes("a\nbé\nc\n".encode())
    detached.write_json_atomic(folder / detached.EXIT_FILE, {"exit": 0, "ended_at_s": 5.0})
    resumed = list(detached.follow_jobs({folder: {"stdout": 0, "stderr": 2}}))
    assert resumed[0] == {"job": folder.name, "stream": "stderr", "offset": 2, "text": "bé\nc\n"}


def test_several_jobs_are_followed_together_until_the_last_ends(tmp_path: Path) -> None:
    """One follower for every job of a node: each record names its job, a job that has ended
    is said to have ended at once, and the follow goes on until the other ends too."""
    done = _job(tmp_path, "20270115T080000.500Z-00000001")
    running = _job(tmp_path, "20270115T080000.500Z-00000002")
    (done / "stderr").write_bytes(b"refused\n")
    detached.write_json_atomic(done / detached.EXIT_FILE, {"exit": 3, "ended_at_s": 5.0})
    (running / "stderr").write_bytes(b"[1/4]\n")
    polls: list[float] = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        (running / "stderr").write_bytes(b"[1/4]\n[2/4]\n")
        detached.write_json_atomic(running / detached.EXIT_FILE, {"exit": 0, "ended_at_s": 6.0})

    offsets = {"stdout": 0, "stderr": 0}
    records = list(detached.follow_jobs({done: dict(offsets), running: dict(offsets)}, sleep))
    assert polls == [detached.POLL_S]
    assert [(r["job"][-1], r.get("text", r.get("exit"))) for r in records] == [
        ("1", "refused\n"),
        ("1", 3),
        ("2", "[1/4]\n"),
        ("2", "[2/4]\n"),
        ("2", 0),
    ]


def test_a_job_whose_supervisor_is_gone_is_lost(tmp_path: Path) -> None:
    folder = _job(tmp_path, supervisor_start_ticks=-1)  # this pid, but another process
    (folder / "stderr").write_bytes(b"half a li")
    records = list(detached.follow_jobs({folder: {"stdout": 0, "stderr": 0}}))
    assert records[0]["text"] == "half a li"
    assert records[-1]["exit"] is None
    assert records[-1]["job"] == folder.name
    assert "ended without recording an exit code" in records[-1]["lost"]
    (state,) = detached.list_jobs(tmp_path)
    assert state["state"] == "lost"


def test_a_job_of_an_earlier_boot_is_lost(tmp_path: Path) -> None:
    folder = _job(tmp_path, boot_id="another-boot")
    if detached.read_boot_id() is None:
        pytest.skip("no boot id on this system")
    assert detached.job_state(folder)["lost"] == "the node restarted since the job started"


def test_jobs_list_running_and_exited(tmp_path: Path) -> None:
    running = _job(tmp_path)
    assert detached.job_state(running)["state"] == "running"
    detached.write_json_atomic(running / detached.EXIT_FILE, {"exit": 4, "ended_at_s": 9.0})
    state = detached.job_state(running)
    assert (state["state"], state["exit"], state["argv"]) == ("exited", 4, ["quick"])
    assert json.loads(json.dumps(detached.list_jobs(tmp_path))) == [state]


def test_decoding_keeps_the_byte_count() -> None:
    assert detached.decode_exactly(b"ab\xffc", final=False) == ("ab?c", 4)
    assert detached.decode_exactly("xé".encode()[:2], final=False) == ("x", 1)
    assert detached.decode_exactly("xé".encode()[:2], final=True) == ("x?", 2)
