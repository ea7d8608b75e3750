"""`ssdlab fleet deploy` end to end on the lab's nodes (network namespaces with real sshds
that share this machine's filesystem, so each node's venv is a folder of its own here), through
the collection's deploy playbook.

Installing numpy, scipy and vl-convert-python into a fresh venv costs real time, so the whole story
is one test with one full install: node1 installs, node2 (its venv path is a file: python3
cannot make a venv there) and node3 (cut off) fail without holding node1 up; deployed again,
node1 is up to date and nothing is reinstalled; with --force only ssdlab's own wheel is copied
and the wheels come from the cache."""

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from ssdlab import __version__
from tests.e2e.conftest import run_ssdlab
from tests.fleet.hosts import FleetLab

pytest.importorskip("ansible")

DEPLOY_TIMEOUT_S = 900


def _deploy(inventory: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = run_ssdlab(
        "fleet", "deploy", str(inventory), "--json", "--connect-timeout", "3", *extra,
        timeout=DEPLOY_TIMEOUT_S,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.code, json.loads(done.stdout), done.stderr


def _settled(
    inventory: Path, venv: Path, build: str, *extra: str
) -> tuple[dict[str, Any], os.stat_result]:
    """Deploy to node1 until two builds in a row are the same (ssdlab's build is a hash of its
    source tree: a file edited in the tree during the test is a new build, rightly installed);
    the document, and ssdlab's RECORD in the venv as it was before that deploy."""
    for _ in range(3):
        before = _installed_record(venv)
        code, document, stderr = _deploy(inventory, "--limit", "node1", *extra)
        assert code == 0, stderr
        if document["build"] == build:
            return document, before
        build = document["build"]
    pytest.fail("ssdlab's source tree kept changing during the test")


def _installed_record(venv: Path) -> os.stat_result:
    (record,) = venv.glob("lib/python3*/site-packages/ssdlab-*.dist-info/RECORD")
    return record.stat()


@pytest.mark.slow
def test_deploy_installs_reports_failures_and_is_idempotent(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    venv = tmp_path / "node1" / "venv"
    blocked = tmp_path / "node2" / "venv"
    blocked.parent.mkdir()
    blocked.write_text("a file where node2's venv should be\n")
    inventory = fleet_lab.write_inventory_ini(
        tmp_path / "lab.ini",
        host_vars={
            "node1": {"ssdlab_venv": str(venv)},
            "node2": {"ssdlab_venv": str(blocked)},
            "node3": {"ssdlab_venv": str(tmp_path / "node3" / "venv")},
        },
    )
    with fleet_lab.partitioned(fleet_lab.host("node3")):
        code, first, stderr = _deploy(inventory)
    assert code == 1, stderr
    hosts = {host["host"]: host for host in first["hosts"]}
    assert hosts["node1"]["state"] == "installed", hosts["node1"]
    assert hosts["node1"]["ssdlab_version"] == __version__
    assert hosts["node1"]["is_root"] is True
    assert hosts["node1"]["ssdlab_command"] == f"ssdlab_command={venv}/bin/ssdlab"
    assert hosts["node1"]["copied_bytes"] == first["wheels"]["bytes"]
    assert hosts["node2"]["state"] == "failed"
    assert "python3 -m venv cannot make" in hosts["node2"]["reason"]
    assert hosts["node3"]["state"] == "failed"
    assert "unreachable" in hosts["node3"]["reason"]
    assert "node1: copied the wheels it lacked" in stderr
    said = fleet_lab.ssh(fleet_lab.host("node1"), [f"{venv}/bin/ssdlab", "--version"])
    assert said.stdout.strip() == f"ssdlab {__version__}", said.stderr

    again, before = _settled(inventory, venv, first["build"])
    (node1,) = again["hosts"]
    assert node1["state"] == "up to date"
    assert node1["copied_bytes"] == 0
    assert "install" not in node1["seconds"]
    after = _installed_record(venv)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)

    forced, _ = _settled(inventory, venv, again["build"], "--force")
    (node1,) = forced["hosts"]
    assert node1["state"] == "installed"
    assert forced["wheels"]["from_cache"] is True
    assert node1["copied_bytes"] < 2 * 2**20  # ssdlab's wheel alone: the others are there


def _other_python() -> Path | None:
    """A CPython 3.11+ of another minor version than this one (pyenv's, or /usr/bin's)."""
    found = [
        *Path("/root/.pyenv/versions").glob("3.*/bin/python3.*"),
        *Path("/usr/bin").glob("python3.*"),
    ]
    for path in sorted(found):
        minor = path.name.removeprefix("python3.")
        if minor.isdigit() and int(minor) >= 11 and int(minor) != sys.version_info[1]:
            return path
    return None


def test_wheels_that_do_not_fit_the_nodes_python_are_refused_by_its_pip(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    """node1 makes its venv with another Python (a real one): its own pip, given the wheels
    made here for this Python, finds none for its own and says so; the row says what to do."""
    other = _other_python()
    if other is None:
        pytest.skip("needs a CPython 3.11+ of another version than this one")
    venv = tmp_path / "venv"
    inventory = fleet_lab.write_inventory_ini(
        tmp_path / "lab.ini",
        host_vars={"node1": {"ssdlab_venv": str(venv), "ssdlab_python": str(other)}},
        hosts=[fleet_lab.host("node1")],
    )
    code, document, stderr = _deploy(inventory)
    assert code == 1, stderr
    (node1,) = document["hosts"]
    assert node1["state"] == "failed"
    assert node1["reason"].startswith("the wheels do not fit the node's Python 3.")
    assert "Could not find a version that satisfies the requirement" in node1["reason"]
    assert f"ssdlab fleet deploy {inventory} --limit node1 --wheels DIR" in node1["reason"]
    assert not (venv / "bin" / "ssdlab").exists()


def test_wheels_folder_without_ssdlab_is_refused_before_any_host_is_reached(
    tmp_path: Path,
) -> None:
    inventory = tmp_path / "lab.ini"
    inventory.write_text("[lab]\nnode9 ansible_host=127.0.0.1 ansible_port=9\n", encoding="utf-8")
    (tmp_path / "wheels").mkdir()
    done = run_ssdlab("fleet", "deploy", str(inventory), "--wheels", str(tmp_path / "wheels"))
    assert done.code == 1
    assert "holds no ssdlab wheel" in done.stderr
    assert "node9" not in done.stderr
