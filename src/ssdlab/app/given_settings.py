"""The options given for a profile, made ready for its planner: what an option names outside
ssdlab is read here, once, before anything is planned. The job file of an endurance run
(`--job-file`: its text is stored with the run, and the workload is that job), the write
cache a stored `cache` run found (cachefit `--from-run`), the mount point fstrim is timed on
(trim `--fstrim`, symlinks resolved). This is the options layer: it reads settings by name,
as given; planners read them as typed fields."""

import sqlite3
from collections.abc import Callable, Mapping

from ssdlab.errors import UsageError
from ssdlab.model.profile import SettingValue
from ssdlab.plan.cachefit import CACHE_FINDING, cache_size_from_finding
from ssdlab.store.findings import load_findings
from ssdlab.store.run_rows import load_run
from ssdlab.system.usage import check_mount_point
from ssdlab.system.user_files import SMALL_FILE_BYTES, read_user_file


def ready_settings(
    profile: str, given: Mapping[str, SettingValue], store: Callable[[], sqlite3.Connection]
) -> dict[str, SettingValue]:
    """`given` (option name → value, only the options given) with what its options name
    read in; `store` opens the run store, only when an option names a stored run."""
    ready = dict(given)
    if profile == "endurance" and ready.get("job_file"):
        _read_job_file(ready)
    if profile == "cachefit" and ready.get("from_run") is not None:
        _cache_size_from_run(ready, store())
    if profile == "qos" and ready.get("targets"):
        ready["targets_text"] = _read_text(str(ready["targets"]), "the targets file")
    if profile == "trim" and isinstance(ready.get("fstrim"), str):
        ready["fstrim"] = check_mount_point(str(ready["fstrim"]))
    return ready


def _read_job_file(given: dict[str, SettingValue]) -> None:
    """endurance --job-file FILE: its text goes with the run; the workload is that job."""
    given["job_text"] = _read_text(str(given["job_file"]), "the job file")
    if given.get("workload") in (None, "randwrite-4k"):
        given["workload"] = "job"


def _read_text(path: str, what: str) -> str:
    """A small UTF-8 file the user names, read once and stored with the run."""
    data = read_user_file(path, SMALL_FILE_BYTES, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"cannot read {what} {path}: {error}") from None


def _cache_size_from_run(given: dict[str, SettingValue], conn: sqlite3.Connection) -> None:
    """cachefit --from-run RUN: the write-cache size a stored `cache` run found."""
    if given.get("cache_size") is not None:
        raise UsageError("give --cache-size or --from-run, not both")
    run_id = int(str(given["from_run"]))
    run = load_run(conn, run_id)
    if run is None or run.profile != "cache":
        raise UsageError(f"--from-run {run_id}: there is no `cache` run {run_id} in the store")
    body = next((f.body for f in load_findings(conn, run_id) if f.name == CACHE_FINDING), None)
    size = None if body is None else cache_size_from_finding(body)
    if size is not None:
        given["cache_size"] = size
