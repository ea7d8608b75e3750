"""`fleet load`'s latency over time for all hosts together, from the histogram logs fio's client
received from every server (plan/load_job.HISTOGRAM_LOG): each host's logs parsed
(parse/fio_hist_log.py, relayed), added bucket by bucket per direction and second
(analysis/merged_latency.py), and given as the run's finding and the document's
`all_hosts_latency`: per direction the whole run's p50, p99 and p99.9 (p99 and up with n, the
I/Os above and the 95 % interval, or the I/Os they need), and per second the I/Os and the
percentiles those I/Os support.

The client names a log it receives `NAME.SERVER`, SERVER the socket as given to --client: the
load names the sockets `N.sock` in its own folder (the client's working directory), so the
logs land there and name their host. Each log is read whole (at most MAX_LOG_BYTES) and kept
as a file of the load's capture before it is parsed.
"""

import itertools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ssdlab.analysis.merged_latency import (
    PERCENTILES,
    MergedLatency,
    merged_latency,
    merged_latency_data,
)
from ssdlab.analysis.tail_intervals import TAIL_FROM, needs_ios
from ssdlab.errors import ParseError
from ssdlab.parse.fio_hist_log import HistRecord, iter_hist_log
from ssdlab.plan.load_job import HISTOGRAM_PREFIX

LATENCY_FINDING = "fleet-load-latency"
MAX_LOG_BYTES = 256 << 20
SOURCE = (
    "fio's completion latency histograms (its own buckets, 64 per power of two), one per "
    "job, direction and second on every host, added bucket by bucket over the hosts: the "
    "percentiles of all hosts' I/Os together, never an average of the hosts' percentiles"
)
NOTE = (
    "A second is the second of each host's job in which its interval closed (fio's client "
    "starts every host's job together); per second a percentile from p99 up is given only "
    "when that second's I/Os support it (null otherwise: needs_ios). fio logs no histogram "
    "for the last part of a second of each job, so `ios` is a little below fio's "
    "`fio_total_ios`. Per-second values are within 3.1 % (16 buckets per power of two), the "
    "whole run's within 0.78 %."
)
NO_SECOND = (
    "the histogram logs hold no second: fio logs one when a whole second of a job has passed "
    "since its first I/O completed, so a load of about a second may have none"
)
_LOG_NAME = re.compile(rf"^{re.escape(HISTOGRAM_PREFIX)}_clat_hist\.(\d+)\.log\.(\d+)\.sock$")


def socket_name(index: int) -> str:
    """The client's name for the index-th server's socket, relative to the load's folder."""
    return f"{index}.sock"


def read_histogram_logs(
    folder: Path, hosts_by_socket: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """({capture file name: text} of every histogram log fio's client wrote in `folder`,
    {host: why its logs could not be read}). A capture file is named `HOST/LOG` (LOG as fio's
    server named it)."""
    files: dict[str, str] = {}
    problems: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        found = _LOG_NAME.match(path.name)
        host = hosts_by_socket.get(f"{found.group(2)}.sock") if found else None
        if found is None or host is None:
            continue
        log = path.name.rsplit(".", 2)[0]
        size = path.stat().st_size
        if size > MAX_LOG_BYTES:
            problems[host] = f"{log} is {size} bytes, over the {MAX_LOG_BYTES} kept"
            continue
        files[f"{host}/{log}"] = path.read_text(encoding="utf-8", errors="replace")
    return files, problems


def _records(name: str, text: str) -> Iterator[HistRecord]:
    """A log's records as they are read; ParseError naming the file."""
    try:
        yield from iter_hist_log(text, relayed=True)
    except ParseError as error:
        raise ParseError(f"{name}: {error}") from None


def _host_records(files: Mapping[str, str]) -> dict[str, Iterator[HistRecord]]:
    """Every host's records, all its jobs' logs one after the other, read as they are merged
    (never all held at once)."""
    logs: dict[str, list[Iterator[HistRecord]]] = {}
    for name, text in sorted(files.items()):
        logs.setdefault(name.split("/", 1)[0], []).append(_records(name, text))
    return {host: itertools.chain.from_iterable(each) for host, each in logs.items()}


def _key(pct: float) -> str:
    return f"{pct:g}"


def _direction(merged: MergedLatency, fio_total_ios: int | None) -> dict[str, Any]:
    data = merged_latency_data(merged)
    return {"ios": data.pop("ios"), "fio_total_ios": fio_total_ios, **data}


def latency_section(
    files: Mapping[str, str],
    problems: Mapping[str, str],
    ran: tuple[str, ...],
    fio_total_ios: Mapping[str, int | None],
) -> dict[str, Any]:
    """The all-hosts latency of a load from its histogram logs (`files` as
    read_histogram_logs gives them) of the hosts it `ran` on; `unavailable` says why there is
    none (a host's logs missing, unreadable or not fio's), and then no direction is given:
    a merge that leaves a host out is not all hosts."""
    section: dict[str, Any] = {
        "source": SOURCE,
        "note": NOTE,
        "needs_ios": {_key(p): needs_ios(p) for p in PERCENTILES if p >= TAIL_FROM},
        "files": sorted(files),
        "unavailable": None,
        "directions": {},
    }
    hosts = _host_records(files)
    missing = [host for host in ran if host not in hosts and host not in problems]
    why = dict(problems) | {host: "fio's client received no histogram log" for host in missing}
    if why:
        reasons = "; ".join(f"{host}: {reason}" for host, reason in why.items())
        return {**section, "unavailable": reasons}
    try:
        merged = merged_latency(hosts)
    except ParseError as error:
        return {**section, "unavailable": f"a histogram log does not parse: {error}"}
    if not merged:
        return {**section, "unavailable": NO_SECOND}
    directions = {name: _direction(m, fio_total_ios.get(name)) for name, m in merged.items()}
    return {**section, "directions": directions}
