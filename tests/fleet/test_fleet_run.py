"""`ssdlab fleet` end to end on three namespaced hosts, each with its own sshd and store:
doctor (one node with another fio), a quick run on all three with a synchronized start, a
refusal on the one host whose target is mounted, collect twice, compare across hosts, and an
endurance run that goes on through a network cut and is collected whole afterwards."""

import json
import shlex
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S
from tests.e2e.conftest import FAST, ROOT, run_ssdlab, start_ssdlab
from tests.fleet.conftest import FAKE_FIO_VERSION
from tests.fleet.hosts import FleetLab

pytest.importorskip("ansible")

ENDURE = ["--size", "8MiB", "--iodepth", "4", "--log-interval", "0.2", "--health-every", "0.5"]
# ssh gives up on a silent connection after about 2 s (the inventory's arguments win)
QUICK_ALIVE = ["-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2"]


def node_command(path_first: Path | None = None) -> str:
    """How the nodes start ssdlab: this checkout's, with the node's own PATH for fio."""
    words = ["env", f"PYTHONPATH={ROOT / 'src'}"]
    if path_first is not None:
        words.append(f"PATH={path_first}:/usr/sbin:/usr/bin:/sbin:/bin")
    return shlex.join([*words, sys.executable, "-m", "ssdlab"])


def make_nodes(fleet_lab: FleetLab, folder: Path) -> dict[str, dict[str, str]]:
    """Per node: its own store and a target folder in `folder` (the hosts share this
    filesystem)."""
    found = {}
    for host in fleet_lab.hosts:
        own = folder / host.name
        (own / "target").mkdir(parents=True)
        found[host.name] = {
            "ssdlab_db": str(own / "ssdlab.db"),
            "ssdlab_targets": str(own / "target"),
            "ssdlab_command": node_command(),
            "ansible_ssh_common_args": shlex.join(["-F", str(fleet_lab.ssh_config), *QUICK_ALIVE]),
        }
    return found


@pytest.fixture
def nodes(fleet_lab: FleetLab, tmp_path: Path) -> dict[str, dict[str, str]]:
    return make_nodes(fleet_lab, tmp_path)


# A start time is kept only while it is at most 5 s past when a node gets to it. How long the
# fleet takes to check and start every node depends on the machine's load, so a run whose
# nodes came too late is made again, with fresh stores and a margin four times as long: the
# test waits for a start every node can keep, and asserts nothing about how long that took.
START_MARGINS_S = (4.0, 16.0, 64.0, 256.0)
TOO_LATE = "s in the past: the clocks of the hosts may disagree"


def too_late(document: dict[str, Any]) -> bool:
    """Whether a node refused the fleet's start time because it came to it too late."""
    return any(TOO_LATE in (run.get("said") or "") for run in document["runs"])


def fleet(*args: str, timeout: float = 300) -> tuple[int, str, str]:
    result = run_ssdlab("fleet", *args, timeout=timeout)
    return result.code, result.stdout, result.stderr


def central_runs(db: Path) -> list[dict[str, Any]]:
    result = run_ssdlab("runs", "--json", "--db", str(db), "--limit", "1000")
    assert result.code == 0, result.stderr
    runs: list[dict[str, Any]] = json.loads(result.stdout)["runs"]
    return runs


def test_doctor_names_the_node_with_another_fio_and_run_refuses_it(
    fleet_lab: FleetLab, nodes: dict[str, dict[str, str]], fake_fio_dir: Path, tmp_path: Path
) -> None:
    nodes["node3"]["ssdlab_command"] = node_command(fake_fio_dir)
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", nodes)
    code, out, err = fleet("doctor", str(inventory), "--json")
    assert code == 1, err
    document = json.loads(out)
    hosts = {h["host"]: h for h in document["hosts"]}
    assert sorted(hosts) == ["node1", "node2", "node3"]
    assert all(h["reachable"] and h["is_root"] for h in hosts.values())
    assert hosts["node3"]["fio_version"] == FAKE_FIO_VERSION
    assert hosts["node1"]["fio_version"] != FAKE_FIO_VERSION
    # the hosts share this machine's clock: the offset read is within its own uncertainty (half
    # the round trip it was read in), however long the machine's load made that trip
    assert all(abs(h["clock_offset_s"]) <= h["clock_uncertainty_s"] + 0.001 for h in hosts.values())
    (mismatch,) = document["mismatches"]
    assert mismatch["what"] == "fio"
    assert mismatch["changes_results"] is True
    code, _, err = fleet(
        "run", str(inventory), "quick", "--db", str(tmp_path / "c.db"), "--", *FAST
    )
    assert code == 1
    assert "would not measure alike" in err
    assert "--allow-mismatch" in err
    assert not list(Path(nodes["node1"]["ssdlab_targets"]).iterdir())  # nothing started


def test_the_fleet_sets_store_erasure_and_start_itself(
    fleet_lab: FleetLab, nodes: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", nodes)
    code, _, err = fleet("run", str(inventory), "quick", "--", "--db", "/tmp/x.db")
    assert code == 2
    assert "set by the fleet from the inventory" in err
    code, _, err = fleet("run", str(inventory), "quick", "--", "--no-such-option")
    assert code == 2
    assert "not valid for quick" in err
    code, _, err = fleet("run", str(inventory), "no-such-profile")
    assert code == 2
    assert "unknown profile" in err


@pytest.fixture
def mounted_loop(tmp_path: Path) -> Iterator[str]:
    """A loop device with a mounted filesystem: a target no run may write to."""
    image = tmp_path / "mounted.img"
    with image.open("wb") as handle:
        handle.truncate(64 * 2**20)
    device = subprocess.run(
        ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True, capture_output=True)
        subprocess.run(["mount", device, str(mountpoint)], check=True, capture_output=True)
        try:
            yield device
        finally:
            subprocess.run(["umount", str(mountpoint)], check=False, capture_output=True)
    finally:
        subprocess.run(["losetup", "-d", device], check=False, capture_output=True)


def test_quick_on_three_hosts_collected_once_and_compared(
    fleet_lab: FleetLab, mounted_loop: str, tmp_path: Path
) -> None:
    for attempt, margin in enumerate(START_MARGINS_S):
        folder = tmp_path / f"attempt{attempt}"
        nodes = make_nodes(fleet_lab, folder)
        nodes["node2"]["ssdlab_targets"] += f",{mounted_loop}"
        nodes["node2"]["ssdlab_destroy_data"] = mounted_loop
        inventory = fleet_lab.write_inventory_yaml(folder / "lab.yml", nodes)
        central = folder / "central.db"
        requested = time.time() + margin
        # write tests only: writes are what a mounted target is refused for (reads of it are
        # allowed), and the fleet's story needs no more (7 fio runs a target, not 19)
        code, out, err = fleet(
            "run", str(inventory), "quick", "--db", str(central), "--json",
            "--start-at", f"{requested:.3f}", "--", *FAST, "--count", "2", "--mode", "write",
        )  # fmt: skip
        document = json.loads(out)
        if not too_late(document):
            break
    assert code == 1, err  # the mounted target was refused; the three folders ran
    results = {(r["host"], r["target"]): r for r in document["runs"]}
    assert len(results) == 4
    refused = results[("node2", mounted_loop)]
    assert refused["exit_code"] == 3
    # the node's own safety check: it sees the mount (or the kernel's refusal to open the
    # device exclusively, when the node's sshd runs in a mount namespace of its own)
    assert mounted_loop in refused["said"]
    assert "mounted" in refused["said"] or "in use" in refused["said"]
    folders = [r for key, r in results.items() if key[1] != mounted_loop]
    assert all(r["ok"] for r in folders)
    assert "node2" in err  # progress lines carry their host
    runs = central_runs(central)
    done = [r for r in runs if r["status"] == "complete"]
    assert sorted(r["host"] for r in done) == ["node1", "node2", "node3"]
    assert len({r["uuid"] for r in runs}) == len(runs)
    assert all(r["started_at_s"] >= requested - 0.1 for r in done)  # none began early
    for node in nodes.values():  # the node kept its own run in its own store
        assert len(central_runs(Path(node["ssdlab_db"]))) >= 1

    code, out, err = fleet("collect", str(inventory), "--db", str(central), "--json")
    assert code == 0, err
    assert all(host["added"] == [] for host in json.loads(out)["hosts"])
    assert len(central_runs(central)) == len(runs)

    shown = run_ssdlab("show", str(done[0]["id"]), "--json", "--db", str(central))
    assert shown.code == 0, shown.stderr
    across = run_ssdlab("compare", str(done[0]["id"]), str(done[1]["id"]), "--db", str(central))
    assert across.code == 0, across.stderr
    report = tmp_path / "hosts.md"
    reported = run_ssdlab(
        "report", str(done[0]["id"]), str(done[1]["id"]), "-o", str(report), "--db", str(central)
    )
    assert reported.code == 0, reported.stderr
    assert report.stat().st_size > 0
    code, out, err = fleet("compare", "--db", str(central), "--json")
    assert code == 0, err
    (group,) = json.loads(out)["groups"]
    assert sorted(d["host"] for d in group["drives"]) == ["node1", "node2", "node3"]
    assert all(item["host"] in {"node1", "node2", "node3"} for item in group["slower"])


def _job_ended(node: dict[str, str]) -> bool:
    jobs = Path(node["ssdlab_db"]).parent / "fleet-jobs"
    return any((job / "exit.json").exists() for job in jobs.iterdir()) if jobs.is_dir() else False


def _iterations(db: str) -> int:
    """Steps the node's store holds (its store has this test's endurance run only)."""
    if not Path(db).exists():
        return 0
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT name FROM sqlite_master WHERE name = 'step_results'")
        if found.fetchone() is None:
            return 0
        return int(conn.execute("SELECT count(*) FROM step_results").fetchone()[0])


def _endure_through_a_cut(
    fleet_lab: FleetLab, nodes: dict[str, dict[str, str]], folder: Path, margin: float
) -> dict[str, Any]:
    """`fleet run endure` on node1 and node2, node2 cut off once its run is under way; the
    fleet's document once the fleet gave up on node2 and node2's run ended behind the cut."""
    inventory = fleet_lab.write_inventory_ini(folder / "lab.ini", nodes)
    cut = fleet_lab.host("node2")
    running = start_ssdlab(
        "fleet", "run", str(inventory), "endure", "--limit", "node1:node2",
        "--db", str(folder / "central.db"), "--start-in", f"{margin:g}", "--reconnect-for", "1",
        "--json", "--", *ENDURE, "--iteration-time", "0.5", "--for", "12",
    )  # fmt: skip
    try:
        deadline = time.monotonic() + HANG_S
        while _iterations(nodes["node2"]["ssdlab_db"]) < 2:
            assert time.monotonic() < deadline, "node2's run never got going"
            if running.poll() is not None:
                out, err = running.communicate()
                assert out, err
                return dict(json.loads(out))  # refused: a start too late for a node?
            time.sleep(0.2)
        code, out, _ = fleet("status", str(inventory), "--limit", "node2", "--json")
        assert code == 0
        (run,) = [
            r for r in json.loads(out)["hosts"]["node2"]["runs"] if r["profile"] == "endurance"
        ]
        assert run["status"] == "running"
        assert run["endurance"]["iterations"] >= 1
        with fleet_lab.partitioned(cut):
            out, err = running.communicate(timeout=HANG_S)
            assert running.returncode == 1, err
            while not _job_ended(nodes["node2"]):  # the run goes on behind the cut
                assert time.monotonic() < deadline, "node2's run did not end"
                time.sleep(0.2)
    finally:
        if running.poll() is None:
            running.kill()
            running.communicate()
    return dict(json.loads(out))


def test_an_endurance_run_goes_on_through_a_cut_and_is_collected_whole(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    for attempt, margin in enumerate(START_MARGINS_S):
        folder = tmp_path / f"attempt{attempt}"
        nodes = make_nodes(fleet_lab, folder)
        document = _endure_through_a_cut(fleet_lab, nodes, folder, margin)
        if not too_late(document):
            break
    inventory = folder / "lab.ini"
    central = folder / "central.db"
    lost = [r for r in document["runs"] if r["host"] == "node2"]
    assert "lost contact" in lost[0]["lost"]
    assert [r["ok"] for r in document["runs"] if r["host"] == "node1"] == [True]

    code, _out, err = fleet("collect", str(inventory), "--db", str(central), "--json")
    assert code == 0, err
    runs = {r["host"]: r for r in central_runs(central) if r["profile"] == "endurance"}
    assert runs["node2"]["status"] == "complete"
    with sqlite3.connect(central) as conn:
        collected = conn.execute(
            "SELECT count(*) FROM step_results WHERE run_id = ?", (runs["node2"]["id"],)
        ).fetchone()[0]
    assert collected == _iterations(nodes["node2"]["ssdlab_db"])  # nothing lost
