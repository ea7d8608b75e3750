"""Two-sample wear analysis: worked examples from reference/smart.md and SOURCES.md, by hand."""

import json
from pathlib import Path

import pytest

from ssdlab.analysis.lifetime import RatedEndurance, estimate_rated_pe_cycles
from ssdlab.analysis.waf import MAX_WAF_ERROR_PCT, estimate_raw_nand_capacity_bytes
from ssdlab.analysis.wear import compare_samples, compare_with_rating
from ssdlab.model.units import GB, TB, GiB, MiB, TiB
from tests.conftest import SHARED
from tests.unit.analysis.health_samples import make_sample

sample = make_sample

SMART = SHARED / "testdata" / "smart"
DAY = 86_400.0


# --- smart.md §6.4 worked examples -------------------------------------------------------------


def test_three_pct_of_life_in_three_days_leaves_about_a_hundred_days() -> None:
    report = compare_samples(
        sample(0.0, wear=0.0, host=0.0), sample(3 * DAY, wear=3.0, host=300 * GiB)
    )
    rate = report.wear_rate
    assert rate.source == "wear_used_pct"
    assert rate.pct_per_day == pytest.approx(1.0)
    assert rate.quantisation_error_pct == pytest.approx(100 / 3)  # ±1 step of 3
    days = report.projection.days_to_eol
    assert days == pytest.approx(97.0)
    assert days is not None
    assert 3 + days == pytest.approx(100.0)
    # 300 GiB per 3 %: 100 % at 10,000 GiB of host writes
    assert report.projection.host_written_at_eol_bytes == pytest.approx(10_000 * GiB)


@pytest.mark.parametrize(
    ("host_tb", "wear_pct", "tb_per_day", "expected_days"),
    [
        (1353.309, 22.0, 0.88, 5_460),  # Intel P4510 2 TB: 61.5 TB per 1 %, 78 % left
        (58.1953, 16.0, 0.134, 2_280),  # Samsung PM9A1 1 TB: 3.64 TB per 1 %, 84 % left
    ],
)
def test_days_to_end_of_life_from_smart_md(
    host_tb: float, wear_pct: float, tb_per_day: float, expected_days: float
) -> None:
    elapsed_days = host_tb / tb_per_day  # the drive's history at its historical rate
    before = sample(0.0, host=0.0, wear=0.0, host_res=512_000)
    after = sample(elapsed_days * DAY, host=host_tb * TB, wear=wear_pct, host_res=512_000)
    projection = compare_samples(before, after).projection
    # hand arithmetic: TB per 1 % × % left ÷ TB per day
    assert projection.days_to_eol == pytest.approx(
        host_tb / wear_pct * (100 - wear_pct) / tb_per_day
    )
    assert projection.days_to_eol == pytest.approx(expected_days, rel=0.005)
    assert projection.host_written_at_eol_bytes == pytest.approx(host_tb / wear_pct * 100 * TB)


# --- SOURCES.md lifetime WAFs --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nand_bytes", "host_bytes", "nand_res", "host_res", "expected"),
    [
        (979 * GiB, 398 * GiB, GiB, GiB, 2.460),  # Kingston A400: 233 / 241, both GiB
        (840_007 * GiB, 391_741 * GiB, GiB, GiB, 2.144),  # Kingston KC400
        # Micron 5300: (247 + 248) pages × 16 KiB over 246 × 512 B
        ((4_062_707_571 + 8_824_675_195) * 16384, 130_006_927_240 * 512, 16384, 512, 3.172),
    ],
)
def test_lifetime_waf_of_the_sources_md_drives(
    nand_bytes: float, host_bytes: float, nand_res: float, host_res: float, expected: float
) -> None:
    after = sample(1.0, host=host_bytes, nand=nand_bytes, host_res=host_res, nand_res=nand_res)
    lifetime = compare_samples(sample(0.0, host=0.0, nand=0.0), after).lifetime_waf
    assert lifetime.waf == pytest.approx(nand_bytes / host_bytes)
    assert lifetime.waf == pytest.approx(expected, abs=5e-4)
    assert lifetime.reason is None
    assert lifetime.method == "lifetime"


def attributes(path: Path) -> dict[int, int]:
    data = json.loads(path.read_text())
    return {a["id"]: a["raw"]["value"] for a in data["ata_smart_attributes"]["table"]}


def capacity_of(path: Path) -> int:
    return int(json.loads(path.read_text())["user_capacity"]["bytes"])


@pytest.mark.parametrize(
    ("name", "lifetime", "erase_waf"),
    [
        # A400: 17 erase cycles of 128 GiB over 398 GiB: one cycle is 1/17 = 5.9 % -> refused
        ("kingston-a400-SA400M8120G-phison-sata.json", 2.460, None),
        # KC400: 808 cycles × 1 TiB / 391,741 GiB = 2.112 (vs 2.144 from Flash_Writes)
        ("kingston-kc400-SKC400S371T-phison-sata.json", 2.144, 808 * 1024 / 391_741),
    ],
)
def test_phison_captures_from_a_new_drive(
    name: str, lifetime: float, erase_waf: float | None
) -> None:
    path = SMART / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    raw = attributes(path)  # 233 Flash_Writes_GiB, 241 Lifetime_Writes_GiB, 244 Average_Erase
    capacity = capacity_of(path)
    new = sample(0.0, host=0.0, nand=0.0, erase=0.0, capacity=capacity)
    now = sample(
        1000 * DAY,
        host=raw[241] * GiB,
        nand=raw[233] * GiB,
        erase=float(raw[244]),
        capacity=capacity,
    )
    report = compare_samples(new, now, slc_cached=True)
    assert report.lifetime_waf.waf == pytest.approx(lifetime, abs=5e-4)
    assert report.waf.waf == pytest.approx(report.lifetime_waf.waf)  # from new: window = lifetime
    assert report.raw_nand_capacity_bytes == estimate_raw_nand_capacity_bytes(capacity)
    assert report.erase_count_waf.is_upper_bound is True
    if erase_waf is None:
        assert report.erase_count_waf.waf is None
        assert "erase-count WAF n/a" in (report.erase_count_waf.reason or "")
        assert "quantisation error up to 6.1 %" in (report.erase_count_waf.reason or "")
    else:
        assert report.erase_count_waf.waf == pytest.approx(erase_waf)
        assert any("upper bound" in a for a in report.erase_count_waf.assumptions)


def test_raw_nand_capacity_heuristic_from_smart_md() -> None:
    assert estimate_raw_nand_capacity_bytes(120_034_123_776) == 128 * GiB  # A400 120 GB
    assert estimate_raw_nand_capacity_bytes(240 * GB) == 256 * GiB
    assert estimate_raw_nand_capacity_bytes(1_920_383_410_176) == 2 * TiB
    assert estimate_raw_nand_capacity_bytes(1_600 * GB) == 2 * TiB
    assert estimate_raw_nand_capacity_bytes(128 * GiB) == 128 * GiB  # already a power of two


def test_given_raw_capacity_wins_over_the_heuristic() -> None:
    before = sample(0.0, host=0.0, erase=0.0, capacity=240 * GB)
    after = sample(DAY, host=10_000 * GiB, erase=40.0, capacity=240 * GB)
    report = compare_samples(before, after, raw_nand_capacity_bytes=250 * GiB, slc_cached=False)
    assert report.raw_nand_capacity_bytes == 250 * GiB
    assert report.erase_count_waf.waf == pytest.approx(40 * 250 / 10_000)
    assert report.erase_count_waf.is_upper_bound is False


# --- refusal -------------------------------------------------------------------------------------


def test_window_waf_refused_says_how_much_more_to_write() -> None:
    report = compare_samples(
        sample(0.0, host=0.0, nand=0.0), sample(3600.0, host=2 * GiB, nand=5 * GiB)
    )
    assert report.waf.waf is None
    # error: 1/2 + 1/5 = 70 %; need (1 GiB + 1 GiB / 2.5) / 5 % = 28 GiB = 30.06 GB; 27.9 GB more
    reason = report.waf.reason or ""
    assert "quantisation error up to 70.0 %" in reason
    assert "27.9 GB more" in reason
    assert "30.1 GB of host writes" in reason


def test_a_32_mib_nand_counter_needs_twenty_steps() -> None:
    """The brief's example: ≥ 20 × 32 MiB of NAND change for ≤ 5 % error."""
    step = 32 * MiB

    def waf_after(nand_steps: float) -> float | None:
        nand = nand_steps * step
        before = sample(0.0, host=0.0, nand=0.0, host_res=512, nand_res=step)
        after = sample(60.0, host=nand / 1.5, nand=nand, host_res=512, nand_res=step)
        return compare_samples(before, after).waf.waf

    assert waf_after(19.9) is None
    assert waf_after(20.1) == pytest.approx(1.5)
    assert MAX_WAF_ERROR_PCT == 5.0


def test_counter_that_went_down_is_refused_as_wrap_or_reset() -> None:
    top = 4_294_000_000 * 512  # a 32-bit LBA counter close to its top
    report = compare_samples(
        sample(0.0, host=top, nand=10 * TB, host_res=512),
        sample(DAY, host=3_000_000 * 512, nand=11 * TB, host_res=512),
    )
    host = report.host_written_bytes
    assert host.delta is None
    assert host.decreased
    assert "wrapped or was reset" in (host.reason or "")
    assert "32-bit wrap is likely" in (host.reason or "")
    assert report.waf.waf is None
    assert "went down" in (report.waf.reason or "")
    assert report.wear_rate.pct_per_host_tb is None


def test_samples_of_different_drives_are_refused() -> None:
    report = compare_samples(
        sample(0.0, host=0.0, nand=0.0, wear=0.0, serial="A"),
        sample(DAY, host=TB, nand=2 * TB, wear=10.0, serial="B"),
    )
    for change in (report.host_written_bytes, report.nand_written_bytes, report.wear_used_pct):
        assert change.delta is None
        assert "different drives" in (change.reason or "")
    assert report.waf.waf is None
    assert report.wear_rate.pct_per_day is None
    assert report.projection.days_to_eol is None
    assert report.projection.reason


def test_no_nand_counter_is_na_with_a_reason_never_zero() -> None:
    report = compare_samples(sample(0.0, host=0.0), sample(DAY, host=TB))
    assert report.waf.waf is None
    assert "nand_written_bytes is unknown" in (report.waf.reason or "")
    assert report.lifetime_waf.waf is None
    assert "no NAND-writes counter" in (report.lifetime_waf.reason or "")
    assert report.erase_count_waf.waf is None
    assert report.erase_count_waf.reason
    assert report.wear_rate.pct_per_day is None
    assert report.wear_rate.reason


def test_unknown_resolution_computes_but_does_not_bound_the_error() -> None:
    report = compare_samples(
        sample(0.0, host=0.0, nand=0.0, host_res=None, nand_res=None),
        sample(DAY, host=5 * GB, nand=6 * GB, host_res=None, nand_res=None),
    )
    assert report.waf.waf == pytest.approx(1.2)
    assert report.waf.quantisation_error_pct is None
    assert any("not bounded" in a for a in report.waf.assumptions)


def test_waf_below_one_is_kept_with_a_note() -> None:
    report = compare_samples(
        sample(0.0, host=0.0, nand=0.0), sample(DAY, host=1000 * GiB, nand=600 * GiB)
    )
    assert report.waf.waf == pytest.approx(0.6)
    assert any("compresses" in a for a in report.waf.assumptions)


# --- wear rate fallback --------------------------------------------------------------------------


def test_one_wear_step_is_too_coarse_and_erase_counts_take_over() -> None:
    before = sample(0.0, host=0.0, wear=5.0, erase=100.0)
    after = sample(2 * DAY, host=500 * GiB, wear=6.0, erase=160.0)
    report = compare_samples(before, after, rated=RatedEndurance(None, None, None, None, 3000))
    rate = report.wear_rate
    assert rate.source == "erase_count_avg"
    assert rate.pct_per_day == pytest.approx(60 / 3000 * 100 / 2)  # 1 %/day
    assert rate.pct_per_host_tb == pytest.approx(2.0 / (500 * GiB / TB))
    assert rate.quantisation_error_pct == pytest.approx(100 / 60)
    assert any("moved only 1 step" in n for n in rate.notes)
    assert report.projection.wear_now_pct == pytest.approx(160 / 3000 * 100)
    assert report.projection.days_to_eol == pytest.approx(100 - 160 / 30)


def test_one_wear_step_without_rated_pe_is_refused_with_both_reasons() -> None:
    report = compare_samples(
        sample(0.0, host=0.0, wear=1.0, erase=10.0), sample(DAY, host=TB, wear=2.0, erase=20.0)
    )
    rate = report.wear_rate
    assert rate.pct_per_day is None
    assert rate.pct_per_host_tb is None
    assert "moved only 1 step" in (rate.reason or "")
    assert "rated P/E cycles are unknown" in (rate.reason or "")
    assert report.projection.days_to_eol is None


def test_wear_that_did_not_step_is_refused() -> None:
    report = compare_samples(sample(0.0, wear=4.0), sample(DAY, wear=4.0))
    assert report.wear_rate.pct_per_day is None
    assert "did not step" in (report.wear_rate.reason or "")


def test_rated_pe_back_solved_from_the_indicator() -> None:
    assert estimate_rated_pe_cycles(278, 19) == pytest.approx(1463, abs=1)  # 860 EVO ≈ 1,460
    assert estimate_rated_pe_cycles(808, 26) == pytest.approx(3108, abs=1)  # KC400 ≈ 3,100
    assert estimate_rated_pe_cycles(17, 2) is None  # A400: 2 % is too little to back-solve
    before = sample(0.0, host=0.0, wear=19.0, erase=278.0)
    after = sample(DAY, host=TB, wear=19.0, erase=288.0)
    rate = compare_samples(before, after).wear_rate
    assert rate.source == "erase_count_avg"
    assert rate.rated_pe_cycles == pytest.approx(288 / 0.19)
    assert any("back-solved" in n for n in rate.notes)


def test_no_time_gives_a_rate_per_tb_but_not_per_day() -> None:
    report = compare_samples(sample(None, host=0.0, wear=0.0), sample(None, host=TB, wear=4.0))
    assert report.elapsed_s is None
    assert "no time" in (report.elapsed_reason or "")
    assert report.wear_rate.pct_per_day is None
    assert report.wear_rate.pct_per_host_tb == pytest.approx(4.0)
    assert report.projection.days_to_eol is None
    assert report.projection.host_written_at_eol_bytes == pytest.approx(25 * TB)


# --- rating -------------------------------------------------------------------------------------


def test_rated_tbw_from_dwpd() -> None:
    rated = RatedEndurance(None, 0.3, 5, 1 * TB)
    assert rated.rated_tbw_bytes() == pytest.approx(0.3 * 1e12 * 365 * 5)  # 547.5 TB
    assert RatedEndurance(600 * TB, 0.3, 5, TB).rated_tbw_bytes() == 600 * TB  # TBW wins
    assert RatedEndurance(None, 0.3, None, TB).rated_tbw_bytes() is None
    assert "missing warranty years" in RatedEndurance(None, 0.3, None, TB).rated_tbw_source()
    with pytest.raises(ValueError, match="positive"):
        RatedEndurance(-1.0, None, None, None)


def test_compare_with_rating_by_hand() -> None:
    # 3 % in 3 days at 100 GB/day on a 500 GB drive rated 300 TBW over 5 years
    before = sample(0.0, host=10 * TB, wear=0.0, host_res=512_000, capacity=500 * GB)
    after = sample(3 * DAY, host=10 * TB + 300 * GB, wear=3.0, host_res=512_000, capacity=500 * GB)
    rated = RatedEndurance(300 * TB, None, 5, None)
    report = compare_samples(before, after, rated=rated)
    rating = report.rating
    assert rating is not None
    assert rating == compare_with_rating(report, rated)
    projected = 10.3 * TB + 97 * 100 * GB  # host now + 97 % left at 100 GB per %
    assert rating.projected_tbw_bytes == pytest.approx(projected)
    assert rating.tbw_ratio == pytest.approx(projected / (300 * TB))
    assert rating.days_to_eol == pytest.approx(97)
    assert rating.warranty_days == pytest.approx(5 * 365)
    assert rating.eol_vs_warranty_ratio == pytest.approx(97 / (5 * 365))
    assert rating.host_written_bytes_per_day == pytest.approx(100 * GB)
    assert rating.days_to_rated_tbw == pytest.approx((300 * TB - 10.3 * TB) / (100 * GB))
    assert rating.capacity_bytes == 500 * GB
    assert rating.observed_dwpd == pytest.approx(0.2)
    assert rating.rated_dwpd == pytest.approx(300 * TB / (500 * GB * 365 * 5))
    assert rating.dwpd_ratio == pytest.approx(0.2 / (300 * TB / (500 * GB * 365 * 5)))
    assert rating.reason is None


def test_rating_without_figures_is_na_with_reasons() -> None:
    report = compare_samples(sample(0.0, wear=0.0), sample(DAY, wear=0.0))
    rating = compare_with_rating(report, RatedEndurance(None, None, None, None))
    assert rating.tbw_ratio is None
    assert rating.observed_dwpd is None
    assert rating.reason is not None
    assert "no rated TBW" in rating.reason
