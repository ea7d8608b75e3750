"""fio job files, and the quick suite's tests and settings. Plans themselves are profile plans
(model/profile.py), built by plan/ and run by runner/."""

import re
from dataclasses import dataclass
from enum import StrEnum

from ssdlab.model.units import format_block_label

Options = tuple[tuple[str, str], ...]

SEED_MAX = 2**63 - 1
"""The largest `randseed` fio takes (3.33 refuses 2^63 and above: it parses a signed number)."""


@dataclass(frozen=True, slots=True)
class FioJob:
    """One fio job file: a [global] section and named job sections, options in order.

    An option with an empty value is written as a bare flag (``time_based``).
    """

    global_options: Options
    sections: tuple[tuple[str, Options], ...]


class Direction(StrEnum):
    READ = "read"
    WRITE = "write"
    MIX = "mix"


class Pattern(StrEnum):
    SEQ = "seq"
    RND = "rnd"


def cdm_label(pattern: Pattern, block_size_bytes: int, iodepth: int, numjobs: int) -> str:
    """CrystalDiskMark's label of a test: 'SEQ1M Q8T1'."""
    return f"{pattern.value.upper()}{format_block_label(block_size_bytes)} Q{iodepth}T{numjobs}"


@dataclass(frozen=True, slots=True)
class QuickTest:
    """One CrystalDiskMark-style test, e.g. SEQ1M Q8T1 read."""

    pattern: Pattern
    block_size_bytes: int
    iodepth: int
    numjobs: int
    direction: Direction
    rwmixread_pct: int | None = None  # only for MIX

    @property
    def key(self) -> str:
        """Stable machine name: 'seq1m-q8t1-read'."""
        return (
            f"{self.pattern.value}{format_block_label(self.block_size_bytes).lower()}"
            f"-q{self.iodepth}t{self.numjobs}-{self.direction.value}"
        )

    @property
    def label(self) -> str:
        """CrystalDiskMark's label: 'SEQ1M Q8T1'."""
        return cdm_label(self.pattern, self.block_size_bytes, self.iodepth, self.numjobs)


@dataclass(frozen=True, slots=True)
class QuickSettings:
    """The quick suite's settings: the struct its option table (profiles/quick.py) fills; a
    quick plan stores them field by field, in this order."""

    preset: str
    size_bytes: int
    count: int
    measure_s: float
    interval_s: float
    mode: str  # all | read | write | mix
    mix_read_pct: int
    data: str  # random | zero
    ioengine: str
    direct_io: bool


_TEST_RE = re.compile(r"^(SEQ|RND)(\d+)([KM])\s+Q(\d+)T(\d+)$")


@dataclass(frozen=True, slots=True)
class TestShape:
    """A preset entry before it is given a direction: 'SEQ1M Q8T1'."""

    pattern: Pattern
    block_size_bytes: int
    iodepth: int
    numjobs: int

    @property
    def label(self) -> str:
        """CrystalDiskMark's label: 'SEQ1M Q8T1'."""
        return cdm_label(self.pattern, self.block_size_bytes, self.iodepth, self.numjobs)

    def with_direction(self, direction: Direction, mix_read_pct: int | None) -> QuickTest:
        return QuickTest(
            pattern=self.pattern,
            block_size_bytes=self.block_size_bytes,
            iodepth=self.iodepth,
            numjobs=self.numjobs,
            direction=direction,
            rwmixread_pct=mix_read_pct if direction is Direction.MIX else None,
        )


def parse_test_shape(label: str) -> TestShape:
    """'RND4K Q32T16' -> TestShape(RND, 4096, 32, 16)."""
    match = _TEST_RE.match(label.strip())
    if match is None:
        raise ValueError(f"test {label!r} is not of the form SEQ1M Q8T1 / RND4K Q32T16")
    unit = 2**20 if match.group(3) == "M" else 2**10
    return TestShape(
        pattern=Pattern(match.group(1).lower()),
        block_size_bytes=int(match.group(2)) * unit,
        iodepth=int(match.group(4)),
        numjobs=int(match.group(5)),
    )
