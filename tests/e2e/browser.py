"""Open an HTML file in real headless Chromium (Debian's `chromium`, driven by Playwright) and
report what a reader's browser saw: console errors, page errors, every request that left the
file, each chart image's size, and a screenshot."""

import contextlib
import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _why_no_browser() -> str | None:
    if CHROMIUM is None:
        return "chromium is not installed (apt-get install chromium; make test installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (make install)"
    return None


needs_browser = pytest.mark.skipif(_why_no_browser() is not None, reason=str(_why_no_browser()))


@dataclass(frozen=True)
class ChartImage:
    key: str
    natural_width: int
    natural_height: int
    shown_width: float
    shown_height: float
    distinct_colours: int  # in the screenshot of the figure: an empty image has one or two


@dataclass(frozen=True)
class PageVisit:
    console_errors: list[str]
    page_errors: list[str]
    external_requests: list[str]  # anything but the file itself and data: URIs
    charts: list[ChartImage]
    screenshot_png: bytes
    title: str
    text: str
    duplicate_ids: int


def _distinct_colours(png: bytes) -> int:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return len(colours) if colours is not None else 1 << 20


@contextlib.contextmanager
def chromium() -> Iterator["Browser"]:
    """Headless Chromium, started once for the pages a test module opens in it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def visit(browser: "Browser", path: Path, *, width: int = 1200, height: int = 900) -> PageVisit:
    """Load `path` as a reader would (file://) in a new page of `browser` and collect what
    happened."""
    console_errors: list[str] = []
    page_errors: list[str] = []
    requests: list[str] = []
    url = path.resolve().as_uri()
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.on(
            "console",
            lambda m: console_errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda e: page_errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(url, wait_until="load")
        charts = []
        for handle in page.query_selector_all("img[data-chart]"):
            size = handle.evaluate("i => [i.complete, i.naturalWidth, i.naturalHeight]")
            box = handle.bounding_box() or {"width": 0.0, "height": 0.0}
            handle.scroll_into_view_if_needed()
            shot = handle.screenshot()
            charts.append(
                ChartImage(
                    key=str(handle.get_attribute("data-chart")),
                    natural_width=int(size[1]) if size[0] else 0,
                    natural_height=int(size[2]) if size[0] else 0,
                    shown_width=float(box["width"]),
                    shown_height=float(box["height"]),
                    distinct_colours=_distinct_colours(shot),
                )
            )
        screenshot = page.screenshot(full_page=True)
        duplicates = page.evaluate(
            "() => { const ids = [...document.querySelectorAll('[id]')].map(e => e.id);"
            " return ids.length - new Set(ids).size; }"
        )
        title = page.title()
        text = page.inner_text("body")
    finally:
        page.close()
    external = [r for r in requests if r != url and not r.startswith("data:")]
    return PageVisit(
        console_errors, page_errors, external, charts, screenshot, title, text, int(duplicates)
    )
