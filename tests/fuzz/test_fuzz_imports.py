"""Fuzzing what `ssdlab import` reads from the world: mutated published outputs of the
benchmark corpus (fio JSON of fio 2.1-3.43 and its client/server documents, AS SSD Benchmark
exports, CrystalDiskMark blocks without their header), Iometer results files in the layout
Iometer writes, and hostile variants (truncated, re-encoded, huge numbers, layouts mixed).
Only a result or a clean one-line ParseError is allowed, from each parser and from the
import's own choice of parser."""

import json

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.parse.asssd_text import parse_asssd_text
from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.fio_client_json import parse_fio_client_json
from ssdlab.parse.fio_job_shape import parse_fio_job_shapes
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.parse.iometer_csv import parse_iometer_csv
from ssdlab.runner.importer import imported_run
from tests.fuzz.harness import (
    FUZZ,
    GENERATED,
    HALF,
    HOSTILE_NUMBERS,
    ROOT,
    Samples,
    files,
    mutated_text,
    outcome,
    texts,
)
from tests.fuzz.test_fuzz_fio import assert_no_nan
from tests.unit.parse.test_iometer_csv import COLUMNS_2006, results_file

BENCH = ROOT / "tests" / "corpus" / "bench"
FIO = texts([p for p in files(BENCH, "fio-*") if '"fio version"' in p.read_text("utf-8")])
CLIENTS = Samples({n: t for n, t in zip(FIO.names, FIO, strict=True) if "client_stats" in t})
ASSSD = texts(files(BENCH, "asssd*"))
HEADERLESS = texts(files(BENCH, "cdm*no-header*"))
IOMETER = Samples(
    {
        "iometer 1.1.0": results_file(),
        "iometer 2006": results_file(COLUMNS_2006, version="2006.07.27"),
        "iometer mix": results_file(spec_line="4096,100,70,100,0,1,4096,0,"),
    }
)
EVERYTHING = Samples(
    dict(zip(FIO.names + ASSSD.names + HEADERLESS.names, [*FIO, *ASSSD, *HEADERLESS], strict=True))
    | dict(zip(IOMETER.names, IOMETER, strict=True))
)


def test_the_seeds_read() -> None:
    assert len(FIO) >= 20
    assert len(CLIENTS) >= 3
    assert len(ASSSD) >= 5
    for text in FIO:
        outcome(parse_fio_job_shapes, text)
    assert sum(outcome(parse_asssd_text, t) is not None for t in ASSSD) >= len(ASSSD) - 1
    assert all(outcome(parse_iometer_csv, t) for t in IOMETER)


@FUZZ
@given(mutated_text(FIO))
def test_fio_outputs_of_every_release_mutated(text: str) -> None:
    result = outcome(parse_fio_json, text)
    if result is not None:
        assert_no_nan(result)
    outcome(parse_fio_job_shapes, text)


@HALF
@given(mutated_text(CLIENTS))
def test_client_documents_mutated(text: str) -> None:
    result = outcome(parse_fio_client_json, text)
    if result is not None:
        assert_no_nan(result)


@FUZZ
@given(mutated_text(ASSSD))
def test_as_ssd_exports_mutated(text: str) -> None:
    result = outcome(parse_asssd_text, text)
    if result is not None:
        assert result.tests
        assert_no_nan(result)


@HALF
@given(mutated_text(HEADERLESS))
def test_headerless_blocks_mutated(text: str) -> None:
    result = outcome(parse_benchmark_text, text)
    if result is not None:
        assert result.tests
        assert_no_nan(result)


@FUZZ
@given(mutated_text(IOMETER))
def test_iometer_results_mutated(text: str) -> None:
    result = outcome(parse_iometer_csv, text)
    if result is not None:
        assert result.tests
        assert_no_nan(result)


@HALF
@given(mutated_text(EVERYTHING))
def test_the_import_chooses_a_parser_for_any_of_them(text: str) -> None:
    """Whatever the file turned into, the import reads it or refuses it in one line."""
    run = outcome(imported_run, text, "fuzzed.txt")
    if run is not None:
        assert run.steps
        assert_no_nan(run.steps)


# --- hostile variants built from the seeds ---------------------------------------------------


@GENERATED
@given(st.sampled_from(EVERYTHING), st.integers(0, 2**20))
def test_truncated_anywhere(text: str, cut: int) -> None:
    outcome(imported_run, text[: cut % (len(text) + 1)], "cut.txt")


@GENERATED
@given(st.sampled_from(EVERYTHING), st.sampled_from(["latin-1", "cp1252", "utf-16-le", "utf-8"]))
def test_read_in_the_wrong_encoding(text: str, encoding: str) -> None:
    """The bytes of another encoding read as UTF-8 (replacement characters) or as Latin-1."""
    data = text.encode(encoding, errors="replace")
    outcome(imported_run, data.decode("utf-8", errors="replace"), "enc.txt")
    outcome(imported_run, data.decode("latin-1"), "enc.txt")


@GENERATED
@given(st.sampled_from(FIO), st.sampled_from(HOSTILE_NUMBERS))
def test_every_number_of_a_fio_document_made_hostile(text: str, number: str) -> None:
    start = text.index("{")
    document = text[start:]
    hostile = "".join(number if c.isdigit() else c for c in document[:4000]) + document[4000:]
    result = outcome(parse_fio_json, text[:start] + hostile)
    if result is not None:
        assert_no_nan(result)


@GENERATED
@given(st.sampled_from(EVERYTHING), st.sampled_from(EVERYTHING), st.integers(0, 10**6))
def test_two_layouts_mixed(first: str, second: str, at: int) -> None:
    """One text pasted into another: a fio document inside an AS SSD export, a CrystalDiskMark
    block in an Iometer file, …"""
    lines = first.splitlines(keepends=True)
    i = at % (len(lines) + 1)
    outcome(imported_run, "".join(lines[:i]) + second + "".join(lines[i:]), "mixed.txt")


@GENERATED
@given(st.integers(1, 64))
def test_deeply_nested_and_repeated_documents(depth: int) -> None:
    nested = '{"jobs": ' + "[" * depth * 50 + "]" * depth * 50 + "}"
    outcome(parse_fio_json, nested)
    many = ("{\n" * depth * 20) + json.dumps({"fio version": "fio-3.43", "jobs": []})
    outcome(parse_fio_json, many)
