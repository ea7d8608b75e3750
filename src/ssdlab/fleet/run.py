"""`ssdlab fleet run`: one profile on every target of every host, started together.

The nodes are checked first, through Ansible (run.yml's check play, fleet/run_play.py; hosts
that cannot take part are reported, and versions that would change the results stop the run
unless allowed); one start time is chosen here from how long the check took; the runs are
started detached on every node for that time, through Ansible again (run.yml's start task);
then followed to their ends over ssdlab's own ssh, which streams every run's progress lines
and resumes them after a drop (fleet/launch.py; or left to go on alone with `detach`), and the
hosts that ran are collected into this machine's store (fleet/collect.py, collect.yml). The
options after `--` are checked once, here, by the caller's parser: the nodes run this same
ssdlab.
"""

import contextlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ssdlab import __version__
from ssdlab.analysis.fleet import mismatches
from ssdlab.app.run_store import open_run_store
from ssdlab.errors import FleetError, UsageError
from ssdlab.fleet.collect import collect_fleet
from ssdlab.fleet.launch import NodeJob, fleet_option, follow_jobs, node_words, set_by_fleet
from ssdlab.fleet.play_hosts import play_folder
from ssdlab.fleet.reach import FleetReach, fleet_hint, fleet_hosts, ssh_settings
from ssdlab.fleet.run_play import check_nodes, start_nodes
from ssdlab.model.fleet import FleetHost, HostCheck, HostCollect, JobOutcome
from ssdlab.model.next_command import CommandContext
from ssdlab.system.ssh import multiplexed

# the start is set this far beyond the start-up the seat measured (start_ahead_s), and a host
# whose check gave no measure is taken to need this long for each of its steps
START_MARGIN_S = 5.0
# how much longer than measured the starts are allowed to take: a node is asked for its facts
# once, but starts a run per target, each with its own checks, on a machine that may be busier
STARTUP_FACTOR = 2.0
CHECK_AHEAD_S = 3600.0  # the start time the options are checked with (any future time)


@dataclass(frozen=True, slots=True)
class FleetRunRequest:
    reach: FleetReach
    profile: str  # quick, endure, or a profile of `ssdlab run`
    profile_args: tuple[str, ...]  # the options after --, for every node
    db: Path  # this machine's store, where the runs are collected
    start_at_s: float | None = None  # --start-at
    start_in_s: float | None = None  # --start-in
    detach: bool = False  # start the runs and return
    collect: bool = True  # bring the runs here once they ended (not --no-collect)
    reconnect_for_s: float = 60.0
    allow_mismatch: bool = False
    context: CommandContext = field(default_factory=CommandContext)  # what hints carry


class RunProgress(Protocol):
    """Where a fleet run says what it does while it runs."""

    def starting(self, profile: str, hosts: int, of: int, start_at_s: float) -> None:
        """The runs are about to be started on `hosts` of the `of` hosts, for this time."""

    def __call__(self, source: str, text: str) -> None:
        """A progress line of one node's run ('node1 /mnt/ssd')."""


# the words one node will run, checked by this ssdlab's own parser (UsageError when bad)
CheckWords = Callable[[Sequence[str]], None]


@dataclass(frozen=True, slots=True)
class FleetRun:
    profile: str
    start_at_s: float
    outcomes: tuple[JobOutcome, ...]  # the hosts that could not take part first
    ok: bool  # every run complete (detached: every host took part and every run started)
    collected: tuple[HostCollect, ...] = ()
    summaries: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (host, target)


def run_fleet(request: FleetRunRequest, progress: RunProgress, check_words: CheckWords) -> FleetRun:
    given = _profile_args(request.profile_args)
    hosts = fleet_hosts(request.reach)
    first = next((h for h in hosts if h.targets), None)
    if first is not None:
        at = time.time() + CHECK_AHEAD_S
        check_words(node_words(first, first.targets[0], request.profile, given, at))
    conn = None if request.detach or not request.collect else open_run_store(request.db)
    settings = ssh_settings(request.reach)
    with_targets = [host for host in hosts if host.targets]
    with play_folder() as private:  # one ssh login a host for both plays
        checked = check_nodes(with_targets, settings, fleet_hint(request.reach, "deploy"), private)
        _refuse_mismatch(checked.checks, request)
        taking_part = [h for h, c in zip(with_targets, checked.checks, strict=True) if c.usable]
        startups = [(len(h.targets), checked.took_s.get(h.name)) for h in taking_part]
        start_at = _start_at(request, startups, checked.play_s)
        progress.starting(request.profile, len(taking_part), len(hosts), start_at)
        jobs = start_nodes(taking_part, request.profile, given, start_at, settings, private)
    jobs += [_without_targets(host) for host in hosts if not host.targets]
    unusable = _unusable(checked.checks)
    if request.detach:
        started = [JobOutcome(j.host.name, j.target, j.job, None, j.problem, "") for j in jobs]
        ok = all(j.job is not None for j in jobs) and not unusable
        return FleetRun(request.profile, start_at, (*unusable, *started), ok)
    with multiplexed(settings) as ssh:
        outcomes = follow_jobs(jobs, ssh, progress, request.reconnect_for_s, _later(request))
        collected: list[HostCollect] = []
        if conn is not None:
            collected = collect_fleet(conn, _reached(taking_part, outcomes), ssh)
    every = (*unusable, *outcomes)
    ok = all(o.ok for o in every)
    return FleetRun(request.profile, start_at, every, ok, tuple(collected), _summaries(every))


def _without_targets(host: FleetHost) -> NodeJob:
    return NodeJob(host, "", (), problem="the inventory gives it no ssdlab_targets")


def _profile_args(given: Sequence[str]) -> list[str]:
    fought = set_by_fleet(given)
    if fought:
        raise UsageError(
            f"{', '.join(_as_named(word) for word in fought)} after -- is set by the fleet from "
            "the inventory: the node's store is ssdlab_db, the targets to erase "
            "ssdlab_destroy_data, the start --start-at and --start-sent-at"
        )
    return list(given)


def _as_named(word: str) -> str:
    """A refused word, with the option it names when cut short: '--destroy (--destroy-data)'."""
    option = fleet_option(word)
    return word if option is None or word.split("=", 1)[0] == option else f"{word} ({option})"


def _refuse_mismatch(checks: Sequence[HostCheck], request: FleetRunRequest) -> None:
    blocking = [m for m in mismatches(checks, __version__) if m.changes_results]
    if blocking and not request.allow_mismatch:
        raise FleetError(
            "the hosts would not measure alike: "
            + "; ".join(m.detail for m in blocking)
            + f"; make them the same ({fleet_hint(request.reach, 'deploy')} installs this "
            "ssdlab) or run anyway with --allow-mismatch"
        )


def _start_at(
    request: FleetRunRequest,
    startups: Sequence[tuple[int, float | None]],
    play_s: float = 0.0,
    clock: Callable[[], float] = time.time,
) -> float:
    """The fleet's start time: --start-at or --start-in as given, else far enough ahead for
    the start-up measured on every host and the play that starts them (`start_ahead_s`)."""
    if request.start_at_s is not None:
        return float(request.start_at_s)
    if request.start_in_s is None:
        ahead = start_ahead_s(startups, request.reach.parallel, play_s)
    elif request.start_in_s < 0:
        raise UsageError("--start-in must not be negative")
    else:
        ahead = request.start_in_s
    return clock() + ahead


def start_ahead_s(
    startups: Sequence[tuple[int, float | None]], parallel: int, play_s: float = 0.0
) -> float:
    """How far ahead of now the fleet's start goes, from each usable host's (number of
    targets, seconds its ssdlab took to give its facts there) and the check play's time
    `play_s` (from its start to its last host's result). The start play goes as the check
    play went (a worker and a module a host, `parallel` at once), so it is counted whole. A
    host starts its runs with one command, but each is an ssdlab of its own starting on the
    node's CPUs: they are counted in turn, each about as long as the facts took, at most
    `parallel` hosts at once, a host taken as soon as one of them is done; the last run
    started on a host then makes its own checks, about as long again. The start is the play
    and the longest of these paths, STARTUP_FACTOR times over, plus START_MARGIN_S: more hosts
    per --parallel, more targets and slower nodes all push it further, none with a fixed
    guess."""
    free = [0.0] * max(1, min(parallel, len(startups)))  # when each --parallel turn is free
    longest = 0.0
    for targets, answered_in in startups:
        if targets == 0:
            continue  # nothing is started there
        each = START_MARGIN_S if answered_in is None else answered_in
        turn = free.index(min(free))
        free[turn] += targets * each
        longest = max(longest, free[turn] + each)
    return START_MARGIN_S + STARTUP_FACTOR * (play_s + longest)


def _unusable(checks: Sequence[HostCheck]) -> list[JobOutcome]:
    return [
        JobOutcome(c.host, "", None, None, f"not started: {c.problem}", "")
        for c in checks
        if not c.usable
    ]


def _later(request: FleetRunRequest) -> str:
    """How to see a run left to go on alone, and to bring it here."""
    status = fleet_hint(request.reach, "status")
    collect = fleet_hint(request.reach, "collect", context=request.context)
    return f"see {status}, and bring it here with {collect}"


def _reached(usable: Sequence[FleetHost], outcomes: Sequence[JobOutcome]) -> list[FleetHost]:
    """The hosts on which a run started."""
    return [h for h in usable if any(o.host == h.name and o.job for o in outcomes)]


def _summaries(outcomes: Sequence[JobOutcome]) -> dict[tuple[str, str], str]:
    """The node's run id from the document each run printed (--json)."""
    found = {}
    for outcome in outcomes:
        with contextlib.suppress(json.JSONDecodeError, AttributeError, TypeError):
            document = json.loads(outcome.stdout)
            run_id = document.get("run_id") or (document.get("run") or {}).get("id")
            if run_id is not None:
                found[(outcome.host, outcome.target)] = f"run {run_id} on the node"
    return found
