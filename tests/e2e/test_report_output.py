"""Where `ssdlab report` writes: never HTML on a terminal unless asked (`-o -`), a file by its
suffix (.html, .md with its charts embedded as SVG, .pdf printed by headless Chromium, anything
else refused), and job files named by the test that ran them. On a copy of the old store
(tests/data/store/main-98b38bc.sqlite: run 1 a quick run, run 4 a fill profile run)."""

import base64
import os
import pty
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ssdlab.system.pdf import BROWSERS, page_count
from tests.conftest import HANG_S
from tests.e2e.conftest import ROOT, Result, run_ssdlab, ssdlab_argv, ssdlab_env

STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
HAS_BROWSER = any(shutil.which(name) for name in BROWSERS)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(STORE, copy)
    return copy


def run_on_terminal(*args: str) -> Result:
    """ssdlab with its stdout on a pseudo-terminal (stderr piped), no shell."""
    master, slave = pty.openpty()
    child = subprocess.Popen(
        ssdlab_argv(*args),
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=ssdlab_env(),
        text=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert child.stderr is not None
    stderr = child.stderr.read()
    child.stderr.close()
    code = child.wait(timeout=HANG_S)
    return Result(code, b"".join(chunks).decode(errors="replace"), stderr)


def test_report_refuses_html_on_a_terminal_but_prints_it_with_dash(store: Path) -> None:
    refused = run_on_terminal("report", "1", "--db", str(store))
    assert refused.code == 2, refused.stderr
    assert refused.stdout == ""
    error = refused.stderr.strip().splitlines()[-1]
    assert "-o report.html" in error
    assert "-o -" in error
    assert "Traceback" not in refused.stderr
    printed = run_on_terminal("report", "1", "-o", "-", "--db", str(store))
    assert printed.code == 0, printed.stderr
    assert printed.stdout.startswith("<!DOCTYPE html>")


def test_report_on_a_pipe_prints_html(store: Path) -> None:
    result = run_ssdlab("report", "1", "--db", str(store))
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>")
    assert result.stdout.rstrip().endswith("</html>")


def test_report_refuses_an_unknown_suffix_and_writes_nothing(store: Path, tmp_path: Path) -> None:
    before = sorted(tmp_path.iterdir())
    result = run_ssdlab("report", "1", "-o", str(tmp_path / "r.txt"), "--db", str(store))
    assert result.code == 2
    for suffix in (".html", ".md", ".pdf"):
        assert suffix in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(tmp_path.iterdir()) == before


def test_markdown_report_embeds_its_charts_as_svg(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "result.md"
    result = run_ssdlab("report", "1", "4", "-o", str(out), "--db", str(store))
    assert result.code == 0, result.stderr
    text = out.read_text()
    images = re.findall(r"!\[[^\]]+\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", text)
    assert images
    assert all(b"<svg" in base64.b64decode(image) for image in images)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.md", "store.sqlite"]
    # job files by test: the preparation, a quick test's warm-up and pass, a profile step
    for name in (
        "test file preparation",
        "SEQ1M Q8T1 read, warm-up",
        "SEQ1M Q8T1 read, pass 1",
        "random writes at 50 % full",
    ):
        assert f"<details><summary>{name}</summary>" in text
    assert "<summary>capture " not in text


def test_html_report_names_job_files_by_test(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.htm"
    result = run_ssdlab("report", "1", "-o", str(out), "--db", str(store))
    assert result.code == 0, result.stderr
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "<summary>RND4K Q1T1 mix, pass 1</summary>" in text
    assert "<summary>capture " not in text


@pytest.mark.skipif(not HAS_BROWSER, reason="chromium is not installed (apt-get install chromium)")
def test_pdf_report_is_printed_by_chromium(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.pdf"
    result = run_ssdlab("report", "1", "4", "-o", str(out), "--db", str(store))
    assert result.code == 0, result.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF-")
    assert page_count(out) >= 2  # two runs, each from a new page
    assert f"wrote {out}" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf", "store.sqlite"]
