"""Simulator presets: every shipped drive is a valid configuration, says it is an
approximation and where its numbers come from; bad preset files are refused."""

import pytest

from ssdlab.errors import UsageError
from ssdlab.sim.config import validate_config
from ssdlab.sim.presets import APPROXIMATION, find_preset, load_presets, parse_presets

GiB = 2**30


def test_every_shipped_preset_is_a_valid_drive_with_its_sources() -> None:
    presets = load_presets()
    assert len(presets) >= 4
    for preset in presets.values():
        config = preset.config()
        validate_config(config)
        assert config.physical_bytes > config.logical_bytes
        assert preset.source
        assert preset.assumed
        assert preset.pe_cycles > 0
        assert preset.source_text().startswith(APPROXIMATION)


def test_x25m_spare_is_the_published_7_37_percent() -> None:
    config = find_preset("intel-x25m-80gb").config()
    # 80 GiB raw for 80 GB user (ftl.md §3.1); whole blocks move it by a hair
    assert config.physical_bytes / config.logical_bytes - 1 == pytest.approx(0.0737, abs=5e-4)


def test_scaling_keeps_the_shape_of_the_drive() -> None:
    preset = find_preset("samsung-970-evo-500gb")
    full = preset.config()
    small = preset.config(GiB)
    validate_config(small)
    assert small.logical_bytes == GiB
    ratio = GiB / full.logical_bytes
    assert small.physical_bytes == pytest.approx(full.physical_bytes * ratio, abs=1)
    assert small.slc_static_bytes == pytest.approx(full.slc_static_bytes * ratio, abs=1)
    assert "scaled to" in preset.source_text(GiB)


def test_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(UsageError, match=r"unknown preset 'nope'; known: .*intel-x25m-80gb"):
        find_preset("nope")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("pe_cycles = 5000", 'pe_cycles = "lots"'), "pe_cycles"),
        (('gc = "greedy"', 'gc = "magic"'), "unknown gc"),
        (("pages_per_block = 128", "pages_per_block = 128\ncolour = 1"), "unknown field"),
        (("slc_dynamic = false", "slc_dynamic = 0"), "slc_dynamic"),
    ],
)
def test_bad_preset_files_are_refused(edit: tuple[str, str], message: str) -> None:
    text = """[x]
summary = "s"
logical_bytes = 1000000
physical_bytes = 1100000
page_bytes = 4096
pages_per_block = 128
bits_per_cell = 2
slc_static_bytes = 0
slc_dynamic = false
pe_cycles = 5000
gc = "greedy"
source = "s"
assumed = "a"
"""
    assert parse_presets(text)["x"].pe_cycles == 5000
    with pytest.raises(ValueError, match=message):
        parse_presets(text.replace(*edit))
