"""Every node's runs brought into this machine's store, each run once.

A node is told which of its runs are here already and finished (by run UUID); it sends the
others as a small store file of their own (`ssdlab node export`), which is copied in run by
run, one transaction each, under the node's inventory name. A run collected while it was
still running is brought up to date by the next collect. What a node sends is data, never
authority over this store: a run that would change a run made here or collected from another
host, or that holds what no run of ssdlab's would, is refused (store/merge.py); the node's
file is kept under a name of collect's own, whatever the host is called.

The transfers are Ansible's: the collect playbook of ssdlab's collection (ssdlab.bench) exports
on every node and fetches the files here, `--parallel` hosts at once (system/ansible_play.py).
The merge stays here, in this process, one host at a time (one writer).
"""

import hashlib
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.app.run_store import open_run_store
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.fleet.play_hosts import (
    event_problem,
    first_failure,
    host_events,
    play_host,
    run_fleet_play,
)
from ssdlab.fleet.reach import FleetReach, fleet_hosts, ssh_settings
from ssdlab.model.fleet import FleetHost, HostCollect
from ssdlab.store.db import open_store
from ssdlab.store.merge import copy_runs
from ssdlab.system.ansible_play import PlayOutcome, last_words
from ssdlab.system.ssh import SshSettings

EXPORT_TIMEOUT_S = 6 * 3600.0
STEPS = {"ssdlab_export": "node export"}  # what a failed task of collect.yml is called


@dataclass(frozen=True, slots=True)
class CollectRequest:
    reach: FleetReach
    db: Path  # this machine's store


def collect_runs(request: CollectRequest) -> list[HostCollect]:
    """`ssdlab fleet collect`: every host's new and changed runs into this machine's store
    (opened once the inventory has been read); one row per host."""
    hosts = fleet_hosts(request.reach)
    settings = ssh_settings(request.reach)
    conn = open_run_store(request.db)
    return collect_fleet(conn, hosts, settings)


def finished_here(conn: sqlite3.Connection, host: str) -> list[str]:
    """The UUIDs of the runs of `host` this store holds and that will not change any more."""
    rows = conn.execute(
        "SELECT uuid FROM runs WHERE host = ? AND status != 'running' AND uuid IS NOT NULL",
        (host,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def export_file_name(host: str) -> str:
    """The name of the file a host's runs are received in: made from a hash of the inventory
    name, never the name itself, so a host called `../x` or `/etc/passwd` cannot make collect
    write outside its folder, and two names never share a file."""
    digest = hashlib.sha256(host.encode("utf-8", "surrogatepass")).hexdigest()
    return f"host-{digest[:32]}.db"


def collect_fleet(
    conn: sqlite3.Connection, hosts: Sequence[FleetHost], settings: SshSettings
) -> list[HostCollect]:
    """Bring every host's new and changed runs into the store `conn`; one row per host."""
    known = {host.name: finished_here(conn, host.name) for host in hosts}
    with tempfile.TemporaryDirectory(prefix="ssdlab-collect-") as scratch:
        folder = Path(scratch) / "exports"
        folder.mkdir()
        fetched = fetch_exports(hosts, known, folder, settings)
        return [_merge(conn, host.name, known[host.name], *fetched[host.name]) for host in hosts]


def fetch_exports(
    hosts: Sequence[FleetHost],
    known: Mapping[str, list[str]],
    folder: Path,
    settings: SshSettings,
) -> dict[str, tuple[Path | None, HostCollect]]:
    """Every host's new runs as a store file in `folder` (named by export_file_name), or why
    not: the collection's collect playbook, its merge left to this process, run by Ansible
    with `--parallel` forks; a host that fails or cannot be reached is reported in its row."""
    inventory = {
        host.name: play_host(host, settings)
        | {"ssdlab_known": known[host.name], "ssdlab_exports_dir": str(folder)}
        for host in hosts
    }
    outcome = run_fleet_play("collect.yml", inventory, settings, EXPORT_TIMEOUT_S, ("merge",))
    return {host.name: _fetched(host.name, folder, outcome) for host in hosts}


def _fetched(host: str, folder: Path, outcome: PlayOutcome) -> tuple[Path | None, HostCollect]:
    events = host_events(outcome, host)
    failed = first_failure(events)
    if failed is not None:
        return None, HostCollect(host, problem=event_problem(failed, STEPS))
    path = folder / export_file_name(host)
    fetches = [event for event in events if event.action.endswith("fetch") and event.event == "ok"]
    if not fetches or not path.is_file():
        return None, HostCollect(host, problem=last_words(outcome))
    took = fetches[-1].time_s - outcome.started_s if outcome.started_s is not None else None
    return path, HostCollect(host, transfer_s=took, transfer_bytes=path.stat().st_size)


@dataclass(frozen=True, slots=True)
class MergeRequest:
    path: Path  # a node's `ssdlab node export`, brought here by other means (Ansible's fetch)
    host: str  # the node's inventory name: its runs are recorded as that host's
    db: Path  # this machine's store


def merge_export(request: MergeRequest) -> HostCollect:
    """`ssdlab fleet merge`: one node's export file into this machine's store, as `fleet
    collect` copies it in once fetched: each run matched by UUID and host, added once, a
    running one brought up to date, and a run that is not this host's to give refused."""
    if not request.host.strip() or request.host != request.host.strip():
        raise UsageError(f"--host {request.host!r} is not an inventory name")
    if not request.path.is_file():
        raise UsageError(
            f"{request.path} is not a file: give the export 'ssdlab node export' wrote"
        )
    if request.db.exists() and request.path.samefile(request.db):
        raise UsageError(f"{request.path} is this machine's store itself, not a node's export")
    conn = open_run_store(request.db)
    known = finished_here(conn, request.host)
    with tempfile.TemporaryDirectory(prefix="ssdlab-merge-") as scratch:
        # read from a copy of collect's own: opening a store may bring it up to this
        # ssdlab's schema, and the file given stays as it was (a later fetch finds it unchanged)
        path = Path(scratch) / export_file_name(request.host)
        try:
            shutil.copyfile(request.path, path)
        except OSError as error:
            raise UsageError(f"cannot read {request.path}: {error.strerror}") from error
        fetched = HostCollect(request.host, transfer_bytes=path.stat().st_size)
        return _merge(conn, request.host, known, path, fetched)


def _merge(
    conn: sqlite3.Connection,
    host: str,
    known: list[str],
    path: Path | None,
    fetched: HostCollect,
) -> HostCollect:
    if path is None:
        return fetched
    try:
        source = open_store(path)
    except SsdlabError as error:
        return HostCollect(host, problem=f"its runs could not be read here: {error}")
    try:
        merged = copy_runs(
            source, conn, host=host, finished_uuids=known, collected_at_s=time.time()
        )
    finally:
        source.close()
    return HostCollect(
        host,
        added=tuple(merged.added),
        updated=tuple(merged.updated),
        refused=tuple(merged.refused),
        transfer_s=fetched.transfer_s,
        transfer_bytes=fetched.transfer_bytes,
    )
