"""fio's JSON output as a client (`fio --output-format=json --client=… JOB …`, fio 2.1.4 and
later) -> the jobs of each server and fio's "All clients" sums.

fio prints one document with a `client_stats` list instead of `jobs`: every job of every
server, each with the `hostname` it was reached at (for a unix socket: the path given to
--client) and its `port`, and per group, when there was more than one server, an entry named
"All clients" that sums them (bandwidth and IOPS added, latency means weighted; no
percentiles: fio 3.7 prints an empty table, fio 3.33 none). Each entry is a job as in fio's
own JSON and is read by parse/fio_json.py, with that release's units; the servers' text output
comes before the document, prefixed with `<hostname>`. From fio 3.39 `global options` is a
list, one object per server. Servers on one host are told apart by their port. A document cut
down to its "All clients" entries (as people quote it) reads with no server.
"""

from dataclasses import dataclass

from ssdlab.errors import ParseError
from ssdlab.model.result import FioJobResult, FioResult
from ssdlab.parse.fio_document import find_fio_document
from ssdlab.parse.fio_json import global_options, parse_job

ALL_CLIENTS = "All clients"


@dataclass(frozen=True, slots=True)
class ClientOutput:
    """Per server (by the address the client reached it at, in fio's order) its jobs, and
    fio's "All clients" entries (one per group; none with a single server)."""

    fio_version: str | None
    timestamp_s: int | None
    servers: tuple[tuple[str, FioResult], ...]
    all_clients: tuple[FioJobResult, ...]


def is_client_output(text: str) -> bool:
    """Whether the text holds a client document (`client_stats`) rather than fio's own."""
    try:
        document = find_fio_document(text, ("jobs", "client_stats"))
    except ParseError:
        return False
    return "client_stats" in document and "jobs" not in document


def _addresses(entries: list[object]) -> dict[int, str]:
    """Entry index -> 'hostname:port' for servers that share a hostname (several servers on
    one machine, told apart by their port); the others are named by hostname alone."""
    ports: dict[str, set[object]] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("hostname"), str):
            ports.setdefault(entry["hostname"], set()).add(entry.get("port"))
    return {
        index: f"{entry['hostname']}:{entry.get('port')}"
        for index, entry in enumerate(entries)
        if isinstance(entry, dict)
        and isinstance(entry.get("hostname"), str)
        and len(ports[entry["hostname"]]) > 1
    }


def parse_fio_client_json(stdout: str) -> ClientOutput:
    """Parse fio's client stdout; ParseError when it holds no client document or an entry
    does not read as a fio job."""
    try:
        document = find_fio_document(stdout, ("client_stats",))
    except ParseError:
        raise ParseError(
            "fio's client output holds no JSON document with 'client_stats' (was fio run with "
            "--output-format=json and --client?)"
        ) from None
    entries = document["client_stats"]
    if not isinstance(entries, list) or not entries:
        raise ParseError("fio client JSON: 'client_stats' is not a list of jobs")
    version = document.get("fio version")
    version = version if isinstance(version, str) else None
    base = global_options(document)
    addresses = _addresses(entries)
    servers: dict[str, list[FioJobResult]] = {}
    sums: list[FioJobResult] = []
    for index, entry in enumerate(entries):
        where = f"client_stats[{index}]"
        if not isinstance(entry, dict):
            raise ParseError(f"fio client JSON: {where} is not an object")
        try:
            job = parse_job(entry, where, version, base)
        except ParseError as error:
            raise ParseError(f"fio client JSON, {where}: {error}") from None
        if job.name == ALL_CLIENTS:
            sums.append(job)
            continue
        hostname = entry.get("hostname")
        if not isinstance(hostname, str) or not hostname:
            raise ParseError(f"fio client JSON: {where}.hostname is missing or not a string")
        servers.setdefault(addresses.get(index, hostname), []).append(job)
    timestamp = document.get("timestamp")
    return ClientOutput(
        fio_version=version,
        timestamp_s=(
            timestamp
            if isinstance(timestamp, int) and not isinstance(timestamp, bool) and timestamp >= 0
            else None
        ),
        servers=tuple(
            (name, FioResult(version, None, tuple(jobs))) for name, jobs in servers.items()
        ),
        all_clients=tuple(sums),
    )
