"""fio's ``--output-format=json`` and ``json+`` output -> FioResult, in SI base units.

This is the one place fio's units are converted: ``bw`` KiB/s -> B/s, ``runtime`` ms -> s,
``io_kbytes`` KiB -> B, old-style ``lat``/``clat`` µs -> ns. Anything malformed raises
ParseError; no KeyError/TypeError/ValueError escapes.
"""

import json
import math
import re
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.result import DirectionMetrics, FioJobResult, FioResult
from ssdlab.model.units import NS_PER_US, KiB

MIN_FIO_VERSION: tuple[int, int] = (3, 16)

_MS_PER_S = 1000
_VERSION_RE = re.compile(r"^\s*fio-(\d+)\.(\d+)", re.MULTILINE)
_DIRECTIONS = ("read", "write")
_LAT_STATS = ("mean", "min", "max", "stddev")


def parse_fio_version(text: str) -> tuple[int, int] | None:
    """(major, minor) from ``fio --version`` output ("fio-3.33", "fio-3.36-12-gabcdef").

    None when the text holds no fio version.
    """
    match = _VERSION_RE.search(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def parse_fio_json(stdout: str) -> FioResult:
    """Parse fio's JSON (or json+) stdout; warning lines around the document are skipped."""
    document = _find_document(stdout)
    version = document.get("fio version")
    if version is not None and not isinstance(version, str):
        raise ParseError("fio JSON: 'fio version' is not a string")
    timestamp = document.get("timestamp")
    timestamp_s = None if timestamp is None else _count(timestamp, "timestamp")
    jobs = document.get("jobs")
    if not isinstance(jobs, list):
        raise ParseError("fio JSON: no 'jobs' list")
    if not jobs:
        raise ParseError("fio JSON: the 'jobs' list is empty")
    return FioResult(
        fio_version=version,
        timestamp_s=timestamp_s,
        jobs=tuple(_parse_job(job, f"jobs[{i}]") for i, job in enumerate(jobs)),
    )


def parse_fio_job_options(stdout: str) -> tuple[tuple[str, dict[str, str]], ...]:
    """(job name, options) of every job in fio's JSON: the job's own options over the global
    ones, as fio printed them ('rw', 'bs', 'iodepth', 'numjobs', …); jobs repeat per clone."""
    document = _find_document(stdout)
    global_options = document.get("global options")
    base = (
        {str(k): str(v) for k, v in global_options.items()}
        if isinstance(global_options, dict)
        else {}
    )
    jobs = document.get("jobs")
    found = []
    for index, job in enumerate(jobs if isinstance(jobs, list) else []):
        obj = _object(job, f"jobs[{index}]")
        own = obj.get("job options")
        options = dict(base)
        if isinstance(own, dict):
            options.update({str(k): str(v) for k, v in own.items()})
        found.append((str(obj.get("jobname", f"job{index}")), options))
    return tuple(found)


def _find_document(stdout: str) -> dict[str, Any]:
    """The first JSON object that starts at the beginning of a line and holds 'jobs'."""
    decoder = json.JSONDecoder()
    offset = 0
    problem = "no line starts with '{' (was fio run with --output-format=json?)"
    for line in stdout.splitlines(keepends=True):
        if line.startswith("{"):
            try:
                value, _end = decoder.raw_decode(stdout, offset)
            except json.JSONDecodeError as error:
                problem = f"the JSON is malformed ({error})"
            except (ValueError, RecursionError):
                problem = "the JSON is malformed (a number too long or nesting too deep)"
            else:
                if isinstance(value, dict) and "jobs" in value:
                    return value
                problem = "the JSON object has no 'jobs'"
        offset += len(line)
    raise ParseError(f"fio output holds no fio JSON document: {problem}")


def _parse_job(job: object, where: str) -> FioJobResult:
    obj = _object(job, where)
    name = obj.get("jobname")
    if not isinstance(name, str):
        raise ParseError(f"fio JSON: {where}.jobname is missing or not a string")
    return FioJobResult(
        name=name,
        error=_count(_require(obj, "error", where), f"{where}.error"),
        read=_parse_direction(obj.get("read"), f"{where}.read"),
        write=_parse_direction(obj.get("write"), f"{where}.write"),
    )


def _parse_direction(value: object, where: str) -> DirectionMetrics | None:
    if value is None:
        return None
    obj = _object(value, where)
    if "io_bytes" in obj:
        io_bytes = _count(obj["io_bytes"], f"{where}.io_bytes")
    else:
        io_bytes = _count(_require(obj, "io_kbytes", where), f"{where}.io_kbytes") * KiB
    total_ios = _count(_require(obj, "total_ios", where), f"{where}.total_ios")
    if total_ios == 0 and io_bytes == 0:
        return None  # this direction was not measured
    if "bw_bytes" in obj:
        bw_bytes_per_s = _number(obj["bw_bytes"], f"{where}.bw_bytes")
    else:
        bw_bytes_per_s = _number(_require(obj, "bw", where), f"{where}.bw") * KiB
    lat = _latency(obj, "lat", where)
    clat = _latency(obj, "clat", where)
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
        clat_percentiles_ns=_percentiles(obj, "clat", where),
    )


def _latency_block(obj: dict[str, Any], stat: str, where: str) -> tuple[dict[str, Any], float]:
    """fio >= 3.0 writes ``<stat>_ns`` (ns); older fio wrote ``<stat>`` (µs)."""
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
        points.append((percentile, round(_number(value, f"{where}[{key!r}]") * scale)))
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
