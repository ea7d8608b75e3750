"""`ssdlab node check TARGET`: the checks a quick run on TARGET makes before it opens anything
for writing (`RunSession.check_target`: no fio still writes it; a device only when
--destroy-data names it and nothing uses it; fio and its ioengine there), answered as
`{ok, reason}` for `ssdlab fleet load`, which runs no ssdlab of its own on the node."""

from dataclasses import dataclass

from ssdlab.app.run_target import TargetRequest, is_device_target
from ssdlab.errors import SsdlabError
from ssdlab.model.plan import Direction
from ssdlab.model.target import Target, TargetKind
from ssdlab.plan.quick_settings import parse_mode
from ssdlab.profiles.quick import SPEC
from ssdlab.runner.session import RunSession
from ssdlab.system.devicetarget import (
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.filetarget import resolve_file_target


@dataclass(frozen=True, slots=True)
class NodeCheckRequest:
    target: str  # a directory, a file path or a block device
    mode: str | None = None  # as quick's --mode (None: quick's default)
    size_bytes: int | None = None  # as quick's --size (None: quick's default)
    buffered: bool = False  # without O_DIRECT (file targets)
    destroy_data: str | None = None


def check_node_target(session: RunSession, request: NodeCheckRequest) -> dict[str, object]:
    """`{"ok": true}`, or `{"ok": false, "reason": …}` when a run would be refused. A --mode
    that is no mode is a usage error, not a refusal."""
    mode = request.mode or str(SPEC.option("mode").default)
    writes = any(d is not Direction.READ for d in parse_mode(mode))
    try:
        target = _target(request, writes)
        session.check_target(
            target,
            destructive=writes and target.kind is TargetKind.DEVICE,
            destroy_data=request.destroy_data,
            ioengine=str(SPEC.option("ioengine").default),
        )
    except SsdlabError as error:
        return {"ok": False, "reason": str(error)}
    return {"ok": True}


def _target(request: NodeCheckRequest, writes: bool) -> Target:
    size = request.size_bytes or SPEC.default_file_size_bytes
    if is_device_target(
        TargetRequest(request.target, buffered=request.buffered, destroy_data=request.destroy_data)
    ):
        return resolve_device_target(request.target, size)
    found = resolve_file_target(request.target, size, direct_io=not request.buffered, writes=writes)
    return with_loop_warnings(found)
