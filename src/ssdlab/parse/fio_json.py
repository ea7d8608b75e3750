"""fio's ``--output-format=json`` and ``json+`` output, from fio 2.0.10 (the first with JSON)
to today -> FioResult, in SI base units.

This is the one place fio's units are converted: ``bw`` KiB/s -> B/s, ``runtime`` ms -> s,
``io_kbytes`` KiB -> B, ``io_bytes`` KiB -> B before fio 2.21, old-style ``slat``/``clat``/
``lat`` µs -> ns. Which unit a figure is in is decided by fio's release history
(parse/fio_history.py cites the fio commits). Anything malformed raises ParseError; no
KeyError/TypeError/ValueError escapes.

Percentile tables are kept by what they measure: ``clat_percentiles_ns`` completion latency,
``lat_percentiles_ns`` total latency (``lat_percentiles=1``: under ``lat_ns`` from fio 3.13,
under ``clat_ns`` in fio 3.1 to 3.12). fio 2.0.10 to 3.3 padded the table with
``"0.00": 0`` entries for unused slots of its list; they are not measurements and are dropped.
"""

import math
import re
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.result import DirectionMetrics, FioJobResult, FioResult
from ssdlab.model.units import NS_PER_US, KiB
from ssdlab.parse.fio_document import find_fio_document
from ssdlab.parse.fio_history import contradicts_io_bytes_unit, io_bytes_in_kib

MIN_FIO_VERSION: tuple[int, int] = (3, 16)

_MS_PER_S = 1000
_VERSION_RE = re.compile(r"^\s*fio-(\d+)\.(\d+)", re.MULTILINE)
_LAT_STATS = ("mean", "min", "max", "stddev")
_TRUE = ("1", "true", "on", "yes", "")


def parse_fio_version(text: str) -> tuple[int, int] | None:
    """(major, minor) from ``fio --version`` output ("fio-3.33", "fio-3.36-12-gabcdef").

    None when the text holds no fio version.
    """
    match = _VERSION_RE.search(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True, slots=True)
class _Context:
    """What every direction of a document is read with."""

    version: str | None
    lat_percentiles: bool  # the job ran with lat_percentiles=1


def parse_fio_json(stdout: str) -> FioResult:
    """Parse fio's JSON (or json+) stdout; text around the document is skipped."""
    return fio_result(find_fio_document(stdout))


def fio_result(document: dict[str, Any], entries_key: str = "jobs") -> FioResult:
    """A fio JSON document (its `jobs`, or a client's `client_stats`) as a FioResult."""
    version = document.get("fio version")
    if version is not None and not isinstance(version, str):
        raise ParseError("fio JSON: 'fio version' is not a string")
    timestamp = document.get("timestamp")
    timestamp_s = None if timestamp is None else _count(timestamp, "timestamp")
    jobs = document.get(entries_key)
    if not isinstance(jobs, list):
        raise ParseError(f"fio JSON: no {entries_key!r} list")
    if not jobs:
        raise ParseError(f"fio JSON: the {entries_key!r} list is empty")
    base = global_options(document)
    return FioResult(
        fio_version=version,
        timestamp_s=timestamp_s,
        jobs=tuple(
            parse_job(job, f"{entries_key}[{i}]", version, base) for i, job in enumerate(jobs)
        ),
    )


def global_options(document: dict[str, Any]) -> dict[str, str]:
    """fio's 'global options'; as a client of several servers (fio 3.39+) a list of one object
    per server, whose options are merged (each server's `hostname` and `port` left out)."""
    given = document.get("global options")
    objects = given if isinstance(given, list) else [given]
    merged: dict[str, str] = {}
    for obj in objects:
        if isinstance(obj, dict):
            merged.update({str(k): str(v) for k, v in obj.items() if k not in ("hostname", "port")})
    return merged


def job_options(job: dict[str, Any], base: dict[str, str]) -> dict[str, str]:
    """A job's options: its own over the global ones, as fio printed them."""
    options = dict(base)
    own = job.get("job options")
    if isinstance(own, dict):
        options.update({str(k): str(v) for k, v in own.items()})
    return options


def parse_fio_job_options(stdout: str) -> tuple[tuple[str, dict[str, str]], ...]:
    """(job name, options) of every job in fio's JSON: the job's own options over the global
    ones, as fio printed them ('rw', 'bs', 'iodepth', 'numjobs', …); jobs repeat per clone."""
    document = find_fio_document(stdout)
    base = global_options(document)
    jobs = document.get("jobs")
    found = []
    for index, job in enumerate(jobs if isinstance(jobs, list) else []):
        obj = _object(job, f"jobs[{index}]")
        found.append((str(obj.get("jobname", f"job{index}")), job_options(obj, base)))
    return tuple(found)


def parse_job(
    job: object, where: str, version: str | None, base: dict[str, str] | None = None
) -> FioJobResult:
    """One entry of `jobs` (or `client_stats`) as a FioJobResult."""
    obj = _object(job, where)
    name = obj.get("jobname")
    if not isinstance(name, str):
        raise ParseError(f"fio JSON: {where}.jobname is missing or not a string")
    options = job_options(obj, base or {})
    context = _Context(version, options.get("lat_percentiles", "0").lower() in _TRUE)
    return FioJobResult(
        name=name,
        error=_count(_require(obj, "error", where), f"{where}.error"),
        read=_parse_direction(obj.get("read"), f"{where}.read", context),
        write=_parse_direction(obj.get("write"), f"{where}.write", context),
        mixed=_parse_direction(obj.get("mixed"), f"{where}.mixed", context),
    )


def _io_bytes(obj: dict[str, Any], where: str, version: str | None) -> int:
    has_kbytes = "io_kbytes" in obj
    if contradicts_io_bytes_unit(version, has_kbytes):
        raise ParseError(
            f"fio JSON: {where} has {'an' if has_kbytes else 'no'} 'io_kbytes', which "
            f"{version} never printed{'' if has_kbytes else ' beside io_bytes'}: the unit of "
            "its io_bytes is unknown (was the document edited?)"
        )
    io_bytes = _count(_require(obj, "io_bytes", where), f"{where}.io_bytes")
    return io_bytes * KiB if io_bytes_in_kib(has_kbytes) else io_bytes


def _parse_direction(value: object, where: str, context: _Context) -> DirectionMetrics | None:
    if value is None:
        return None
    obj = _object(value, where)
    if "io_bytes" not in obj and "io_kbytes" in obj:
        io_bytes = _count(obj["io_kbytes"], f"{where}.io_kbytes") * KiB
    else:
        io_bytes = _io_bytes(obj, where, context.version)
    # fio before 2.1.14 (9966af7b) printed no I/O count
    total_ios = _count(obj["total_ios"], f"{where}.total_ios") if "total_ios" in obj else None
    if not total_ios and io_bytes == 0:
        return None  # this direction was not measured
    if "bw_bytes" in obj:
        bw_bytes_per_s = _number(obj["bw_bytes"], f"{where}.bw_bytes")
    else:
        bw_bytes_per_s = _number(_require(obj, "bw", where), f"{where}.bw") * KiB
    lat = _latency(obj, "lat", where)
    clat = _latency(obj, "clat", where)
    clat_table = _percentiles(obj, "clat", where)
    lat_table = _percentiles(obj, "lat", where)
    if context.lat_percentiles and clat_table and not lat_table:
        # fio 3.1 to 3.12 (b599759b, until e5eb6fbf) printed the lat_percentiles=1 table of
        # total latency under clat_ns
        clat_table, lat_table = (), clat_table
    return DirectionMetrics(
        io_bytes=io_bytes,
        total_ios=total_ios,
        runtime_s=_number(_require(obj, "runtime", where), f"{where}.runtime") / _MS_PER_S,
        bw_bytes_per_s=bw_bytes_per_s,
        iops=_number(_require(obj, "iops", where), f"{where}.iops"),
        lat_mean_ns=lat["mean"],
        lat_min_ns=lat["min"],
        lat_max_ns=lat["max"],
        lat_stddev_ns=lat["stddev"],
        clat_mean_ns=clat["mean"],
        clat_percentiles_ns=clat_table,
        lat_percentiles_ns=lat_table,
    )


def _latency_block(obj: dict[str, Any], stat: str, where: str) -> tuple[dict[str, Any], float]:
    """fio >= 2.99 writes ``<stat>_ns`` (ns); older fio wrote ``<stat>`` (µs)."""
    if f"{stat}_ns" in obj:
        return _object(obj[f"{stat}_ns"], f"{where}.{stat}_ns"), 1.0
    if stat in obj:
        return _object(obj[stat], f"{where}.{stat}"), float(NS_PER_US)
    return {}, 1.0


def _latency(obj: dict[str, Any], stat: str, where: str) -> dict[str, float | None]:
    block, scale = _latency_block(obj, stat, where)
    where = f"{where}.{stat}"
    unknown: dict[str, float | None] = dict.fromkeys(_LAT_STATS)
    if not block:
        return unknown
    if "N" in block and _count(block["N"], f"{where}.N") == 0:
        return unknown  # no samples: fio prints zeros, which are not measurements
    return {
        key: None if key not in block else _number(block[key], f"{where}.{key}") * scale
        for key in _LAT_STATS
    }


def _percentiles(obj: dict[str, Any], stat: str, where: str) -> tuple[tuple[float, int], ...]:
    block, scale = _latency_block(obj, stat, where)
    if "percentile" not in block:
        return ()
    if "N" in block and _count(block["N"], f"{where}.{stat}.N") == 0:
        return ()
    where = f"{where}.{stat}.percentile"
    table = _object(block["percentile"], where)
    points: list[tuple[float, int]] = []
    for key, value in table.items():
        try:
            percentile = float(key)
        except ValueError:
            raise ParseError(f"fio JSON: {where} has a key {key!r} that is not a number") from None
        if not 0.0 <= percentile <= 100.0:
            raise ParseError(f"fio JSON: {where} has a percentile {key!r} outside 0-100")
        ns = round(_number(value, f"{where}[{key!r}]") * scale)
        if percentile == 0.0 and ns == 0:
            continue  # fio 2.0.10-3.3's "0.00": 0 padding of unused list slots
        points.append((percentile, ns))
    return tuple(sorted(points))


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(f"fio JSON: {where} is not an object")
    return value


def _require(obj: dict[str, Any], key: str, where: str) -> object:
    if key not in obj:
        raise ParseError(f"fio JSON: {where}.{key} is missing")
    return obj[key]


def _number(value: object, where: str) -> float:
    """A finite, non-negative JSON number as float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(f"fio JSON: {where} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise ParseError(f"fio JSON: {where} is out of range") from None
    if not math.isfinite(number) or number < 0:
        raise ParseError(f"fio JSON: {where} is {value!r}, not a finite non-negative number")
    return number


def _count(value: object, where: str) -> int:
    """A non-negative JSON integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ParseError(f"fio JSON: {where} is not a non-negative integer")
    return value
