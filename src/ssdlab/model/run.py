"""Runs, their environment and the raw evidence of every tool invocation."""

from dataclasses import dataclass
from enum import StrEnum

from ssdlab.model.target import TargetKind


class RunKind(StrEnum):
    """Every kind of run the store keeps (`runs.kind`); the strings are the stored ones."""

    QUICK = "quick"  # ssdlab quick
    PROFILE = "profile"  # ssdlab run PROFILE, ssdlab endure (profile endurance)
    SIM = "sim"  # ssdlab sim and ssdlab sim sweep
    IMPORT = "import"  # ssdlab import, and ssdlab health of a saved file or log
    HEALTH = "health"  # ssdlab health of a drive
    WATCH = "watch"  # ssdlab watch: health samples over days
    FLEET_LOAD = "fleet-load"  # ssdlab fleet load: one fio job on every host at once


SIM_SWEEP_PROFILE = "sim-sweep"  # the profile of a `sim` run that simulated a sweep


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class Capture:
    """One tool invocation exactly as it happened. Stored before anything parses it."""

    tool: str
    argv: tuple[str, ...]
    exit_code: int | None  # None: killed before it exited
    stdout: str
    stderr: str
    started_at_s: float  # Unix time
    ended_at_s: float
    tool_version: str | None = None
    input_text: str | None = None  # the job file fio read, when there was one


@dataclass(frozen=True, slots=True)
class Environment:
    host: str
    kernel: str
    os_release: str | None
    cpu_model: str | None
    python_version: str
    ssdlab_version: str
    fio_version: str | None
    smartctl_version: str | None
    nvme_version: str | None
    is_root: bool


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A run as the store holds it. JSON columns come back as plain dicts."""

    run_id: int
    kind: RunKind
    profile: str
    profile_version: int
    preset: str | None
    status: RunStatus
    status_reason: str | None
    target_kind: TargetKind
    target_path: str
    target: dict[str, object]
    settings: dict[str, object]
    plan: dict[str, object]
    environment: dict[str, object]
    started_at_s: float
    ended_at_s: float | None
    host: str
    pid: int
    boot_id: str | None
    pid_namespace: str | None = None  # e.g. 'pid:[4026531836]'; None: not recorded
    uuid: str = ""  # random, the same in every store the run is copied to (schema 7)
    node_host: str | None = None  # collected: the node's hostname (`host`: inventory name)
    collected_at_s: float | None = None  # a collected run: when it was copied into this store


def run_origin(run: RunRecord) -> dict[str, object]:
    """Where a run was made, as its documents give it: the host (for a collected run its name
    in the fleet inventory), the run's UUID, and for a collected run the node's own hostname
    and when it was collected (both None for a run made in this store)."""
    return {
        "host": run.host,
        "uuid": run.uuid,
        "node_host": run.node_host,
        "collected_at_s": run.collected_at_s,
    }
