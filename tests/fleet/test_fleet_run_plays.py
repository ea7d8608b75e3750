"""`ssdlab fleet run` checks and starts its nodes through the collection's run.yml (issue 32,
item 2): its check play, then its start task with the start time the fleet chose, the two
plays over the same ssh master connections; each node gets one `ssdlab node start --batch`
for all its targets, told the seat's clock as the start left."""

import json
import time
from pathlib import Path

import pytest

from ssdlab.fleet.reach import FleetReach
from ssdlab.fleet.run import FleetRunRequest, run_fleet
from tests.conftest import HANG_S
from tests.e2e.conftest import FAST
from tests.fleet.hosts import FleetLab
from tests.fleet.plays import record_plays
from tests.fleet.test_fleet_run import nodes

pytest.importorskip("ansible")

__all__ = ["nodes"]  # the fixture: each node's store and target folder


class _Progress:
    def __init__(self) -> None:
        self.start_at_s: float | None = None

    def starting(self, _profile: str, _hosts: int, _of: int, start_at_s: float) -> None:
        self.start_at_s = start_at_s

    def __call__(self, _source: str, _text: str) -> None:
        return None


def test_fleet_run_checks_and_starts_through_run_yml_over_one_login_a_host(
    fleet_lab: FleetLab,
    nodes: dict[str, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nodes = {name: nodes[name] for name in ("node1", "node2")}
    for name, node in nodes.items():  # two targets a host
        second = tmp_path / name / "target2"
        second.mkdir()
        node["ssdlab_targets"] = f"{node['ssdlab_targets']},{second}"
    two = [fleet_lab.host(name) for name in nodes]
    inventory = fleet_lab.write_inventory_ini(tmp_path / "lab.ini", nodes, hosts=two)
    plays = record_plays(monkeypatch)
    reach = FleetReach(inventory, None, parallel=16, connect_timeout_s=10)
    request = FleetRunRequest(
        reach, "quick", ("--ioengine", "null", *FAST), tmp_path / "seat.db", detach=True
    )
    progress = _Progress()

    ran = run_fleet(request, progress, lambda _words: None)

    (check, checked, before_check), (start, started, before_start) = (
        (p.play, p.outcome, p.masters_before) for p in plays
    )
    assert (check.playbook, check.tags) == ("run.yml", ("check",))
    assert (start.playbook, start.tags) == ("run.yml", ("start",))
    assert sorted(start.inventory) == ["node1", "node2"]
    assert before_check == ()
    assert len(before_start) == 2  # the check play's master connections, one a host, reused
    for host in ("node1", "node2"):
        done = [(e.action, e.event) for e in checked.events if e.host == host]
        assert done == [("ansible.builtin.assert", "ok"), ("ssdlab.bench.ssdlab_facts", "ok")]
        took = next(e for e in checked.events if e.host == host and "took_s" in e.fields)
        assert took.fields["took_s"] > 0
        done = [(e.action, e.event) for e in started.events if e.host == host]
        assert done == [("ssdlab.bench.ssdlab_run", "ok")]  # one module run for both targets
    assert ran.ok
    assert progress.start_at_s == ran.start_at_s
    assert sorted((o.host, o.target) for o in ran.outcomes) == sorted(
        (name, target)
        for name, node in nodes.items()
        for target in node["ssdlab_targets"].split(",")
    )
    assert all(o.job for o in ran.outcomes)
    for name, node in nodes.items():
        jobs = _jobs(node)
        assert len(jobs) == 2
        sent_at = set()
        for job in jobs:
            argv = json.loads((job / "argv.json").read_text())
            assert argv[argv.index("--start-at") + 1] == f"{ran.start_at_s:.3f}"
            sent_at.add(float(argv[argv.index("--start-sent-at") + 1]))
        (sent,) = sent_at  # one reading for all of a node's runs, taken before the start
        assert sent <= ran.start_at_s, name
    # the detached runs end on their own; the test leaves none behind
    ends = [job / "exit.json" for node in nodes.values() for job in _jobs(node)]
    deadline = time.monotonic() + HANG_S
    while not all(end.exists() for end in ends) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert all(json.loads(end.read_text()).get("exit") == 0 for end in ends)


def _jobs(node: dict[str, str]) -> list[Path]:
    return sorted((Path(node["ssdlab_db"]).parent / "fleet-jobs").iterdir())
