"""The target a run measures: the one named on the command line, resolved (a block device, or
a test file in a folder or at a path), described to the planner; or a stopped run's own
target again, for a resume. Shared by `quick`, `run`, `plan`, `resume` and `node check`."""

from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import StoreError, UsageError
from ssdlab.model.profile import PlanTarget, ProfileSpec, Writes
from ssdlab.model.run import RunRecord
from ssdlab.model.target import Target, TargetKind
from ssdlab.store.profile_runs import measured_target
from ssdlab.system.devicetarget import (
    is_block_device_path,
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.filetarget import resolve_file_target
from ssdlab.system.nvme_nodes import controller_write_refusal
from ssdlab.system.process import ProcessRunner
from ssdlab.system.purge import read_purge_support


@dataclass(frozen=True, slots=True)
class TargetRequest:
    """The target as the command line names it: a folder, a file path or a block device; the
    region's size (None: the profile's default); the page cache (`--buffered`); and the
    device the user allows to be written (`--destroy-data`)."""

    path: str = "."
    size_bytes: int | None = None
    buffered: bool = False
    destroy_data: str | None = None


def is_device_target(request: TargetRequest) -> bool:
    """Whether the target named is a block device; refuses --buffered for one, --destroy-data
    for anything else, and an NVMe controller node (its namespaces are the devices)."""
    if is_block_device_path(request.path):
        if request.buffered:
            raise UsageError(
                "--buffered is for file targets; block devices are always tested with direct I/O"
            )
        return True
    controller = controller_write_refusal(request.path)
    if controller is not None:
        raise UsageError(controller)
    if request.destroy_data:
        raise UsageError(
            f"--destroy-data names a block device, but {request.path} is not one; file targets "
            "never need it"
        )
    return False


def resolve_target(request: TargetRequest, size_bytes: int, *, writes: bool) -> Target:
    """The device, or the test file (made in a folder, or at a new path), for a region of
    `size_bytes`."""
    if is_device_target(request):
        return resolve_device_target(request.path, size_bytes)
    return _file_target(request, size_bytes, writes=writes)


def _file_target(request: TargetRequest, size_bytes: int, *, writes: bool) -> Target:
    return with_loop_warnings(
        resolve_file_target(request.path, size_bytes, direct_io=not request.buffered, writes=writes)
    )


def profile_target(request: TargetRequest, spec: ProfileSpec) -> Target:
    """The target of a profile run: its region `--size`, else the profile's default (on a
    device: the whole device, or the default at most, as the profile says)."""
    if not is_device_target(request):
        size = request.size_bytes
        default = spec.default_file_size_bytes
        return _file_target(
            request, default if size is None else size, writes=spec.writes is not Writes.NEVER
        )
    size = request.size_bytes
    if size is None:
        device = resolve_device_target(request.path, 1).device
        size = _default_size(spec, None if device is None else device.capacity_bytes)
    return resolve_device_target(request.path, size)


def _default_size(spec: ProfileSpec, capacity: int | None) -> int:
    if capacity is None:
        return spec.default_file_size_bytes
    return capacity if spec.whole_device_by_default else min(capacity, spec.default_file_size_bytes)


def plan_target_of(
    target: Target,
    spec: ProfileSpec | None = None,
    processes: ProcessRunner | None = None,
    *,
    needs_fill: bool | None = None,
) -> PlanTarget:
    """The target as a planner sees it; a profile that chooses a purge is told how the drive
    can be purged. `needs_fill` None: a test file made now, or kept but too small, is filled."""
    if needs_fill is None:
        needs_fill = target.kind is TargetKind.FILE and (
            target.created_file
            or (target.reuses_test_file and Path(target.path).stat().st_size < target.size_bytes)
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
