"""The fleet's start time follows the start-up the seat measured (issue #32): a fixed 5 s per
round of --parallel hosts, whatever the number of targets and however loaded the nodes, left
20 hosts × 2 targets to be told their start after it had passed. The seat's clock is injected."""

from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.fleet.launch import NodeJob
from ssdlab.fleet.reach import FleetReach
from ssdlab.fleet.run import (
    START_MARGIN_S,
    STARTUP_FACTOR,
    FleetRunRequest,
    _start_at,
    start_ahead_s,
)
from ssdlab.fleet.run_play import started_jobs
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ansible_play import PlayEvent, PlayOutcome

NOW = 1_800_000_000.0


def _request(parallel: int, **given: float) -> FleetRunRequest:
    reach = FleetReach(Path("lab.ini"), None, parallel, 10)
    return FleetRunRequest(reach, "quick", (), Path("c.db"), **given)  # type: ignore[arg-type]


def _told_and_ready(startups: list[tuple[int, float]], parallel: int) -> float:
    """When the last run is ready to start if every step takes exactly as long as measured:
    hosts in turns of `parallel`, each host's targets one after the other, then its checks."""
    free = [0.0] * parallel
    ready = 0.0
    for targets, each in startups:
        turn = free.index(min(free))
        free[turn] += targets * each
        ready = max(ready, free[turn] + each)
    return ready


def test_a_loaded_fleet_of_20_hosts_with_2_targets_gets_time_for_every_start() -> None:
    startups = [(2, 4.0)] * 20  # each node took 4 s to answer its check
    ahead = start_ahead_s(startups, parallel=10)
    assert ahead >= _told_and_ready(startups, 10) + START_MARGIN_S  # 2 rounds × 2 × 4 s + 4 s
    assert ahead == START_MARGIN_S + STARTUP_FACTOR * 20.0
    assert ahead > START_MARGIN_S * 2  # what the fixed margin per round gave


def test_more_targets_more_rounds_and_slower_nodes_each_push_the_start_further() -> None:
    base = start_ahead_s([(1, 1.0)] * 4, parallel=4)
    assert start_ahead_s([(2, 1.0)] * 4, parallel=4) > base
    assert start_ahead_s([(1, 1.0)] * 8, parallel=4) > base
    assert start_ahead_s([(1, 1.0)] * 3 + [(1, 6.0)], parallel=4) > base


def test_a_fast_fleet_starts_soon() -> None:
    assert start_ahead_s([(1, 0.2)] * 3, parallel=16) == pytest.approx(START_MARGIN_S + 0.8)


def test_a_host_without_a_measure_counts_the_margin_and_one_without_targets_nothing() -> None:
    assert start_ahead_s([(1, None)], parallel=1) == START_MARGIN_S + STARTUP_FACTOR * 10.0
    assert start_ahead_s([(0, 30.0)], parallel=1) == START_MARGIN_S
    assert start_ahead_s([], parallel=4) == START_MARGIN_S


def test_the_start_time_is_measured_ahead_unless_the_user_gave_one() -> None:
    startups = [(2, 3.0)] * 4

    def clock() -> float:
        return NOW

    measured = _start_at(_request(2), startups, clock=clock)
    assert measured == NOW + start_ahead_s(startups, 2)
    assert _start_at(_request(2, start_in_s=1.0), startups, clock=clock) == NOW + 1.0
    assert _start_at(_request(2, start_at_s=NOW + 7), startups, clock=clock) == NOW + 7
    with pytest.raises(UsageError, match="--start-in must not be negative"):
        _start_at(_request(2, start_in_s=-1.0), startups, clock=clock)


def test_the_start_play_is_counted_as_long_as_the_check_play_took() -> None:
    startups = [(2, 3.0)] * 4
    base = start_ahead_s(startups, 2)
    assert start_ahead_s(startups, 2, play_s=12.0) == base + STARTUP_FACTOR * 12.0
    measured = _start_at(_request(2), startups, 12.0, lambda: NOW)
    assert measured == NOW + base + STARTUP_FACTOR * 12.0
    assert _start_at(_request(2, start_in_s=1.0), startups, 12.0, lambda: NOW) == NOW + 1.0


HOST = FleetHost("node1", "node1", targets=("/mnt/a", "/mnt/b"))


def _planned() -> list[NodeJob]:
    return [NodeJob(HOST, t, ("quick", t)) for t in HOST.targets]


def _event(event: str, **fields: object) -> PlayEvent:
    """A host's result as the collection's ssdlab_events callback prints it."""
    action = str(fields.pop("action", "ssdlab.bench.ssdlab_run"))
    line = {"event": event, "host": "node1", "action": action, "time": NOW, **fields}
    return PlayEvent(event, "node1", action, NOW, "Start quick", line)


def _outcome(*events: PlayEvent, stderr: str = "") -> PlayOutcome:
    return PlayOutcome(0 if not stderr else 2, NOW, events, stderr)


def test_each_target_gets_the_job_the_node_started_or_its_reason() -> None:
    rows = [
        {"target": "/mnt/a", "job": "j1", "started": True},
        {"target": "/mnt/b", "job": None, "problem": "cannot make a job folder"},
    ]
    failed = _event("failed", jobs=rows, msg="not started: /mnt/b: cannot make a job folder")
    first, second = started_jobs(_planned(), [failed], _outcome(failed))
    assert (first.job, first.problem) == ("j1", None)
    assert (second.job, second.problem) == (None, "cannot make a job folder")
    ok = _event("ok", jobs=[{"target": t, "job": f"j-{t[-1]}"} for t in HOST.targets])
    assert [j.job for j in started_jobs(_planned(), [ok], _outcome(ok))] == ["j-a", "j-b"]


def test_a_host_ansible_could_not_reach_or_run_says_why_on_every_target() -> None:
    down = _event("unreachable", msg="ssh: connect to host node1 port 22: No route to host")
    jobs = started_jobs(_planned(), [down], _outcome(down))
    assert all(
        j.job is None and str(j.problem).startswith("ssh failed: ssh: connect") for j in jobs
    )
    failed = _event("failed", msg="ssdlab is not found on the node")
    jobs = started_jobs(_planned(), [failed], _outcome(failed))
    assert {j.problem for j in jobs} == {
        "ssdlab node start failed: ssdlab is not found on the node"
    }
    jobs = started_jobs(_planned(), [], _outcome(stderr="ERROR! the playbook could not be read"))
    assert {j.problem for j in jobs} == {
        "not started: ansible-playbook exit 2: ERROR! the playbook could not be read"
    }
    silent = _event("ok", jobs=[{"target": "/mnt/a", "job": "j1"}])
    _, second = started_jobs(_planned(), [silent], _outcome(silent))
    assert second.problem == "ssdlab node start gave no job id for it"
