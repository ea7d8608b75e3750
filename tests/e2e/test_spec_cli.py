"""`ssdlab spec`: shipped sheets listed and shown, a user's sheet added (and refused when
wrong), and an imported run of a matching drive set against the claims."""

import json
from pathlib import Path

from tests.e2e.conftest import run_ssdlab
from tests.unit.parse.test_benchmark_text import KDM

SHEET = """
vendor = "Acme"
model = "Fast 1"
capacity = "1TB"
part_numbers = ["ACME FAST 1 1TB"]
seq_read_mb_s = 3500
tbw_tb = 600
sources = ["https://example.invalid/acme-fast-1.pdf, page 2"]
"""


def test_list_show_and_add(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    listed = json.loads(run_ssdlab("spec", "list", "--json", "--db", db).stdout)
    keys = {s["key"] for s in listed["specs"]}
    assert {"samsung-970-evo-500gb", "samsung-860-evo-500gb", "crucial-p2-250gb"} <= keys
    shown = run_ssdlab("spec", "show", "samsung-970-evo-500gb", "--db", db)
    assert shown.code == 0
    assert "seq_read_mb_s = 3400" in shown.stdout
    assert "tbw_tb = 300" in shown.stdout
    assert "sources = [" in shown.stdout
    saved = tmp_path / "970.toml"  # what `spec show` prints is a sheet `spec add` takes back
    saved.write_text(shown.stdout)
    assert run_ssdlab("spec", "add", str(saved), "--db", db).code == 0
    sheet = tmp_path / "acme.toml"
    sheet.write_text(SHEET)
    added = run_ssdlab("spec", "add", str(sheet), "--db", db)
    assert added.code == 0
    assert "added spec sheet acme-fast-1-1tb" in added.stdout
    again = run_ssdlab("spec", "add", str(sheet), "--db", db)
    assert "replaced" in again.stdout
    doc = json.loads(run_ssdlab("spec", "show", "acme-fast-1-1tb", "--json", "--db", db).stdout)
    assert doc["seq_read_bytes_per_s"] == 3.5e9
    assert doc["tbw_bytes"] == 6e14
    bad = tmp_path / "bad.toml"
    bad.write_text(SHEET + "seq_write_mbs = 1\n")
    refused = run_ssdlab("spec", "add", str(bad), "--db", db)
    assert refused.code == 1
    assert "unknown key 'seq_write_mbs'" in refused.stderr
    missing = run_ssdlab("spec", "show", "nope", "--db", db)
    assert missing.code == 2
    assert "samsung-970-evo-500gb" in missing.stderr


def test_an_imported_run_is_set_against_its_spec_sheet(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    export = tmp_path / "KDM.txt"
    export.write_text(KDM)  # its Target line names a Samsung SSD 860 EVO 500GB
    assert run_ssdlab("import", str(export), "--db", db).code == 0
    out = tmp_path / "r.md"
    assert run_ssdlab("report", "last", "-o", str(out), "--db", db).code == 0
    text = out.read_text()
    assert "Against the spec sheet" in text
    assert "samsung-860-evo-500gb" in text
    # KDiskMark's 508.897 "MB/s" is 521.11 MB/s; the sheet claims 550 MB/s
    assert "| sequential read | 550 MB/s | 521.1 MB/s | SEQ1M Q8T1 | 95 % |" in text


def test_wear_uses_the_rated_tbw_of_the_drives_sheet(tmp_path: Path) -> None:
    import pytest

    from tests.conftest import SHARED

    sample = SHARED / "testdata" / "smart" / "samsung-970evo-500GB-nvme-x.json"
    if not sample.exists():
        pytest.skip("shared SMART samples absent")
    done = run_ssdlab("wear", str(sample), str(sample), "--db", str(tmp_path / "db"))
    assert done.code == 0, done.stderr
    assert "300.000 TB" in done.stdout  # samsung-970-evo-500gb: 300 TBW, no --tbw given
