"""The run row: what every run records before any work starts, and the one function that
creates it — for measured, resumed, simulated, imported and health runs alike."""

import os
import socket
import sqlite3
import time
import uuid
from dataclasses import dataclass

from ssdlab.model.run import RunKind
from ssdlab.model.target import TargetKind
from ssdlab.store import lifecycle
from ssdlab.system.environment import read_boot_id, read_pid_namespace


@dataclass(frozen=True, slots=True)
class RunHeader:
    """What a run row records before any work starts (JSON texts as they are stored)."""

    kind: RunKind
    profile: str
    profile_version: int
    preset: str | None
    target_kind: TargetKind
    target_path: str
    settings_json: str
    plan_json: str
    target_json: str = "{}"
    environment_json: str = "{}"
    device_id: int | None = None


def create_run(
    conn: sqlite3.Connection, header: RunHeader, started_at_s: float | None = None
) -> int:
    """Insert the run (status running) with who runs it: host, pid, boot id and PID
    namespace, so a later start can tell a live run from a dead one; and a new random UUID,
    which names the run in every store it is copied to (fleet collect)."""
    return lifecycle.create_run(
        conn,
        lifecycle.NewRun(
            kind=header.kind,
            profile=header.profile,
            profile_version=header.profile_version,
            preset=header.preset,
            target_kind=header.target_kind,
            target_path=header.target_path,
            target_json=header.target_json,
            device_id=header.device_id,
            settings_json=header.settings_json,
            plan_json=header.plan_json,
            environment_json=header.environment_json,
            started_at_s=time.time() if started_at_s is None else started_at_s,
            host=socket.gethostname(),
            pid=os.getpid(),
            boot_id=read_boot_id(),
            pid_namespace=read_pid_namespace(),
            uuid=str(uuid.uuid4()),
        ),
    )
