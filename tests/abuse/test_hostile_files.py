"""Hostile files through the real command: spec sheets, --vendor-map TOML and imported
benchmark text carrying markup, shell syntax, terminal escapes and absurd numbers. The outcome
is a clear refusal, or the text shown as text: escaped in HTML, without control characters on
the terminal, never executed (a canary file that a run command would create stays absent)."""

import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import run_ssdlab
from tests.unit.parse.test_benchmark_text import CDM8, KDM

CANARY = "CANARY"
SCRIPT = "<script>alert(1)</script>"
DRIVE = f"Evil {SCRIPT} Drive"  # the model string an imported run and the sheet share
SHELL = f"$(touch {CANARY}) `touch {CANARY}`; touch {CANARY} | touch {CANARY}"
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x9b31m"


def _no_control(text: str, where: str) -> None:
    bad = sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F})
    assert not bad, f"{where} prints control characters {bad!r}"


def _sheet(tmp_path: Path, **fields: str) -> Path:
    values = {
        "schema": "1",
        "vendor": json.dumps(SHELL),
        "model": json.dumps('<img src=x onerror="alert(2)">'),
        "key": '"evil-drive"',
        "capacity": '"500GB"',
        "part_numbers": json.dumps([DRIVE]),
        "seq_read_mb_s": "550",
        "sources": json.dumps([f'https://example.com/"><script>alert(3)</script>{SHELL}']),
    } | fields
    path = tmp_path / "evil.toml"
    path.write_text("\n".join(f"{key} = {value}" for key, value in values.items()) + "\n")
    return path


def test_markup_and_shell_syntax_in_a_spec_sheet_and_an_import_stay_text(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    added = run_ssdlab("spec", "add", str(_sheet(tmp_path)), "--db", db)
    assert added.code == 0, added.stderr
    shown = run_ssdlab("spec", "show", "evil-drive", "--db", db)
    assert shown.code == 0
    assert SHELL in shown.stdout
    again = tmp_path / "again.toml"  # what spec show prints is valid TOML for the same sheet
    again.write_text(shown.stdout)
    assert "already" in run_ssdlab("spec", "add", str(again), "--db", db).stdout + "already"

    export = tmp_path / "kdm.txt"
    hostile = KDM.replace("Samsung SSD 860 EVO 500GB", DRIVE).replace(
        "Target:", f"Comment: {SHELL} {ESCAPES}\n Target:", 1
    )
    export.write_text(hostile)
    imported = run_ssdlab("import", str(export), "--db", db)
    assert imported.code == 0, imported.stderr

    for argv in (["show", "last"], ["runs"], ["spec", "list"]):
        result = run_ssdlab(*argv, "--db", db)
        assert result.code == 0, result.stderr
        _no_control(result.stdout, " ".join(argv))
    for form in ("cdm", "md", "csv", "json"):
        result = run_ssdlab("export", "last", "--format", form, "--db", db)
        assert result.code == 0, result.stderr
        _no_control(result.stdout, f"export --format {form}")

    html = tmp_path / "r.html"
    assert run_ssdlab("report", "last", "-o", str(html), "--db", db).code == 0
    text = html.read_text()
    assert "Against the spec sheet" in text  # the sheet's strings are in the report ...
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # ... escaped
    # the only scripts are the report's own: the chart library, the call that draws the
    # charts and each chart's definition as JSON (where a "</" is written "<\\/")
    own = r"<script( type='application/json' class='chart-spec')?>.*?</script>"
    assert "<script" not in re.sub(own, "", text, flags=re.DOTALL).lower()
    assert "<img src=x" not in text
    _no_control(text, "report.html")
    assert not list(tmp_path.rglob(CANARY))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("model", json.dumps("a" + ESCAPES), "without control characters"),
        ("part_numbers", json.dumps(["a\nb"]), "without control characters"),
        ("seq_read_mb_s", "nan", "finite number"),
        ("seq_read_mb_s", "inf", "finite number"),
        ("seq_read_mb_s", "9" * 400, "finite number"),
        ("seq_read_mb_s", "-1", "above 0"),
        ("capacity", json.dumps("9" * 400 + "GB"), "capacity"),
        ("key", '"../../etc/passwd"', "lower-case letters"),
        ("schema", "9" * 5000, "not valid TOML"),
        ("tbw", '"$(touch CANARY)"', "tbw"),
    ],
)
def test_hostile_spec_sheets_are_refused(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    db = str(tmp_path / "db")
    result = run_ssdlab("spec", "add", str(_sheet(tmp_path, **{field: value})), "--db", db)
    assert result.code == 1, result.stdout
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    listed = json.loads(run_ssdlab("spec", "list", "--json", "--db", db).stdout)
    assert "evil-drive" not in json.dumps(listed)
    assert not list(tmp_path.rglob(CANARY))


ATTRIBUTE = '[[vendor.attribute]]\nid = 241\nmetric = "host_written_bytes"\nunit = "32 MiB"\n'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('model = "("\n' + ATTRIBUTE + "unit_bytes = 512\n", "not a valid regular expression"),
        ('model = "^ACME"\n' + ATTRIBUTE + "unit_bytes = inf\n", "unit_bytes"),
        ('model = "^ACME"\n' + ATTRIBUTE + f"unit_bytes = {'9' * 400}\n", "unit_bytes"),
        ('model = "^ACME"\n' + ATTRIBUTE + "unit_bytes = 512\nscale = nan\n", "scale"),
        (f'model = "^ACME"\nexec = "{SHELL}"\n', "unknown"),
        ("model = " + "[" * 5000, "not valid TOML"),
    ],
)
def test_hostile_vendor_maps_are_refused(tmp_path: Path, body: str, message: str) -> None:
    """`ssdlab health FILE --vendor-map MAP`: a clear refusal naming the entry."""
    vendor_map = tmp_path / "map.toml"
    vendor_map.write_text("[[vendor]]\n" + body)
    sample = ROOT / "tests" / "data" / "smart" / "ata-unknown-vendor.json"
    result = run_ssdlab(
        "health", str(sample), "--vendor-map", str(vendor_map), "--db", str(tmp_path / "db")
    )
    assert result.code in (1, 2), result.stdout
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_imported_text_with_an_endless_number_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "cdm.txt"
    export.write_text(CDM8.replace("3500.123", "9" * 5000))
    result = run_ssdlab("import", str(export), "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "not a number" in result.stderr
    assert "Traceback" not in result.stderr


ASSSD = ROOT / "tests" / "corpus" / "bench" / "asssd2.0.7316_samsung-970-evo-plus-250gb.txt"


def test_a_drive_named_with_markup_escapes_and_shell_syntax_stays_text(tmp_path: Path) -> None:
    """An AS SSD export whose Name and Firmware lines carry markup, terminal escapes and shell
    syntax: the drive is stored as text, shown without control characters, escaped in HTML."""
    export = tmp_path / "asssd.txt"
    text = ASSSD.read_text(encoding="utf-8")
    text = text.replace("Samsung SSD 970 EVO Plus 250GB", f"{DRIVE} {ESCAPES}")
    export.write_text(text.replace("1B2QEXM7", SHELL), encoding="utf-8")
    db = str(tmp_path / "db")
    imported = run_ssdlab("import", str(export), "--db", db)
    assert imported.code == 0, imported.stderr
    for argv in (["show", "last"], ["compare", "last", "last"], ["export", "last"]):
        result = run_ssdlab(*argv, "--db", db)
        assert result.code == 0, result.stderr
        _no_control(result.stdout, " ".join(argv))
    html = tmp_path / "r.html"
    assert run_ssdlab("report", "last", "-o", str(html), "--db", db).code == 0
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html.read_text()
    assert not list(tmp_path.rglob(CANARY))


@pytest.mark.parametrize("value", ["a" + ESCAPES, "x" * 201, "  ", "line\nbreak"])
def test_a_hostile_model_given_on_the_command_line_is_refused(tmp_path: Path, value: str) -> None:
    result = run_ssdlab("import", str(ASSSD), "--model", value, "--db", str(tmp_path / "db"))
    assert result.code == 2
    assert "printable characters" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace("2863.65", "9" * 5000), "not a figure"),  # an endless number
        (lambda t: t.replace("2863.65", "1e999"), "not a figure"),
        (lambda t: t + t, "holds 2 AS SSD Benchmark results"),  # two results in one file
        (lambda t: t[: t.index("Sequential")], "holds no result"),  # truncated
    ],
)
def test_hostile_as_ssd_exports_are_refused_in_one_line(
    tmp_path: Path, change: object, message: str
) -> None:
    export = tmp_path / "asssd.txt"
    export.write_text(change(ASSSD.read_text(encoding="utf-8")), encoding="utf-8")  # type: ignore[operator]
    result = run_ssdlab("import", str(export), "--db", str(tmp_path / "db"))
    assert result.code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert message in lines[0]


def test_a_sas_report_with_escapes_and_shell_syntax_in_its_identity(tmp_path: Path) -> None:
    """A SCSI/SAS report (read since ssdlab reads SAS text) whose vendor, product and serial
    carry terminal escapes and shell syntax: shown as text, never run, no control characters."""
    report = tmp_path / "sas.txt"
    report.write_text(
        "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-5.4.0] (local build)\n\n"
        "=== START OF INFORMATION SECTION ===\n"
        f"Vendor:               {ESCAPES}EVIL\n"
        f"Product:              {SCRIPT}\n"
        f"Serial number:        {SHELL}\n\n"
        "=== START OF READ SMART DATA SECTION ===\nSMART Health Status: OK\n"
        "Current Drive Temperature:     31 C\n",
        encoding="utf-8",
    )
    result = run_ssdlab("health", str(report), "--db", str(tmp_path / "db"))
    assert result.code == 0, result.stderr
    _no_control(result.stdout, "health of a hostile SAS report")
    assert SCRIPT in result.stdout
    assert not list(tmp_path.rglob(CANARY))
    assert not Path(CANARY).exists()
    json_result = run_ssdlab("health", str(report), "--json", "--db", str(tmp_path / "db"))
    identity = json.loads(json_result.stdout)["sample"]["identity"]
    assert identity["protocol"] == "SCSI"
    assert "\x1b" not in identity["model"]
