"""`ssdlab card` end to end: a real small quick run (real fio on a file) and a real
CrystalDiskMark 8 export imported (tests/corpus/bench, see tests/corpus/SOURCES.md), each drawn
as PNG and SVG in both themes; the SVGs opened in headless Chromium, where no two texts may
overlap and every text stays on the canvas; and the refusals.

The PNGs are kept in $SSDLAB_TEST_ARTEFACTS (default tests/artefacts/, not committed) to be
looked at."""

import itertools
import json
import os
import pty
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S, ROOT, needs_fio
from tests.e2e.browser import chromium, needs_browser
from tests.e2e.conftest import FAST, run_ssdlab, ssdlab_argv, ssdlab_env

pytestmark = needs_fio

CDM_EXPORT = ROOT / "tests" / "corpus" / "bench" / "cdm8.0.4-shizuku_gw560-128gb_comment.txt"
THEMES = ("light", "dark")
SVG_NS = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Drawn:
    name: str  # quick | import
    theme: str
    data: dict[str, Any]  # card --json
    png: Path
    svg: Path


def _artefacts() -> Path:
    folder = Path(os.environ.get("SSDLAB_TEST_ARTEFACTS") or ROOT / "tests" / "artefacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _card(db: Path, run: str, *args: str) -> str:
    done = run_ssdlab("card", run, "--db", str(db), *args)
    assert done.code == 0, done.stderr
    return done.stdout


def _draw(db: Path, run: str, name: str, folder: Path) -> list[Drawn]:
    data = json.loads(_card(db, run, "--json"))
    drawn = []
    for theme in THEMES:
        files = {}
        for suffix in ("png", "svg"):
            path = folder / f"card-{name}-{theme}.{suffix}"
            said = _card(db, run, "-o", str(path), "--theme", theme)
            assert said == f"wrote {path} ({path.stat().st_size:,} bytes)\n"
            files[suffix] = path
        drawn.append(Drawn(name, theme, data, files["png"], files["svg"]))
    return drawn


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Drawn]]:
    """A quick run and an import in one store, each drawn four ways."""
    work = tmp_path_factory.mktemp("card")
    db = work / "runs.db"
    quick = run_ssdlab("quick", str(work), *FAST, "--db", str(db))
    assert quick.code == 0, quick.stderr
    imported = run_ssdlab("import", str(CDM_EXPORT), "--db", str(db), "--json")
    assert imported.code == 0, imported.stderr
    import_id = str(json.loads(imported.stdout)["run"])
    folder = work / "cards"
    folder.mkdir()
    drawn = _draw(db, "1", "quick", folder) + _draw(db, import_id, "import", folder)
    keep = _artefacts()
    for card in drawn:
        shutil.copyfile(card.png, keep / card.png.name)
    return db, drawn


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_png_is_the_svg_canvas_at_twice_the_density(cards: tuple[Path, list[Drawn]]) -> None:
    for card in cards[1]:
        root = ET.parse(card.svg).getroot()
        width, height = int(root.get("width") or 0), int(root.get("height") or 0)
        assert _png_size(card.png) == (2 * width, 2 * height)
    sizes = {(c.name, ET.parse(c.svg).getroot().get("width")) for c in cards[1]}
    # read and write as CrystalDiskMark: 480 CSS px; the quick run's mix adds a column
    assert ("import", "480") in sizes


def test_svg_names_the_drive_and_shows_every_test(cards: tuple[Path, list[Drawn]]) -> None:
    for card in cards[1]:
        root = ET.parse(card.svg).getroot()
        texts = [t.text or "" for t in root.iter(f"{SVG_NS}text")]
        drive = card.data["drive"]
        path = drive["device_path"]
        assert (drive["model"] or ("model —" + (f" ({path})" if path else ""))) in texts
        for test in card.data["tests"]:
            assert test["shown"]["mb_per_s"] in texts, (card.name, test["label"])
            assert test["shown"]["iops"] in texts
        assert f"ssdlab {card.data['ssdlab_version']} · run {card.data['run']['id']}" in texts
    imported = next(c for c in cards[1] if c.name == "import")
    assert imported.data["drive"]["model"] == "Great Wall GW560 128GB"
    assert [t["shown"]["mb_per_s"] for t in imported.data["tests"]][:2] == ["384.06", "361.39"]


def test_the_same_run_draws_the_same_svg_bytes(cards: tuple[Path, list[Drawn]]) -> None:
    db, drawn = cards
    again = drawn[0].svg.with_name("again.svg")
    _card(db, "1", "-o", str(again), "--theme", drawn[0].theme)
    assert again.read_bytes() == drawn[0].svg.read_bytes()


def _overlap(a: list[float], b: list[float]) -> float:
    """The area two boxes (x, y, width, height) share."""
    width = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    height = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, width) * max(0.0, height)


BOXES = """() => {
  const canvas = document.documentElement.getBoundingClientRect();
  const texts = [...document.querySelectorAll('text')].map(t => {
    const b = t.getBoundingClientRect();
    return [t.textContent, b.x, b.y, b.width, b.height];
  });
  return [[canvas.x, canvas.y, canvas.width, canvas.height], texts];
}"""


@needs_browser
def test_in_chromium_no_text_overlaps_and_all_is_on_the_canvas(
    cards: tuple[Path, list[Drawn]],
) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 900, "height": 600})
        try:
            for card in cards[1]:
                page.goto(card.svg.resolve().as_uri(), wait_until="load")
                canvas, texts = page.evaluate(BOXES)
                assert len(texts) >= 3 * len(card.data["tests"])
                for text, *box in texts:
                    assert box[2] > 0, (card.svg.name, text)  # drawn, with a font
                    assert box[0] >= canvas[0], (card.svg.name, text)
                    assert box[1] >= canvas[1], (card.svg.name, text)
                    assert box[0] + box[2] <= canvas[0] + canvas[2], (card.svg.name, text)
                    assert box[1] + box[3] <= canvas[1] + canvas[3], (card.svg.name, text)
                for (one, *a), (other, *b) in itertools.combinations(texts, 2):
                    assert _overlap(a, b) == 0, (card.svg.name, one, other)
        finally:
            page.close()


def test_a_sweep_run_is_refused_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    # whatever the sweep's outcome, its run is stored, and it is no CrystalDiskMark grid
    run_ssdlab(
        "run", "sweep", str(tmp_path), "--size", "8MiB", "--threads", "1", "--iodepths", "1",
        "--runtime", "0.3", "--ramp", "0", "--db", str(db),
    )  # fmt: skip
    refused = run_ssdlab("card", "last", "-o", str(tmp_path / "card.png"), "--db", str(db))
    assert refused.code == 1
    assert refused.stderr.splitlines() == [
        "ssdlab: error: run 1 is a sweep run; cards are drawn for quick runs and imported "
        "CrystalDiskMark/KDiskMark results"
    ]
    assert not (tmp_path / "card.png").exists()


def test_a_bad_suffix_and_a_missing_output_are_refused(cards: tuple[Path, list[Drawn]]) -> None:
    db = cards[0]
    bad = run_ssdlab("card", "1", "-o", str(db.with_name("card.jpg")), "--db", str(db))
    assert bad.code == 2
    assert bad.stderr.splitlines() == [
        f"ssdlab: error: card -o {db.with_name('card.jpg')}: the suffix .jpg names no image "
        "format; give a file ending in .png or .svg"
    ]
    missing = run_ssdlab("card", "1", "--db", str(db))
    assert missing.code == 2
    assert missing.stderr.splitlines()[0].startswith("usage: ssdlab")
    assert missing.stderr.splitlines()[-1] == (
        "ssdlab: error: card: give -o card.png or -o card.svg (or --json for its data)"
    )


def test_svg_goes_to_stdout_only_when_it_is_not_a_terminal(
    cards: tuple[Path, list[Drawn]],
) -> None:
    db = cards[0]
    piped = subprocess.run(
        ssdlab_argv("card", "1", "-o", "-", "--db", str(db)),
        env=ssdlab_env(),
        capture_output=True,
        check=False,
        timeout=HANG_S,
    )
    assert piped.returncode == 0
    assert piped.stdout.startswith(b"<svg")
    ET.fromstring(piped.stdout)
    # on a terminal: refused in one line, nothing drawn on it
    leader, follower = pty.openpty()
    try:
        tty = subprocess.run(
            ssdlab_argv("card", "1", "-o", "-", "--db", str(db)),
            env=ssdlab_env(),
            stdout=follower,
            stderr=subprocess.PIPE,
            check=False,
            timeout=HANG_S,
        )
        os.set_blocking(leader, False)
        try:
            shown = os.read(leader, 1 << 16)
        except BlockingIOError:
            shown = b""
    finally:
        os.close(leader)
        os.close(follower)
    assert tty.returncode == 2
    assert tty.stderr.decode().splitlines() == [
        "ssdlab: error: card -o -: stdout is a terminal, and the card is an SVG image; redirect "
        "it (ssdlab card RUN -o - > card.svg) or write it with -o card.svg"
    ]
    assert shown == b""
