"""The plan of a run, from what the command line gave: the settings (the given values over a
quick preset's over the option table's defaults, decoded into the profile's typed settings by
its planner), the target resolved, and the plan the profile's record makes for it. `quick`,
`run`, `plan` and `endure` all start here."""

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ssdlab.app.given_settings import ready_settings
from ssdlab.app.run_target import TargetRequest, plan_target_of, profile_target, resolve_target
from ssdlab.model.plan import Direction, QuickSettings
from ssdlab.model.profile import ProfilePlan, SettingValue
from ssdlab.model.target import Target, TargetKind
from ssdlab.plan.quick_settings import parse_mode, quick_settings, settings_pairs
from ssdlab.registry import profile_record
from ssdlab.registry.record import ProfileRecord
from ssdlab.runner.pass_latency_monitor import MonitorStart
from ssdlab.runner.session import RunCalls
from ssdlab.system.process import ProcessRunner

QUICK = "quick"


@dataclass(frozen=True, slots=True)
class PlannedRun:
    """A run ready to be checked and started: its profile, plan and target."""

    profile: str
    plan: ProfilePlan
    target: Target
    ioengine: str | None = None  # the ioengine fio must have (quick: --ioengine)
    preset: str | None = None  # the quick preset the run is listed under
    latency_monitor: MonitorStart | None = None  # --latency-monitor: the drive's C3h, read

    @property
    def reads_only_device(self) -> bool:
        """Read-only tests on a device: blocks never written may read back faster."""
        return not self.plan.destructive and self.target.kind is TargetKind.DEVICE


def quick_settings_of(given: Mapping[str, SettingValue], target: TargetRequest) -> QuickSettings:
    """The quick suite's settings: the values given over the preset's over the table's."""
    return quick_settings(given, size_bytes=target.size_bytes, direct_io=not target.buffered)


def plan_run(
    profile: str,
    target_request: TargetRequest,
    given: Mapping[str, SettingValue],
    store: Callable[[], sqlite3.Connection],
) -> PlannedRun:
    """The plan of `profile` ('quick', or a profile of `ssdlab run`) on the target named, with
    the options `given` (by name; only those given); `store` opens the run store, only when
    an option reads a stored run."""
    if profile == QUICK:
        return _plan_quick(target_request, given)
    record = profile_record(profile)
    spec = record.spec
    ready = ready_settings(profile, given, store)
    target = profile_target(target_request, spec)
    plan = record.parts().plan(ready, plan_target_of(target, spec, ProcessRunner()))
    return PlannedRun(profile, plan, target)


def _plan_quick(target_request: TargetRequest, given: Mapping[str, SettingValue]) -> PlannedRun:
    settings = quick_settings_of(given, target_request)
    writes = any(d is not Direction.READ for d in parse_mode(settings.mode))
    target = resolve_target(target_request, settings.size_bytes, writes=writes)
    # on a device the preparation fills it first, but only when writing is allowed
    where = plan_target_of(target, needs_fill=writes if target.kind is TargetKind.DEVICE else None)
    plan = profile_record(QUICK).parts().plan(dict(settings_pairs(settings)), where)
    return PlannedRun(QUICK, plan, target, ioengine=settings.ioengine, preset=settings.preset)


def run_calls(record: ProfileRecord) -> RunCalls:
    """What a run of the profile calls: its facts reader, round check and analysis, and the
    kind of run it is stored as."""
    parts = record.parts()
    return RunCalls(
        read_facts=parts.read_facts,
        check_round=parts.check_round,
        analyse=parts.analyse,
        kind=record.run_kind,
    )
