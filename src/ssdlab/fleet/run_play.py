"""`fleet run`'s two plays of the collection's run.yml, through Ansible: the check play (each
node's facts, and how long its ssdlab took to give them) and the start task (every target's
run started detached for one start time, one `ssdlab node start --batch` a host through the
collection's ssdlab_run module). Choosing the start time between them, and following the
runs afterwards, stay fleet/run.py's and fleet/launch.py's."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.fleet.doctor import FACTS_TIMEOUT_S, played_check
from ssdlab.fleet.launch import NodeJob, node_words
from ssdlab.fleet.play_hosts import (
    event_problem,
    first_failure,
    host_events,
    play_host,
    run_fleet_play,
)
from ssdlab.model.fleet import FleetHost, HostCheck
from ssdlab.system.ansible_play import PlayEvent, PlayOutcome, last_words
from ssdlab.system.ssh import SshSettings

# a node starts every run of its targets detached and answers at once; a minute is ample
START_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class CheckedNodes:
    checks: tuple[HostCheck, ...]  # in the order of the hosts given
    took_s: Mapping[str, float]  # host → how long its `ssdlab node facts` took there
    play_s: float  # the check play's time, from its start to its last host's result


def _host_vars(host: FleetHost, settings: SshSettings) -> dict[str, object]:
    return play_host(host, settings) | {
        "ssdlab_targets": list(host.targets),
        "ssdlab_destroy_data": list(host.destroy_data),
    }


def check_nodes(
    hosts: Sequence[FleetHost], settings: SshSettings, deploy: str, private: Path
) -> CheckedNodes:
    """Every node's facts through run.yml's check play (its targets' own checks left to the
    runs, which make them again whatever a check said), played in `private`, whose ssh master
    connections are kept open for the start play."""
    if not hosts:
        return CheckedNodes((), {}, 0.0)
    inventory = {h.name: _host_vars(h, settings) | {"ssdlab_check_targets": False} for h in hosts}
    outcome = run_fleet_play(
        "run.yml",
        inventory,
        settings,
        FACTS_TIMEOUT_S,
        tags=("check",),
        private=private,
        keep_masters=True,
    )
    checks = tuple(played_check(host, outcome, deploy) for host in hosts)
    took = {host.name: _took_s(host_events(outcome, host.name)) for host in hosts}
    return CheckedNodes(checks, {k: v for k, v in took.items() if v is not None}, _wall(outcome))


def _took_s(events: Sequence[PlayEvent]) -> float | None:
    facts = next((e for e in events if e.action.endswith("ssdlab_facts")), None)
    took = facts.fields.get("took_s") if facts is not None else None
    return float(took) if isinstance(took, int | float) else None


def _wall(outcome: PlayOutcome) -> float:
    """From the play's start to its last host result, by the callback's clock."""
    times = [event.time_s for event in outcome.events]
    if outcome.started_s is None or not times:
        return 0.0
    return max(0.0, max(times) - outcome.started_s)


def start_nodes(
    hosts: Sequence[FleetHost],
    profile: str,
    profile_args: Sequence[str],
    start_at_s: float,
    settings: SshSettings,
    private: Path,
) -> list[NodeJob]:
    """Every target's run started for `start_at_s` through run.yml's start task, played in
    `private` over the check play's ssh connections; each job with the node's id, or with why
    it did not start (the node's reason, or Ansible's)."""
    if not hosts:
        return []
    inventory = {
        host.name: _host_vars(host, settings)
        | {
            "ssdlab_profile": profile,
            "ssdlab_args": list(profile_args),
            "ssdlab_start_at": f"{start_at_s:.3f}",
        }
        for host in hosts
    }
    outcome = run_fleet_play(
        "run.yml", inventory, settings, START_TIMEOUT_S, tags=("start",), private=private
    )
    jobs: list[NodeJob] = []
    for host in hosts:
        planned = [
            NodeJob(host, target, node_words(host, target, profile, profile_args, start_at_s))
            for target in host.targets
        ]
        jobs += started_jobs(planned, host_events(outcome, host.name), outcome)
    return jobs


def started_jobs(
    planned: Sequence[NodeJob], events: Sequence[PlayEvent], outcome: PlayOutcome
) -> list[NodeJob]:
    """One host's jobs as its ssdlab_run result gives them: each target's job id or problem;
    when the module gave no row for a target, why (Ansible's reason, or the play's)."""
    result = next((e for e in events if e.action.endswith("ssdlab_run")), None)
    rows = result.fields.get("jobs") if result is not None else None
    by_target = {
        row.get("target"): row
        for row in (rows if isinstance(rows, list) else [])
        if isinstance(row, dict)
    }
    failed = first_failure(events)
    if failed is not None:
        otherwise = event_problem(failed, {"ssdlab_run": "ssdlab node start"})
    elif result is None:
        otherwise = f"not started: {last_words(outcome)}"
    else:
        otherwise = "ssdlab node start gave no job id for it"
    jobs = []
    for job in planned:
        row = by_target.get(job.target) or {}
        found, problem = row.get("job"), row.get("problem")
        if isinstance(found, str) and found:
            jobs.append(NodeJob(job.host, job.target, job.words, job=found))
        else:
            said = problem if isinstance(problem, str) and problem else otherwise
            jobs.append(NodeJob(job.host, job.target, job.words, problem=said))
    return jobs
