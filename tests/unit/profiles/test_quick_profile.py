"""The shipped presets are CrystalDiskMark's (benchmarks.md §1.2)."""

import pytest

from ssdlab.model.plan import Pattern, parse_test_shape
from ssdlab.model.units import format_block_label
from ssdlab.profiles.quick import load_quick_profile, parse_quick_profile

PROFILE = load_quick_profile()


def labels(preset: str) -> list[str]:
    return [
        f"{shape.pattern.value.upper()}{format_block_label(shape.block_size_bytes)} "
        f"Q{shape.iodepth}T{shape.numjobs}"
        for shape in PROFILE.presets[preset].shapes
    ]


def test_presets_match_crystaldiskmark() -> None:
    assert labels("default") == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    assert labels("nvme") == ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]
    assert labels("cdm7") == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]
    assert labels("cdm6") == ["SEQ128K Q32T1", "RND4K Q8T8", "RND4K Q32T1", "RND4K Q1T1"]
    assert labels("peak") == ["SEQ1M Q8T1", "RND4K Q32T1"]
    assert labels("real") == ["SEQ1M Q1T1", "RND4K Q1T1"]
    flash = PROFILE.presets["flash"]
    assert labels("flash") == labels("default")
    assert (flash.measure_s, flash.interval_s) == (1.0, 30.0)


def test_defaults_are_crystaldiskmark_8() -> None:
    assert PROFILE.default_size_bytes == 2**30
    assert PROFILE.default_count == 5
    assert PROFILE.default_measure_s == 5
    assert PROFILE.default_interval_s == 5
    assert PROFILE.default_mix_read_pct == 70


def test_parse_test_shape() -> None:
    shape = parse_test_shape("RND4K Q32T16")
    assert (shape.pattern, shape.block_size_bytes, shape.iodepth, shape.numjobs) == (
        Pattern.RND,
        4096,
        32,
        16,
    )
    with pytest.raises(ValueError, match="is not of the form"):
        parse_test_shape("SEQ1G Q1T1")


def test_bad_profile_text_is_rejected() -> None:
    with pytest.raises(ValueError, match="SEQ"):
        parse_quick_profile(
            'profile="quick"\nversion=1\n[defaults]\npreset="x"\nsize="1GiB"\ncount=1\n'
            'measure_s=1\ninterval_s=1\nmix_read_pct=70\n[presets.x]\ntests=["FAST Q1"]\n'
        )
    with pytest.raises(ValueError, match="default preset"):
        parse_quick_profile(
            'profile="quick"\nversion=1\n[defaults]\npreset="y"\nsize="1GiB"\ncount=1\n'
            'measure_s=1\ninterval_s=1\nmix_read_pct=70\n[presets.x]\ntests=["SEQ1M Q1T1"]\n'
        )
