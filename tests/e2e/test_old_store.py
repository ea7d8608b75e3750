"""A store written by ssdlab at commit 98b38bc, opened by today's code.

`tests/data/store/main-98b38bc.sqlite` (made by `make_main_98b38bc.py` beside it, see its
README) holds every kind of run that commit wrote: quick runs complete and interrupted, profile
runs complete and interrupted, imports, a simulation, health imports and an endurance run.
`tests/data/store/main-98b38bc/` holds what that commit printed for them
(`outputs_main_98b38bc.py`). Today's code must list, show, export, report and compare them
exactly as it did, and resume its interrupted runs. Every test works on a copy of the store."""

import csv
import fcntl
import io
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.system.write_gate import create_test_file
from tests.abuse.probes import ssdlab_in_process
from tests.conftest import needs_fio
from tests.e2e.conftest import ROOT, Result, run_ssdlab

STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
PRINTED = ROOT / "tests" / "data" / "store" / "main-98b38bc"
# Text documents whose wording changed on purpose since (sizes in human units, settings under
# their option names with units, verdict footnotes in plain words, tables that never cut an
# identifier, times in UTC with the zone named, a one-line refusal of a quick-only export, quick's
# latency percentiles from p99 up with their intervals or "needs ≥ N I/Os"): what
# today's ssdlab prints for them, reviewed line by line against PRINTED. JSON documents have no
# such file: their values never change.
REWORDED = ROOT / "tests" / "data" / "store" / "main-98b38bc-reworded"
# the test file of the interrupted cache run 8 (kept with --keep) lived here
KEPT_FILE = Path("/tmp/ssdlab-old-store-98b38bc/cache-run.tmp")
WIDTH = {"COLUMNS": "100"}

# CSV of profile, sim and endurance runs, which the old ssdlab refused with its usage: every kind
# of run now exports a CSV table (its refusal stays in PRINTED as the record of what it printed)
REFUSED_BEFORE = {f"export-{run}.csv" for run in (4, 5, 8, 11, 14)}

# (file in PRINTED, arguments, whether the document is the command's stdout and stderr
# together, as for an export that refuses a format); outputs_main_98b38bc.py prints them
DOCUMENTS: list[tuple[str, tuple[str, ...], bool]] = [
    ("runs.json", ("runs", "--json"), False),
    *[(f"show-{run}.json", ("show", str(run), "--json"), False) for run in range(1, 15)],
    *[(f"show-{run}.txt", ("show", str(run)), False) for run in range(1, 15)],
    *[
        (f"export-{run}.{fmt}", ("export", str(run), "--format", fmt), True)
        for run in (1, 3, 4, 5, 8, 9, 11, 14)
        for fmt in ("json", "csv", "md", "cdm")
    ],
    ("compare-1-2.json", ("compare", "1", "2", "--json"), False),
    ("compare-1-9.json", ("compare", "1", "9", "--json"), False),
    ("compare-4-6.json", ("compare", "4", "6", "--json"), False),
    ("compare-1-2-9.txt", ("compare", "1", "2", "9"), False),
    *[
        (f"report-{run}.md", ("report", str(run), "--format", "md"), False)
        for run in (1, 4, 8, 11, 14)
    ],
    ("status-14.json", ("status", "14", "--json"), False),
    ("wear-104-109.json", ("wear", "104", "109", "--json"), False),
]


# Schema 7 (fleet collect) gave every run a UUID and a record of where it was made, and
# `runs --json` and `show` now give them: these keys in JSON (a quick run's document had
# "host" before, and there it is still compared) and one line under a shown run. The
# migration draws each old run's UUID at random, so no output stored beforehand could hold
# them: exactly these new keys (where the old document did not have them) and that line are
# left out of the comparison; the expected outputs are never regenerated.
NEW_RUN_KEYS = frozenset({"uuid", "host", "node_host", "collected_at_s"})
# Schema 8 copied the model and serial of the drive a run tested into the run row, and `runs
# --json` gives them and the page it shows (`page`: offset, limit, how many more match): new
# keys, left out of the comparison the same way.
LISTING_KEYS = frozenset({"drive_model", "drive_serial", "page"})
# Every verdict gained its 95 % interval and its answer (yes, no, inconclusive), and compare the
# interval of each ratio and the judgement of every --fail-if rule: keys a verdict stored before
# intervals (or a comparison of runs measured once) gives as unknown (null).
INTERVAL_KEYS = frozenset(
    {
        "passes",
        "aligned_interval",
        "misaligned_interval",
        "ratio_interval",  # align's ratios, compare's changes (null with one pass a side)
        "misaligned_ratio_interval",
        "misaligned_state",
        "sub_4k_ratio_interval",
        "sub_4k_state",
        "works_in_4k_units_state",
        "state",  # a cache cliff made now for an interrupted run: yes, no or inconclusive
        "uncertainty",  # … and its intervals
        "gates",  # compare: every --fail-if rule judged pass, fail or inconclusive
        "pct_per_day_interval",  # a wear fit's slope: Student's, n − 2 df (null with 2 samples)
        "days_to_eol_interval",  # … and the days to end of life from its ends
    }
)
# Every latency percentile from p99 up gained n, the I/Os above it and its 95 % interval (or
# the I/Os it needs): quick's `latency_tails` per test, a reduced log's `tails` per direction.
TAIL_KEYS = frozenset({"latency_tails", "tails"})
# Three health values were added to every normalised sample later (the NVMe spare threshold
# and error log entries, and the drive's warning temperature: for the watch alerts and the
# metrics); a sample stored before has none of them, and its documents give them as unknown:
# those keys are left out the same way.
NEW_KEYS = (
    NEW_RUN_KEYS
    | LISTING_KEYS
    | {
        "available_spare_threshold_pct",
        "error_log_entries",
        "temperature_warning_c",
        "lat_percentiles_ns",  # fio's total-latency table (lat_percentiles=1)
        "choices",  # a health reading set aside for a plausible source
    }
    | INTERVAL_KEYS
    | TAIL_KEYS
)
ORIGIN_LINE = re.compile(r"^run \d+ on host \S+, uuid [0-9a-f-]{36}\n", re.MULTILINE)
# The Markdown report later embedded its charts (SVG images in `data:` URIs, each after a blank
# line) and named its job files by the test that ran them instead of "capture 65": the images
# and the names are left out of the comparison (test_report_output.py checks them).
EMBEDDED_CHART = re.compile(r"\n\n!\[[^\]\n]*\]\(data:image/svg\+xml;base64,[A-Za-z0-9+/=]+\)")
JOB_FILE_NAME = re.compile(r"^<details><summary>.*</summary>$", re.MULTILINE)


# The charts a document lists on the terminal ('  chart: TITLE (KEY; …)' and whole sections of
# charts, 'Charts: …' up to the next blank line) are the charts' own business
# (test_profile_charts.py and the chart rules check them): left out of the comparison of text
# documents.
TERMINAL_CHART = re.compile(r"\n\nCharts: [^\n]*(?:\n(?!\n)[^\n]*)*|\n  chart: [^\n]*")


def without_report_changes(text: str) -> str:
    return JOB_FILE_NAME.sub("<details><summary>…</summary>", EMBEDDED_CHART.sub("", text))


def without_chart_lists(text: str) -> str:
    return TERMINAL_CHART.sub("", text)


def without_new_keys(value: object, old: object) -> object:
    """`value` (today's JSON) without the NEW_KEYS `old` (the old JSON) did not have."""
    if isinstance(value, dict) and isinstance(old, dict):
        return {
            key: without_new_keys(item, old.get(key))
            for key, item in value.items()
            if key in old or key not in NEW_KEYS
        }
    if isinstance(value, list) and isinstance(old, list):
        return [without_new_keys(a, b) for a, b in zip(value, old, strict=False)] + value[
            len(old) :
        ]
    return value


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(STORE, copy)
    return copy


def test_every_printed_document_has_its_command() -> None:
    assert sorted(p.name for p in PRINTED.iterdir()) == sorted(name for name, _, _ in DOCUMENTS)


# what the command line adds (argv, streams, exit codes) is the same for every document: a few
# go through the real command, the rest through ssdlab's entry point in this process
REAL_COMMAND = {"runs.json", "show-1.txt", "show-14.json", "export-4.cdm", "compare-1-2-9.txt"}


def _ssdlab(name: str, *args: str) -> Result:
    # the old ssdlab laid piped output out COLUMNS wide; today's lays it out unlimited unless
    # --width is given
    args = (*args, "--width", WIDTH["COLUMNS"])
    if name in REAL_COMMAND:
        return run_ssdlab(*args, env=WIDTH)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", WIDTH["COLUMNS"])
        return Result(*ssdlab_in_process(*args))


@pytest.mark.parametrize(("name", "args", "with_stderr"), DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_a_document_of_the_old_store_is_printed_as_before(
    old_store: Path, name: str, args: tuple[str, ...], with_stderr: bool
) -> None:
    result = _ssdlab(name, *args, "--db", str(old_store))
    reworded = REWORDED / name
    expected = (reworded if reworded.exists() else PRINTED / name).read_text()
    if name in REFUSED_BEFORE:  # the old ssdlab refused it; today's exports its main table
        assert (PRINTED / name).read_text().startswith("usage:")
        assert result.code == 0, result.stderr
        header = next(csv.reader(io.StringIO(result.stdout)))
        assert header[:2] == ["run_id", "step_key"] or header[:2] == ["run_id", "phase"]
        return
    printed = result.stdout + result.stderr if with_stderr else result.stdout
    if not with_stderr:
        assert result.code == 0, result.stderr
        assert "Traceback" not in result.stderr
    if name.endswith(".json"):
        document = json.loads(printed)
        # laid out as before (two-space indent, in the order printed) ...
        assert json.dumps(document, indent=2) + "\n" == printed
        # ... and the same document but for the new keys
        old = without_new_keys(document, json.loads(expected))
        assert json.dumps(old, indent=2) + "\n" == expected
        return
    if name.startswith("show-"):
        assert len(ORIGIN_LINE.findall(printed)) == 1
    if name.startswith("report-"):
        printed, expected = without_report_changes(printed), without_report_changes(expected)
    if name.endswith(".txt"):
        printed, expected = without_chart_lists(printed), without_chart_lists(expected)
    assert ORIGIN_LINE.sub("", printed) == expected


def test_the_runs_are_the_kinds_the_store_was_made_with(old_store: Path) -> None:
    result = run_ssdlab("runs", "--json", "--db", str(old_store))
    assert result.code == 0, result.stderr
    runs = {r["id"]: (r["profile"], r["status"]) for r in json.loads(result.stdout)["runs"]}
    assert runs == {
        1: ("quick (default)", "complete"),
        2: ("quick (default)", "complete"),
        3: ("quick (default)", "interrupted"),
        4: ("fill", "complete"),
        5: ("align", "complete"),
        6: ("fill", "complete"),
        7: ("cache", "interrupted"),
        8: ("cache", "interrupted"),
        9: ("import (CDM 8)", "complete"),
        10: ("import (KDM 3)", "complete"),
        11: ("sim", "complete"),
        12: ("import", "complete"),
        13: ("import", "complete"),
        14: ("endurance", "complete"),
    }


def test_report_html_of_runs_of_every_kind(old_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    result = run_ssdlab(
        "report", *[str(run) for run in range(1, 15)], "-o", str(out), "--db", str(old_store)
    )
    assert result.code == 0, result.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_resume_of_a_cache_run_whose_test_file_is_gone_is_refused(old_store: Path) -> None:
    result = run_ssdlab("resume", "7", "--db", str(old_store))
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "of run 7 is gone" in result.stderr


def test_resume_of_the_interrupted_quick_run_is_refused_or_says_why(old_store: Path) -> None:
    # at 98b38bc quick runs did not resume; its test file was removed at the interrupt, so
    # once quick runs resume this one still cannot: either way a one-line error, no traceback
    result = run_ssdlab("resume", "3", "--db", str(old_store))
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "run 3" in result.stderr


@pytest.fixture
def kept_test_file(old_store: Path) -> Iterator[Path]:
    """Run 8's test file made again at its path, and the copy of the store pointed at it.

    The file the run wrote is gone with the machine that made the store; its path is in the
    stored fio jobs, so a new test file is created there by the write gate (as ssdlab creates
    any test file) and the copy's test_files row given its identity (device, inode, marker).
    A lock keeps two test processes from sharing the path."""
    KEPT_FILE.parent.mkdir(exist_ok=True)
    with open(KEPT_FILE.parent.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        KEPT_FILE.unlink(missing_ok=True)
        identity = create_test_file(str(KEPT_FILE), 32 * 2**20)
        with sqlite3.connect(old_store) as conn:
            conn.execute(
                "UPDATE test_files SET device = ?, inode = ?, marker = ? WHERE run_id = 8",
                (identity.device, identity.inode, identity.marker),
            )
        conn.close()
        try:
            yield KEPT_FILE
        finally:
            KEPT_FILE.unlink(missing_ok=True)


@needs_fio
def test_resume_of_an_interrupted_cache_run_finishes_it(
    old_store: Path, kept_test_file: Path
) -> None:
    result = run_ssdlab("resume", "8", "--json", "--db", str(old_store))
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["run"]["status"] == "complete"
    assert doc["profile"] == "cache"
    shown = run_ssdlab("show", "8", "--json", "--db", str(old_store))
    assert shown.code == 0, shown.stderr
    assert json.loads(shown.stdout)["run"]["status"] == "complete"
    assert os.path.exists(kept_test_file)  # the run was made with --keep
