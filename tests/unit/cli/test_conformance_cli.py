"""`ssdlab conformance` from the command line on real captured outputs: the JSON document (every
requirement with its verdict, reason and evidence), the HTML report (checked by its structure:
one table row per requirement), the terminal, and the exit status (4 when a requirement fails,
0 otherwise)."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ssdlab.analysis.conformance import REQUIREMENTS
from ssdlab.cli.main import main
from tests.conformance_evidence import NVME_SMART_LOG, PM1733_ID_CTRL, QEMU_C0_PAGE, QEMU_SMARTCTL

INPUTS = ("--from", str(QEMU_C0_PAGE), "--from", str(QEMU_SMARTCTL), "--from", str(PM1733_ID_CTRL))


class _Rows(HTMLParser):
    """The first cell of every table row, and whether the page has a script."""

    def __init__(self) -> None:
        super().__init__()
        self.first_cells: list[str] = []
        self.scripts = 0
        self._cell: int | None = None
        self._text = ""

    def handle_starttag(self, tag: str, _attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._cell = 0
        elif tag == "td" and self._cell is not None:
            self._cell += 1
            self._text = ""
        elif tag == "script":
            self.scripts += 1

    def handle_data(self, data: str) -> None:
        self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell == 1:
            self.first_cells.append(self._text.strip())


def test_json_holds_every_requirement_and_a_failure_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["conformance", *INPUTS, "--json", "--db", str(tmp_path / "db")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 4  # SMART-13 (QEMU reports DSSD version 0), TTHROTTLE-9, STD-LOG-9, …
    assert doc["format"] == "ssdlab-conformance"
    assert doc["drive"] == "QEMU NVMe Ctrl SSDLABNVME0"
    assert [r["requirement"] for r in doc["results"]] == [r.requirement for r in REQUIREMENTS]
    results = {r["requirement"]: r for r in doc["results"]}
    assert results["TTHROTTLE-9"]["verdict"] == "fail"
    assert results["TTHROTTLE-9"]["evidence"] == [
        {
            "item": "Identify Controller WCTEMP",
            "value": f"WCTEMP = 0159h (345 K, {PM1733_ID_CTRL})",
            "source": str(PM1733_ID_CTRL),
        }
    ]
    assert results["SMART-12"]["verdict"] == "pass"
    assert results["SMART-12"]["evidence"][0]["source"] == str(QEMU_C0_PAGE)
    assert sum(doc["summary"].values()) == len(REQUIREMENTS)
    assert doc["summary"]["fail"] == sum(r["verdict"] == "fail" for r in doc["results"])


def test_no_failure_exits_0_and_the_terminal_names_every_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--width", "200", "conformance", "--from", str(NVME_SMART_LOG), "--db",
                 str(tmp_path / "db")])  # fmt: skip
    shown = capsys.readouterr().out
    assert code == 0
    assert "no requirement checked here fails" in shown
    for requirement in REQUIREMENTS:
        assert requirement.requirement in shown


def test_html_report_has_a_row_per_requirement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "conformance.html"
    code = main(["conformance", *INPUTS, "--html", str(page), "--json", "--db",
                 str(tmp_path / "db")])  # fmt: skip
    assert code == 4
    assert json.loads(capsys.readouterr().out)["format"] == "ssdlab-conformance"
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    rows = _Rows()
    rows.feed(text)
    ids = [r.requirement for r in REQUIREMENTS]
    assert [cell for cell in rows.first_cells if cell in ids] == ids
    assert rows.scripts == 0  # no charts: the page needs no script
    assert "qemu-ocp-c0-composed.bin" in text


def test_an_unreadable_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("nothing a drive printed\n")
    code = main(["conformance", "--from", str(junk), "--db", str(tmp_path / "db")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"ssdlab: error: {junk}: not an output ssdlab conformance reads" in err
