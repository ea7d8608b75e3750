"""`ssdlab node start|follow|jobs|supervise`: the runs a fleet starts on a node, detached from
the SSH connection that started them. The processes and job folders are system/detached.py's;
a node keeps its jobs in `fleet-jobs/` beside its store unless told another folder."""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.system import detached

JOBS_FOLDER = "fleet-jobs"  # beside the node's store

JSONDict = dict[str, object]


def jobs_folder(given: str | None, db: Path) -> Path:
    """Where a node keeps its fleet jobs: the folder given (--jobs-dir), else fleet-jobs beside
    the store."""
    if given:
        return Path(given).expanduser().absolute()
    return db.parent / JOBS_FOLDER


@dataclass(frozen=True, slots=True)
class StartRequest:
    jobs_dir: Path
    argv: tuple[str, ...]  # the ssdlab command line the job runs


def start_node_job(request: StartRequest) -> JSONDict:
    """Start `ssdlab ARGV…` detached; its job id, folder and supervisor's pid."""
    if not request.argv:
        raise UsageError("give the ssdlab command line after --, e.g. -- quick /mnt/ssd --json")
    started = detached.start_job(request.jobs_dir, list(request.argv))
    return {"job": started.job, "dir": started.dir, "pid": started.pid}


@dataclass(frozen=True, slots=True)
class FollowRequest:
    jobs_dir: Path
    job: str  # the id `node start` answered with
    offset_stdout: int = 0  # bytes of each output already read (after a reconnect)
    offset_stderr: int = 0


def follow_node_job(request: FollowRequest) -> Iterator[JSONDict]:
    """The job's outputs as records from the offsets on, as they grow, then its exit code (or
    `lost`). The job is looked up now: an unknown one is refused before anything is read."""
    path = detached.job_dir(request.jobs_dir, request.job)
    offsets = {"stdout": request.offset_stdout, "stderr": request.offset_stderr}
    return detached.follow_job(path, offsets)


@dataclass(frozen=True, slots=True)
class JobsRequest:
    jobs_dir: Path


def list_node_jobs(request: JobsRequest) -> list[JSONDict]:
    """Every job: running, exited (with its code) or lost."""
    return detached.list_jobs(request.jobs_dir)


@dataclass(frozen=True, slots=True)
class SuperviseRequest:
    job_dir: Path  # the folder `node start` made


def supervise_node_job(request: SuperviseRequest) -> int:
    """Run the job's command and record its end (`node start` starts this, in a session of
    its own); the exit status of the supervisor."""
    return detached.supervise(request.job_dir)
