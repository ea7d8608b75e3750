"""Alignment verdicts: the field report from issue 4, sub-4 KiB penalties, partition starts,
sector sizes and NVMe LBA formats."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.analysis.alignment import (
    AlignResult,
    LbaFormat,
    alignment_verdict,
)
from ssdlab.model.units import KiB, MiB

NO_DEVICE = {
    "partition_start_bytes": None,
    "logical_block_bytes": None,
    "physical_block_bytes": None,
}


def matrix(rows: dict[int, tuple[float, float]]) -> list[AlignResult]:
    """{block size: (IOPS at 4 KiB-aligned offsets, IOPS at 512 B-aligned offsets)}."""
    results = []
    for size, (aligned, misaligned) in rows.items():
        results += [AlignResult(size, 4 * KiB, aligned), AlignResult(size, 512, misaligned)]
    return results


def test_field_report_16299_aligned_against_1802_misaligned() -> None:
    """Issue 4: 16,299 IOPS 4 KiB-aligned, 1,802 at 512 B offsets (Iometer, "Align I/Os on")."""
    results = [AlignResult(4096, 4096, 16_299), AlignResult(4096, 512, 1_802)]
    verdict = alignment_verdict(
        results,
        partition_start_bytes=1 * MiB,
        logical_block_bytes=512,
        physical_block_bytes=512,
    )
    (row,) = verdict.rows
    assert (row.block_size_bytes, row.aligned_iops, row.misaligned_iops) == (4096, 16_299, 1_802)
    assert (row.aligned_offset_bytes, row.misaligned_offset_bytes) == (4096, 512)
    assert row.ratio == pytest.approx(16_299 / 1_802)
    assert row.reason is None
    assert verdict.misaligned_ratio == pytest.approx(9.045, abs=1e-3)
    assert verdict.misaligned_block_size_bytes == 4096
    assert verdict.works_in_4k_units is True
    assert verdict.sentences[0] == (
        "Misalignment penalty: yes — 4 KiB writes at 512 B-aligned offsets are 9.0× slower than "
        "4 KiB-aligned ones (measured once, no interval): this drive works in 4 KiB units; keep "
        "writes 4 KiB-aligned"
    )
    assert verdict.misaligned_state == "yes"
    assert verdict.misaligned_ratio_interval is None
    assert "The partition starts at 1 MiB: aligned" in verdict.sentences
    assert verdict.partition_aligned_4k
    assert verdict.partition_aligned_1m
    assert verdict.use_physical_sector is False
    assert verdict.sentences[-1] == (
        "The drive reports 512-byte logical and physical sectors, but it measures like a 4 KiB "
        "drive: the sector size hides its real unit"
    )
    assert verdict.results == tuple(results)


def test_sub_4k_writes_on_a_4k_drive() -> None:
    results = matrix(
        {
            512: (1_810, 1_790),
            1 * KiB: (1_850, 1_800),
            2 * KiB: (2_000, 1_900),
            4 * KiB: (16_299, 1_802),
            8 * KiB: (12_000, 1_500),
        }
    )
    verdict = alignment_verdict(results, **NO_DEVICE)
    assert [r.block_size_bytes for r in verdict.rows] == [512, 1024, 2048, 4096, 8192]
    assert verdict.sub_4k_ratio == pytest.approx(16_299 / 1_810)
    assert verdict.sub_4k_block_size_bytes == 512
    assert verdict.sentences[1] == (
        "Sub-4 KiB penalty: yes — sub-4 KiB writes are 9.0× slower than 4 KiB-aligned ones "
        "(512 B: 9.0×, 1 KiB: 8.8×, 2 KiB: 8.1×; 512 B: measured once, no interval): this drive "
        "works in 4 KiB units; keep writes 4 KiB-aligned and in whole multiples of 4 KiB"
    )
    assert verdict.rows[-1].ratio == pytest.approx(8.0)
    assert verdict.partition_aligned_4k is None
    assert verdict.use_physical_sector is None
    assert len(verdict.sentences) == 2


def test_a_512_byte_native_drive_has_no_penalty() -> None:
    verdict = alignment_verdict(
        matrix({512: (20_500, 20_400), 4 * KiB: (20_000, 19_500)}),
        partition_start_bytes=1 * MiB,
        logical_block_bytes=512,
        physical_block_bytes=512,
    )
    assert verdict.works_in_4k_units is False
    assert verdict.misaligned_ratio == pytest.approx(20_000 / 19_500)
    assert verdict.sentences[0].startswith(
        "Misalignment penalty: no — 4 KiB writes at 512 B-aligned offsets are about as fast as "
        "4 KiB-aligned ones (1.03×"
    )
    assert verdict.sentences[1].startswith(
        "Sub-4 KiB penalty: no — sub-4 KiB writes are about as fast as 4 KiB-aligned"
    )
    assert verdict.sentences[-1] == "The drive reports 512-byte logical and physical sectors"


def test_penalty_threshold_is_a_parameter() -> None:
    results = matrix({4 * KiB: (13_000, 10_000)})  # 1.3×
    assert alignment_verdict(results, **NO_DEVICE).works_in_4k_units is False
    verdict = alignment_verdict(results, **NO_DEVICE, min_penalty_ratio=1.2)
    assert verdict.works_in_4k_units is True
    assert verdict.min_penalty_ratio == 1.2
    with pytest.raises(ValueError, match="min_penalty_ratio"):
        alignment_verdict(results, **NO_DEVICE, min_penalty_ratio=1.0)


def test_repeats_are_combined_by_mean_and_the_smallest_alignments_compared() -> None:
    results = [
        AlignResult(4096, 4096, 10_000),
        AlignResult(4096, 4096, 12_000),
        AlignResult(4096, 4096, 14_000),
        AlignResult(4096, 8192, 99_999),  # a coarser aligned alignment: not the one compared
        AlignResult(4096, 1024, 99_999),
        AlignResult(4096, 512, 2_000),
        AlignResult(4096, 512, 2_100),
        AlignResult(4096, 512, 1_900),
    ]
    (row,) = alignment_verdict(results, **NO_DEVICE).rows
    assert (row.aligned_offset_bytes, row.aligned_iops) == (4096, 12_000)
    assert (row.misaligned_offset_bytes, row.misaligned_iops) == (512, 2_000)
    assert row.passes == 3
    assert row.aligned_interval is not None
    # Student's interval: 12,000 ± t(0.975, 2) · 2,000 / √3
    assert row.aligned_interval.low == pytest.approx(12_000 - 4.3027 * 2_000 / 3**0.5, rel=1e-4)
    assert row.ratio == pytest.approx(6.0)
    assert row.ratio_interval is not None
    assert row.ratio_interval.holds(6.0)


def _repeated(aligned: list[float], misaligned: list[float]) -> list[AlignResult]:
    return [AlignResult(4096, 4096, v) for v in aligned] + [
        AlignResult(4096, 512, v) for v in misaligned
    ]


def test_a_penalty_is_yes_no_or_inconclusive_by_its_interval() -> None:
    clear = alignment_verdict(
        _repeated([15_000, 15_100, 14_900], [5_000, 5_050, 4_950]), **NO_DEVICE
    )
    assert clear.misaligned_state == "yes"
    assert clear.works_in_4k_units is True
    assert clear.works_in_4k_units_state == "yes"
    none = alignment_verdict(
        _repeated([10_000, 10_100, 9_900], [10_000, 9_950, 10_050]), **NO_DEVICE
    )
    assert none.misaligned_state == "no"
    assert none.works_in_4k_units is False
    assert none.sentences[0].startswith("Misalignment penalty: no — 4 KiB writes")
    assert "95 % interval" in none.sentences[0]
    assert "3 repeats" in none.sentences[0]
    # 1.5× measured, with a spread that cannot tell 1.3× from 1.7×
    noisy = alignment_verdict(
        _repeated([15_000, 13_000, 17_000], [10_000, 9_000, 11_000]), **NO_DEVICE
    )
    assert noisy.misaligned_state == "inconclusive"
    assert noisy.works_in_4k_units is None  # unknown, not False
    assert noisy.works_in_4k_units_state == "inconclusive"
    assert noisy.sentences[0].startswith("Misalignment penalty: inconclusive — 4 KiB writes")
    assert "straddles the 1.5×" in noisy.sentences[0]
    assert "--repeat" in noisy.sentences[0]


def test_one_pass_with_a_per_second_log_has_an_interval_of_that_pass() -> None:
    steady = tuple(10_000.0 + 50 * (-1) ** i for i in range(16))
    results = [
        AlignResult(4096, 4096, 10_000, steady),
        AlignResult(4096, 512, 9_000, tuple(v * 0.9 for v in steady)),
    ]
    (row,) = alignment_verdict(results, **NO_DEVICE).rows
    assert row.passes == 1
    assert row.aligned_interval is not None
    assert row.aligned_interval.basis == "per-second log"
    assert row.aligned_interval.count == 4  # 16 seconds in batches of 4


def test_missing_sides_are_unknown_not_zero() -> None:
    verdict = alignment_verdict(
        [
            AlignResult(512, 4096, 1_000),
            AlignResult(8192, 512, 900),
            AlignResult(4096, 4096, 5_000),
            AlignResult(4096, 512, 0),
        ],
        **NO_DEVICE,
    )
    small, four, eight = verdict.rows
    assert small.ratio is None
    assert small.reason == "not measured at misaligned offsets"
    assert four.ratio is None
    assert four.reason == "no write completed at misaligned offsets"
    assert eight.ratio is None
    assert eight.reason == "not measured at 4 KiB-aligned offsets"
    assert verdict.misaligned_ratio is None
    assert verdict.sub_4k_ratio == pytest.approx(5.0)  # 4 KiB aligned against 512 B aligned
    assert verdict.works_in_4k_units is True


def test_nothing_measured_is_unknown() -> None:
    verdict = alignment_verdict([], **NO_DEVICE)
    assert verdict.rows == ()
    assert verdict.sentences == ()
    assert verdict.works_in_4k_units is None
    assert verdict.misaligned_ratio is None


def test_misalignment_falls_back_to_the_smallest_block_of_at_least_4k() -> None:
    verdict = alignment_verdict(
        matrix({8 * KiB: (12_000, 3_000), 16 * KiB: (8_000, 4_000)}), **NO_DEVICE
    )
    assert verdict.misaligned_block_size_bytes == 8 * KiB
    assert verdict.misaligned_ratio == pytest.approx(4.0)
    assert verdict.sentences[0].startswith(
        "Misalignment penalty: yes — 8 KiB writes at 512 B-aligned offsets are 4.0× slower"
    )


@pytest.mark.parametrize(
    ("start", "four_k", "one_m", "text"),
    [
        (1 * MiB, True, True, "The partition starts at 1 MiB: aligned"),
        (0, True, True, "The partition starts at 0 B: aligned"),
        (
            64 * KiB,
            True,
            False,
            "The partition starts at 64 KiB: 4 KiB-aligned, which suits 4 KiB units, but not "
            "1 MiB-aligned (the partitioning tools' default, which also fits erase blocks and "
            "RAID stripes)",
        ),
        (
            63 * 512,
            False,
            False,
            "The partition starts at 32,256 bytes (512-byte sector 63): not 4 KiB-aligned, so "
            "every 4 KiB block the filesystem writes straddles two of the drive's 4 KiB units; "
            "recreate the partition at 1 MiB (destroys data)",
        ),
    ],
)
def test_partition_start(start: int, four_k: bool, one_m: bool, text: str) -> None:
    verdict = alignment_verdict(
        [], partition_start_bytes=start, logical_block_bytes=None, physical_block_bytes=None
    )
    assert (verdict.partition_aligned_4k, verdict.partition_aligned_1m) == (four_k, one_m)
    assert verdict.partition_aligned_physical is None
    assert verdict.sentences == (text,)


def test_partition_against_a_large_physical_sector() -> None:
    def sentence(start: int, physical: int) -> str:
        verdict = alignment_verdict(
            [], partition_start_bytes=start, logical_block_bytes=4096, physical_block_bytes=physical
        )
        assert verdict.partition_aligned_physical is (start % physical == 0)
        return verdict.sentences[0]

    assert sentence(3 * MiB + 512 * KiB, 1 * MiB) == (
        "The partition starts at 3584 KiB: not aligned to the drive's 1 MiB physical sector; "
        "recreate the partition at a multiple of 1 MiB (destroys data)"
    )
    assert sentence(1 * MiB, 64 * KiB) == "The partition starts at 1 MiB: aligned"
    assert sentence(1 * MiB, 2 * MiB) == (
        "The partition starts at 1 MiB: not aligned to the drive's 2 MiB physical sector; "
        "recreate the partition at a multiple of 2 MiB (destroys data)"
    )
    assert sentence(8 * KiB, 16 * KiB).startswith("The partition starts at 8 KiB: not aligned")


def test_512e_drive_wants_physical_sectors() -> None:
    verdict = alignment_verdict(
        [], partition_start_bytes=None, logical_block_bytes=512, physical_block_bytes=4096
    )
    assert verdict.use_physical_sector is True
    assert verdict.sentences == (
        "The drive reports 512-byte logical and 4096-byte physical sectors: it works in 4 KiB "
        "internally; use I/O aligned to and sized in 4 KiB (a filesystem with 4 KiB blocks on "
        "an aligned partition does)",
    )


LBAF_512_GOOD = LbaFormat(0, 512, 0, 2)
LBAF_4K_BETTER = LbaFormat(1, 4096, 0, 1)
LBAF_4K_META_BEST = LbaFormat(2, 4096, 8, 0)


def nvme(formats: list[LbaFormat], in_use: int | None) -> list[str]:
    verdict = alignment_verdict(
        [],
        partition_start_bytes=None,
        logical_block_bytes=None,
        physical_block_bytes=None,
        lba_formats=formats,
        lba_format_in_use=in_use,
    )
    return list(verdict.sentences)


def test_nvme_namespace_offers_a_better_format() -> None:
    formats = [LBAF_512_GOOD, LBAF_4K_BETTER, LBAF_4K_META_BEST]
    verdict = alignment_verdict(
        [],
        partition_start_bytes=None,
        logical_block_bytes=512,
        physical_block_bytes=512,
        lba_formats=formats,
        lba_format_in_use=0,
    )
    assert verdict.in_use_format == LBAF_512_GOOD
    assert verdict.recommended_lba_format == LBAF_4K_BETTER  # the "best" one carries metadata
    assert verdict.sentences[-1] == (
        "The namespace uses 512-byte LBAs (relative performance: good) but offers 4096-byte LBAs "
        "(relative performance: better); reformatting (destroys data) could help"
    )
    assert verdict.lba_formats == tuple(formats)
    assert verdict.lba_format_in_use == 0


def test_nvme_formats_without_a_better_one() -> None:
    assert nvme([LBAF_512_GOOD, LBAF_4K_BETTER], 1) == [
        "The namespace uses 4096-byte LBAs (relative performance: better); none of the other "
        "formats it offers is ranked better"
    ]
    assert nvme([LBAF_512_GOOD], 0) == [
        "The namespace uses 512-byte LBAs, the only data size it offers without metadata"
    ]
    unranked = [LbaFormat(0, 512, 0, None), LbaFormat(1, 4096, 0, None)]
    assert nvme(unranked, 0) == [
        "The namespace uses 512-byte LBAs and also offers 4096-byte LBAs; the drive does not "
        "rank their performance"
    ]
    assert nvme([LBAF_512_GOOD, LBAF_4K_BETTER], 7) == [
        "The namespace's LBA format in use (#7) is not among those it lists; cannot tell "
        "whether a better one is offered"
    ]
    assert nvme([], None) == []
    assert nvme([LBAF_512_GOOD], None) == []


def test_nvme_prefers_4k_among_equally_ranked_formats() -> None:
    formats = [LbaFormat(0, 512, 0, 3), LbaFormat(1, 16384, 0, 1), LbaFormat(2, 4096, 0, 1)]
    verdict = alignment_verdict(
        [], partition_start_bytes=None, logical_block_bytes=None, physical_block_bytes=None,
        lba_formats=formats, lba_format_in_use=0,
    )  # fmt: skip
    assert verdict.recommended_lba_format == formats[2]
    assert LbaFormat(3, 512, 0, 7).performance_label is None
    assert LbaFormat(3, 512, 0, None).performance_label is None


def test_invalid_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        AlignResult(0, 512, 1.0)
    with pytest.raises(ValueError, match="iops"):
        AlignResult(4096, 512, float("nan"))
    with pytest.raises(ValueError, match="partition start"):
        alignment_verdict(
            [], partition_start_bytes=-1, logical_block_bytes=None, physical_block_bytes=None
        )
    with pytest.raises(ValueError, match="physical block size"):
        alignment_verdict(
            [], partition_start_bytes=None, logical_block_bytes=512, physical_block_bytes=0
        )


@given(
    aligned=st.floats(1, 1e6),
    misaligned=st.floats(1, 1e6),
    scale=st.floats(1e-3, 1e3),
)
def test_ratios_do_not_depend_on_the_iops_scale(
    aligned: float, misaligned: float, scale: float
) -> None:
    one = alignment_verdict(matrix({4096: (aligned, misaligned)}), **NO_DEVICE)
    scaled = alignment_verdict(matrix({4096: (aligned * scale, misaligned * scale)}), **NO_DEVICE)
    assert one.misaligned_ratio == pytest.approx(aligned / misaligned)
    assert scaled.misaligned_ratio == pytest.approx(aligned / misaligned)
    assert one.misaligned_ratio is not None
    assert one.works_in_4k_units == (one.misaligned_ratio >= 1.5)
