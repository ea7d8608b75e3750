import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.model.units import (
    GB,
    KB,
    MB,
    TB,
    format_binary_bytes,
    format_block_label,
    format_cdm_iops,
    format_cdm_latency_us,
    format_cdm_mb_per_s,
    format_count,
    format_counter_bytes,
    format_decimal_bytes,
    format_gb,
    format_latency,
    format_latency_us,
    format_mb_per_s,
    format_number,
    format_size,
    format_tb,
    format_time,
    parse_duration_s,
    parse_size_bytes,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1GiB", 2**30),
        ("256MiB", 256 * 2**20),
        ("1GB", 10**9),
        ("500MB", 500 * 10**6),
        ("4k", 4096),
        ("4K", 4096),
        ("1m", 2**20),
        ("128KiB", 131072),
        ("1.5GiB", 3 * 2**29),
        ("4096", 4096),
        (" 2 TiB ", 2 * 2**40),
    ],
)
def test_parse_size_bytes(text: str, expected: int) -> None:
    assert parse_size_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "GiB", "12XB", "-1GiB", "1.3B", "1,5GiB", "1 G i B"])
def test_parse_size_bytes_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=r"is not a size|is not a whole number of bytes"):
        parse_size_bytes(text)


def test_mb_is_decimal_and_mib_binary() -> None:
    assert parse_size_bytes("1MB") == 1_000_000
    assert parse_size_bytes("1MiB") == 1_048_576


@given(st.integers(min_value=1, max_value=2**50))
def test_format_size_is_exact(size: int) -> None:
    """The size printed is the size: the binary form parses back, any other form carries the
    exact count of bytes beside it (or is a whole number of its decimal unit)."""
    text = format_size(size)
    exact = re.fullmatch(r"[\d.,]+ [kMGT]B \(([\d,]+) B\)", text)
    if exact is not None:
        assert int(exact.group(1).replace(",", "")) == size
    else:
        number, unit = text.replace(",", "").split()
        factor = {"B": 1, "kB": KB, "MB": MB, "GB": GB, "TB": TB}.get(unit)
        if factor is None:
            assert parse_size_bytes(text) == size
        else:
            assert round(float(number) * factor) == size


@given(st.integers(min_value=0, max_value=2**60))
def test_format_size_never_prints_a_raw_count(size: int) -> None:
    text = format_size(size)
    assert not re.search(r"\d{7,} ?B\b|\d+KiB|\d{4,} KiB", text.split(" (")[0]), text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (None, "n/a"),
        (512, "512 B"),
        (1000, "1000 B"),
        (4096, "4 KiB"),
        (128 * 2**10, "128 KiB"),
        (16 * 2**20, "16 MiB"),
        (4 * 2**30, "4 GiB"),
        (2048 * 2**40, "2048 TiB"),
        (4_294_966_784, "4.29 GB (4,294,966,784 B)"),
        (250 * 10**9, "250 GB"),  # 244140625 KiB: never printed so
        (250_059_350_016, "250.06 GB (250,059,350,016 B)"),
        (3_006_459_904, "3.01 GB (3,006,459,904 B)"),  # 2935996 KiB of memory
        (1536, "1.536 kB"),
        (1_920_000_000_000, "1.92 TB"),
    ],
)
def test_format_size_examples(size: int | None, text: str) -> None:
    assert format_size(size) == text


def test_labels_and_descriptions() -> None:
    assert format_block_label(2**20) == "1M"
    assert format_block_label(128 * 1024) == "128K"
    assert format_block_label(512) == "512B"
    assert format_binary_bytes(16646144) == "15.9 MiB"
    assert format_binary_bytes(100) == "100 B"


def test_the_byte_descriptions_say_which_units_they_use() -> None:
    # binary steps of 1024 / decimal steps of 1000 up to TB / a drive's counters up to PB
    assert format_binary_bytes(1_500_000) == "1.4 MiB"
    assert format_decimal_bytes(1_500_000) == "1.5 MB"
    assert format_counter_bytes(1_500_000) == "1500000 B"
    assert format_counter_bytes(334_100_000_000) == "334.1 GB"
    assert format_counter_bytes(3.12e16) == "31.2 PB"
    assert format_decimal_bytes(3.12e16) == "3.12e+04 TB"
    assert format_gb(38.4e9) == "38.4 GB"
    assert format_gb(33554432) == "0.0336 GB"
    assert format_gb(1.234e12) == "1,234 GB"


def test_table_numbers() -> None:
    # the quick suite prints as CrystalDiskMark does; profile tables group thousands
    assert (
        format_cdm_mb_per_s(1_224_550_000),
        format_cdm_iops(14477.46),
        format_cdm_latency_us(68_634),
    ) == (
        "1224.55",
        "14477.5",
        "68.63",
    )
    assert (
        format_mb_per_s(3_512_400_000),
        format_count(145859.1),
        format_latency_us(1_234_500),
    ) == (
        "3,512.4",
        "145,859",
        "1,234.5",
    )
    assert format_size(512) == "512 B"
    assert format_size(4096) == "4 KiB"
    assert format_size(2**20) == "1 MiB"
    assert format_tb(12.75e12) == "12.750 TB"
    assert format_number(8123.0, "h") == "8,123 h"
    assert format_number(2.5, digits=1) == "2.5"
    assert format_time(1714564801.0) == "2024-05-01 12:00:01 UTC"
    for unknown in (
        format_cdm_mb_per_s,
        format_cdm_iops,
        format_cdm_latency_us,
        format_mb_per_s,
        format_count,
        format_latency_us,
        format_tb,
    ):
        assert unknown(None) == "n/a"
    assert format_number(None) == "n/a"
    assert format_time(None) == "unknown"


def test_table_numbers_with_their_unit() -> None:
    assert format_mb_per_s(3_512_400_000, "MB/s", digits=0) == "3,512 MB/s"
    assert format_count(145859.1, "IOPS") == "145,859 IOPS"
    assert format_latency_us(1_234_500, "µs") == "1,234.5 µs"
    assert format_tb(600e12, "TBW", digits=0) == "600 TBW"
    assert format_mb_per_s(None, "MB/s") == "n/a"


def test_latency_in_the_unit_that_suits_it() -> None:
    values = (850, 123_400, 12_340_000, 1_250_000_000, None)
    assert [format_latency(v) for v in values] == [
        "850 ns",
        "123.4 µs",
        "12.34 ms",
        "1.250 s",
        "n/a",
    ]


def test_times_are_utc_with_the_zone_named_to_the_precision_asked() -> None:
    at = 1714564801.25
    assert format_time(at) == "2024-05-01 12:00:01 UTC"
    assert format_time(at, "minute") == "2024-05-01 12:00 UTC"
    assert format_time(at, "millisecond") == "2024-05-01 12:00:01.250 UTC"
    assert format_time(None, "minute") == "unknown"


@given(st.floats(min_value=0, max_value=4e9))
def test_every_time_names_its_zone(at: float) -> None:
    for precision in ("minute", "second", "millisecond"):
        assert re.fullmatch(
            r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d(\.\d{3})?)? UTC", format_time(at, precision)
        )


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30), ("5m", 300), ("72h", 259200), ("1.5d", 129600), ("2w", 1209600), ("10", 10)],
)
def test_parse_duration_s(text: str, seconds: float) -> None:
    assert parse_duration_s(text) == seconds


@pytest.mark.parametrize("text", ["", "5x", "-1m", "m"])
def test_parse_duration_s_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration"):
        parse_duration_s(text)
