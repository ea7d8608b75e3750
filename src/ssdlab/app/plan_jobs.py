"""`ssdlab plan PROFILE TARGET`: the fio job files a run would use, named as the run numbers
its steps, with the pauses, system tools and round loops around them in words; checked by
`fio --parse-only` when asked. Nothing is run and nothing is written."""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.app.run_plan import QUICK, plan_run
from ssdlab.app.run_target import TargetRequest
from ssdlab.model.profile import ProfilePlan, ProfileStep, SettingValue
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.quick import PREPARE_KEY
from ssdlab.plan.seeds import pass_job
from ssdlab.runner.profile import describe_step, stored_round
from ssdlab.system.fio import check_job_parses, find_fio
from ssdlab.system.process import ProcessRunner


@dataclass(frozen=True, slots=True)
class PlanRequest:
    profile: str  # 'quick', or a profile of `ssdlab run`
    target: TargetRequest
    given: tuple[tuple[str, SettingValue], ...] = ()  # the profile's options given, by name
    check: bool = False  # fio --parse-only on every job file


@dataclass(frozen=True, slots=True)
class PlannedJobs:
    jobs: tuple[tuple[str, str], ...]  # (name, job file text)
    target_path: str
    destructive: bool  # the jobs write to a device: running them needs --destroy-data
    created_file: bool  # the test file would be created and removed
    notes: tuple[str, ...]  # the plan's own notes, and its other steps in words
    parse_failures: tuple[str, ...] | None  # what fio --parse-only refused; None: not asked


def planned_jobs(request: PlanRequest, store: Callable[[], sqlite3.Connection]) -> PlannedJobs:
    """The job files of the run `request` describes; `store` opens the run store, only when an
    option reads a stored run (cachefit --from-run)."""
    planned = plan_run(request.profile, request.target, dict(request.given), store)
    plan, target = planned.plan, planned.target
    notes: tuple[str, ...] = ()
    if request.profile == QUICK:
        jobs = quick_jobs(plan)
    else:
        jobs, notes = plan_jobs(plan), (*plan.notes, *_other_steps(plan))
    return PlannedJobs(
        tuple(jobs),
        target.path,
        plan.destructive,
        target.created_file,
        tuple(notes),
        _parse_failures(jobs) if request.check else None,
    )


def _parse_failures(jobs: list[tuple[str, str]]) -> tuple[str, ...]:
    """'name: fio's complaint' for every job file fio --parse-only refuses."""
    processes = ProcessRunner()
    fio = find_fio(processes)
    failures = []
    for name, text in jobs:
        capture = check_job_parses(processes, fio, text)
        if capture.exit_code != 0:
            failures.append(f"{name}: {capture.stderr.strip() or capture.stdout.strip()}")
    return tuple(failures)


def quick_jobs(plan: ProfilePlan) -> list[tuple[str, str]]:
    """(name, job file text) of every fio job of a quick plan: the preparation, then each
    test's passes ('seq1m-q8t1-read-p1')."""
    return [
        (
            PREPARE_KEY if step.round_index is None else f"{step.key}-p{step.round_index}",
            render_job(step.job, comment=step.comment),
        )
        for step in plan.steps
        if step.job is not None
    ]


def plan_sequence(plan: ProfilePlan) -> list[tuple[int, ProfileStep, int | None]]:
    """(step number, step, round) in the order a run takes them, with each round loop shown
    once (its first round)."""
    sequence: list[tuple[int, ProfileStep, int | None]] = []
    for step in plan.steps:
        sequence.append((len(sequence) + 1, step, None))
    for loop in plan.loops:
        for step in loop.before:
            sequence.append((len(sequence) + 1, step, None))
        for step in loop.steps:
            sequence.append((len(sequence) + 1, step, 1))
    for step in plan.after:
        sequence.append((len(sequence) + 1, step, None))
    return sequence


def plan_jobs(plan: ProfilePlan) -> list[tuple[str, str]]:
    """(name, job file text) of every distinct fio step, numbered as the run numbers them; a
    job repeated with only its name and its pass's seed changed (HIR's hundreds of access
    periods) is shown once, with how many times it runs."""
    jobs: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    counts: list[int] = []
    for number, step, round_index in plan_sequence(plan):
        if step.job is None:
            continue
        job = pass_job(plan, step, stored_round(step, number, round_index))
        text = render_job(job, describe_step(plan, step, number, round_index))
        shape = render_job(step.job).replace(step.key, "<step>")  # the seed the plan gave
        if shape in seen:
            counts[seen[shape]] += 1
            continue
        seen[shape] = len(jobs)
        counts.append(1)
        prefix = "r1-" if round_index is not None else ""
        jobs.append((f"{prefix}{number:02d}-{step.key}", text))
    return [
        (name if count == 1 else f"{name} (x{count})", text)
        for (name, text), count in zip(jobs, counts, strict=True)
    ]


def _other_steps(plan: ProfilePlan) -> list[str]:
    """The steps that are no fio job (pauses, system tools) and the round loops, in words."""
    notes = []
    idles: dict[str, int] = {}
    for number, step, _round in plan_sequence(plan):
        if step.job is None and step.idle_s:
            idles[step.label] = idles.get(step.label, 0) + 1
            if idles[step.label] == 1:
                notes.append(f"step {number}: {step.label}")
        elif step.command:
            notes.append(f"step {number}: {step.label}: runs {' '.join(step.command)}")
    for loop in plan.loops:
        name = f" {loop.name}" if loop.name else ""
        notes.append(
            f"round loop{name}: {len(loop.steps)} steps a round, {loop.min_rounds} to "
            f"{loop.max_rounds} rounds" + (f"; stops on {loop.check}" if loop.check else "")
        )
    repeated = {label: n for label, n in idles.items() if n > 1}
    notes.extend(f"{label}: {n} times" for label, n in repeated.items())
    return notes
