"""fio's latency logs in every layout fio writes (real fio 3.33 logs, tests/data/fio/logs),
read by both cores: the compiled one (logcore/) and the numpy reference must agree exactly."""

import gzip
from pathlib import Path

import pytest

from ssdlab.analysis.latency_stream import compiled_core_available
from ssdlab.errors import ParseError, UsageError
from ssdlab.parse.fio_lat_log import describe_log_name, log_text_blocks, looks_averaged
from ssdlab.runner.latency_logs import reduce_latency_logs
from tests.conftest import ROOT

LOGS = ROOT / "tests" / "data" / "fio" / "logs"
PER_IO = LOGS / "per-io"
AVG = LOGS / "avg"
CORES = [
    "python",
    pytest.param(
        "compiled",
        marks=pytest.mark.skipif(
            not compiled_core_available(), reason="the compiled core (logcore/) is not built"
        ),
    ),
]


def counts(path: Path, core: str, **kwargs: object) -> dict[str, tuple[int, float | None]]:
    result = reduce_latency_logs([path], core, **kwargs)  # type: ignore[arg-type]
    return {d: (s.count, dict(s.percentiles_ns)[99.0]) for d, s in result.directions.items()}


def exact(path: Path) -> dict[str, list[int]]:
    """Every value of a plain-text log, per direction, read without ssdlab."""
    found: dict[str, list[int]] = {}
    for line in path.read_text().splitlines():
        fields = [f.strip() for f in line.split(",")]
        ddir = {"0": "read", "1": "write", "2": "trim"}[fields[2]] if len(fields) > 2 else "read"
        found.setdefault(ddir, []).append(int(fields[1]))
    return found


def test_file_names_say_kind_job_and_compression() -> None:
    assert describe_log_name("job_clat.2.log").kind == "clat"
    assert describe_log_name("job_clat.2.log").job == 2
    assert describe_log_name("x/my_job_lat.log").prefix == "my_job"
    assert describe_log_name("fz_lat.1.log.fz").compression == "zlib"
    assert describe_log_name("gz_lat.1.log.gz").compression == "gzip"
    assert describe_log_name("notes.txt").kind is None


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize(
    "name",
    ["job_lat.1.log", "off_lat.1.log", "prio_lat.1.log"],  # 5 columns; offset; hex priority
)
def test_every_fio_layout_gives_the_exact_counts_and_bounded_percentiles(
    core: str, name: str
) -> None:
    path = PER_IO / name
    want = exact(path)
    got = reduce_latency_logs([path], core)
    assert not got.averaged
    assert {d: s.count for d, s in got.directions.items()} == {d: len(v) for d, v in want.items()}
    for direction, values in want.items():
        summary = got.directions[direction]
        assert summary.max_ns == max(values)
        assert summary.mean_ns == pytest.approx(sum(values) / len(values))
        ordered = sorted(values)
        for pct, value in summary.percentiles_ns:
            rank = max(1, -(-int(pct * len(values)) // 100))
            truth = ordered[min(len(values), rank) - 1]
            assert value is not None
            assert abs(value - truth) <= truth * 0.005 + 1, (direction, pct)


@pytest.mark.parametrize("core", CORES)
def test_compressed_logs_read_like_their_text(core: str) -> None:
    # fio --inflate-log printed fz_lat.1.inflated.txt from the .fz file fio wrote
    inflated = PER_IO / "fz_lat.1.inflated.txt"
    with (PER_IO / "fz_lat.1.log.fz").open("rb") as handle:
        assert b"".join(log_text_blocks(handle, "zlib")) == inflated.read_bytes()
    plain = PER_IO / "job_lat.1.log"
    assert gzip.decompress((PER_IO / "gz_lat.1.log.gz").read_bytes()) == plain.read_bytes()
    assert counts(PER_IO / "gz_lat.1.log.gz", core) == counts(plain, core)
    fz = counts(PER_IO / "fz_lat.1.log.fz", core)
    assert fz["read"][0] == len(inflated.read_text().splitlines())


def _variant(tmp_path: Path, name: str, change: str) -> Path:
    lines = (PER_IO / "job_lat.1.log").read_text().splitlines()
    if change.startswith("columns"):
        keep = int(change[-1])
        lines = [", ".join(line.split(", ")[:keep]) for line in lines]
    text = "\n".join(lines) + "\n"
    if change == "crlf":
        text = text.replace("\n", "\r\n")
    elif change == "blank":
        text = "\n" + text.replace("\n", "\n\n", 3) + "\n\n"
    elif change == "truncated":
        text += "1234, 56"  # fio stopped while writing the last line
    elif change == "unterminated":
        text = text.rstrip("\n")
    path = tmp_path / name
    path.write_text(text, newline="")
    return path


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize(
    "change", ["columns4", "columns3", "crlf", "blank", "truncated", "unterminated"]
)
def test_older_layouts_and_damaged_endings_keep_every_whole_line(
    tmp_path: Path, core: str, change: str
) -> None:
    reference = counts(PER_IO / "job_lat.1.log", "python")
    path = _variant(tmp_path, "v_lat.1.log", change)
    result = reduce_latency_logs([path], core)
    assert {d: (s.count, dict(s.percentiles_ns)[99.0]) for d, s in result.directions.items()} == (
        reference
    )
    assert result.truncated_lines == (1 if change == "truncated" else 0)


@pytest.mark.parametrize("core", CORES)
def test_two_columns_are_reads(tmp_path: Path, core: str) -> None:
    path = _variant(tmp_path, "v_lat.1.log", "columns2")
    result = reduce_latency_logs([path], core)
    assert list(result.directions) == ["read"]
    assert result.directions["read"].count == 250


@pytest.mark.parametrize("core", CORES)
def test_several_job_logs_merge(core: str) -> None:
    one, two = PER_IO / "job_lat.1.log", PER_IO / "job_lat.2.log"
    merged = reduce_latency_logs([one, two], core)
    assert merged.lines == 500
    total = sum(len(v) for f in (one, two) for v in exact(f).values())
    assert sum(s.count for s in merged.directions.values()) == total


def test_averaged_logs_are_detected_and_labelled() -> None:
    avg = reduce_latency_logs([AVG / "avg_lat.1.log"])
    assert avg.averaged
    assert "block size 0" in avg.averaged_why
    assert not reduce_latency_logs([PER_IO / "job_lat.1.log"]).averaged
    # a log without a block size column: evenly spaced times give it away
    three = "".join(
        ", ".join(line.split(", ")[:3]) + "\n"
        for line in (AVG / "avg_lat.1.log").read_text().splitlines()
    )
    assert looks_averaged(three.encode()).averaged
    forced = reduce_latency_logs([PER_IO / "job_lat.1.log"], averaged=True)
    assert forced.averaged
    assert forced.averaged_why == "as --averaged says"


def test_bandwidth_and_iops_logs_are_refused() -> None:
    for name in ("avg_bw.1.log", "avg_iops.1.log"):
        with pytest.raises(UsageError, match="not a latency log"):
            reduce_latency_logs([AVG / name])
    with pytest.raises(UsageError, match="mix clat and lat"):
        reduce_latency_logs([PER_IO / "job_lat.1.log", PER_IO / "job_clat.1.log"])


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize(
    ("line", "words"),
    [("12, abc, 0, 4096, 0", "whole number"), ("12, 5, 7, 4096, 0", "direction")],
)
def test_a_bad_line_is_named_by_both_cores(
    tmp_path: Path, core: str, line: str, words: str
) -> None:
    good = (PER_IO / "job_lat.1.log").read_text().splitlines()
    path = tmp_path / "bad_lat.1.log"
    path.write_text("\n".join([*good[:99], line, *good[99:]]) + "\n")
    with pytest.raises(ParseError, match=f"bad_lat.1.log: line 100: .*{words}"):
        reduce_latency_logs([path], core)


def test_an_empty_log_has_no_directions() -> None:
    result = reduce_latency_logs([PER_IO / "job_slat.1.log"])
    assert result.directions == {}
    assert result.kind == "slat"
