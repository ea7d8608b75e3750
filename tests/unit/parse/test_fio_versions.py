"""fio's JSON from every release in use, read with that release's units (parse/fio_history.py
cites the fio commits). Every expected figure is one the file itself states, read here with
`json` alone: fio 2.x's io_bytes in KiB (io_bytes = total_ios × block size in KiB), no
total_ios before 2.1.14, µs before 3.0, lat_percentiles tables, unified_rw_reporting's
"mixed", client/server documents, and documents kept inside other text."""

import json
from pathlib import Path
from typing import Any

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.fio_client_json import parse_fio_client_json
from ssdlab.parse.fio_document import find_fio_document
from ssdlab.parse.fio_history import contradicts_io_bytes_unit, fio_release
from ssdlab.parse.fio_job_shape import parse_fio_job_shapes
from ssdlab.parse.fio_json import parse_fio_json
from tests.conftest import ROOT

BENCH = ROOT / "tests" / "corpus" / "bench"
DATA = ROOT / "tests" / "data" / "fio"


def corpus(name: str) -> str:
    return (BENCH / name).read_text(encoding="utf-8")


def document(text: str) -> dict[str, Any]:
    """The JSON object in the text, by json alone: from the first line whose first non-blank
    character is '{'."""
    lines = text.splitlines(keepends=True)
    offset = 0
    for line in lines:
        if line.lstrip().startswith("{"):
            value, _ = json.JSONDecoder().raw_decode(text[offset + line.index("{") :])
            assert isinstance(value, dict)
            return value
        offset += len(line)
    raise AssertionError("no JSON object")


def test_releases_are_read_from_version_strings() -> None:
    assert fio_release("fio-2.1.4") == (2, 1, 4)
    assert fio_release("fio-3.14-6-g97134") == (3, 14, 0)
    assert fio_release("fio-3.43") == (3, 43, 0)
    assert fio_release("3.43") is None
    assert fio_release(None) is None


def test_fio_2_17_io_bytes_are_kib() -> None:
    """fio-2.17 (PerfKitBenchmarker's sample): 16 KiB random reads, io_bytes 1294256 =
    total_ios 80891 × 16 KiB, so in KiB; fio 2.21 (c12d597a) made it bytes."""
    text = corpus("fio-2.17_pkb_hist_pkb-7fb0c9d8-0_fio.json")
    raw = document(text)["jobs"][0]["read"]
    assert "io_kbytes" not in raw
    assert raw["io_bytes"] == raw["total_ios"] * 16
    read = parse_fio_json(text).jobs[0].read
    assert read is not None
    assert read.io_bytes == raw["total_ios"] * 16 * 1024
    assert read.bw_bytes_per_s == raw["bw"] * 1024


def test_fio_2_1_4_has_no_io_count_and_pads_its_percentiles() -> None:
    """fio-2.1.4: no total_ios (added in 2.1.14, 9966af7b); the clat table ends with three
    '"0.00": 0' pads; io_bytes in KiB agrees with bw (KiB/s) × runtime (ms)."""
    text = corpus("fio-2.1.4_pkb_fio-parser-sample-result.json")
    raw = document(text)["jobs"][0]["write"]
    assert "total_ios" not in raw
    write = parse_fio_json(text).jobs[0].write
    assert write is not None
    assert write.total_ios is None
    assert write.io_bytes == raw["io_bytes"] * 1024
    # bw is io_bytes ÷ runtime, truncated to whole KiB/s
    assert raw["bw"] == raw["io_bytes"] * 1000 // raw["runtime"]
    assert write.clat_mean_ns == pytest.approx(raw["clat"]["mean"] * 1000)  # µs before 3.0
    assert min(p for p, _ in write.clat_percentiles_ns) == 1.0  # no 0.00 pads
    assert dict(write.clat_percentiles_ns)[99.0] == 823296 * 1000


def test_fio_3_io_bytes_are_bytes() -> None:
    text = corpus("fio-3.16_superbench_lat-percentiles_disk_performance.log")
    raw = document(text)["jobs"][0]["read"]
    assert raw["io_bytes"] == raw["io_kbytes"] * 1024
    read = parse_fio_json(text).jobs[0].read
    assert read is not None
    assert read.io_bytes == raw["io_bytes"]


def test_lat_percentiles_table_is_kept_as_total_latency() -> None:
    """fio-3.16 with lat_percentiles=1: the only table is under lat_ns (e5eb6fbf, fio 3.13);
    it was dropped."""
    text = corpus("fio-3.16_superbench_lat-percentiles_disk_performance.log")
    raw = document(text)["jobs"][0]
    assert "percentile" not in raw["read"]["clat_ns"]
    job = parse_fio_json(text).jobs[0]
    for direction in ("read", "write"):
        parsed = getattr(job, direction)
        table = {float(k): v for k, v in raw[direction]["lat_ns"]["percentile"].items()}
        assert dict(parsed.lat_percentiles_ns) == table
        assert parsed.clat_percentiles_ns == ()


def test_lat_percentiles_of_fio_3_1_to_3_12_printed_under_clat_are_total_latency() -> None:
    """fio 3.1 (b599759b) to 3.12 printed the lat_percentiles=1 table under clat_ns; the same
    table as fio 3.12 would have printed it is read as total latency."""
    raw = document(corpus("fio-3.16_superbench_lat-percentiles_disk_performance.log"))
    raw["fio version"] = "fio-3.12"
    read = raw["jobs"][0]["read"]
    read["clat_ns"]["percentile"] = read["lat_ns"].pop("percentile")
    parsed = parse_fio_json(json.dumps(raw)).jobs[0].read
    assert parsed is not None
    assert parsed.clat_percentiles_ns == ()
    assert dict(parsed.lat_percentiles_ns)[99.0] == read["clat_ns"]["percentile"]["99.000000"]
    # without lat_percentiles=1 the table under clat_ns is completion latency
    del raw["global options"]["lat_percentiles"]
    parsed = parse_fio_json(json.dumps(raw)).jobs[0].read
    assert parsed is not None
    assert dict(parsed.clat_percentiles_ns)[99.0] == read["clat_ns"]["percentile"]["99.000000"]


def test_a_document_with_the_wrong_io_bytes_unit_for_its_release_is_refused() -> None:
    raw = document(corpus("fio-3.16_superbench_lat-percentiles_disk_performance.log"))
    del raw["jobs"][0]["read"]["io_kbytes"]
    with pytest.raises(ParseError, match="unit of its io_bytes is unknown"):
        parse_fio_json(json.dumps(raw))
    assert contradicts_io_bytes_unit("fio-2.18", True)
    assert not contradicts_io_bytes_unit("fio-2.20-27-g1234abc", True)  # a build between
    assert not contradicts_io_bytes_unit("fio-2.20", False)


@pytest.mark.parametrize(
    "name",
    [
        "fio-2.2.10_cloud-fio-notes_in-markdown.md",  # in a Markdown code fence
        "fio-3.7_ocs-ci-test-fixture_indented.py.txt",  # every line indented by 8
        "fio-3.33_lkp-xfs-report_falloc-iodepth32-capped.txt",  # a note before it
        "fio-3.43_fio-analyzer_client-two-servers-one-host.json",  # a blank line before it
    ],
)
def test_documents_inside_other_text_are_found(name: str) -> None:
    text = corpus(name)
    found = find_fio_document(text, ("jobs", "client_stats"))
    assert found == document(text)


def test_quoted_and_commented_documents_are_found() -> None:
    text = corpus("fio-3.16_superbench_lat-percentiles_disk_performance.log")
    for prefix in ("> ", "// ", "# ", ">> "):
        quoted = "results:\n" + "".join(prefix + line for line in text.splitlines(True))
        assert find_fio_document(quoted) == json.loads(text)


def test_unified_rw_reporting_reads_the_mixed_direction() -> None:
    """fio-2.6 as a client, unified_rw_reporting=1: one 'mixed' direction, KiB io_bytes."""
    text = corpus("fio-2.6_go-source-comment_all-clients-mixed.txt")
    raw = document(text)["client_stats"][0]["mixed"]
    output = parse_fio_client_json(text)
    assert output.servers == ()
    (total,) = output.all_clients
    assert total.read is None
    assert total.write is None
    assert total.mixed is not None
    assert total.mixed.io_bytes == raw["io_bytes"] * 1024
    assert total.mixed.total_ios == raw["total_ios"]
    assert total.mixed.iops == raw["iops"]
    assert total.mixed.lat_mean_ns == pytest.approx(raw["lat"]["mean"] * 1000)


def test_servers_on_one_host_are_told_apart_by_port() -> None:
    """fio-3.43, two servers on 127.0.0.1 (ports 18801, 18802): read as one server, their
    jobs summed as clones of one."""
    text = corpus("fio-3.43_fio-analyzer_client-two-servers-one-host.json")
    raw = document(text)
    output = parse_fio_client_json(text)
    assert [name for name, _ in output.servers] == ["127.0.0.1:18802", "127.0.0.1:18801"]
    for (_, result), entry in zip(output.servers, raw["client_stats"][:2], strict=True):
        (job,) = result.jobs
        assert job.read is not None
        assert job.read.iops == entry["read"]["iops"]
    assert isinstance(raw["global options"], list)  # fio 3.39+: one object per server


def test_all_clients_of_fio_3_7_has_an_empty_percentile_table() -> None:
    """fio-3.7's 'All clients' prints an empty percentile object (fio 3.33 prints none):
    no percentiles, not an error."""
    text = corpus("fio-3.7_pbench_client-two-servers_fio-result.txt")
    raw = document(text)["client_stats"][-1]
    assert raw["read"]["clat_ns"]["percentile"] == {}
    (total,) = parse_fio_client_json(text).all_clients
    assert total.read is not None
    assert total.read.clat_percentiles_ns == ()
    assert total.read.iops == raw["read"]["iops"]


def test_the_depth_fio_capped_is_the_depth_used() -> None:
    """fio-3.33 on the falloc engine with iodepth=32: fio notes it capped the depth at 1
    (its JSON still says latency_depth 32); the psync capture says so too."""
    text = corpus("fio-3.33_lkp-xfs-report_falloc-iodepth32-capped.txt")
    assert document(text)["jobs"][0]["latency_depth"] == 32
    (shape,) = parse_fio_job_shapes(text)
    assert (shape.iodepth, shape.depth_used) == (32, 1)
    assert shape.depth_note is not None
    assert "falloc" in shape.depth_note
    psync = (DATA / "psync-iodepth-warning.json").read_text(encoding="utf-8")
    (shape,) = parse_fio_job_shapes(psync)
    assert (shape.iodepth, shape.depth_used) == (32, 1)
    libaio = (DATA / "randread-4k-qd32.json").read_text(encoding="utf-8")
    (shape,) = parse_fio_job_shapes(libaio)
    assert (shape.iodepth, shape.depth_used, shape.depth_note) == (32, 32, None)


def test_the_default_engine_is_judged_by_fios_depth_levels() -> None:
    """No ioengine named: fio's default is synchronous except on Windows; its iodepth_level
    says whether every I/O went at depth 1."""
    raw = json.loads((DATA / "randread-4k-qd32.json").read_text(encoding="utf-8"))
    del raw["global options"]["ioengine"]
    (shape,) = parse_fio_job_shapes(json.dumps(raw))
    assert shape.depth_used == 32  # its levels show depth 32
    raw["jobs"][0]["iodepth_level"] = {"1": 100.0, "2": 0.0, "4": 0.0, ">=64": 0.0}
    (shape,) = parse_fio_job_shapes(json.dumps(raw))
    assert shape.depth_used == 1


def test_options_of_fio_before_2_3_are_unknown() -> None:
    """fio printed no job options before 2.3 (66e19a38): the job's shape is unknown, not
    fio's defaults (read, 4 KiB)."""
    shapes = parse_fio_job_shapes(corpus("fio-2.1.4_pkb_fio-parser-sample-result.json"))
    assert shapes
    assert all(s.pattern is None and s.block_bytes is None for s in shapes)


@pytest.mark.parametrize("path", sorted(BENCH.glob("fio-*")), ids=lambda p: Path(p).name)
def test_every_fio_output_of_the_corpus_reads_or_is_refused_in_one_line(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if '"fio version"' not in text:
        with pytest.raises(ParseError, match=r"^[^\n]*$"):
            parse_fio_job_shapes(text)
        return
    assert parse_fio_job_shapes(text)
