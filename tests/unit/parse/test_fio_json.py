"""parse_fio_json against real fio 3.33 captures, checked against an independent JSON reading."""

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.model.result import DirectionMetrics, FioResult
from ssdlab.parse.fio_json import MIN_FIO_VERSION, parse_fio_json, parse_fio_version
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "fio"
CAPTURES = sorted(DATA.rglob("*.json"))


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def raw_document(text: str) -> dict[str, Any]:
    """Independent oracle: the lines from the first "{" line to the first "}" line, json.loads."""
    lines = text.splitlines()
    start = lines.index("{")
    end = lines.index("}", start)
    document: dict[str, Any] = json.loads("\n".join(lines[start : end + 1]))
    return document


def measured(raw_direction: dict[str, Any]) -> bool:
    return bool(raw_direction["total_ios"] or raw_direction["io_bytes"])


def test_there_are_captures() -> None:
    names = {path.name for path in CAPTURES}
    assert {
        "randread-4k-qd32.json",
        "seqwrite-1m.json",
        "randrw-70-30.json",
        "randread-4k-nj4-group.json",
        "null-ioengine.json",
        "psync-iodepth-warning.json",
        "randread-4k-json.json",
        "write-error-devfull.json",
    } <= names
    for path in CAPTURES:
        assert path.with_suffix(".fio").exists(), f"{path.name} has no job file beside it"


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_capture_matches_raw_json(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    raw = raw_document(text)
    result = parse_fio_json(text)

    assert result.fio_version == raw["fio version"] == "fio-3.33"
    assert result.timestamp_s == raw["timestamp"]
    assert len(result.jobs) == len(raw["jobs"])
    for job, raw_job in zip(result.jobs, raw["jobs"], strict=True):
        assert job.name == raw_job["jobname"]
        assert job.error == raw_job["error"]
        for direction in ("read", "write"):
            metrics: DirectionMetrics | None = getattr(job, direction)
            raw_dir = raw_job[direction]
            if not measured(raw_dir):
                assert metrics is None
                continue
            assert metrics is not None
            assert metrics.io_bytes == raw_dir["io_bytes"] == raw_dir["io_kbytes"] * 1024
            assert metrics.total_ios == raw_dir["total_ios"]
            assert metrics.runtime_s == raw_dir["runtime"] / 1000
            assert metrics.bw_bytes_per_s == raw_dir["bw_bytes"]
            assert metrics.iops == raw_dir["iops"]
            # fio's bw is KiB/s, truncated: B/s = KiB/s * 1024 within one KiB
            assert 0 <= metrics.bw_bytes_per_s - raw_dir["bw"] * 1024 < 1024
            if metrics.runtime_s > 0:
                # fio computes bw_bytes = io_bytes * 1000 / runtime_ms (integer division)
                assert abs(metrics.bw_bytes_per_s - metrics.io_bytes / metrics.runtime_s) < 1
                assert math.isclose(
                    metrics.iops, metrics.total_ios / metrics.runtime_s, rel_tol=1e-6
                )


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_latencies_are_ns(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    raw = raw_document(text)
    for job, raw_job in zip(parse_fio_json(text).jobs, raw["jobs"], strict=True):
        for direction in ("read", "write"):
            metrics = getattr(job, direction)
            raw_dir = raw_job[direction]
            if metrics is None or raw_dir["lat_ns"]["N"] == 0:
                continue
            assert metrics.lat_mean_ns == raw_dir["lat_ns"]["mean"]
            assert metrics.lat_min_ns == raw_dir["lat_ns"]["min"]
            assert metrics.lat_max_ns == raw_dir["lat_ns"]["max"]
            assert metrics.lat_stddev_ns == raw_dir["lat_ns"]["stddev"]
            assert metrics.clat_mean_ns == raw_dir["clat_ns"]["mean"]
            assert metrics.lat_min_ns <= metrics.lat_mean_ns <= metrics.lat_max_ns
            # total latency = submission + completion
            assert metrics.clat_mean_ns <= metrics.lat_mean_ns
            table = raw_dir["clat_ns"]["percentile"]
            assert metrics.clat_percentiles_ns == tuple(
                sorted((float(key), value) for key, value in table.items())
            )
            assert dict(metrics.clat_percentiles_ns)[99.0] == table["99.000000"]


def test_randread_qd32_is_plausible_in_ns() -> None:
    job = parse_fio_json(read("randread-4k-qd32.json")).jobs[0]
    assert job.write is None
    assert job.read is not None
    # a 4 KiB read at queue depth 32 takes microseconds to milliseconds: 10^3..10^9 ns
    assert job.read.lat_mean_ns is not None
    assert 1e3 < job.read.lat_mean_ns < 1e9
    # Little's law: outstanding I/Os = iops * latency; fio keeps 32 in flight
    assert job.read.iops * job.read.lat_mean_ns / 1e9 == pytest.approx(32, rel=0.1)


def test_bw_is_kib_not_kb() -> None:
    """KDiskMark divides fio's bw (KiB/s) by 1000 and calls it MB/s: 2.34 % low. We must not."""
    text = read("randread-4k-qd32.json")
    raw = raw_document(text)["jobs"][0]["read"]
    metrics = parse_fio_json(text).jobs[0].read
    assert metrics is not None
    assert metrics.bw_bytes_per_s / (raw["bw"] * 1000) == pytest.approx(1.024, abs=1e-4)

    # without bw_bytes (older fio), the fallback multiplies KiB/s by 1024, not 1000
    doc = raw_document(text)
    del doc["jobs"][0]["read"]["bw_bytes"]
    fallback = parse_fio_json(json.dumps(doc)).jobs[0].read
    assert fallback is not None
    assert fallback.bw_bytes_per_s == raw["bw"] * 1024
    assert fallback.bw_bytes_per_s != raw["bw"] * 1000


def test_mix_total_is_read_plus_write() -> None:
    text = read("randrw-70-30.json")
    raw = raw_document(text)["jobs"][0]
    job = parse_fio_json(text).jobs[0]
    assert job.read is not None
    assert job.write is not None
    total_bytes = raw["read"]["io_bytes"] + raw["write"]["io_bytes"]
    assert job.read.io_bytes + job.write.io_bytes == total_bytes
    runtime_s = raw["read"]["runtime"] / 1000
    assert job.read.bw_bytes_per_s + job.write.bw_bytes_per_s == pytest.approx(
        total_bytes / runtime_s, abs=2
    )
    read_share = job.read.total_ios / (job.read.total_ios + job.write.total_ios)
    assert read_share == pytest.approx(0.70, abs=0.02)


def test_group_reporting_is_one_job() -> None:
    text = read("randread-4k-nj4-group.json")
    raw = raw_document(text)
    assert raw["jobs"][0]["job options"]["numjobs"] == "4"
    result = parse_fio_json(text)
    assert len(result.jobs) == 1
    assert result.jobs[0].read is not None
    assert result.jobs[0].read.io_bytes == raw["jobs"][0]["read"]["io_bytes"]


def test_numjobs_without_group_reporting_is_one_job_each() -> None:
    result = parse_fio_json(read("logs-randrw-nj2/randrw-nj2.json"))
    assert [job.name for job in result.jobs] == ["randrw-nj2", "randrw-nj2"]


def test_seq_write_wrote_the_whole_file() -> None:
    job = parse_fio_json(read("seqwrite-1m.json")).jobs[0]
    assert job.read is None
    assert job.write is not None
    assert job.write.io_bytes == 64 * 2**20
    assert job.write.total_ios == 64


def test_null_engine() -> None:
    job = parse_fio_json(read("null-ioengine.json")).jobs[0]
    assert job.write is None
    assert job.read is not None
    assert job.read.io_bytes == 2**30
    assert job.read.total_ios == 2**30 // 4096


def test_warning_line_before_json() -> None:
    text = read("psync-iodepth-warning.json")
    assert text.startswith("note: both iodepth >= 1 and synchronous I/O engine are selected")
    assert parse_fio_json(text).jobs[0].read is not None


def test_job_error_and_lines_around_json() -> None:
    text = read("write-error-devfull.json")
    # fio printed its error summary on stdout before the JSON, the detail on stderr
    assert text.startswith("fio: pid=")
    stderr = read("write-error-devfull.stderr")
    assert stderr.startswith("fio: io_u error on file /dev/full: No space left on device")
    job = parse_fio_json(text).jobs[0]
    assert job.error == 28  # ENOSPC
    assert job.read is None
    # one I/O was issued and failed: measured, but fio's zero latencies are unknown, not 0
    assert job.write is not None
    assert job.write.total_ios == 1
    assert job.write.io_bytes == 0
    assert job.write.lat_mean_ns is None
    assert job.write.lat_max_ns is None
    assert job.write.clat_mean_ns is None
    assert job.write.clat_percentiles_ns == ()


def test_json_and_json_plus_both_parse() -> None:
    plain = read("randread-4k-json.json")
    plus = read("randread-4k-qd32.json")
    assert '"bins"' not in plain
    assert '"bins"' in plus
    assert parse_fio_json(plain).jobs[0].read is not None


def test_text_after_the_document_is_ignored() -> None:
    text = read("randread-4k-qd32.json")
    noisy = "fio: a {brace} in a warning\n" + text + "\nfio: file hash not empty on exit\n{\n"
    assert parse_fio_json(noisy) == parse_fio_json(text)


def test_old_fio_units_microseconds_and_kib() -> None:
    doc = {
        "fio version": "fio-2.2.10",
        "timestamp": 1,
        "jobs": [
            {
                "jobname": "old",
                "error": 0,
                "read": {
                    "io_kbytes": 4,
                    "bw": 2,
                    "iops": 0.5,
                    "runtime": 2000,
                    "total_ios": 1,
                    "lat": {"min": 1, "max": 3, "mean": 2.5, "stddev": 0.5},
                    "clat": {"min": 1, "max": 2, "mean": 1.5, "percentile": {"50.000000": 2}},
                },
                "write": {"io_kbytes": 0, "bw": 0, "iops": 0, "runtime": 0, "total_ios": 0},
            }
        ],
    }
    job = parse_fio_json(json.dumps(doc)).jobs[0]
    assert job.write is None
    assert job.read == DirectionMetrics(
        io_bytes=4096,
        total_ios=1,
        runtime_s=2.0,
        bw_bytes_per_s=2048.0,
        iops=0.5,
        lat_mean_ns=2500.0,
        lat_min_ns=1000.0,
        lat_max_ns=3000.0,
        lat_stddev_ns=500.0,
        clat_mean_ns=1500.0,
        clat_percentiles_ns=((50.0, 2000),),
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fio: no job file\n",
        "[]\n",
        '{"jobs": 1}\n',
        '{"jobs": []}\n',
        '{"jobs": [{"jobname": "x"}]}\n',
        '{"jobs": [{"jobname": "x", "error": -1}]}\n',
        '{"jobs": [{"jobname": "x", "error": 0, "read": {"io_bytes": 1}}]}\n',
        '{"jobs": [{"jobname": "x", "error": 0, "read": {"io_bytes": 1, "total_ios": true}}]}\n',
        '{"fio version": 3, "jobs": [{"jobname": "x", "error": 0}]}\n',
        '{"jobs": [{"jobname": "x", "error": 0}]',
    ],
)
def test_malformed_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_fio_json(text)


@pytest.mark.parametrize(
    ("path", "key", "value"),
    [
        (("read",), "iops", float("nan")),
        (("read",), "bw_bytes", float("inf")),
        (("read",), "runtime", -1),
        (("read", "clat_ns", "percentile"), "p99", 1),
        (("read", "clat_ns", "percentile"), "101", 1),
        (("read", "lat_ns"), "mean", "1"),
        (("read", "lat_ns"), "N", 1.5),
    ],
)
def test_bad_values_raise_parse_error(path: tuple[str, ...], key: str, value: object) -> None:
    doc = raw_document(read("randread-4k-qd32.json"))
    node = doc["jobs"][0]
    for step in path:
        node = node[step]
    node[key] = value
    with pytest.raises(ParseError):
        parse_fio_json(json.dumps(doc))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fio-3.33\n", (3, 33)),
        ("fio-3.36-12-gabcdef\n", (3, 36)),
        ("fio-3.16", (3, 16)),
        ("fio-2.2.10\n", (2, 2)),
        ("fio-3.1\n", (3, 1)),
        ("  fio-3.41\n", (3, 41)),
        ("", None),
        ("fio: command not found\n", None),
        ("3.33\n", None),
        ("xfio-3.33\n", None),
    ],
)
def test_parse_fio_version(text: str, expected: tuple[int, int] | None) -> None:
    assert parse_fio_version(text) == expected


def test_min_fio_version_compares_as_tuple() -> None:
    assert MIN_FIO_VERSION == (3, 16)
    installed = parse_fio_version(parse_fio_json(read("null-ioengine.json")).fio_version or "")
    assert installed is not None
    assert installed >= MIN_FIO_VERSION
    assert MIN_FIO_VERSION > (3, 9)  # a tuple, not "3.9" > "3.16" as strings


# ---- property tests: nothing but ParseError ever escapes ----

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)
SAMPLES = {name: read(name) for name in ("randrw-70-30.json", "write-error-devfull.json")}
SAMPLE_DOCS = {name: raw_document(text) for name, text in SAMPLES.items()}


def parse_or_parse_error(text: str) -> FioResult | None:
    try:
        return parse_fio_json(text)
    except ParseError:
        return None


def all_paths(node: object, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    paths: list[tuple[str | int, ...]] = [prefix]
    if isinstance(node, dict):
        for key, child in node.items():
            paths.extend(all_paths(child, (*prefix, key)))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            paths.extend(all_paths(child, (*prefix, index)))
    return paths


PATHS = {name: all_paths(doc)[1:] for name, doc in SAMPLE_DOCS.items()}


@given(st.text())
def test_random_text_only_parse_error(text: str) -> None:
    parse_or_parse_error(text)


@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_truncated_capture_only_parse_error(name: str, data: st.DataObject) -> None:
    text = SAMPLES[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    parse_or_parse_error(text[:cut])


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_json_only_parse_error(name: str, data: st.DataObject) -> None:
    doc = copy.deepcopy(SAMPLE_DOCS[name])
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        path = data.draw(st.sampled_from(PATHS[name]))
        parent: Any = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            if data.draw(st.booleans()):
                parent[path[-1]] = data.draw(JSON_VALUES)
            elif isinstance(parent, dict):
                del parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced this path
    parse_or_parse_error(json.dumps(doc))


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_text_only_parse_error(name: str, data: st.DataObject) -> None:
    text = SAMPLES[name]
    start = data.draw(st.integers(min_value=0, max_value=len(text)))
    end = data.draw(st.integers(min_value=start, max_value=min(len(text), start + 20)))
    parse_or_parse_error(text[:start] + data.draw(st.text(max_size=20)) + text[end:])
