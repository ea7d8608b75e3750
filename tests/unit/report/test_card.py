"""The result card (report/card.py): its numbers are `ssdlab show --json`'s, its spec is valid
Vega-Lite, unknown values are shown as —, and the two themes differ only in colours.

The runs are read from a copy of the store in tests/data/store (run 1: a real quick run, run 9:
a real CrystalDiskMark 8 export imported)."""

import contextlib
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import altair
import jsonschema
import pytest

from ssdlab.cli.main import main
from ssdlab.report.card import (
    UNKNOWN,
    CardCell,
    CardData,
    CardRow,
    capacity_text,
    card_json,
    card_size,
    card_spec,
    footer_note,
    header_lines,
    latency_line,
    latency_text,
    render_card,
)
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import quick_json
from ssdlab.store.db import open_store
from ssdlab.store.run_rows import load_run
from ssdlab.store.steps import load_step_results
from tests.conftest import ROOT

STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
QUICK_RUN, IMPORTED_RUN = 1, 9


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("card") / "store.sqlite"
    shutil.copyfile(STORE, copy)
    return copy


def _json_of(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def _show_json(store: Path, run_id: int) -> dict[str, Any]:
    """What `ssdlab show RUN --json` prints for a quick or imported run (cli/inspect.cmd_show:
    quick_json of the run's quick report)."""
    with contextlib.closing(open_store(store)) as conn:
        run = load_run(conn, run_id)
        assert run is not None
        report = build_quick_report(run, load_step_results(conn, run_id))
    document: dict[str, Any] = json.loads(quick_json(report))
    return document


def _p99_of_fastest_pass(show: dict[str, Any], key: str) -> float | None:
    """What p99 means on the card, worked out from show --json's passes."""
    passes = [p for p in show["passes"] if p["step_key"] == key and not p["warmup"]]
    fastest = max(passes, key=lambda p: p["bw_bytes_per_s"])
    found = [
        ns
        for side in ("read", "write")
        if fastest[side]
        for pct, ns in fastest[side]["clat_percentiles_ns"]
        if pct == 99.0
    ]
    return max(found) if found else None


@pytest.mark.parametrize("run_id", [QUICK_RUN, IMPORTED_RUN])
def test_card_numbers_are_the_numbers_show_json_gives(
    store: Path, capsys: pytest.CaptureFixture[str], run_id: int
) -> None:
    show = _show_json(store, run_id)
    card = _json_of(capsys, "card", str(run_id), "--json", "--db", str(store))
    by_test = {(t["label"], t["direction"]): t for t in card["tests"]}
    assert len(by_test) == len(show["tests"])
    for test in show["tests"]:
        shown = by_test[(test["label"], test["direction"])]
        assert shown["bw_bytes_per_s"] == test["best_bw_bytes_per_s"]
        assert shown["shown"]["mb_per_s"] == f"{test['best_bw_bytes_per_s'] / 1e6:.2f}"
        assert shown["iops"] == test["best_iops"]
        assert shown["shown"]["iops"] == f"{test['best_iops']:.1f} IOPS"
        assert shown["lat_mean_ns"] == test["best_lat_mean_ns"]
        assert shown["lat_p99_ns"] == _p99_of_fastest_pass(show, test["key"])
    assert card["run"]["id"] == run_id


def test_quick_card_shows_p99_and_the_imported_card_leaves_it_unknown(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quick = _json_of(capsys, "card", str(QUICK_RUN), "--json", "--db", str(store))
    imported = _json_of(capsys, "card", str(IMPORTED_RUN), "--json", "--db", str(store))
    assert all(t["lat_p99_ns"] > 0 for t in quick["tests"])
    assert all(t["lat_p99_ns"] is None for t in imported["tests"])
    assert all(t["shown"]["latency"].endswith(f"p99 {UNKNOWN}") for t in imported["tests"])
    # CrystalDiskMark's order: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read and write
    labels = list(dict.fromkeys(t["label"] for t in imported["tests"]))
    assert labels == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    assert imported["directions"] == ["read", "write"]
    assert imported["date"] == "2020-12-13 22:27"
    assert imported["drive"]["capacity_bytes"] is None  # CrystalDiskMark's text has no capacity


def _schema() -> dict[str, Any]:
    path = Path(altair.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _card(**changes: Any) -> CardData:
    cell = CardCell("read", 2_452_483_401.0, 2338.87, 425_865.9, 485_376.0)
    data = CardData(
        run_id=4,
        uuid="u",
        source="ssdlab quick",
        model="Samsung SSD 980 PRO 1TB",
        device_path="/dev/nvme0n1",
        firmware="5B2QGXA7",
        capacity_bytes=1_000_204_886_016,
        preset="default",
        test_size_bytes=2**30,
        passes=5,
        date="2026-11-26 14:46 UTC",
        directions=("read", "write"),
        rows=tuple(
            CardRow(label, (cell, dataclasses.replace(cell, direction="write")))
            for label in ("SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1")
        ),
        measures_memory=False,
    )
    return dataclasses.replace(data, **changes)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_spec_is_valid_vega_lite(theme: str) -> None:
    schema = _schema()
    jsonschema.validate(card_spec(_card(), theme), schema)
    unknown = _card(model=None, firmware=None, capacity_bytes=None, date=None, passes=None)
    jsonschema.validate(card_spec(unknown, theme), schema)


def test_read_and_write_in_four_tests_is_a_480_by_340_card() -> None:
    assert card_size(_card()) == (480, 340)
    spec = card_spec(_card())
    assert (spec["width"], spec["height"]) == (480, 340)


def _texts(spec: dict[str, Any]) -> list[str]:
    return [v["text"] for layer in spec["layer"] for v in layer["data"]["values"] if "text" in v]


def test_unknown_values_are_shown_as_a_dash_never_zero() -> None:
    half = CardCell("write", 1e8, None, None, None)
    data = _card(
        model=None,
        device_path=None,
        firmware=None,
        capacity_bytes=None,
        date=None,
        passes=None,
        test_size_bytes=None,
        rows=(CardRow("RND4K Q1T1", (None, half)),),
    )
    model, facts, run_line = header_lines(data)
    assert model == f"model {UNKNOWN}"
    assert facts == f"firmware {UNKNOWN} · capacity {UNKNOWN} · measured {UNKNOWN}"
    assert f"test {UNKNOWN} × {UNKNOWN} passes" in run_line
    assert latency_line(half) == f"mean {UNKNOWN} · p99 {UNKNOWN}"
    texts = _texts(card_spec(data))
    assert texts.count(UNKNOWN) >= 4  # the missing read cell: MB/s, IOPS, latency; IOPS of write
    assert not any(text.strip() in ("0", "0.00", "0.0 IOPS") for text in texts)
    document = card_json(data)
    assert document["drive"] == {
        "model": None,
        "device_path": None,
        "firmware": None,
        "capacity_bytes": None,
        "capacity": UNKNOWN,
    }
    assert document["tests"][0]["iops"] is None
    assert header_lines(_card(model=None))[0] == f"model {UNKNOWN} (/dev/nvme0n1)"


def test_capacity_is_in_decimal_units() -> None:
    assert capacity_text(1_000_204_886_016) == "1.00 TB"
    assert capacity_text(128_035_676_160) == "128 GB"
    assert capacity_text(64_000_000_000) == "64.0 GB"
    assert capacity_text(None) == UNKNOWN


def test_latency_is_in_the_unit_that_keeps_it_short() -> None:
    assert latency_text(425_865.9) == "425.9 µs"
    assert latency_text(21_765_430.0) == "21.77 ms"
    assert latency_text(1_250_000_000.0) == "1.250 s"
    assert latency_text(None) == UNKNOWN


def _differences(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), path
        return [d for k in a for d in _differences(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y)]
    return [] if a == b else [(path, a, b)]


def test_dark_and_light_differ_only_in_colours() -> None:
    differences = _differences(card_spec(_card(), "light"), card_spec(_card(), "dark"))
    assert differences
    for path, light, dark in differences:
        assert path.rsplit(".", 1)[-1] in ("fill", "stroke", "background"), path
        assert str(light).startswith("#"), path
        assert str(dark).startswith("#"), path


def test_the_same_card_gives_the_same_svg_bytes() -> None:
    spec = card_spec(_card(), "dark")
    first = render_card(spec, "svg")
    assert first == render_card(card_spec(_card(), "dark"), "svg")
    assert b"Samsung SSD 980 PRO 1TB" in first


def test_a_memory_target_or_a_cut_short_run_is_said_on_the_card() -> None:
    assert footer_note(_card()) == ("MB/s = 10^6 bytes/s", False)
    assert footer_note(_card(status="interrupted")) == (
        "run interrupted: not every test ran",
        True,
    )
    memory = _card(measures_memory=True, status="interrupted")
    assert footer_note(memory) == ("measures memory, not a drive", True)
    assert "measures memory, not a drive" in _texts(card_spec(memory, "dark"))
