"""The requests of the commands that start or plan a run, from their options: the values given
of the profile's option table (by name; a value not given is left to the table), the target
as named, and the rated endurance given. Shared by `quick`, `run`, `plan`, `resume`,
`endure` and `node check`; a resume's request too."""

import argparse
import time

from ssdlab.app.baseline import baseline_request
from ssdlab.app.endurance import STOP_OPTIONS
from ssdlab.app.plan_jobs import PlanRequest
from ssdlab.app.resume import ResumeRequest
from ssdlab.app.run_target import TargetRequest
from ssdlab.app.run_target import is_device_target as _is_device_target
from ssdlab.app.start import StartRequest
from ssdlab.cli.latency_monitor_options import latency_monitor_request
from ssdlab.cli.rating import rating_given
from ssdlab.errors import UsageError
from ssdlab.model.profile import ProfileSpec, SettingValue
from ssdlab.registry import profile_record
from ssdlab.runner.session import late_start_problem

Given = tuple[tuple[str, SettingValue], ...]


def given_settings(args: argparse.Namespace, spec: ProfileSpec) -> Given:
    """The options of `spec`'s table given on the command line (None or False: not given)."""
    values = ((option.name, getattr(args, option.name, None)) for option in spec.options)
    return tuple(
        (name, value) for name, value in values if value is not None and value is not False
    )


def target_request(args: argparse.Namespace) -> TargetRequest:
    return TargetRequest(args.target, args.size, args.buffered, getattr(args, "destroy_data", None))


def is_device_target(args: argparse.Namespace) -> bool:
    """Whether the target named is a block device (app/run_target.is_device_target)."""
    return _is_device_target(target_request(args))


def start_request(args: argparse.Namespace, profile: str) -> StartRequest:
    """What `quick`, `run PROFILE` and `endure` start: the options of the profile's table
    given, the target, --keep, --start-at, the baseline and the rating (where the command
    has them)."""
    baseline = baseline_request(
        getattr(args, "baseline", None),
        reset=getattr(args, "baseline_reset", False),
        add=getattr(args, "baseline_add", False),
        fail_on_regression=getattr(args, "fail_on_regression", False),
    )
    return StartRequest(
        profile,
        target_request(args),
        given_settings(args, profile_record(profile).spec),
        keep=args.keep,
        start_at=run_start_at(args, time.time()),
        fleet_start=getattr(args, "start_sent_at", None) is not None,
        baseline=baseline,
        rated=rating_given(args),
        latency_monitor=latency_monitor_request(args),
    )


def run_start_at(args: argparse.Namespace, now: float) -> float | None:
    """--start-at as given. A time typed here that is well past at `now` is refused (a
    mistyped time, or clocks that disagree); a time a fleet sent (--start-sent-at, its clock
    already checked as it arrived) never is: a run that gets it late starts at once."""
    start_at: float | None = getattr(args, "start_at", None)
    sent_at = getattr(args, "start_sent_at", None)
    if start_at is None:
        if sent_at is not None:
            raise UsageError("--start-sent-at goes with --start-at (both set by ssdlab fleet run)")
        return None
    if sent_at is None:
        problem = late_start_problem(f"{start_at:.3f}".rstrip("0").rstrip("."), start_at, now)
        if problem is not None:
            raise UsageError(f"--start-at {problem}")
    return start_at


def plan_request(args: argparse.Namespace) -> PlanRequest:
    """What `ssdlab plan PROFILE` plans."""
    given = given_settings(args, profile_record(args.profile).spec)
    return PlanRequest(args.profile, target_request(args), given, check=args.check)


def resume_request(args: argparse.Namespace, run: str) -> ResumeRequest:
    """What `ssdlab resume RUN` (and `endure --resume RUN`) continues, and how."""
    given = ((name, getattr(args, name, None)) for name in STOP_OPTIONS)
    return ResumeRequest(
        run,
        args.destroy_data,
        tuple((name, value) for name, value in given if value is not None),
        keep=getattr(args, "keep", False),
        rated=rating_given(args),
    )
