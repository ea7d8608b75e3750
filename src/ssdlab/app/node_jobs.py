"""`ssdlab node start|follow|jobs|supervise`: the runs a fleet starts on a node, detached from
the SSH connection that started them; a fleet starts and follows all of a node's runs with one
command each. The processes and job folders are system/detached.py's;
a node keeps its jobs in `fleet-jobs/` beside its store unless told another folder."""

import json
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
    argvs: tuple[tuple[str, ...], ...]  # the ssdlab command lines, one job each


def batch_argvs(text: str) -> tuple[tuple[str, ...], ...]:
    """The command lines of `node start --batch`: a JSON list of lists of words on stdin."""
    try:
        given = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"node start --batch reads a JSON list on stdin: {error}") from error
    if not isinstance(given, list) or not all(
        isinstance(argv, list) and all(isinstance(word, str) for word in argv) for argv in given
    ):
        raise UsageError(
            'node start --batch reads a JSON list of command lines, e.g. [["quick", "/mnt/a"]]'
        )
    return tuple(tuple(argv) for argv in given)


def start_node_jobs(request: StartRequest) -> list[JSONDict]:
    """Start `ssdlab ARGV…` detached for every command line, all at once; per command line in
    order its job id, folder and supervisor's pid, or the problem that kept it from starting."""
    if not request.argvs or not all(request.argvs):
        raise UsageError("give the ssdlab command line after --, e.g. -- quick /mnt/ssd --json")
    started = detached.start_jobs(request.jobs_dir, [list(argv) for argv in request.argvs])
    return [
        {"problem": each}
        if isinstance(each, str)
        else {"job": each.job, "dir": each.dir, "pid": each.pid}
        for each in started
    ]


def follow_point(word: str) -> tuple[str, int, int]:
    """A job of `node follow` and where to start: 'JOB', or 'JOB:STDOUT:STDERR' with the bytes
    of each output already read (after a reconnect)."""
    job, *offsets = word.split(":")
    if not offsets:
        return job, 0, 0
    if len(offsets) == 2 and all(offset.isdigit() for offset in offsets):
        return job, int(offsets[0]), int(offsets[1])
    raise UsageError(f"{word!r}: give JOB or JOB:STDOUT:STDERR (byte offsets)")


@dataclass(frozen=True, slots=True)
class FollowRequest:
    jobs_dir: Path
    jobs: tuple[tuple[str, int, int], ...]  # id `node start` answered, bytes of stdout, stderr


def follow_node_jobs(request: FollowRequest) -> Iterator[JSONDict]:
    """The jobs' outputs as records from the offsets on, as they grow, each naming its job,
    then each job's exit code (or `lost`). The jobs are looked up now: an unknown one is
    refused before anything is read."""
    points = {
        detached.job_dir(request.jobs_dir, job): {"stdout": stdout, "stderr": stderr}
        for job, stdout, stderr in request.jobs
    }
    return detached.follow_jobs(points)


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
