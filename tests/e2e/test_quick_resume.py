"""A quick run is a profile run: stopped by a signal with --keep, `ssdlab resume` continues it
on the same test file; a test whose passes were cut short runs again from its warm-up."""

import json
import signal
import sqlite3
import time
from pathlib import Path

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import run_ssdlab, start_ssdlab
from tests.e2e.hints import hinted
from tests.e2e.orphans import children, signal_during_fio, wait_gone

pytestmark = needs_fio

QUICK = ["--size", "8MiB", "--measure", "0.5", "--count", "2", "--interval", "0",
         "--preset", "real", "--mode", "read", "--keep"]  # fmt: skip


def results(db: Path) -> list[tuple[str, int, int]]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            rows = conn.execute("SELECT step_key, round_index, discarded FROM step_results")
            return [(str(k), int(r), int(d)) for k, r, d in rows.fetchall()]
    except sqlite3.OperationalError:
        return []


def test_an_interrupted_quick_run_resumes_from_the_cut_short_test(tmp_path: Path) -> None:
    db, folder = tmp_path / "runs.db", tmp_path / "t"
    folder.mkdir()
    child = start_ssdlab("quick", str(folder), *QUICK, "--db", str(db))
    deadline = time.monotonic() + HANG_S
    while len(results(db)) < 4:  # the first test's three passes and the next one's warm-up
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    signal_during_fio(child, "pass 1 of 2", signal.SIGINT)  # the second test's, not its last
    _out, err = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, err
    command = hinted(err, "resume")  # the command the message says to copy
    assert command == ["resume", "1", "--db", str(db)]
    assert f"'ssdlab {' '.join(command)}' continues it" in err
    before = results(db)
    keys = list(dict.fromkeys(key for key, _round, _discarded in before))
    partial = [k for k in keys if sum(1 for key, _r, _d in before if key == k) < 3]

    resumed = run_ssdlab(*command, "--json")
    assert resumed.code == 0, resumed.stderr
    document = json.loads(resumed.stdout)
    assert document["run"]["status"] == "complete"

    after = results(db)
    tests = {key for key, _round, _discarded in after}
    assert len(tests) == 2  # the real preset: SEQ1M Q1T1 and RND4K Q1T1, read
    for key in tests:  # every test: its warm-up (discarded) and two measured passes, once
        assert sorted((r, d) for k, r, d in after if k == key) == [(0, 1), (1, 0), (2, 0)]
    with sqlite3.connect(db) as conn:
        findings = {
            name: json.loads(body)
            for name, body in conn.execute("SELECT name, body_json FROM findings")
        }
        kinds = {row[0] for row in conn.execute("SELECT kind FROM runs")}
    assert kinds == {"quick"}  # resumed in place, not a new run
    for key in partial:  # a cut-short test ran again from its warm-up, and that is recorded
        assert findings[f"resumed-{key}"]["step"] == key
    assert list(folder.iterdir()), "--keep keeps the test file"


def test_a_second_signal_names_the_resume_that_continues_a_kept_run(tmp_path: Path) -> None:
    db, folder = tmp_path / "runs.db", tmp_path / "t"
    folder.mkdir()
    child = start_ssdlab("quick", str(folder), *QUICK, "--db", str(db))
    deadline = time.monotonic() + HANG_S
    while len(results(db)) < 2:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    fio = children(child.pid)
    # two different signals: two of the same may reach the process as one
    child.send_signal(signal.SIGINT)
    child.send_signal(signal.SIGTERM)
    _out, err = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, err
    command = hinted(err, "resume")  # the advice it ended with at once, copied
    assert command == ["resume", "1", "--db", str(db)]
    assert f"stopped at once; 'ssdlab {' '.join(command)}' continues the run" in err
    wait_gone(fio)
    resumed = run_ssdlab(*command, "--json")
    assert resumed.code == 0, resumed.stderr
    assert json.loads(resumed.stdout)["run"]["status"] == "complete"
