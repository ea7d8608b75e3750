"""`ssdlab import`: CrystalDiskMark/KDiskMark text and fio JSON become stored runs that show up
in `runs`, `show`, `report` and `compare`; bad files are refused and store nothing."""

import json
import shlex
import sqlite3
from pathlib import Path

from ssdlab.store.raw import unpack_raw
from tests.conftest import ROOT, needs_fio
from tests.e2e.conftest import FAST, run_ssdlab
from tests.unit.parse.test_benchmark_text import CDM8, KDM

FIO_JSON = ROOT / "tests" / "data" / "fio" / "randread-4k-qd32.json"


def import_text(tmp_path: Path, name: str, text: str, db: Path, *, encoding: str = "utf-8") -> int:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    done = run_ssdlab("import", str(path), "--db", str(db), "--json")
    assert done.code == 0, done.stderr
    return int(json.loads(done.stdout)["run"])


def test_crystaldiskmark_import_is_a_labelled_run(tmp_path: Path) -> None:
    db = tmp_path / "db"
    run = import_text(tmp_path, "cdm8.txt", CDM8, db, encoding="utf-16")  # Windows "Save text"
    listed = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert listed[0]["id"] == run
    assert listed[0]["kind"] == "import"
    shown = run_ssdlab("show", str(run), "--db", str(db))
    assert shown.code == 0
    assert "3500.12" in shown.stdout
    doc = json.loads(run_ssdlab("show", str(run), "--json", "--db", str(db)).stdout)
    assert doc["run"]["settings"]["source_tool"] == "CrystalDiskMark 8.0.4"
    seq = next(t for t in doc["tests"] if t["key"] == "seq1m-q8t1-read")
    assert seq["best_bw_bytes_per_s"] == 3_500_123_000
    assert seq["passes"] == 1
    with sqlite3.connect(db) as conn:  # the file is kept verbatim as the run's capture
        (stored,) = conn.execute("SELECT stdout FROM captures WHERE run_id = ?", (run,)).fetchone()
        assert unpack_raw(conn, stored) == CDM8  # stored compressed, read back byte for byte
    report = tmp_path / "r.md"
    assert run_ssdlab("report", str(run), "-o", str(report), "--db", str(db)).code == 0
    assert "imported from CrystalDiskMark 8.0.4" in report.read_text()


def test_compare_gates_a_regression_between_two_exports(tmp_path: Path) -> None:
    db = tmp_path / "db"
    before = import_text(tmp_path, "before.txt", CDM8, db)
    slower = CDM8.replace("60.012 MB/s [  14651.4 IOPS]", "42.000 MB/s [  10253.9 IOPS]")
    after = import_text(tmp_path, "after.txt", slower, db)
    gate = run_ssdlab(
        "compare", str(before), str(after), "--fail-if", "rnd4k-q1t1-read:-5%", "--db", str(db)
    )
    assert gate.code == 4, gate.stderr
    assert "rnd4k-q1t1-read" in gate.stderr
    assert "regression" in gate.stderr
    assert "0.70 ?" in gate.stdout  # one pass each: the ratio, no significance claimed
    fine = run_ssdlab(
        "compare", str(before), str(after), "--fail-if", "seq1m-q8t1-read:-5%", "--db", str(db)
    )
    assert fine.code == 0, fine.stderr


def test_kdiskmark_and_fio_json_imports_compare_with_quick_tests(tmp_path: Path) -> None:
    db = tmp_path / "db"
    kdm = import_text(tmp_path, "KDM_20240211180533.txt", KDM, db)
    fio = run_ssdlab("import", str(FIO_JSON), "--db", str(db), "--json")
    assert fio.code == 0, fio.stderr
    doc = json.loads(fio.stdout)
    assert doc["profile"] == "fio"
    assert doc["tests"] == ["rnd4k-q32t1-read"]
    fio_run = doc["run"]
    compared = run_ssdlab("compare", str(kdm), str(fio_run), "--json", "--db", str(db))
    assert compared.code == 0, compared.stderr
    changes = {c["metric"]: c for c in json.loads(compared.stdout)["comparisons"][0]["changes"]}
    both = changes["rnd4k-q32t1-read"]
    # KDiskMark's Default profile kept the mean of its loops: mean against mean, one a side
    assert both["verdict"] == "untested"
    assert both["ratio"] is not None
    assert both["basis"] == "mean"
    fio_doc = json.loads(FIO_JSON.read_text())
    assert both["other"]["values"] == [fio_doc["jobs"][0]["read"]["bw_bytes"]]


def test_bad_files_are_refused_and_store_nothing(tmp_path: Path) -> None:
    db = tmp_path / "db"
    cases = {
        "notes.txt": b"my drive is fast\n",
        "empty.txt": b"",
        "broken.txt": CDM8.replace("3500.123", "35OO.123").encode(),
        "binary.bin": bytes(range(256)) * 4,
        "bad.json": b'{"fio version": "fio-3.33", "jobs": [',
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        done = run_ssdlab("import", str(tmp_path / name), "--db", str(db))
        assert done.code == 1, (name, done.stderr)
        assert name in done.stderr
        assert "Traceback" not in done.stderr
    missing = run_ssdlab("import", str(tmp_path / "nope.txt"), "--db", str(db))
    assert missing.code == 2
    assert "cannot read" in missing.stderr
    listed = run_ssdlab("runs", "--json", "--db", str(db))
    assert json.loads(listed.stdout)["runs"] == []


CORPUS = ROOT / "tests" / "corpus" / "bench"


def test_cdm_export_of_an_import_keeps_the_measurement(tmp_path: Path) -> None:
    """cdm8.0.4-shizuku_gw560-128gb_comment.txt: the export said the import's date and
    'ssdlab run 1' where the text had the measurement's date and the drive in Comment."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "cdm8.0.4-shizuku_gw560-128gb_comment.txt"
    assert run_ssdlab("import", str(source), "--db", db).code == 0
    done = run_ssdlab("export", "last", "--format", "cdm", "--db", db)
    assert done.code == 0, done.stderr
    assert "   Date: 2024/05/25 19:26:52\n" in done.stdout
    assert "Comment: Great Wall GW560 128GB\n" in done.stdout
    assert "  SEQ    1MiB (Q=  8, T= 1):   384.064 MB/s [    366.3 IOPS] < 21765.43 us>" in (
        done.stdout
    )
    shown = run_ssdlab("export", "last", "--format", "json", "--db", db)
    assert json.loads(shown.stdout)["run"]["target"]["device"]["model"] == (
        "Great Wall GW560 128GB"
    )


def test_cdm_export_of_a_kdiskmark_import_round_trips(tmp_path: Path) -> None:
    """kdiskmark3.0.0_fio-3.30_readme.txt: re-importing the CDM export multiplied by 1.024
    a second time."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "kdiskmark3.0.0_fio-3.30_readme.txt"
    assert run_ssdlab("import", str(source), "--db", db).code == 0
    first = json.loads(run_ssdlab("export", "last", "--format", "json", "--db", db).stdout)
    cdm = tmp_path / "cdm.txt"
    cdm.write_text(run_ssdlab("export", "last", "--format", "cdm", "--db", db).stdout)
    assert run_ssdlab("import", str(cdm), "--db", db).code == 0
    again = json.loads(run_ssdlab("export", "last", "--format", "json", "--db", db).stdout)
    before = {t["key"]: t["best_bw_bytes_per_s"] for t in first["tests"]}
    after = {t["key"]: t["best_bw_bytes_per_s"] for t in again["tests"]}
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert abs(after[key] - value) <= 500  # the export prints MB/s to 3 decimals


def test_fio_without_io_is_refused_naming_the_file_once(tmp_path: Path) -> None:
    """fio-plot_fio-3.33_party_fio_1m_run-1_write-64-1.json: the path was printed twice."""
    source = CORPUS / "fio-plot_fio-3.33_party_fio_1m_run-1_write-64-1.json"
    done = run_ssdlab("import", str(source), "--db", str(tmp_path / "s.db"))
    assert done.code == 1
    assert done.stderr.count(str(source)) == 1, done.stderr
    assert "no job that did any I/O (fio reported error 22)" in done.stderr


@needs_fio
def test_compare_an_import_with_a_quick_run_best_with_best(tmp_path: Path) -> None:
    """A CrystalDiskMark text keeps only the best pass of each test: the quick run's best pass
    is set beside it (not its mean), the table says so, and one figure a side gives the ratio
    with 'untested', never 'cannot tell' or None."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "cdm8.0.4-shizuku_gw560-128gb_comment.txt"
    imported = run_ssdlab("import", str(source), "--db", db, "--json")
    assert imported.code == 0, imported.stderr
    target = tmp_path / "target.bin"
    fast = [a for a in FAST if a not in ("--count", "1")]
    # two passes, so the quick side has a best pass that is not its only one; reads suffice
    reads = ["--count", "2", "--mode", "read"]
    quick = run_ssdlab("quick", str(target), *fast, *reads, "--db", db, "--json")
    assert quick.code == 0, quick.stderr
    quick_run = json.loads(quick.stdout)["run"]["id"]
    import_run = json.loads(imported.stdout)["run"]
    done = run_ssdlab("compare", str(import_run), str(quick_run), "--json", "--db", db)
    assert done.code == 0, done.stderr
    changes = {c["metric"]: c for c in json.loads(done.stdout)["comparisons"][0]["changes"]}
    both = changes["seq1m-q1t1-read"]
    assert both["basis"] == "best"
    assert both["other"]["summary"] == "best"
    assert len(both["other"]["values"]) == 1
    assert both["ratio"] is not None
    assert both["verdict"] in ("untested", "not significant")
    text = run_ssdlab("compare", str(import_run), str(quick_run), "--db", db)
    assert text.code == 0, text.stderr
    assert "best pass" in text.stdout
    assert "cannot tell" not in text.stdout
    assert "None" not in text.stdout


def test_markdown_says_what_each_imported_figure_is(tmp_path: Path) -> None:
    """kdiskmark3.2.0_fio-3.39_target.txt and the fio-plot JSON: the Markdown export called
    KDiskMark's Default mean and fio's one run 'best of the measured passes'."""
    db = str(tmp_path / "s.db")
    captions = {
        "kdiskmark3.2.0_fio-3.39_target.txt": "Mean of the passes of each test, as KDiskMark",
        "fio-plot_fio-3.34_deleteme_fio_4k_randread-1-1.json": "One run of each job, as fio-3.34",
        "cdm6.0.0_samsung-evo-plus-tf-128g.txt": "Best pass of each test, as CrystalDiskMark",
    }
    for name, caption in captions.items():
        assert run_ssdlab("import", str(CORPUS / name), "--db", db).code == 0
        done = run_ssdlab("export", "last", "--format", "md", "--db", db)
        assert done.code == 0, done.stdout
        assert caption in done.stdout, done.stdout
        assert "Best of the measured passes" not in done.stdout


def test_the_drive_a_file_names_is_shown_compared_and_matched(tmp_path: Path) -> None:
    """AS SSD names the drive (model, firmware, NVMe driver, size); KDiskMark's Target line
    its model in brackets. Both went nowhere: compare showed '—' and the card 'model —'."""
    db = str(tmp_path / "s.db")
    asssd = CORPUS / "asssd2.0.7316_samsung-970-evo-plus-250gb.txt"
    first = json.loads(run_ssdlab("import", str(asssd), "--db", db, "--json").stdout)["run"]
    shown = json.loads(run_ssdlab("show", str(first), "--json", "--db", db).stdout)
    device = shown["run"]["target"]["device"]
    assert device["model"] == "Samsung SSD 970 EVO Plus 250GB"
    assert device["firmware"] == "1B2QEXM7"
    assert device["transport"] == "nvme"
    kdm = CORPUS / "kdiskmark3.2.0_fio-3.39_target.txt"
    second = json.loads(run_ssdlab("import", str(kdm), "--db", db, "--json").stdout)["run"]
    shown = json.loads(run_ssdlab("show", str(second), "--json", "--db", db).stdout)
    assert "device" not in shown["run"]["target"]  # its Target names a mount, not a drive
    assert shown["run"]["settings"]["target_text"] == "/ 4% (31.72/748.08 GiB)"
    compared = run_ssdlab("compare", str(first), str(second), "--db", db)
    assert compared.code == 0, compared.stderr
    assert "Samsung SSD 970 EVO Plus 250GB" in compared.stdout
    card = run_ssdlab("card", str(first), "--json", "--db", db)
    assert card.code == 0, card.stderr
    assert json.loads(card.stdout)["drive"]["model"] == "Samsung SSD 970 EVO Plus 250GB"


def test_import_options_set_or_correct_the_drive(tmp_path: Path) -> None:
    """--model/--serial/--firmware: a CrystalDiskMark text names no drive; set by hand, the
    model matches the shipped spec sheet and the report sets the claims beside the result."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "cdm8_ct2000p3-no-header.txt"  # a headerless block: no Comment either
    identity = ["--model", "Samsung SSD 970 EVO 500GB", "--serial", "S466NX0K123456"]
    done = run_ssdlab(
        "import", str(source), "--db", db, "--json", *identity, "--firmware", "2B2QEXE7"
    )
    assert done.code == 0, done.stderr
    run = str(json.loads(done.stdout)["run"])
    device = json.loads(run_ssdlab("show", run, "--json", "--db", db).stdout)["run"]["target"][
        "device"
    ]
    assert (device["model"], device["serial"], device["firmware"]) == (
        "Samsung SSD 970 EVO 500GB", "S466NX0K123456", "2B2QEXE7",
    )  # fmt: skip
    report = tmp_path / "r.md"
    assert run_ssdlab("report", run, "-o", str(report), "--db", db).code == 0
    assert "Against the spec sheet" in report.read_text(encoding="utf-8")
    bad = run_ssdlab("import", str(source), "--db", db, "--model", " \t")
    assert bad.code == 2
    assert "printable characters" in bad.stderr


def test_fio_client_output_imports_each_server_and_the_total(tmp_path: Path) -> None:
    """fio-3.7 as a client of two servers (pbench's sample): refused as 'no jobs list'."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "fio-3.7_pbench_client-two-servers_fio-result.txt"
    done = run_ssdlab("import", str(source), "--db", db, "--json")
    assert done.code == 0, done.stderr
    # the total ran 5 jobs on each of two servers: T10
    assert json.loads(done.stdout)["tests"] == [
        "seq4k-q32t10-read", "perf36-seq4k-q32t5-read", "perf84-seq4k-q32t5-read",
    ]  # fmt: skip
    shown = json.loads(run_ssdlab("show", "last", "--json", "--db", db).stdout)
    assert shown["run"]["settings"]["servers"] == ["perf36", "perf84"]


def test_a_capped_depth_is_the_key_and_its_note_is_kept(tmp_path: Path) -> None:
    """fio-3.33 on falloc with iodepth=32: fio ran at depth 1; the key said q32."""
    db = str(tmp_path / "s.db")
    source = CORPUS / "fio-3.33_lkp-xfs-report_falloc-iodepth32-capped.txt"
    done = run_ssdlab("import", str(source), "--db", db, "--json")
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["tests"] == ["seq4k-q1t1-write"]
    settings = json.loads(run_ssdlab("show", "last", "--json", "--db", db).stdout)["run"][
        "settings"
    ]
    assert settings["depth_notes"] == [
        "task_0: iodepth=32 on the synchronous engine falloc: fio ran it at depth 1"
    ]
    assert settings["date"] == "2024-06-14 03:16:08 UTC"  # fio's timestamp


def test_the_hint_shows_the_run_from_the_store_it_went_into(tmp_path: Path) -> None:
    """'see it with ...' named no store: copied, it showed the default store's run of that id."""
    db = tmp_path / "lab store" / "s.db"  # a path that needs quoting
    db.parent.mkdir()
    done = run_ssdlab("import", str(CORPUS / "cdm8_ct2000p3-no-header.txt"), "--db", str(db))
    assert done.code == 0, done.stderr
    hint = done.stdout.strip().split("; see it with ", 1)[1]
    words = shlex.split(hint[1:-1])  # the command, inside the quotes that set it off
    assert words[:3] == ["ssdlab", "show", "1"]
    assert words[-2:] == ["--db", str(db)]
    shown = run_ssdlab(*words[1:])
    assert shown.code == 0, shown.stderr
    assert "cdm8_ct2000p3-no-header.txt" in shown.stdout
