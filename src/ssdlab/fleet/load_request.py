"""`ssdlab fleet load INVENTORY JOB` as a request: the job file read and checked before any
host is contacted (plan/load_job.py), the hosts checked and the load run and stored as one run
(fleet/load.py). This machine's store is opened only once every host has been checked."""

from dataclasses import dataclass
from pathlib import Path

from ssdlab.app.run_store import open_run_store
from ssdlab.errors import ParseError, UsageError
from ssdlab.fleet.load import (
    ALL_HOSTS,
    CONFINED_CLIENT,
    ClientStop,
    LoadOutcome,
    LoadSetup,
    check_hosts,
    run_load,
)
from ssdlab.fleet.reach import FleetReach, fleet_hint, fleet_hosts, ssh_settings
from ssdlab.plan.load_job import LoadJob, check_load_job, server_socket_path
from ssdlab.system.fio import find_fio
from ssdlab.system.process import ProcessRunner
from ssdlab.system.sandbox import require_confinement
from ssdlab.system.signals import SignalGuard
from ssdlab.system.ssh import multiplexed
from ssdlab.system.user_files import read_user_file

MAX_JOB_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class FleetLoadRequest:
    reach: FleetReach
    job_path: str  # a fio job file
    server: str | None  # --server sock:PATH on every node (None: a new socket per node)
    db: Path  # this machine's store, where the load is stored


def read_load_job(path: str) -> LoadJob:
    """The job file, checked: only I/O to its own filename= (plan/load_job.py)."""
    data = read_user_file(path, MAX_JOB_BYTES, "the job file")
    try:
        return check_load_job(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ParseError(f"{path}: not a UTF-8 text file; give a fio job file") from None
    except ParseError as error:
        raise ParseError(f"{path}: {error}") from None


def load_fleet(request: FleetLoadRequest) -> LoadOutcome:
    """Run the load on every host whose checks pass and store it. VersionMismatch (before
    anything runs) when a host's fio is not this machine's. Ctrl-C, SIGTERM and SIGHUP stop
    it as ClientStop says."""
    job = read_load_job(request.job_path)  # refused before any host is contacted
    server = server_socket_path(request.server) if request.server is not None else None
    hosts = fleet_hosts(request.reach)
    if any(host.name == ALL_HOSTS for host in hosts):
        raise UsageError(f"a host named {ALL_HOSTS} would hide the sum of all hosts; rename it")
    local = find_fio(ProcessRunner())
    require_confinement(CONFINED_CLIENT)  # fio's client runs confined: refused before any host
    settings = ssh_settings(request.reach)
    inventory = str(request.reach.inventory.absolute())
    stop = ClientStop(ProcessRunner())
    guard = SignalGuard(on_first=stop.first_signal, on_second=stop.second_signal)
    with guard, multiplexed(settings) as ssh:
        states = check_hosts(hosts, job, ssh, local, fleet_hint(request.reach, "deploy"))
        setup = LoadSetup(inventory, str(Path(request.job_path).absolute()), job, server, ssh)
        return run_load(open_run_store(request.db), setup, states, local, stop)
