"""The Ansible collection ssdlab.bench end to end: built with ansible-galaxy, installed in a
folder of the test's own, and its playbooks run with ansible-playbook on two namespaced hosts
(each with its own sshd and store): run.yml checks the nodes and runs quick on each node's
file target at one start time, a second run.yml for the same start starts nothing, collect.yml
brings both runs into the seat's store once, and a second collect.yml changes nothing."""

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import FAST, ROOT
from tests.fleet.hosts import FleetLab
from tests.fleet.test_fleet_run import TOO_LATE, central_runs, make_nodes, node_command

pytest.importorskip("ansible")

COLLECTION = ROOT / "ansible_collections" / "ssdlab" / "bench"
BIN = Path(sys.executable).parent
HOSTS = ("node1", "node2")
# seconds from the end of the checks to the start: longer when a try came too late
START_MARGINS_S = (8.0, 32.0, 128.0)
PLAYBOOK_TIMEOUT_S = 600
# quick's read tests on each node: what the playbooks do with a run (start it at one time, find
# it, collect it once) does not depend on which tests it ran (5 fio runs a node, not 13)
QUICK = [*FAST, "--mode", "read"]


def _tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    which = shutil.which(name)
    if which is None:
        pytest.skip(f"{name} is not installed")
    return which


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of an ansible-playbook that finds ssdlab.bench, built from this
    checkout and installed in a temporary collections folder (nothing under $HOME)."""
    folder = tmp_path_factory.mktemp("ansible")
    env = {
        "PATH": f"{BIN}:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(folder / "home"),  # Ansible's own files, should anything read ~
        "ANSIBLE_HOME": str(folder / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(folder / "local-tmp"),
        "ANSIBLE_REMOTE_TMP": str(folder / "remote-tmp"),  # the nodes share this filesystem
        "ANSIBLE_COLLECTIONS_PATH": str(folder / "collections"),
        "ANSIBLE_HOST_KEY_CHECKING": "False",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "LANG": "C.UTF-8",
    }
    (folder / "home").mkdir()
    galaxy = _tool("ansible-galaxy")
    built = subprocess.run(
        [galaxy, "collection", "build", str(COLLECTION), "--output-path", str(folder)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr + built.stdout
    (archive,) = folder.glob("ssdlab-bench-*.tar.gz")
    install = subprocess.run(
        [galaxy, "collection", "install", str(archive), "-p", env["ANSIBLE_COLLECTIONS_PATH"]],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr + install.stdout
    return env


def playbook(
    env: dict[str, str], inventory: Path, name: str, extra: dict[str, Any], folder: Path
) -> subprocess.CompletedProcess[str]:
    """ansible-playbook on one of the collection's playbooks, with extra variables."""
    extra_file = folder / f"extra-{name}-{time.monotonic_ns()}.json"
    extra_file.write_text(json.dumps(extra), encoding="utf-8")
    return subprocess.run(
        [_tool("ansible-playbook"), "-i", str(inventory), f"ssdlab.bench.{name}",
         "-e", f"@{extra_file}"],
        capture_output=True, text=True, env=env, timeout=PLAYBOOK_TIMEOUT_S,
    )  # fmt: skip


def recap(output: str) -> dict[str, dict[str, int]]:
    """The PLAY RECAP's counts per host."""
    found = {}
    for line in output.split("PLAY RECAP", 1)[-1].splitlines():
        match = re.match(r"^(\S+)\s+:\s+(.*)$", line.strip())
        if match:
            counts = dict(re.findall(r"(\w+)=(\d+)", match.group(2)))
            found[match.group(1)] = {key: int(value) for key, value in counts.items()}
    return found


def job_folders(node: dict[str, str]) -> list[Path]:
    jobs = Path(node["ssdlab_db"]).parent / "fleet-jobs"
    return sorted(p for p in jobs.iterdir() if p.is_dir()) if jobs.is_dir() else []


def came_too_late(nodes: dict[str, dict[str, str]]) -> bool:
    """Whether a node refused the start time because it got to it too late."""
    return any(
        TOO_LATE in (job / "stderr").read_text(errors="replace")
        for node in nodes.values()
        for job in job_folders(node)
        if (job / "stderr").exists()
    )


def two_nodes(fleet_lab: FleetLab, folder: Path) -> dict[str, dict[str, str]]:
    """node1 and node2, each with its own store and target folder in `folder`."""
    made = make_nodes(fleet_lab, folder)
    nodes = {name: made[name] for name in HOSTS}
    for node in nodes.values():
        node["ansible_python_interpreter"] = sys.executable  # the node's Python
    return nodes


def write_inventory(fleet_lab: FleetLab, folder: Path, nodes: dict[str, dict[str, str]]) -> Path:
    hosts = [fleet_lab.host(name) for name in HOSTS]
    return fleet_lab.write_inventory_ini(folder / "lab.ini", nodes, hosts=hosts)


def _run_quick(
    fleet_lab: FleetLab, env: dict[str, str], tmp_path: Path
) -> tuple[dict[str, dict[str, str]], Path, dict[str, Any], subprocess.CompletedProcess[str]]:
    for attempt, margin in enumerate(START_MARGINS_S):
        folder = tmp_path / f"attempt{attempt}"
        chosen = two_nodes(fleet_lab, folder)
        inventory = write_inventory(fleet_lab, folder, chosen)
        extra: dict[str, Any] = {
            "ssdlab_args": QUICK,
            "ssdlab_check_size": "8MiB",
            "ssdlab_start_in": margin,
            "ssdlab_poll_s": 1,
            "ssdlab_wait_s": 300,
            "ssdlab_seat_db": str(folder / "seat.db"),
            "ssdlab_seat_command": node_command().split(),
            "ssdlab_exports_dir": str(folder / "exports"),
        }
        ran = playbook(env, inventory, "run", extra, folder)
        if ran.returncode == 0 or not came_too_late(chosen):
            return chosen, inventory, extra, ran
    return chosen, inventory, extra, ran


@pytest.mark.slow
def test_the_collection_runs_quick_on_two_hosts_and_collects_each_run_once(
    fleet_lab: FleetLab, installed: dict[str, str], tmp_path: Path
) -> None:
    nodes, inventory, extra, ran = _run_quick(fleet_lab, installed, tmp_path)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    counts = recap(ran.stdout)
    assert all(counts[name]["failed"] == 0 and counts[name]["changed"] >= 1 for name in HOSTS)
    first_jobs = {name: job_folders(node) for name, node in nodes.items()}
    assert all(len(jobs) == 1 for jobs in first_jobs.values())
    argv = json.loads((first_jobs["node1"][0] / "argv.json").read_text())
    assert argv[:2] == ["quick", nodes["node1"]["ssdlab_targets"]]
    start_at = argv[argv.index("--start-at") + 1]
    sent = argv[argv.index("--start-sent-at") + 1]
    assert argv == [
        "quick", nodes["node1"]["ssdlab_targets"], *QUICK, "--json",
        "--db", nodes["node1"]["ssdlab_db"], "--start-at", start_at, "--start-sent-at", sent,
    ]  # fmt: skip
    # the seat's clock as the start left: after the start time was chosen, start_in before it
    assert float(start_at) - float(extra["ssdlab_start_in"]) <= float(sent)
    node_runs = {name: central_runs(Path(node["ssdlab_db"])) for name, node in nodes.items()}
    assert all(len(runs) == 1 and runs[0]["status"] == "complete" for runs in node_runs.values())
    assert all(runs[0]["started_at_s"] >= float(start_at) - 0.1 for runs in node_runs.values())

    # the same start again: the runs are there already, nothing is started
    folder = inventory.parent
    again = playbook(installed, inventory, "run", {**extra, "ssdlab_start_at": start_at}, folder)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert all(recap(again.stdout)[name]["changed"] == 0 for name in HOSTS)
    assert {name: job_folders(node) for name, node in nodes.items()} == first_jobs

    collected = playbook(installed, inventory, "collect", extra, folder)
    assert collected.returncode == 0, collected.stdout[-4000:] + collected.stderr[-2000:]
    seat = Path(extra["ssdlab_seat_db"])
    runs = central_runs(seat)
    assert sorted(r["host"] for r in runs) == list(HOSTS)
    assert sorted(r["uuid"] for r in runs) == sorted(r[0]["uuid"] for r in node_runs.values())
    assert all(r["status"] == "complete" for r in runs)
    assert recap(collected.stdout)["localhost"]["changed"] == 1  # one merge task, two hosts

    collected = playbook(installed, inventory, "collect", extra, folder)
    assert collected.returncode == 0, collected.stdout[-4000:] + collected.stderr[-2000:]
    assert all(c["changed"] == 0 for c in recap(collected.stdout).values()), collected.stdout
    assert [(r["uuid"], r["host"]) for r in central_runs(seat)] == [
        (r["uuid"], r["host"]) for r in runs
    ]


def test_run_yml_refuses_hosts_that_would_not_measure_alike(
    fleet_lab: FleetLab, installed: dict[str, str], fake_fio_dir: Path, tmp_path: Path
) -> None:
    nodes = two_nodes(fleet_lab, tmp_path)
    nodes["node2"]["ssdlab_command"] = node_command(fake_fio_dir)
    inventory = write_inventory(fleet_lab, tmp_path, nodes)
    ran = playbook(installed, inventory, "run", {"ssdlab_args": QUICK}, tmp_path)
    assert ran.returncode != 0
    assert "would not measure alike" in ran.stdout, ran.stdout[-4000:]
    assert all(job_folders(node) == [] for node in nodes.values())  # nothing started
