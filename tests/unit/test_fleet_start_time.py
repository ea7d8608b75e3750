"""The fleet's start time follows the start-up the seat measured (issue #32): a fixed 5 s per
round of --parallel hosts, whatever the number of targets and however loaded the nodes, left
20 hosts × 2 targets to be told their start after it had passed. The seat's clock is injected."""

import json
from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.fleet import launch
from ssdlab.fleet.launch import NodeJob, plan_jobs, start_host
from ssdlab.fleet.reach import FleetReach
from ssdlab.fleet.run import (
    START_MARGIN_S,
    STARTUP_FACTOR,
    FleetRunRequest,
    _start_at,
    start_ahead_s,
)
from ssdlab.model.fleet import FleetHost, HostCheck, RemoteResult
from ssdlab.system.ssh import SshSettings

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

    measured = _start_at(_request(2), startups, clock)
    assert measured == NOW + start_ahead_s(startups, 2)
    assert _start_at(_request(2, start_in_s=1.0), startups, clock) == NOW + 1.0
    assert _start_at(_request(2, start_at_s=NOW + 7), startups, clock) == NOW + 7
    with pytest.raises(UsageError, match="--start-in must not be negative"):
        _start_at(_request(2, start_in_s=-1.0), startups, clock)


def test_a_check_round_trip_is_how_long_the_node_took_to_answer() -> None:
    assert HostCheck("n", True, clock_uncertainty_s=1.5).round_trip_s == 3.0
    assert HostCheck("n", False).round_trip_s is None


def _node(answer: bytes, code: int = 0) -> tuple[list[tuple[list[str], object]], object]:
    """A stand-in for run_remote: what it was sent (the command, its stdin as JSON), and the
    node's `answer`."""
    sent: list[tuple[list[str], object]] = []

    def run_remote(host: FleetHost, remote: list[str], *_: object, **given: object) -> RemoteResult:
        stdin = given.get("input_bytes")
        sent.append((list(remote), json.loads(stdin) if isinstance(stdin, bytes) else None))
        return RemoteResult(
            host.name, tuple(remote), code, answer, "refused" * (code != 0), NOW, NOW
        )

    return sent, run_remote


def test_the_start_carries_the_seats_clock_as_it_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    sent, run_remote = _node(b'[{"job": "j1"}, {"job": "j2"}]')
    monkeypatch.setattr(launch, "run_remote", run_remote)
    host = FleetHost("node1", "node1", targets=("/mnt/a", "/mnt/b"))
    jobs = plan_jobs([host], "quick", [], NOW + 30)
    started = start_host(host, jobs, SshSettings(), clock=lambda: NOW + 0.25)
    assert [job.job for job in started] == ["j1", "j2"]
    ((remote, argvs),) = sent  # one command for every target of the host
    assert remote[-3:] == ["node", "start", "--batch"]
    assert isinstance(argvs, list)
    assert [argv[1] for argv in argvs] == ["/mnt/a", "/mnt/b"]
    for argv in argvs:
        assert argv[argv.index("--start-at") + 1] == f"{NOW + 30:.3f}"
        assert argv[argv.index("--start-sent-at") + 1] == f"{NOW + 0.25:.3f}"
    sent, run_remote = _node(b'[{"job": "j1"}]')
    monkeypatch.setattr(launch, "run_remote", run_remote)
    untimed = start_host(host, [NodeJob(host, "/mnt/a", ("quick", "/mnt/a"))], SshSettings())
    assert [job.job for job in untimed] == ["j1"]
    assert sent[-1][1] == [["quick", "/mnt/a"]]  # no start time: no clock reading either


def test_a_target_that_did_not_start_is_reported_in_its_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host = FleetHost("node1", "node1", targets=("/mnt/a", "/mnt/b"))
    jobs = plan_jobs([host], "quick", [], NOW + 30)
    _, run_remote = _node(b'[{"problem": "cannot make a job folder"}, {"job": "j2"}]')
    monkeypatch.setattr(launch, "run_remote", run_remote)
    first, second = start_host(host, jobs, SshSettings())
    assert (first.job, first.problem) == (None, "cannot make a job folder")
    assert (second.job, second.problem) == ("j2", None)
    for answer, problem in (
        (b'[{"job": "j1"}]', "answered for 1 of 2 runs"),
        (b"not json", "printed no list of job ids"),
        (b'{"job": "j1"}', "printed no list of job ids"),
    ):
        _, run_remote = _node(answer)
        monkeypatch.setattr(launch, "run_remote", run_remote)
        assert all(problem in str(j.problem) for j in start_host(host, jobs, SshSettings()))
    _, run_remote = _node(b"", code=2)
    monkeypatch.setattr(launch, "run_remote", run_remote)
    assert all(j.job is None and j.problem for j in start_host(host, jobs, SshSettings()))


def test_a_host_without_targets_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    sent, run_remote = _node(b"[]")
    monkeypatch.setattr(launch, "run_remote", run_remote)
    host = FleetHost("node1", "node1")
    (job,) = plan_jobs([host], "quick", [], NOW + 30)
    assert start_host(host, [job], SshSettings()) == [job]
    assert sent == []
