"""Iometer's results file (the CSV its "Save Results" writes, `Iometer /r results.csv`) ->
ImportedBenchmark, in SI base units.

The layout is Iometer's own (iometer-org/iometer `src/PageSetup.cpp` `SaveResults`,
`AccessSpecList.cpp` `SaveResults`, `ManagerList.cpp` / `Manager.cpp` / `Worker.cpp`
`SaveResults`): lines starting with `'` name what follows.

    'Test Type,Test Description
    0,my test
    'Version
    1.1.0
    'Time Stamp
    2020-05-01 10:11:12:345
    'Access specifications                     <- before each test (one per access spec run)
    'Access specification name,default assignment
    4K random read,NONE
    'size,% of size,% reads,% random,delay,burst,align,reply
    4096,100,100,100,0,1,4096,0,
    'End access specifications
    'Results
    'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,…
    ALL,All,4K random read,1,1,1,12345.678901,…    <- the whole test; MANAGER, WORKER and
    MANAGER,host,…                                     DISK rows break it down
    'Time Stamp
    'End Test

The file of instantaneous results Iometer writes beside it ("inst" + its name, when the display
records each update: `GalileoView.cpp` `PrepareInstantaneousFile`, `ManagerList::
SaveResultsInstantaneous`) has the same sections, each row and the header led by a time
stamp (`TimeStamp,'Target Type,…`): WORKER rows at each update, then the whole test's ALL row.
A file of several tests (Iometer run again with the same results file) gives each test's
description; they are kept in order as the comment.

Columns are found by name. `MBps (Decimal)` is 10^6 B/s and `MBps (Binary)` (`MiBps
(Binary)` from 2014) 2^20 B/s (`MEGABYTE_DEC`, `MEGABYTE_BIN` in `IOCommon.h`); before 1.1.0
there was only `MBps`, 2^20 B/s (`MEGABYTE`). Response times are in ms (latency sums × 1000
÷ the timer's resolution). `Queue Depth` is each worker's outstanding I/Os per target (-1 when
the workers differ). Each ALL row is one test: ssdlab keys it like its quick tests
('rnd4k-q32t1-read') when its access specification is one line of 100 % of one size, all
reads or all writes, all random or all sequential, one manager and one disk per worker;
otherwise by the specification's name.
"""

import csv
import re
from dataclasses import dataclass, field

from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark, ImportedTest
from ssdlab.model.plan import Direction, Pattern, QuickTest
from ssdlab.model.units import MB, NS_PER_MS, MiB

_RATE_COLUMNS = (
    ("MBps (Decimal)", MB),
    ("MiBps (Binary)", MiB),
    ("MBps (Binary)", MiB),
    ("MBps", MiB),
)
_NUMBER = re.compile(r"^-?\d{1,20}(?:\.\d{1,20})?$")
MAX_ROWS = 100_000
_INSTANT_HEADER = re.compile(r"^TimeStamp,'Target Type,", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class AccessLine:
    """One line of an access specification."""

    size_bytes: int
    of_size_pct: int
    reads_pct: int
    random_pct: int
    align_bytes: int


@dataclass
class _File:
    version: str | None = None
    stamp: str | None = None
    descriptions: list[str] = field(default_factory=list)
    specs: dict[str, tuple[AccessLine, ...]] = field(default_factory=dict)
    rows: list[tuple[dict[str, str], dict[str, tuple[AccessLine, ...]], int]] = field(
        default_factory=list
    )
    header: list[str] | None = None
    spec_name: str | None = None


def is_iometer_results(text: str) -> bool:
    """Whether the text is an Iometer results file."""
    head = text.lstrip("\ufeff")[:4000]
    return "'Test Type,Test Description" in head or (
        "'Results" in head and "'Target Type,Target Name,Access Specification Name" in head
    )


def _split(line: str) -> list[str]:
    return [cell.strip() for cell in next(csv.reader([line]))]


def _int(text: str, where: str) -> int:
    if not re.fullmatch(r"-?\d{1,12}", text.strip()):
        raise ParseError(f"{where}: {text!r} is not a whole number")
    return int(text)


def _access_line(cells: list[str], line_no: int) -> AccessLine:
    if len(cells) < 7:
        raise ParseError(
            f"line {line_no}: an access specification line has {len(cells)} fields, not 8 "
            "(size,% of size,% reads,% random,delay,burst,align,reply)"
        )
    where = f"line {line_no}"
    line = AccessLine(
        _int(cells[0], where), _int(cells[1], where), _int(cells[2], where),
        _int(cells[3], where), _int(cells[6], where),
    )  # fmt: skip
    shares = (line.of_size_pct, line.reads_pct, line.random_pct)
    if line.size_bytes <= 0 or not all(0 <= p <= 100 for p in shares):
        raise ParseError(f"{where}: a transfer size of 0 or a share outside 0-100 %")
    return line


def _take_line(found: _File, mode: str, line: str, line_no: int) -> None:
    """One data line, read as the section it is in says."""
    cells = _split(line)
    if mode == "'version":
        found.version = found.version or line.strip()
    elif mode.startswith("'test type"):
        description = ",".join(cells[1:]).strip()
        if description and description not in found.descriptions:
            found.descriptions.append(description)
    elif mode == "'time stamp":
        found.stamp = found.stamp or line.strip()
    elif mode.startswith("'access specification name"):
        found.spec_name = cells[0]
        found.specs[found.spec_name] = ()
    elif mode.startswith("'size,") and found.spec_name is not None:
        spec = found.specs.get(found.spec_name, ())
        found.specs[found.spec_name] = (*spec, _access_line(cells, line_no))
    elif mode.startswith("'target type,") and found.header is not None:
        if len(found.rows) >= MAX_ROWS:
            raise ParseError(f"the results file has more than {MAX_ROWS} result rows")
        found.rows.append(
            (dict(zip(found.header, cells, strict=False)), dict(found.specs), line_no)
        )


def _read(lines: list[str]) -> _File:
    """The file's header, its access specifications and every result row with the
    specifications in force when it was written."""
    found = _File()
    mode = ""
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if _INSTANT_HEADER.match(line):  # the instantaneous file's header: a time stamp first
            mode = "'target type,"
            found.header = ["TimeStamp", *_split(line.split(",", 1)[1][1:])]
            continue
        if line.startswith("'"):
            mode = line.strip().lower()
            if mode.startswith("'target type,"):
                found.header = _split(line[1:])
            elif mode == "'access specifications":
                found.specs = {}
            continue
        _take_line(found, mode, line, line_no)
    return found


def _figure(row: dict[str, str], column: str, line_no: int) -> float | None:
    text = row.get(column, "").strip()
    if not text:
        return None
    if not _NUMBER.match(text):
        raise ParseError(f"line {line_no}: {column} {text!r} is not a number")
    value = float(text)
    return None if value < 0 else value  # Iometer writes -1 where a value is ambiguous


def _rate(row: dict[str, str], side: str, line_no: int) -> float | None:
    for column, unit in _RATE_COLUMNS:
        name = f"{side}{column}" if not side else f"{side} {column}"
        if name in row:
            value = _figure(row, name, line_no)
            return None if value is None else value * unit
    return None


def _key(
    name: str, line: AccessLine | None, row: dict[str, str], line_no: int
) -> tuple[str, str, str]:
    """(key, label, direction) of a result row."""
    depth = _figure(row, "Queue Depth", line_no)
    workers = _figure(row, "# Workers", line_no)
    disks = _figure(row, "# Disks", line_no)
    managers = _figure(row, "# Managers", line_no)
    direction = "mix"
    if line is not None:
        direction = "read" if line.reads_pct == 100 else "write" if line.reads_pct == 0 else "mix"
    plain = (
        line is not None
        and line.of_size_pct == 100
        and line.random_pct in (0, 100)
        and direction != "mix"
        and depth is not None and depth >= 1
        and workers is not None and workers >= 1
        and disks == workers
        and managers == 1
    )  # fmt: skip
    if plain and line is not None and depth is not None and workers is not None:
        test = QuickTest(
            Pattern.RND if line.random_pct == 100 else Pattern.SEQ,
            line.size_bytes, int(depth), int(workers), Direction(direction),
        )  # fmt: skip
        return test.key, test.label, direction
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "spec"
    q = "" if depth is None else f" Q{int(depth)}"
    return f"iometer-{slug}{q.replace(' Q', '-q')}-{direction}", f"{name}{q}", direction


def _test(
    row: dict[str, str], specs: dict[str, tuple[AccessLine, ...]], line_no: int
) -> ImportedTest:
    name = row.get("Access Specification Name", "").strip()
    spec = specs.get(name, ())
    line = spec[0] if len(spec) == 1 else None
    key, label, direction = _key(
        name or "(workers ran different specifications)", line, row, line_no
    )
    iops = _figure(row, "IOps", line_no)
    bw = _rate(row, "", line_no)
    if iops is None or bw is None:
        raise ParseError(f"line {line_no}: the ALL row gives no IOps or MBps")
    lat_ms = _figure(row, "Average Response Time", line_no)
    depth = _figure(row, "Queue Depth", line_no)
    workers = _figure(row, "# Workers", line_no)
    return ImportedTest(
        label=label,
        direction=direction,
        bw_bytes_per_s=bw,
        iops=iops,
        lat_mean_ns=None if lat_ms is None else lat_ms * NS_PER_MS,
        block_bytes=line.size_bytes if line else 0,
        random=bool(line and line.random_pct == 100),
        queue_depth=None if depth is None else int(depth),
        threads=None if workers is None else int(workers),
        key=key,
    )


SEMANTICS = (
    "Iometer on Windows (or its Dynamo on other systems): each access specification ran once "
    "for the test's run time after its ramp-up; IOPS and MB/s are its averages over that run.",
    "Its 'MBps (Decimal)' is 10^6 bytes/s, 'MBps (Binary)' and the older 'MBps' 2^20 bytes/s; "
    "response times are its mean time from issue to completion, in ms.",
)


def _spec_details(
    every: list[tuple[dict[str, str], dict[str, tuple[AccessLine, ...]], int]],
) -> dict[str, object]:
    """Each test's access specification, in the order of the tests: one name can stand for
    different specifications in one file (each test of it defines its own)."""
    specs: list[dict[str, object]] = []
    for row, in_force, _line in every:
        name = row.get("Access Specification Name", "").strip()
        lines = [
            {
                "size_bytes": x.size_bytes,
                "of_size_pct": x.of_size_pct,
                "reads_pct": x.reads_pct,
                "random_pct": x.random_pct,
                "align_bytes": x.align_bytes,
            }
            for x in in_force.get(name, ())
        ]
        specs.append({"name": name, "lines": lines})
    return {"access_specifications": specs} if any(s["lines"] for s in specs) else {}


def parse_iometer_csv(text: str) -> ImportedBenchmark:
    """Parse an Iometer results file: one test per ALL row."""
    found = _read(text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    every = [(row, specs, n) for row, specs, n in found.rows if row.get("Target Type") == "ALL"]
    if not every:
        raise ParseError(
            "not an Iometer results file with results: no 'Results' section with an ALL row "
            "(import takes the CSV Iometer saves with its results)"
        )
    tests = [_test(row, specs, n) for row, specs, n in every]
    keys = [t.key for t in tests]
    return ImportedBenchmark(
        tool="iometer",
        tool_version=found.version,
        profile=None,
        tests=tuple(tests),
        test_size_bytes=None,
        count=None,
        measure_s=None,
        interval_s=None,
        date=found.stamp,
        os=None,
        target=None,
        comment="; ".join(found.descriptions) or None,
        mix_read_pct=None,
        zero_fill=None,
        semantics=SEMANTICS,
        details={**_spec_details(every), "tests": keys},
    )
