"""What ssdlab prints for people, as they see it: every identifier they copy (run ids, test and
metric keys, spec keys, paths, devices, models) whole at 60 columns, piped, and on an
80-column terminal; sizes in human units, never a raw count of bytes or KiB; every verdict's
footnote pointing at a section of the docs that exists; JSON unchanged by the layout.

The runs come from the store an earlier ssdlab wrote (tests/data/store: quick, fill, align,
cache, imports, a simulation, health imports, an endurance run) and one real PTS trial on a
file, the cheapest PTS run there is."""

import json
import os
import pty
import re
import select
import shutil
import subprocess
from pathlib import Path

import pytest

from ssdlab.report.document import Document
from ssdlab.report.method_notes import DOCS_PAGE, NOTES
from tests.abuse.probes import ssdlab_in_process
from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import ROOT, run_ssdlab, ssdlab_argv, ssdlab_env

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
RUNS = range(1, 15)  # every run of the old store
HEALTH_RUNS = (12, 13)
# A raw count where a size belongs: '4294966784B', '2935996KiB' (what format_size replaced).
RAW_SIZE = re.compile(r"\d{7,} ?B\b|\d+KiB|\d{4,} KiB")
# The SNIA PTS names its elements and block sizes so ('SEQ 128KiB', 'RND 0.5KiB', 'block size
# 1024KiB'): names from the specification, which people match against it, not sizes we print.
PTS_NAME = re.compile(r"(?:SEQ|RND|block size|\d+/\d+) [\d.]+KiB")
QUICK_DIRECTION = re.compile(r" (read|write|mix)$")
DOCS_LINK = re.compile(r"(docs/[\w.-]+\.md)#([\w-]+)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def text_of(*args: str) -> str:
    code, out, err = ssdlab_in_process(*args)
    assert code == 0, err
    assert "Traceback" not in err
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("terminal") / "store.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    return copy


@pytest.fixture(scope="module")
def pts_run(db: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PTS throughput trial on a file (five rounds of 0.1 s elements), stored in `db`."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    folder = tmp_path_factory.mktemp("pts")
    done = run_ssdlab(
        "run", "pts-tp", str(folder), "--size", "16MiB", "--round-seconds", "0.1",
        "--block-sizes", "128KiB", "--wipc-multiple", "0.25", "--max-rounds", "5",
        "--db", str(db), "--json", timeout=HANG_S,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    return str(json.loads(done.stdout)["run"]["id"])


def document_of(db: Path, run_id: int) -> Document:
    from ssdlab.app.runs import run_document, stored_run
    from ssdlab.store.db import open_store

    conn = open_store(db)
    try:
        return run_document(stored_run(conn, run_id))
    finally:
        conn.close()


def identifiers(document: Document) -> set[str]:
    """The cells people copy: each table's first column (a test, step or metric key) and its
    columns of runs, keys, paths, devices, models and hosts."""
    from ssdlab.cli.terminal_tables import WHOLE_HEADERS

    found = set()
    for section in document.sections:
        for table in section.tables:
            whole = [i for i, c in enumerate(table.columns) if i == 0 or c.lower() in WHOLE_HEADERS]
            found |= {row[i] for row in table.rows for i in whole if row[i].strip()}
    if document.data.get("format") == "ssdlab-run":  # a quick run: test and direction apart
        found = {QUICK_DIRECTION.sub("", name) for name in found}
    return found


def assert_whole(names: set[str], text: str) -> None:
    cut = sorted(name for name in names if name not in text)
    assert not cut, f"cut or wrapped: {cut}"
    assert "…" not in text


@pytest.mark.parametrize("run_id", RUNS)
def test_show_prints_every_key_whole_at_60_columns_and_piped(db: Path, run_id: int) -> None:
    document = document_of(db, run_id)
    names = identifiers(document) | {v for k, v in document.headline if k == "target"}
    for width in (["--width", "60"], []):
        assert_whole(names, text_of("show", str(run_id), "--db", str(db), *width))


def test_runs_prints_every_target_whole(db: Path) -> None:
    listed = json.loads(text_of("runs", "--json", "--db", str(db)))["runs"]
    targets = {str(r["target"]) for r in listed}
    assert max(len(t) for t in targets) > 60  # the store has paths longer than the width
    for width in (["--width", "60"], []):
        text = text_of("runs", "--db", str(db), *width)
        assert_whole(targets | {f" {r['id']} " for r in listed}, text)


def test_compare_prints_every_fail_if_name_whole(db: Path) -> None:
    compared = json.loads(text_of("compare", "1", "2", "9", "--json", "--db", str(db)))
    keys = {c["metric"] for comparison in compared["comparisons"] for c in comparison["changes"]}
    assert any(len(k) > 15 for k in keys)
    for width in (["--width", "60"], []):
        assert_whole(keys, text_of("compare", "1", "2", "9", "--db", str(db), *width))


def test_spec_list_prints_every_key_and_drive_whole(db: Path) -> None:
    sheets = json.loads(text_of("spec", "list", "--json", "--db", str(db)))["specs"]
    names = {s["key"] for s in sheets} | {f"{s['vendor']} {s['model']}" for s in sheets}
    for width in (["--width", "60"], []):
        assert_whole(names, text_of("spec", "list", "--db", str(db), *width))


def test_health_prints_model_and_serial_whole(tmp_path: Path) -> None:
    sample = ROOT / "tests" / "data" / "smart" / "ata-crucial-mx500-devstat-wrap.json"
    db = str(tmp_path / "db")
    drive = json.loads(text_of("health", str(sample), "--json", "--db", db))
    names = {str(drive["sample"]["identity"][k]) for k in ("model", "serial")}
    assert "CT500MX500SSD1" in names
    for width in (["--width", "60"], []):
        assert_whole(names, text_of("health", str(sample), "--db", db, *width))


def test_doctor_prints_its_paths_whole(tmp_path: Path) -> None:
    folder = tmp_path / ("a-folder-name-long-enough-to-pass-sixty-columns-" + "x" * 20)
    folder.mkdir()
    text = text_of("doctor", "--directory", str(folder), "--width", "60")
    assert str(folder) in text


def _pty_output(*args: str, columns: int) -> str:
    """`ssdlab ARGS` on a pseudo-terminal `columns` wide, as a person sees it."""
    main, child = pty.openpty()
    env = ssdlab_env({"COLUMNS": str(columns), "TERM": "xterm"})
    process = subprocess.Popen(
        ssdlab_argv(*args), stdin=child, stdout=child, stderr=child, env=env, close_fds=True
    )
    os.close(child)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.wait(timeout=HANG_S) == 0
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def test_an_80_column_terminal_wraps_and_never_cuts(db: Path) -> None:
    listed = json.loads(text_of("runs", "--json", "--db", str(db)))["runs"]
    text = _pty_output("runs", "--db", str(db), columns=80)
    assert_whole({str(r["target"]) for r in listed}, text)
    compared = _pty_output("compare", "1", "2", "--db", str(db), columns=80)
    assert "seq1m-q8t1-read-lat" in compared
    assert "/tmp/tmp.1JGXQFU7tt/ssdlab-d027048e0195.tmp" in compared
    # the profile cell 'quick (default)' wraps onto a second line of its row; the paths are whole
    assert any(re.match(r"│ +│ +\(default\) │", line) for line in compared.splitlines())
    assert "…" not in compared


@needs_fio
def test_no_raw_byte_counts_in_any_text(db: Path, pts_run: str) -> None:
    shown = {
        f"show {run}": text_of("show", run, "--db", str(db))
        for run in ("1", "8", "9", "11", "12", "13", "14", pts_run)
    }
    shown["report 1 4 md"] = text_of("report", "1", "4", "--format", "md", "--db", str(db))
    shown["export 8 md"] = text_of("export", "8", "--format", "md", "--db", str(db))
    for name, text in shown.items():
        leaks = RAW_SIZE.findall(PTS_NAME.sub("", text))
        assert not leaks, f"{name}: {leaks}"


@needs_fio
def test_pts_tracking_variables_in_units(db: Path, pts_run: str) -> None:
    text = text_of("show", pts_run, "--db", str(db), "--width", "60")
    assert "MB/s" in text.split("Steady-state determination")[1].split("\n\n")[0]
    assert "Method: docs/analysis.md#steady-state" in text


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_every_footnote_links_a_section_that_exists(db: Path) -> None:
    links = {(DOCS_PAGE, note.anchor) for note in NOTES}
    for run_id in (4, 5, 8, 14):
        links |= set(DOCS_LINK.findall(text_of("show", str(run_id), "--db", str(db))))
    links |= set(DOCS_LINK.findall(text_of("compare", "1", "2", "--db", str(db))))
    assert {anchor for _, anchor in links} >= {"cache-cliff", "fill-level", "compare-runs"}
    for page, anchor in links:
        assert anchor in _anchors(ROOT / page), f"{page}#{anchor} has no such section"


def test_footnotes_are_plain_words_and_the_method_stays_in_json(db: Path) -> None:
    text = text_of("show", "8", "--db", str(db))
    assert "optimal partitioning" not in text
    for note in NOTES:
        assert "L1 cost" not in note.plain
        assert "σ" not in note.plain


def test_json_is_the_same_at_any_width(db: Path) -> None:
    for args in (("show", "1", "--json"), ("show", "14", "--json"), ("runs", "--json")):
        piped = text_of(*args, "--db", str(db))
        assert text_of(*args, "--db", str(db), "--width", "40") == piped
    run = json.loads(text_of("show", "1", "--json", "--db", str(db)))
    assert isinstance(json.dumps(run), str)
    assert re.search(r'"capacity_bytes": \d+,', text_of("show", "1", "--json", "--db", str(db)))


def test_settings_name_their_option_and_unit(db: Path) -> None:
    text = text_of("show", "8", "--db", str(db))
    for shown in ("--log-interval   1 s", "--recovery-size  16 MiB", "--iodepth        QD32"):
        assert shown in text
    assert "log_interval" not in text
    quick = text_of("show", "1", "--db", str(db))
    assert "--size 16 MiB" in quick
    assert "--measure 1 s" in quick


def test_a_quick_only_format_of_a_profile_run_is_refused_in_one_line(db: Path) -> None:
    code, out, err = ssdlab_in_process("export", "4", "--format", "cdm", "--db", str(db))
    assert code != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "usage:" not in err
    assert "run 4" in err
    assert "--format json, md or csv" in err
