import dataclasses

import pytest

from ssdlab.errors import UsageError
from ssdlab.sim import GcPolicy, SimConfig, Timing, validate_config

GIB = 2**30


def test_spare_conventions_are_named_and_both_reported() -> None:
    by_logical = SimConfig.from_spare(64 * GIB, 0.07, "logical", pages_per_block=64)
    by_physical = SimConfig.from_spare(64 * GIB, 0.07, "physical", pages_per_block=64)
    assert by_logical.physical_bytes == round(64 * GIB * 1.07)
    assert by_physical.physical_bytes == round(64 * GIB / 0.93)
    # whole blocks: the FTL sees a little less than asked, never more
    assert by_logical.spare_of_logical == pytest.approx(0.07, abs=1e-4)
    assert by_physical.spare_of_physical == pytest.approx(0.07, abs=1e-4)
    assert by_logical.spare_of_physical == pytest.approx(0.07 / 1.07, abs=1e-4)
    assert by_physical.spare_of_logical == pytest.approx(0.07 / 0.93, abs=1e-4)
    validate_config(by_logical)
    validate_config(by_physical)


def test_static_slc_pool_is_carved_from_the_spare() -> None:
    c = SimConfig.from_spare(
        GIB, 0.2, "logical", pages_per_block=256, bits_per_cell=3, slc_static_bytes=16 * 2**20
    )
    # 16 MiB in SLC mode needs three times the flash: 48 MiB of the 204.8 MiB spare
    assert c.slc_pages_per_block == 85
    assert c.slc_static_blocks == 49  # ceil(16 MiB / (85 × 4 KiB)) = ceil(48.2)
    assert c.native_blocks == c.total_blocks - 49
    assert c.spare_of_logical < 0.2


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"physical_bytes": 64 * GIB}, "spare must be positive"),
        ({"physical_bytes": 60 * GIB}, "spare must be positive"),
        ({"pages_per_block": 0}, "pages per block must be positive"),
        ({"page_bytes": 0}, "page size must be positive"),
        ({"slc_static_bytes": 30 * GIB}, "larger than the drive"),
        ({"slc_static_bytes": 2 * GIB}, "spare too small"),
        ({"bits_per_cell": 5}, "bits per cell"),
        ({"bits_per_cell": 1, "slc_dynamic": True}, "multi-bit cells"),
        ({"gc_free_blocks_low": 2, "gc_free_blocks_high": 2}, "1 ≤ low < high"),
        ({"gc_d": 0}, "d ≥ 1"),
        ({"initial_state": "warm"}, "initial state"),
        ({"seed": -1}, "seed"),
        ({"logical_bytes": 4096}, "smaller than one block"),
        ({"page_bytes": 1}, "page size must be a power of two from 512 B to 64 KiB"),
        ({"page_bytes": 256}, "power of two from 512 B"),
        ({"page_bytes": 3072}, "power of two from 512 B"),
        ({"page_bytes": 128 * 1024}, "power of two from 512 B"),
        ({"pages_per_block": 2}, "pages per block must be 4 to 16,384"),
        ({"pages_per_block": 20_000}, "pages per block must be 4 to 16,384"),
        ({"logical_bytes": 64 * GIB + 1000}, "not a whole number of 4096 B pages; use"),
        (
            {"logical_bytes": 2**44, "physical_bytes": 2**45, "page_bytes": 512},
            "more than the simulator can number",
        ),
    ],
)
def test_impossible_configurations_are_refused_with_the_reason(
    change: dict[str, object], reason: str
) -> None:
    base = SimConfig.from_spare(64 * GIB, 0.07, "logical")
    with pytest.raises(UsageError, match=reason):
        validate_config(dataclasses.replace(base, **change))  # type: ignore[arg-type]


def test_sane_geometries_pass() -> None:
    for page in (512, 4096, 16384, 65536):
        validate_config(SimConfig.from_spare(64 * GIB, 0.07, "logical", page_bytes=page))
    for pages in (4, 384, 1152, 16384):  # TLC blocks need not be powers of two
        validate_config(SimConfig.from_spare(64 * GIB, 0.07, "logical", pages_per_block=pages))


@pytest.mark.parametrize(
    ("timing", "reason"),
    [
        (Timing(page_read_us=-1.0), "not negative"),
        (Timing(block_erase_us=float("nan")), "finite"),
        (Timing(page_program_us=0.0), "program times must be positive"),
        (Timing(channels=0), "at least one channel"),
    ],
)
def test_bad_timing_is_refused(timing: Timing, reason: str) -> None:
    config = SimConfig.from_spare(64 * GIB, 0.07, "logical", timing=timing)
    with pytest.raises(UsageError, match=reason):
        validate_config(config)


def test_spare_of_physical_of_one_or_more_is_refused() -> None:
    with pytest.raises(UsageError, match="below 1"):
        SimConfig.from_spare(GIB, 1.0, "physical")
    with pytest.raises(UsageError, match="convention"):
        SimConfig.from_spare(GIB, 0.1, "user")  # type: ignore[arg-type]


def test_policies_have_their_documented_names() -> None:
    assert [p.value for p in GcPolicy] == [
        "greedy",
        "cost-benefit",
        "fifo",
        "random",
        "d-choices",
    ]
