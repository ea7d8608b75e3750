"""fio's JSON output as a client (`fio --output-format=json --client=… JOB …`) -> the jobs of
each server and fio's "All clients" sums.

fio prints one document with a `client_stats` list instead of `jobs`: every job of every server,
each with the `hostname` it was reached at (for a unix socket: the path given to --client), and
per group, when there was more than one server, an entry named "All clients" that sums them
(bandwidth and IOPS added, latency means weighted; no percentiles). Each entry is a job as in
fio's own JSON, so parse/fio_json.py reads it; the servers' text output comes before the
document, prefixed with `<hostname>`.
"""

import json
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.result import FioJobResult, FioResult
from ssdlab.parse.fio_json import parse_fio_json

ALL_CLIENTS = "All clients"


@dataclass(frozen=True, slots=True)
class ClientOutput:
    """Per server (by the address the client reached it at, in fio's order) its jobs, and
    fio's "All clients" entries (one per group; none with a single server)."""

    fio_version: str | None
    timestamp_s: int | None
    servers: tuple[tuple[str, FioResult], ...]
    all_clients: tuple[FioJobResult, ...]


def _find_document(stdout: str) -> dict[str, Any]:
    """The first JSON object starting a line that holds 'client_stats'."""
    decoder = json.JSONDecoder()
    offset = 0
    for line in stdout.splitlines(keepends=True):
        if line.startswith("{"):
            try:
                value, _end = decoder.raw_decode(stdout, offset)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict) and "client_stats" in value:
                return value
        offset += len(line)
    raise ParseError(
        "fio's client output holds no JSON document with 'client_stats' (was fio run with "
        "--output-format=json and --client?)"
    )


def _job(entry: object, document: dict[str, Any], where: str) -> FioJobResult:
    """One client_stats entry read as fio's own JSON reads a job."""
    wrapped = {
        "fio version": document.get("fio version"),
        "timestamp": document.get("timestamp"),
        "jobs": [entry],
    }
    try:
        return parse_fio_json(json.dumps(wrapped)).jobs[0]
    except ParseError as error:
        raise ParseError(f"fio client JSON, {where}: {error}") from None


def _server(entry: dict[str, Any], where: str) -> str:
    hostname = entry.get("hostname")
    if not isinstance(hostname, str) or not hostname:
        raise ParseError(f"fio client JSON: {where}.hostname is missing or not a string")
    return hostname


def parse_fio_client_json(stdout: str) -> ClientOutput:
    """Parse fio's client stdout; ParseError when it holds no client document or an entry
    does not read as a fio job."""
    document = _find_document(stdout)
    entries = document["client_stats"]
    if not isinstance(entries, list) or not entries:
        raise ParseError("fio client JSON: 'client_stats' is not a list of jobs")
    servers: dict[str, list[FioJobResult]] = {}
    sums: list[FioJobResult] = []
    for index, entry in enumerate(entries):
        where = f"client_stats[{index}]"
        if not isinstance(entry, dict):
            raise ParseError(f"fio client JSON: {where} is not an object")
        job = _job(entry, document, where)
        if job.name == ALL_CLIENTS:
            sums.append(job)
        else:
            servers.setdefault(_server(entry, where), []).append(job)
    if not servers:
        raise ParseError("fio client JSON: no server's job in 'client_stats'")
    version = document.get("fio version")
    timestamp = document.get("timestamp")
    return ClientOutput(
        fio_version=version if isinstance(version, str) else None,
        timestamp_s=timestamp if isinstance(timestamp, int) and timestamp >= 0 else None,
        servers=tuple(
            (name, FioResult(version if isinstance(version, str) else None, None, tuple(jobs)))
            for name, jobs in servers.items()
        ),
        all_clients=tuple(sums),
    )
