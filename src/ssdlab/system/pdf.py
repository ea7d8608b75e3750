"""Print an HTML report to PDF with headless Chromium: no shell, a time limit, the page and the
browser's profile in a private temporary folder, and the PDF written through the write gate
only once it is checked (`%PDF-` magic and a plausible page count)."""

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ToolError
from ssdlab.system.process import run_bounded
from ssdlab.system.write_gate import check_output_path, write_output

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIME_LIMIT_S = 120.0
MAX_PAGES = 5000  # more is not a report but a broken print
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_PDFINFO_PAGES = re.compile(r"^Pages:\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class PrintedPdf:
    path: Path
    size_bytes: int
    pages: int


def find_browser() -> str:
    """The Chromium (or Chrome) binary on PATH, or a one-line error saying what to install."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise ToolError(
        "a PDF is printed with headless Chromium, which is not installed: install the "
        "chromium package (apt-get install chromium), or write -o report.html"
    )


def chromium_argv(browser: str, page: Path, pdf: Path, profile: Path) -> list[str]:
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={profile}",
        f"--print-to-pdf={pdf}",
        "--no-pdf-header-footer",
        page.as_uri(),
    ]


def _run(argv: list[str], folder: Path, time_limit_s: float) -> None:
    """Run the browser in its own session; past the time limit its whole group is killed."""
    env = {**os.environ, "HOME": str(folder), "XDG_CACHE_HOME": str(folder / "cache")}
    try:
        done = run_bounded(argv, timeout_s=time_limit_s, env=env, ends_with_us=True)
    except OSError as error:
        raise ToolError(f"{argv[0]} could not be started: {error.strerror}") from error
    if done.timed_out:
        raise ToolError(
            f"{argv[0]} did not print the PDF within {time_limit_s:.0f} s; "
            "write -o report.html and print it from a browser"
        )
    if done.exit_code != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ToolError(f"{argv[0]} failed to print the PDF (exit {done.exit_code}): {last}")


def page_count(pdf: Path) -> int:
    """Pages of a PDF: pdfinfo's count when it is installed, else its `/Type /Page` objects."""
    pdfinfo = shutil.which("pdfinfo")
    if pdfinfo is not None:
        done = subprocess.run(
            [pdfinfo, str(pdf)], capture_output=True, text=True, errors="replace", timeout=30
        )
        found = _PDFINFO_PAGES.search(done.stdout)
        if done.returncode == 0 and found:
            return int(found.group(1))
    return len(_PAGE.findall(pdf.read_bytes()))


def checked_pdf(pdf: Path) -> tuple[bytes, int]:
    """The printed bytes and their page count, refused unless they are a plausible PDF."""
    data = pdf.read_bytes() if pdf.is_file() else b""
    if not data.startswith(b"%PDF-"):
        raise ToolError("Chromium wrote no PDF; write -o report.html and print it from a browser")
    pages = page_count(pdf)
    if not 1 <= pages <= MAX_PAGES:
        raise ToolError(
            f"Chromium's PDF has {pages} pages, not a report; write -o report.html instead"
        )
    return data, pages


def print_pdf(
    html: str, output: str, what: str = "-o", *, time_limit_s: float = TIME_LIMIT_S
) -> PrintedPdf:
    """Print `html` to the PDF file `output` (checked by the write gate before any work)."""
    check_output_path(output, what)
    browser = find_browser()
    with tempfile.TemporaryDirectory(prefix="ssdlab-pdf-") as name:
        folder = Path(name)  # mode 0700: the page and the browser's profile are ours alone
        page = folder / "report.html"
        page.write_text(html, encoding="utf-8")
        printed = folder / "report.pdf"
        _run(chromium_argv(browser, page, printed, folder / "profile"), folder, time_limit_s)
        data, pages = checked_pdf(printed)
    path = write_output(output, data, what)
    return PrintedPdf(path=path, size_bytes=len(data), pages=pages)
