"""Open an HTML file in real headless Chromium (Debian's `chromium`, driven by Playwright) and
report what a reader's browser saw: console errors, page errors, every request that left the
file, each chart as drawn (vega-embed's SVG, or a static image), and a screenshot; and, per
chart, the text that overlaps and whether hovering a mark shows a value."""

import contextlib
import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

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
    """A chart as the page shows it: the SVG vega-embed drew, or a static image."""

    key: str
    natural_width: int  # the SVG's own width (an image's natural width)
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


# [drawn, width, height] of a vega-embed chart's SVG or of a static image
_CHART_SIZE = """e => {
  if (e.tagName === 'IMG') return [e.complete, e.naturalWidth, e.naturalHeight];
  const svg = e.querySelector('svg'); if (!svg) return [false, 0, 0];
  return [true, svg.width.baseVal.value, svg.height.baseVal.value]; }"""
# the page's script marks a chart drawn once vega-embed drew it and laid it out at its width
_ALL_DRAWN = """() => [...document.querySelectorAll('div.vega[data-chart]')]
  .every(d => d.dataset.drawn === 'yes' && d.querySelector('svg'))"""


def wait_for_charts(page: "Page", timeout_ms: float = 15_000) -> None:
    """Until vega-embed has drawn every chart of the page and laid it out at its width."""
    page.wait_for_function(_ALL_DRAWN, timeout=timeout_ms)


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
        wait_for_charts(page)
        charts = []
        for handle in page.query_selector_all("div.vega[data-chart], img[data-static-chart]"):
            size = handle.evaluate(_CHART_SIZE)
            box = handle.bounding_box() or {"width": 0.0, "height": 0.0}
            handle.scroll_into_view_if_needed()
            shot = handle.screenshot()
            charts.append(
                ChartImage(
                    key=str(
                        handle.get_attribute("data-chart")
                        or handle.get_attribute("data-static-chart")
                    ),
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


# Per chart, the pairs of its texts (axis labels and titles, legend labels and title, chart
# title) whose drawn boxes overlap by more than `slack` px, and those cut off by the edge of
# the chart's SVG. A box is the text's getBBox()
# mapped to the page by its screen transform (so rotated labels are rotated quadrilaterals);
# two convex quadrilaterals overlap by the least depth over their edges' normals (separating
# axis theorem). Texts that are hidden (display, visibility, opacity 0 on it or an ancestor,
# as vega's labelOverlap hides labels) or empty are left out.
_OVERLAPS = """slack => {
  const ROLES = ['role-axis-label', 'role-axis-title', 'role-legend-label',
                 'role-legend-title', 'role-title-text'];
  const shown = el => {
    for (let e = el; e && e.tagName !== 'svg'; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden' ||
          parseFloat(style.opacity) === 0 || e.getAttribute('opacity') === '0') return false;
    }
    return true;
  };
  const quad = t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
            [b.x, b.y + b.height]].map(([x, y]) => [m.a * x + m.c * y + m.e,
                                                    m.b * x + m.d * y + m.f]);
  };
  const depth = (p, q) => {
    let least = Infinity;
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      const len = Math.hypot(x2 - x1, y2 - y1); if (len === 0) continue;
      const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
      const pr = p.map(([x, y]) => x * nx + y * ny), qr = q.map(([x, y]) => x * nx + y * ny);
      const overlap = Math.min(Math.max(...pr), Math.max(...qr)) -
                      Math.max(Math.min(...pr), Math.min(...qr));
      least = Math.min(least, overlap);
      if (least <= 0) return 0;
    }
    return least;
  };
  const out = {};
  for (const div of document.querySelectorAll('div.vega[data-chart]')) {
    const figure = div.closest('figure');
    const edge = div.querySelector('svg').getBoundingClientRect();
    const found = [];
    const texts = [];
    for (const role of ROLES) for (const t of div.querySelectorAll(`g.${role} text`)) {
      if (!t.textContent.trim() || !shown(t)) continue;
      const b = t.getBBox(); if (b.width === 0 || b.height === 0) continue;
      const name = role.replace('role-', '') + ' ' + JSON.stringify(t.textContent);
      texts.push([name, quad(t)]);
      const r = t.getBoundingClientRect();
      if (r.left < edge.left - slack || r.right > edge.right + slack ||
          r.top < edge.top - slack || r.bottom > edge.bottom + slack) {
        found.push(`${name} cut off by the chart's edge`);
      }
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const d = depth(texts[i][1], texts[j][1]);
      if (d > slack) found.push(`${texts[i][0]} × ${texts[j][0]} by ${d.toFixed(1)} px`);
    }
    out[figure.id] = found;
  }
  return out;
}"""


def text_overlaps(page: "Page", slack_px: float = 1.0) -> dict[str, list[str]]:
    """Per figure id, the texts of its chart that overlap by more than `slack_px` or are cut
    off by its edge."""
    found: dict[str, list[str]] = page.evaluate(_OVERLAPS, slack_px)
    return found


# Per figure, what vega's tooltip said when the pointer moved onto marks of its chart (points,
# bars, heat-map cells; a few of them, until one answers): the events a mouse sends, dispatched
# on the mark itself at its centre, as vega's SVG renderer picks the item from the event target.
_HOVER = """async () => {
  const MARKS = 'g.mark-symbol path[role=graphics-symbol], g.mark-rect path[role=graphics-symbol]';
  const pause = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const out = {};
  for (const div of document.querySelectorAll('div.vega[data-chart]')) {
    const figure = div.closest('figure');
    const marks = [...div.querySelectorAll(MARKS)].filter(m => {
      const b = m.getBoundingClientRect(); return b.width * b.height > 0; });
    const picks = [...new Set([0, marks.length >> 1, marks.length - 1, 1, 2])]
      .filter(i => i >= 0 && i < marks.length);
    out[figure.id] = '';
    for (const i of picks) {
      const b = marks[i].getBoundingClientRect();
      const at = {bubbles: true, clientX: b.x + b.width / 2, clientY: b.y + b.height / 2};
      marks[i].dispatchEvent(new PointerEvent('pointerover', at));
      marks[i].dispatchEvent(new PointerEvent('pointermove', at));
      marks[i].dispatchEvent(new MouseEvent('mousemove', at));
      await pause();
      const tip = document.getElementById('vg-tooltip-element');
      const text = tip && tip.classList.contains('visible') ? tip.innerText : '';
      marks[i].dispatchEvent(new PointerEvent('pointerout', at));
      marks[i].dispatchEvent(new MouseEvent('mouseout', at));
      if (text) { out[figure.id] = text; break; }
    }
  }
  return out;
}"""


def hover_texts(page: "Page") -> dict[str, str]:
    """Per figure id, the tooltip text hovering a mark of its chart showed ("" for none)."""
    found: dict[str, str] = page.evaluate(_HOVER)
    return found
