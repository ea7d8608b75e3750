import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.model.units import (
    describe_bytes,
    format_block_label,
    format_size,
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
def test_format_size_round_trips(size: int) -> None:
    assert parse_size_bytes(format_size(size)) == size


def test_labels_and_descriptions() -> None:
    assert format_block_label(2**20) == "1M"
    assert format_block_label(128 * 1024) == "128K"
    assert format_block_label(512) == "512B"
    assert describe_bytes(16646144) == "15.9 MiB"
    assert describe_bytes(100) == "100 B"


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
