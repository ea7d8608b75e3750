"""The hosts of a fleet as an Ansible inventory names them, and what one remote command did."""

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_COMMAND = ("ssdlab",)


@dataclass(frozen=True, slots=True)
class FleetHost:
    """One node: how OpenSSH reaches it and what ssdlab may do there.

    `targets` are the node's targets (`ssdlab_targets`); `destroy_data` the ones the inventory
    names a second time (`ssdlab_destroy_data`), the only ones a fleet run may write to as a
    device; `db` the node's own store (`ssdlab_db`; None: the node's default); `command` how
    ssdlab is started there (`ssdlab_command`, split into words).
    """

    name: str
    address: str
    port: int | None = None
    user: str | None = None
    key_file: str | None = None
    ssh_args: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    destroy_data: tuple[str, ...] = ()
    db: str | None = None
    command: tuple[str, ...] = DEFAULT_COMMAND
    venv: str | None = None  # where `fleet deploy` installs ssdlab (`ssdlab_venv`)
    python: str | None = None  # the Python `fleet deploy` makes the venv with (`ssdlab_python`)


@dataclass(frozen=True, slots=True)
class RemoteResult:
    """What one command run on one host over SSH did. `error` says why it did not run to the
    end (unreachable, timed out); `returncode` 255 is OpenSSH's own failure."""

    host: str
    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stderr: str
    started_at_s: float
    ended_at_s: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def failure(self) -> str:
        """Why it failed, in one line: the transport's reason, or the command's last words."""
        if self.error is not None:
            return self.error
        last = [line for line in self.stderr.splitlines() if line.strip()]
        said = last[-1].strip() if last else "no message"
        if self.returncode == 255:
            return f"ssh failed: {said}"
        return f"exit {self.returncode}: {said}"


@dataclass(frozen=True, slots=True)
class HostCheck:
    """One node as `fleet doctor` found it; None where it could not be learnt."""

    host: str
    reachable: bool
    problem: str | None = None  # why the node cannot take part, in one line
    hostname: str | None = None
    ssdlab_version: str | None = None
    python: str | None = None
    fio_version: str | None = None
    smartctl_version: str | None = None
    nvme_version: str | None = None
    is_root: bool | None = None
    direct_io: Mapping[str, str | None] = field(default_factory=dict)  # folder → problem
    clock_offset_s: float | None = None  # node clock − this clock
    clock_uncertainty_s: float | None = None  # half the round trip the offset was read in
    missing_tools: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return self.reachable and self.problem is None


@dataclass(frozen=True, slots=True)
class Mismatch:
    what: str  # ssdlab | fio | smartctl | clock
    changes_results: bool  # True: a fleet run is refused unless the user allows it
    detail: str


@dataclass(frozen=True, slots=True)
class JobOutcome:
    """How one node's run of a fleet run ended, as far as this machine saw it."""

    host: str
    target: str
    job: str | None
    exit_code: int | None
    lost: str | None  # why it could not be followed to its end (it may still run there)
    stdout: str  # what the node's ssdlab printed: its run document (--json)
    said: str | None = None  # the last line it wrote on stderr: a refusal's reason

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.lost is None


@dataclass(frozen=True, slots=True)
class HostCollect:
    host: str
    added: tuple[str, ...] = ()  # run UUIDs new here
    updated: tuple[str, ...] = ()  # collected before while running, now brought up to date
    refused: tuple[str, ...] = ()  # one line per run not taken: `run UUID: why`
    problem: str | None = None
    transfer_s: float | None = None
    transfer_bytes: int | None = None
