"""`--latency-monitor` and `--latency-monitor-enable` of `run PROFILE` and `quick`: before
anything of the run is stored, the target checked (an NVMe namespace, a plan with a measured
pass), Feature C5h set when asked (a change to the drive's configuration:
only with its own option) and the drive's C3h read once (docs/ocp.md).

A drive without the page (QEMU's emulated NVMe answers get-log C3h with an error status) runs
on without it, and the run records that once. A drive whose monitor is off is refused unless
the run was asked to enable it: the user asked for the drive's counts, and a run of hours
whose reconciliation the drive could never have counted would be wasted.
"""

from ssdlab.errors import ToolError, UsageError
from ssdlab.model.latency_monitor import LatencyMonitorRequest, by_hand_command
from ssdlab.model.profile import ProfilePlan, StepRole
from ssdlab.model.run import Capture
from ssdlab.model.target import Target, TargetKind
from ssdlab.runner.pass_latency_monitor import MonitorStart
from ssdlab.system.latency_monitor import enable_monitor, nvme_said, read_c3
from ssdlab.system.process import ProcessRunner


def target_refusal(target: Target) -> str | None:
    """Why the target has no Latency Monitor to read, or None."""
    device = target.device
    if target.kind is not TargetKind.DEVICE or device is None:
        return (
            f"--latency-monitor reads the OCP Latency Monitor (C3h) of an NVMe drive, and "
            f"{target.requested} is a file: name the drive's namespace (e.g. /dev/nvme0n1)"
        )
    if not device.name.startswith("nvme"):
        kind = device.transport or "non-NVMe"
        return (
            f"--latency-monitor reads the OCP Latency Monitor (C3h) of an NVMe drive, and "
            f"{target.requested} is a {kind} device: name an NVMe namespace (e.g. /dev/nvme0n1)"
        )
    return None


def plan_refusal(plan: ProfilePlan) -> str | None:
    """Why the plan has no measured pass to read C3h around, or None."""
    steps = (*plan.steps, *(s for loop in plan.loops for s in loop.steps), *plan.after)
    if any(s.role is StepRole.MEASURE and s.job is not None for s in steps):
        return None
    return f"--latency-monitor: {plan.profile} has no measured fio pass to read C3h around"


def prepare_latency_monitor(
    processes: ProcessRunner, request: LatencyMonitorRequest, plan: ProfilePlan, target: Target
) -> MonitorStart:
    """Checks, the feature set (when asked) and the first read; UsageError or ToolError in one
    line when the run cannot have what was asked."""
    refusal = target_refusal(target) or plan_refusal(plan)
    if refusal is not None:
        raise UsageError(refusal)
    device = target.path
    captures: tuple[Capture, ...] = ()
    if request.enable is not None:
        try:
            captures = enable_monitor(processes, device, request.enable)
        except ToolError as error:
            raise ToolError(f"--latency-monitor-enable: {error}") from None
        if captures[-1].exit_code != 0:
            raise ToolError(
                f"--latency-monitor-enable: nvme-cli could not set the Latency Monitor "
                f"(Feature C5h) of {device}: {nvme_said(captures[-1])}; the drive may have no "
                "OCP Latency Monitor: run without --latency-monitor-enable"
            )
    probe = read_c3(processes, device)
    if probe.log is not None and not probe.log.enabled:
        if request.enable is not None:
            raise ToolError(
                f"the Latency Monitor of {device} is still off after nvme-cli set Feature C5h "
                "(C3h feature status bit 0 is 0): check the drive's firmware"
            )
        raise UsageError(
            f"the Latency Monitor of {device} is off (C3h feature status bit 0): add "
            "--latency-monitor-enable (thresholds 5,10,20,50 ms) or enable it by hand: "
            f"{by_hand_command(device)}"
        )
    return MonitorStart(device, probe, request.enable, captures)
