"""`ssdlab fleet doctor` and `ssdlab fleet status` through Ansible (the doctor and status
playbooks of ssdlab's collection) on the namespaced hosts: the play that runs is the
collection's, its tasks are the collection's modules; a host that is down is a row of its own
with Ansible's reason while the others answer, a node without ssdlab says which fio it has,
and nothing of Ansible's is left in the seat's home or temporary folder."""

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ssdlab.fleet.doctor import DoctorRequest, doctor_fleet
from ssdlab.fleet.reach import FleetReach
from ssdlab.fleet.status import StatusRequest, fleet_status
from tests.e2e.conftest import run_ssdlab
from tests.fleet.hosts import FleetLab
from tests.fleet.plays import record_plays
from tests.fleet.test_ansible_collection import installed, playbook, recap
from tests.fleet.test_fleet_run import nodes

pytest.importorskip("ansible")

# the fixtures: each node's store and target folder; the collection built and installed
__all__ = ["installed", "nodes"]


def test_doctor_and_status_run_the_collections_playbooks(
    fleet_lab: FleetLab,
    nodes: dict[str, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", nodes)
    plays = record_plays(monkeypatch)
    reach = FleetReach(inventory, "node1:node2", parallel=16, connect_timeout_s=10)

    doctor = doctor_fleet(DoctorRequest(reach))
    status = fleet_status(StatusRequest(reach))

    (doctor_play, doctor_outcome, _), (status_play, status_outcome, _) = (
        (p.play, p.outcome, p.masters_before) for p in plays
    )
    assert (doctor_play.playbook, status_play.playbook) == ("doctor.yml", "status.yml")
    assert sorted(doctor_play.inventory) == ["node1", "node2"]
    # the summary tasks for a user's own ansible-playbook are left out
    assert doctor_play.skip_tags == status_play.skip_tags == ("show",)
    for host in ("node1", "node2"):
        done = [(e.action, e.event) for e in doctor_outcome.events if e.host == host]
        assert done == [("ssdlab.bench.ssdlab_facts", "ok"), ("ssdlab.bench.ssdlab_clock", "ok")]
        done = [(e.action, e.event) for e in status_outcome.events if e.host == host]
        assert done == [("ssdlab.bench.ssdlab_status", "ok")]
    assert [check.host for check in doctor.checks] == ["node1", "node2"]
    assert all(check.usable and check.is_root for check in doctor.checks)
    # the hosts share this machine's clock: the offset read is within its own uncertainty
    # (half the round trip of the reading kept), however long the machine's load made it
    for check in doctor.checks:
        assert check.clock_offset_s is not None
        assert check.clock_uncertainty_s is not None
        assert abs(check.clock_offset_s) <= check.clock_uncertainty_s + 0.001
    assert status.problems == {}
    assert sorted(status.statuses) == ["node1", "node2"]
    assert all(found["format"] == "ssdlab-node-status" for found in status.statuses.values())


def test_a_host_that_is_down_is_a_row_of_its_own(
    fleet_lab: FleetLab, nodes: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    nodes["node3"]["ssdlab_command"] = str(tmp_path / "no-such" / "ssdlab")
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", nodes)
    home = tmp_path / "no-home"
    # short: ssh's control sockets go below it, and a unix socket's path has 108 bytes
    scratch = Path(tempfile.mkdtemp(prefix="ssdlab-t-"))
    env = {"HOME": str(home), "TMPDIR": str(scratch)}
    answers: dict[str, Any] = {}
    with fleet_lab.partitioned(fleet_lab.host("node2")):
        for action in ("doctor", "status"):
            done = run_ssdlab(
                "fleet", action, str(inventory), "--json", "--connect-timeout", "2",
                env=env, timeout=300,
            )  # fmt: skip
            assert done.code == 1, done.stderr
            answers[action] = json.loads(done.stdout)

    hosts = {row["host"]: row for row in answers["doctor"]["hosts"]}
    assert list(hosts) == ["node1", "node2", "node3"]
    assert hosts["node1"]["reachable"]
    assert hosts["node1"]["problem"] is None
    assert hosts["node1"]["clock_verdict"] in ("agrees", "inconclusive")
    assert hosts["node2"]["reachable"] is False
    assert hosts["node2"]["problem"].startswith("ssh failed: ")
    assert hosts["node2"]["clock_offset_s"] is None
    assert hosts["node3"]["reachable"] is True
    assert "is not found there: install it with " in hosts["node3"]["problem"]
    assert f"fleet deploy {inventory}" in hosts["node3"]["problem"]
    assert hosts["node3"]["fio_version"] == hosts["node1"]["fio_version"]

    status = answers["status"]
    assert sorted(status["hosts"]) == ["node1"]
    assert status["problems"]["node2"].startswith("ssh failed: ")
    missing = nodes["node3"]["ssdlab_command"]
    assert status["problems"]["node3"] == f"node status failed: {missing} is not found on the node"
    assert not home.exists()
    assert list(scratch.iterdir()) == []
    scratch.rmdir()


def test_a_users_ansible_playbook_runs_doctor_and_status(
    fleet_lab: FleetLab,
    installed: dict[str, str],
    nodes: dict[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    # the modules run on the node's Python, this one (the nodes share this filesystem)
    two = {name: {**nodes[name], "ansible_python_interpreter": sys.executable} for name in nodes}
    two = {name: two[name] for name in ("node1", "node2")}
    hosts = [fleet_lab.host(name) for name in two]
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", two, hosts=hosts)
    doctor = playbook(installed, inventory, "doctor", {}, tmp_path)
    assert doctor.returncode == 0, doctor.stdout[-4000:] + doctor.stderr[-2000:]
    assert all(recap(doctor.stdout)[name]["ok"] == 3 for name in two)
    assert doctor.stdout.count("root True, clock ") == 2
    # one clock: never "off by more than 50 ms", however long the round trips
    assert "off by more than" not in doctor.stdout
    status = playbook(installed, inventory, "status", {}, tmp_path)
    assert status.returncode == 0, status.stdout[-4000:] + status.stderr[-2000:]
    assert all(recap(status.stdout)[name]["ok"] == 2 for name in two)
    assert status.stdout.count("0 running of 0 recent runs; 0 jobs running, 0 failed") == 2
