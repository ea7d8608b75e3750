"""What a profile run starts from: its settings from the command line, its target (resolved,
or the stored run's again for a resume) and its plan. Shared by `ssdlab run`, `ssdlab plan`,
`ssdlab resume` and `ssdlab endure`."""

import argparse
from pathlib import Path

from ssdlab.cli.store_open import open_db
from ssdlab.errors import StoreError, UsageError
from ssdlab.model.profile import PlanTarget, ProfilePlan, ProfileSpec, SettingValue, Writes
from ssdlab.model.run import RunRecord
from ssdlab.model.target import Target, TargetKind
from ssdlab.plan.cachefit import CACHE_FINDING, cache_size_from_finding
from ssdlab.registry import profile_record
from ssdlab.registry.record import ProfileRecord
from ssdlab.runner.session import RunCalls
from ssdlab.store.findings import load_findings
from ssdlab.store.profile_runs import measured_target
from ssdlab.store.run_rows import load_run
from ssdlab.system.devicetarget import (
    is_block_device_path,
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.filetarget import resolve_file_target
from ssdlab.system.nvme_nodes import controller_write_refusal
from ssdlab.system.process import ProcessRunner
from ssdlab.system.purge import read_purge_support
from ssdlab.system.usage import check_mount_point


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


def given_settings(args: argparse.Namespace, spec: ProfileSpec) -> dict[str, SettingValue]:
    given: dict[str, SettingValue] = {}
    for option in spec.options:
        value = getattr(args, option.name, None)
        if value is not None and value is not False:
            given[option.name] = value
    return given


def _target_size(spec: ProfileSpec, requested: int | None, capacity: int | None) -> int:
    if requested is not None:
        return requested
    if capacity is None:
        return spec.default_file_size_bytes
    return capacity if spec.whole_device_by_default else min(capacity, spec.default_file_size_bytes)


def is_device_target(args: argparse.Namespace) -> bool:
    """Whether the target named is a block device; refuses --buffered for one, and
    --destroy-data for anything else."""
    if is_block_device_path(args.target):
        if args.buffered:
            raise UsageError(
                "--buffered is for file targets; block devices are always tested with direct I/O"
            )
        return True
    controller = controller_write_refusal(args.target)
    if controller is not None:
        raise UsageError(controller)
    if getattr(args, "destroy_data", None):
        raise UsageError(
            f"--destroy-data names a block device, but {args.target} is not one; file targets "
            "never need it"
        )
    return False


def resolve_target(args: argparse.Namespace, spec: ProfileSpec) -> Target:
    writes = spec.writes is not Writes.NEVER
    if is_device_target(args):
        probe = resolve_device_target(args.target, args.size or 1)
        capacity = probe.device.capacity_bytes if probe.device else None
        return resolve_device_target(args.target, _target_size(spec, args.size, capacity))
    return with_loop_warnings(
        resolve_file_target(
            args.target,
            _target_size(spec, args.size, None),
            direct_io=not args.buffered,
            writes=writes,
        )
    )


def plan_target_of(
    target: Target, spec: ProfileSpec | None = None, processes: ProcessRunner | None = None
) -> PlanTarget:
    needs_fill = False
    if target.kind is TargetKind.FILE:
        path = Path(target.path)
        needs_fill = target.created_file or (
            target.reuses_test_file and path.stat().st_size < target.size_bytes
        )
    device = target.device
    is_device = target.kind is TargetKind.DEVICE
    purge_support = None
    if spec is not None and spec.reads_purge_support and is_device and processes is not None:
        purge_support, _captures = read_purge_support(target, processes)  # kept by the facts
    return PlanTarget(
        path=target.path,
        kind=target.kind.value,
        size_bytes=target.size_bytes,
        capacity_bytes=device.capacity_bytes if is_device and device else None,
        direct_io=target.direct_io,
        needs_fill=needs_fill,
        logical_block_bytes=device.logical_block_bytes if device else None,
        discard_supported=None
        if device is None or device.discard_max_bytes is None
        else device.discard_max_bytes > 0,
        transport=device.transport if is_device and device else None,
        purge_support=purge_support,
    )


def build_profile_plan(args: argparse.Namespace) -> tuple[ProfilePlan, Target, ProfileSpec]:
    record = profile_record(args.profile)
    spec = record.spec
    given = given_settings(args, spec)
    if args.profile == "cachefit" and given.get("from_run") is not None:
        _cache_size_from_run(args, given)
    if args.profile == "trim" and isinstance(given.get("fstrim"), str):
        given["fstrim"] = check_mount_point(str(given["fstrim"]))
    target = resolve_target(args, spec)
    plan = record.parts().plan(given, plan_target_of(target, spec, ProcessRunner()))
    return plan, target, spec


def _cache_size_from_run(args: argparse.Namespace, given: dict[str, SettingValue]) -> None:
    """cachefit --from-run RUN: the write-cache size a stored `cache` run found."""
    if given.get("cache_size") is not None:
        raise UsageError("give --cache-size or --from-run, not both")
    run_id = int(str(given["from_run"]))
    conn = open_db(args)
    run = load_run(conn, run_id)
    if run is None or run.profile != "cache":
        raise UsageError(f"--from-run {run_id}: there is no `cache` run {run_id} in the store")
    body = next((f.body for f in load_findings(conn, run_id) if f.name == CACHE_FINDING), None)
    size = None if body is None else cache_size_from_finding(body)
    if size is not None:
        given["cache_size"] = size


def resumable_target(run: RunRecord) -> Target:
    """The run's target again, refusing when it is not the same one any more, or when the run
    was collected from a fleet node (its target is on that node)."""
    if run.collected_at_s is not None:
        raise UsageError(
            f"run {run.run_id} was collected from host {run.host}, where its target is; resume "
            f"it there (its store on that node holds it), then collect it again"
        )
    try:
        stored = measured_target(run)
    except StoreError as error:
        raise UsageError(
            f"run {run.run_id} does not record its target ({error}); it cannot resume"
        ) from None
    size = stored.size_bytes
    if run.target_kind is TargetKind.DEVICE:
        target = resolve_device_target(run.target_path, size)
        before = stored.device.serial if stored.device else None
        now = target.device.serial if target.device else None
        if before != now:
            raise UsageError(
                f"{run.target_path} is not the device run {run.run_id} used (serial "
                f"{before!r} then, {now!r} now); start a new run"
            )
        return target
    path = Path(run.target_path)
    if not path.is_file() or path.stat().st_size < size:
        raise UsageError(
            f"the test file {run.target_path} of run {run.run_id} is gone, so its "
            "preconditioning is lost; start a new run (use --keep to keep a test file)"
        )
    owned = stored.created_file or stored.reuses_test_file
    return Target(
        TargetKind.FILE,
        str(path),
        size,
        run.target_path,
        direct_io=stored.direct_io,
        reuses_test_file=owned,
    )
