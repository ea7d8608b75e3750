"""AS SSD Benchmark's text export (its "Copy to clipboard" of the results, 2.0) ->
ImportedBenchmark, in SI base units.

The export, as published (AS SSD Benchmark 2.0.7316.34247):

    AS SSD Benchmark 2.0.7316.34247
    ------------------------------
    Name: Samsung SSD 970 EVO Plus 250GB      <- the model the drive reports
    Firmware: 1B2QEXM7
    Controller: stornvme                      <- the Windows driver
    Offset: 233472 K - OK                     <- the partition's start and its alignment
    Size: 232.88 GB
    Date: 2024/11/28 14:18:03                 <- in the Windows locale's date format
    ------------------------------
    Sequential:                               <- '16MB' when the results were shown as IOPS
    Read: 2863.65 MB/s                        <- 'Read: 154.29 iops' as IOPS
    Write: 2127.69 MB/s
    4K: …   4K-64Threads: …
    Access Times:                             <- '512B' as IOPS
    Read: 0.090 ms
    Score:
    Read: 1126 / Write: 1368 / Total: 3046

What the numbers are, from the exports themselves: the MB/s and IOPS exports of one run
(2468.65 MB/s and 154.29 iops under "16MB"; 60.63 MB/s and 15521 iops under "4K"; 0.098 ms
and 10204 iops under "512B") give MB = 2^20 bytes (2468.65 × 2^20 ÷ 16 MiB = 154.29; 60.63 ×
2^20 ÷ 4 KiB = 15521), Seq in 16 MiB blocks, 4K and 4K-64Thrd in 4 KiB blocks, and the access
time as one I/O of 512 bytes at a time (IOPS = 1 ÷ access time). Size is printed in GiB though
labelled GB (232.88 for a 250 GB drive of 250,059,350,016 bytes). A test printed as 0.00 did
not run (AS SSD prints 0.00 for a test it skipped or stopped) and is left out. The queue
depth of each test is not in the export; 4K-64Thrd names its 64 threads.
"""

import re
from dataclasses import dataclass, field

from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark, ImportedIdentity, ImportedTest
from ssdlab.model.units import NS_PER_S, GiB, KiB, MiB
from ssdlab.parse.pasted_text import NUMBER, clean_lines

ASSSD_MB = MiB
_HEADER = re.compile(r"^AS SSD Benchmark\s+(\d+(?:\.\d+){1,3})?", re.IGNORECASE)
_FIELD = re.compile(r"^(Name|Firmware|Controller|Offset|Size|Date)\s*:\s*(.*)$", re.IGNORECASE)
_VALUE = re.compile(rf"^(Read|Write|Total)\s*:\s*({NUMBER})\s*(MB/s|iops|ms)?\s*$", re.IGNORECASE)
_LOOKS_LIKE_VALUE = re.compile(r"^(Read|Write|Total)\s*:", re.IGNORECASE)
_OFFSET = re.compile(r"^(\d{1,15})\s*K\s*-\s*(OK|BAD)\s*$", re.IGNORECASE)
_SIZE = re.compile(rf"^({NUMBER})\s*GB\s*$", re.IGNORECASE)


# section headers -> (test, block bytes, random, threads); the IOPS view names sizes instead
_SECTIONS: dict[str, tuple[str, int, bool, int | None] | None] = {
    "sequential:": ("seq", 16 * MiB, False, None),
    "16mb": ("seq", 16 * MiB, False, None),
    "4k:": ("4k", 4 * KiB, True, None),
    "4k-64threads:": ("4k-64thrd", 4 * KiB, True, 64),
    "access times:": ("acc-time", 512, True, None),
    "512b": ("acc-time", 512, True, None),
    "score:": None,
}
_LABELS = {"seq": "Seq", "4k": "4K", "4k-64thrd": "4K-64Thrd", "acc-time": "Acc.time"}
SEMANTICS = (
    "AS SSD Benchmark on Windows: Seq reads and writes a 1 GB file in 16 MiB blocks, 4K random "
    "4 KiB blocks one at a time, 4K-64Thrd the same over 64 threads, Acc.time one 512-byte I/O "
    "at a time; incompressible data, the OS cache bypassed (third-party descriptions; the tool "
    "is closed source).",
    "Its MB/s is 2^20 bytes/s (its MB/s and IOPS views of one run agree only so); each figure "
    "is one run of the test; Acc.time is shown as latency, and as IOPS = 1 ÷ access time with "
    "512-byte blocks, as its IOPS view shows it.",
)
_TRANSPORTS = {"stornvme": "nvme", "storahci": "sata"}  # Microsoft's NVMe and AHCI drivers


def is_asssd_text(text: str) -> bool:
    """Whether the text holds an AS SSD Benchmark export."""
    return any(_HEADER.match(line) for line in clean_lines(text)[:400])


def _test(test: str, direction: str, value: float, unit: str, line_no: int) -> ImportedTest:
    name, block, random, threads = next(v for v in _SECTIONS.values() if v and v[0] == test)
    if test == "acc-time":
        if unit == "ms":
            lat_ns = value * NS_PER_S / 1000
            iops = NS_PER_S / lat_ns
        else:
            iops, lat_ns = value, NS_PER_S / value
        bw = iops * block
        shown_iops: float | None = iops
    elif unit == "mb/s":
        bw, shown_iops, lat_ns = value * ASSSD_MB, None, None
    elif unit == "iops":
        bw, shown_iops, lat_ns = value * block, value, None
    else:
        raise ParseError(f"line {line_no}: {_LABELS[name]} {direction} is in {unit!r}")
    return ImportedTest(
        label=_LABELS[name],
        direction=direction,
        bw_bytes_per_s=bw,
        iops=shown_iops,
        lat_mean_ns=lat_ns,
        block_bytes=block,
        random=random,
        queue_depth=None,
        threads=threads,
        key=f"asssd-{name}-{direction}",
    )


def _identity(fields: dict[str, str]) -> ImportedIdentity:
    size = _SIZE.match(fields.get("size", ""))
    driver = fields.get("controller", "").strip().lower()
    return ImportedIdentity(
        model=fields.get("name") or None,
        firmware=fields.get("firmware") or None,
        transport=_TRANSPORTS.get(driver),
        capacity_bytes=round(float(size[1].replace(",", "")) * GiB) if size else None,
    )


def _details(
    fields: dict[str, str], score: dict[str, float], skipped: list[str]
) -> dict[str, object]:
    details: dict[str, object] = {}
    if fields.get("controller"):
        details["driver"] = fields["controller"]
    offset = _OFFSET.match(fields.get("offset", ""))
    if offset:
        details["partition_offset_bytes"] = int(offset[1]) * KiB
        details["partition_aligned"] = offset[2].upper() == "OK"
    if score:
        details["score"] = score
    if skipped:
        details["not_run"] = skipped
    return details


@dataclass
class _Export:
    """What the lines of one export gave so far."""

    fields: dict[str, str] = field(default_factory=dict)
    tests: list[ImportedTest] = field(default_factory=list)
    score: dict[str, float] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def _take_figure(export: _Export, section: str, value: re.Match[str], line_no: int) -> None:
    what, unit = value[1].lower(), (value[3] or "").lower()
    number = float(value[2].replace(",", ""))  # the pattern took digits only
    if section == "score":
        export.score[what] = number
    elif what == "total":
        raise ParseError(f"line {line_no}: a Total outside the Score: {value[0]!r}")
    elif number == 0:
        export.skipped.append(f"{_LABELS[section]} {what}")
    else:
        test = _test(section, what, number, unit, line_no)
        if any(t.key == test.key for t in export.tests):
            raise ParseError(f"line {line_no}: a second {test.label} {what}: {value[0]!r}")
        export.tests.append(test)


def _read(lines: list[str], header_line: int) -> _Export:
    export = _Export()
    section: str | None = None
    for line_no, line in enumerate(lines, start=1):
        if not line or set(line) <= set("-=_ ") or line_no == header_line:
            continue
        if line.lower() in _SECTIONS:
            spec = _SECTIONS[line.lower()]
            section = "score" if spec is None else spec[0]
            continue
        field_line = _FIELD.match(line)
        if field_line and section is None:
            export.fields.setdefault(field_line[1].lower(), field_line[2].strip())
            continue
        value = _VALUE.match(line)
        if value is None:
            if _LOOKS_LIKE_VALUE.match(line):
                raise ParseError(f"line {line_no}: not a figure AS SSD prints: {line!r}")
            continue
        if section is None:
            raise ParseError(f"line {line_no}: a figure before any test's name: {line!r}")
        _take_figure(export, section, value, line_no)
    return export


def parse_asssd_text(text: str) -> ImportedBenchmark:
    """Parse one AS SSD Benchmark text export; ParseError naming the line for anything it
    cannot read, and for a text holding several results."""
    lines = clean_lines(text)
    found = [(n, m) for n, line in enumerate(lines, start=1) if (m := _HEADER.match(line))]
    if not found:
        raise ParseError("not an AS SSD Benchmark text export: no 'AS SSD Benchmark' line")
    if len(found) > 1:
        raise ParseError(
            f"the text holds {len(found)} AS SSD Benchmark results (lines "
            f"{', '.join(str(n) for n, _ in found)}); import each on its own"
        )
    (header_line, header), *_ = found
    export = _read(lines, header_line)
    if not export.tests:
        raise ParseError(
            "the AS SSD Benchmark export holds no result (expected 'Sequential:' then "
            "'Read: 2863.65 MB/s')"
        )
    return ImportedBenchmark(
        tool="asssd",
        tool_version=header[1],
        profile=None,
        tests=tuple(export.tests),
        test_size_bytes=None,
        count=None,
        measure_s=None,
        interval_s=None,
        date=export.fields.get("date") or None,
        os=None,
        target=None,
        comment=None,
        mix_read_pct=None,
        zero_fill=None,
        semantics=SEMANTICS,
        identity=_identity(export.fields),
        details=_details(export.fields, export.score, export.skipped),
    )
