"""The machine check end to end: a run records it and shows it, and a store on the target's
device is never written while fio runs.

Whether the store was written during a pass is seen by fio itself: `SSDLAB_FIO` points at a
wrapper that records the store's files (size, mtime, content) when fio starts a pass and
again when it has ended, before ssdlab can go on; a write during a pass shows as a
difference, whatever the machine's speed or load."""

import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, LoopLab, needs_loop, run_ssdlab

pytestmark = [needs_fio, needs_loop]

WRAPPER = """#!{python}
import hashlib, json, os, subprocess, sys

STORE, LOG, FIO = {store!r}, {log!r}, {fio!r}


def state():
    found = {{}}
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = STORE + suffix
        try:
            info = os.stat(path)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
        except FileNotFoundError:
            continue
        found[suffix or "db"] = [info.st_size, info.st_mtime_ns, digest]
    return found


if "--output-format=json+" not in sys.argv:
    os.execv(FIO, [FIO, *sys.argv[1:]])
start = state()
code = subprocess.run([FIO, *sys.argv[1:]], check=False).returncode
with open(LOG, "a") as log:
    log.write(json.dumps({{"start": start, "end": state()}}) + "\\n")
sys.exit(code)
"""


def _wrapper(folder: Path, store: Path, log: Path) -> Path:
    fio = os.environ.get("SSDLAB_FIO") or shutil.which("fio")
    assert fio is not None
    path = folder / "fio-wrapper"
    path.write_text(WRAPPER.format(python=sys.executable, store=str(store), log=str(log), fio=fio))
    path.chmod(0o755)
    return path


def test_a_store_on_the_targets_device_is_written_only_between_passes(
    lab: LoopLab, tmp_path: Path
) -> None:
    loop = lab.loop(64 * 2**20)
    mounted = lab.mount_new_ext4(loop.path)
    folder = mounted / "target"
    folder.mkdir()
    store, log = mounted / "runs.db", tmp_path / "passes.jsonl"
    fio = _wrapper(tmp_path, store, log)
    result = run_ssdlab(
        "quick", str(folder), *FAST, "--db", str(store), env={"SSDLAB_FIO": str(fio)}
    )
    assert result.code == 0, result.stderr
    said = result.stdout + result.stderr
    notice = "the store is on the same device as the target: ssdlab writes it only between passes"
    assert said.count(notice) == 1
    passes = [json.loads(line) for line in log.read_text().splitlines()]
    assert passes, "fio ran no pass through the wrapper"
    for number, seen in enumerate(passes, 1):
        assert seen["start"] == seen["end"], f"the store changed during pass {number}"
    with sqlite3.connect(store) as conn:
        (environment,) = conn.execute("SELECT environment_json FROM runs").fetchone()
        (captures,) = conn.execute("SELECT count(*) FROM captures WHERE tool = 'fio'").fetchone()
    machine = json.loads(environment)["machine"]
    assert machine["target_device"] == loop.name
    assert machine["store_device"] == loop.name
    assert machine["store_on_target_device"] is True
    assert len(machine["passes"]) == len(passes) == captures
    shown = run_ssdlab("show", "1", "--db", str(store))
    assert shown.code == 0, shown.stderr
    assert (
        f"the store is on the target's device ({loop.name}): ssdlab wrote it only" in shown.stdout
    )


def test_the_check_is_recorded_and_shown_with_its_figures(tmp_path: Path) -> None:
    """The figures are recorded whatever the machine is doing: nothing here asserts that it is
    idle, or that no other I/O happened."""
    target, store = tmp_path / "target", tmp_path / "runs.db"
    target.mkdir()
    result = run_ssdlab("quick", str(target), *FAST, "--db", str(store), "--json")
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    machine = document["run"]["environment"]["machine"]
    assert set(machine) >= {"governors", "virtualization", "target_device", "store_device"}
    assert machine["passes"]
    for load in machine["passes"]:
        assert load["seconds"] >= 0
        assert load["others_cpu_cores"] is None or load["others_cpu_cores"] >= 0
        assert load["other_bytes"] is None or load["other_bytes"] >= 0
        assert (load["fio_read_bytes"] or 0) + (load["fio_written_bytes"] or 0) > 0
    assert "machine_note" in document
    shown = run_ssdlab("show", "1", "--db", str(store), "--json")
    assert json.loads(shown.stdout)["machine_note"] == document["machine_note"]
    text = run_ssdlab("show", "1", "--db", str(store)).stdout
    note = document["machine_note"]
    assert (note is None and "machine:" not in text) or (note is not None and note in text)
    report = run_ssdlab(
        "report", "1", "--db", str(store), "--format", "md", "-o", str(tmp_path / "r.md")
    )
    assert report.code == 0, report.stderr
    if note is not None:
        assert note in (tmp_path / "r.md").read_text()
