"""CrystalDiskMark 6–9 and KDiskMark text exports -> ImportedBenchmark, in SI base units.

The layouts are those of `benchmarks.md` §1.5 and §2.6 (CrystalDiskMark's `DiskMarkDlg.cpp`
text templates; KDiskMark's `getTextBenchmarkResult`):

- v6: `Sequential Read (Q= 32,T= 1) :   NNN.NNN MB/s`, `Random Read 4KiB (Q=  8,T= 8) : … [ N IOPS]`
  (reads and writes interleaved; "Sequential" without a size is 128 KiB);
- v5: v6's lines, plus `Sequential Read (T= 1) :` without a queue depth: CrystalDiskMark 5's
  "Seq" test, 1 MiB blocks at queue depth 1;
- v7: `[Read]`/`[Write]`/`[Mix]` blocks of `Sequential 1MiB (Q=  8, T= 1): … MB/s [… IOPS] <… us>`;
- v8/v9: the same blocks with `SEQ    1MiB (Q=  8, T= 1): …` and `RND    4KiB …`;
- KDiskMark: v7's words, `Sequential   1 MiB (Q=  8, T= 1): …`, and its own footer.

Results pasted into forums are accepted as people leave them: separator lines gone, blank lines
added, spaces collapsed or turned into tabs, CRLF, a byte-order mark, `> ` quote prefixes, code
fences, `//` comment prefixes (a result kept in source code), the drive's name on a line of its
own. Numbers are strict: a line shaped like a result
whose number cannot be read is an error naming the line.

Units are converted here and only here: CrystalDiskMark's MB/s is 10^6 B/s (DiskSpd's exit code
÷ 10^4); KDiskMark's "MB/s" is fio's `bw` (KiB/s) ÷ 1000, i.e. 1.024·10^6 B/s; µs -> ns.

A block pasted without its header line is read when every row tells the tool by itself:
CrystalDiskMark derives IOPS from its MB/s (IOPS = MB/s × 10^6 ÷ block size, to the printed
digits), KDiskMark prints fio's IOPS beside fio's KiB/s ÷ 1000 (IOPS = MB/s × 1,024,000 ÷ block
size, within fio's truncation to whole KiB/s). A row that fits both, fits neither, or prints no
IOPS leaves the tool unknown, and the block is refused saying so.

The drive, as the export names it: KDiskMark's `Target:` line ends in the model in brackets
(`Target: / 41% (38/93GiB) [Samsung SSD 860 EVO 500GB]`, `getTextBenchmarkResult`), the rest
is the mount and its use; CrystalDiskMark prints no model (its `Test:` line names the drive
letter and its use) and people name the drive on its `Comment:` line, which ssdlab takes as
the model when nothing else names it.
"""

import re
from dataclasses import dataclass

from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark, ImportedIdentity, ImportedTest
from ssdlab.model.plan import Direction, Pattern, QuickTest
from ssdlab.model.units import GiB, KiB, MiB
from ssdlab.parse.pasted_text import clean_lines, printed_number

CDM_MB = 10**6
KDM_MB = 1024 * 1000  # fio KiB/s ÷ 1000
V6_SEQ_BLOCK = 128 * KiB
V5_SEQ_Q1_BLOCK = MiB  # CrystalDiskMark 5's "Seq" (Q1T1) test

_SHAPE = r"\(\s*Q\s*=\s*(?P<q>\d{1,9})\s*,\s*T\s*=\s*(?P<t>\d{1,9})\s*\)"
# v5's 'Sequential Read (T= 1)': no queue depth printed (it is 1)
_V5_SHAPE = r"\((?:\s*Q\s*=\s*(?P<q>\d{1,9})\s*,)?\s*T\s*=\s*(?P<t>\d{1,9})\s*\)"
_TAIL = (
    r"\s*:\s*(?P<mb>\S+)\s*MB/s"
    r"(?:\s*\[\s*(?P<iops>\S+)\s*IOPS\s*\])?"
    r"(?:\s*<\s*(?P<lat>\S+)\s*us\s*>)?\s*$"
)
# v7+ and KDiskMark: 'SEQ 1MiB', 'RND 4KiB', 'Sequential 1MiB', 'Sequential   1 MiB'
_LINE = re.compile(
    rf"^(?P<kind>SEQ|RND|Sequential|Random)\s*(?P<size>\d{{1,9}})\s*(?P<unit>K|M)iB\s*{_SHAPE}{_TAIL}",
    re.IGNORECASE,
)
# v6: 'Sequential Read (Q= 32,T= 1)', 'Random Write 4KiB (Q=  8,T= 8)'
_V6_LINE = re.compile(
    rf"^(?P<kind>Sequential|Random)\s+(?P<dir>Read|Write)\s*"
    rf"(?:(?P<size>\d{{1,9}})\s*(?P<unit>K|M)iB\s*)?{_V5_SHAPE}{_TAIL}",
    re.IGNORECASE,
)
_LOOKS_LIKE_RESULT = re.compile(r"^(SEQ|RND|Sequential|Random)\b.*MB/s", re.IGNORECASE)
_BLOCK = re.compile(r"^\[\s*(Read|Write|Mix)\s*\](.*)$", re.IGNORECASE)
_MIX = re.compile(r"Read\s*(\d{1,3})\s*%\s*/\s*Write\s*(\d{1,3})\s*%", re.IGNORECASE)
_CDM_VERSION = re.compile(r"CrystalDiskMark\s+(\d+(?:\.\d+)*\w*)", re.IGNORECASE)
_KDM_VERSION = re.compile(r"KDiskMark\s*\(?\s*(\d+(?:\.\d+)*)", re.IGNORECASE)
_FIO_VERSION = re.compile(r"\(?(fio-\d+(?:\.\d+)*)\)?")
_FIELD = re.compile(r"^(Profile|Test|Mode|Time|Date|OS|Comment|Target)\s*:\s*(.*)$", re.IGNORECASE)
_SIZE = re.compile(r"(\d{1,12}(?:\.\d{1,12})?)\s*(MiB|GiB|MB|GB)", re.IGNORECASE)
_COUNT = re.compile(r"\(\s*x\s*(\d{1,9})\s*\)", re.IGNORECASE)
_MEASURE = re.compile(r"Measure\s*:?\s*(\d{1,9}(?:\.\d{1,9})?)\s*sec", re.IGNORECASE)
_INTERVAL = re.compile(r"Interval\s*[:=]?\s*(\d{1,9}(?:\.\d{1,9})?)\s*sec", re.IGNORECASE)
_SIZE_FACTOR = {"mib": MiB, "gib": GiB, "mb": 10**6, "gb": 10**9}


@dataclass(frozen=True, slots=True)
class _Row:
    """One result line as printed, before its MB/s is known in bytes."""

    match: re.Match[str]
    direction: str
    line_no: int
    v6: bool


def _shape(row: _Row) -> tuple[bool, int, int, int]:
    """(random, block bytes, queue depth, threads) of a result line."""
    match, line_no = row.match, row.line_no
    random = match["kind"].lower() in ("rnd", "random")
    no_depth = match["q"] is None  # v5's 'Sequential Read (T= 1)'
    if match["size"] is None:
        if random or not row.v6:
            raise ParseError(f"line {line_no}: the test has no block size")
        block = V5_SEQ_Q1_BLOCK if no_depth else V6_SEQ_BLOCK
    elif no_depth:
        raise ParseError(f"line {line_no}: the test has no queue depth")
    else:
        block = int(match["size"]) * (MiB if match["unit"].upper() == "M" else KiB)
    depth, threads = (1 if no_depth else int(match["q"])), int(match["t"])
    if depth < 1 or threads < 1 or block < 1:
        raise ParseError(f"line {line_no}: queue depth, threads and block size must be above 0")
    return random, block, depth, threads


def _test(row: _Row, mb: int) -> ImportedTest:
    random, block, depth, threads = _shape(row)
    bw = printed_number(row.match["mb"], row.line_no, "MB/s")
    if bw is None:
        raise ParseError(f"line {row.line_no}: the result has no MB/s figure")
    lat_us = printed_number(row.match["lat"], row.line_no, "latency")
    return ImportedTest(
        label=QuickTest(
            Pattern.RND if random else Pattern.SEQ, block, depth, threads, Direction(row.direction)
        ).label,
        direction=row.direction,
        bw_bytes_per_s=bw * mb,
        iops=printed_number(row.match["iops"], row.line_no, "IOPS"),
        lat_mean_ns=None if lat_us is None else lat_us * 1000,
        block_bytes=block,
        random=random,
        queue_depth=depth,
        threads=threads,
    )


_NO_HEADER = "no 'CrystalDiskMark' or 'KDiskMark' header line"


def _detect(lines: list[str]) -> tuple[str, str | None, str | None] | None:
    """(tool, version, fio version) from the header; None when there is none."""
    header = "\n".join(lines[:40])
    # ssdlab's own CrystalDiskMark-layout export first: that of a KDiskMark import names
    # KDiskMark, but its MB/s are already 10^6 B/s
    if "ssdlab" in header.lower() and "crystaldiskmark" in header.lower():
        return "ssdlab", None, (fio[1] if (fio := _FIO_VERSION.search(header)) else None)
    if "kdiskmark" in header.lower():
        version = _KDM_VERSION.search(header)
        fio = _FIO_VERSION.search(header)
        return "kdiskmark", version[1] if version else None, fio[1] if fio else None
    if "crystaldiskmark" in header.lower():
        version = _CDM_VERSION.search(header)
        return "crystaldiskmark", version[1] if version else None, None
    return None


def _fits(mb: float, iops: float, block: int) -> tuple[bool, bool]:
    """(fits CrystalDiskMark, fits KDiskMark): whether the printed IOPS is the printed MB/s
    over the block size in that tool's MB. MB/s is printed to 3 decimals and IOPS to 1;
    KDiskMark's MB/s is fio's whole KiB/s ÷ 1000, which fio truncates (up to 1 KiB/s lost)."""
    slack = 1e-9 * iops + 0.05
    cdm = abs(mb * CDM_MB / block - iops) <= 0.0005 * CDM_MB / block + slack
    kdm_low = mb * KDM_MB / block
    kdm = kdm_low - slack <= iops <= kdm_low + (0.0005 * KDM_MB + KiB) / block + slack
    return cdm, kdm


def _headerless_tool(rows: list[_Row]) -> str:
    """The tool of a block pasted without its header, when every row says it alike."""
    tools = set()
    for row in rows:
        mb = printed_number(row.match["mb"], row.line_no, "MB/s")
        iops = printed_number(row.match["iops"], row.line_no, "IOPS")
        if mb is None or iops is None:
            raise ParseError(
                f"{_NO_HEADER}, and line {row.line_no} prints no IOPS to tell CrystalDiskMark's "
                "MB/s (10^6 bytes/s) from KDiskMark's (1,024,000 bytes/s); paste the text with "
                "its first lines"
            )
        cdm, kdm = _fits(mb, iops, _shape(row)[1])
        if cdm == kdm:
            why = "both" if cdm else "neither of"
            raise ParseError(
                f"{_NO_HEADER}, and line {row.line_no}'s MB/s and IOPS fit {why} "
                "CrystalDiskMark's MB/s (10^6 bytes/s) and KDiskMark's (1,024,000 bytes/s); "
                "paste the text with its first lines"
            )
        tools.add("crystaldiskmark" if cdm else "kdiskmark")
    if len(tools) > 1:
        raise ParseError(
            f"{_NO_HEADER}, and its rows disagree: some fit CrystalDiskMark's MB/s, others "
            "KDiskMark's; paste each result with its first lines"
        )
    return tools.pop()


def _semantics(
    tool: str, version: str | None, fio: str | None, v6: bool, headerless: bool
) -> tuple[str, ...]:
    told = (
        ("No header line: every row's IOPS and MB/s are this tool's (its MB per row fits).",)
        if headerless
        else ()
    )
    if tool == "kdiskmark":
        return (
            f"KDiskMark {version or '(version not given)'} on Linux, measured with {fio or 'fio'}.",
            *told,
            "Its Default profile shows the mean over the loops, Peak/Real/Demo the best loop.",
            "Its 'MB/s' is fio's KiB/s ÷ 1000 (1 'MB' = 1,024,000 bytes); converted to bytes/s "
            "here.",
            "Latency is fio's mean completion latency (clat), not total latency.",
            "A mix is the read/write-weighted average of the two directions, not their total; "
            "there is no warm-up pass.",
        )
    if tool == "ssdlab":
        return (
            "Text exported by ssdlab in CrystalDiskMark 8's layout: the best of the measured "
            "passes, measured with fio; MB/s = 10^6 bytes/s.",
        )
    sentences = [
        f"CrystalDiskMark {version or '(version not given)'} on Windows (DiskSpd engine).",
        *told,
        "Each figure is the best of N passes (highest MB/s and IOPS, lowest mean latency) "
        "after a discarded warm-up pass; MB/s = 10^6 bytes/s; IOPS are derived from MB/s.",
    ]
    if v6 and (version or "").startswith("5"):
        sentences.append("Version 5 reported no latency.")
    elif v6:
        sentences.append("Version 6 ran fixed 5-second passes and reported no latency.")
    else:
        sentences.append("Latency is DiskSpd's mean; before 7.0 Beta4 it was wrong except at Q1T1.")
    return tuple(sentences)


_BRACKETED = re.compile(r"\s*\[([^\]]+)\]\s*$")
_CDM_DRIVE = re.compile(r"\[\s*([A-Za-z]:\s*\d[^\]]*|/[^\]]*)\]")


def _target(fields: dict[str, str]) -> tuple[str | None, str | None]:
    """(where the test ran, the drive's model) from KDiskMark's Target line ('/ 41%
    (38/93GiB) [Samsung SSD 860 EVO 500GB]': the model only in the brackets), or from
    CrystalDiskMark's Test line ('1 GiB (x5) [C: 12% (56/476GiB)]': no model)."""
    target = fields.get("target")
    if target:
        model = _BRACKETED.search(target)
        if model is None:
            return target, None
        return target[: model.start()].strip() or None, model[1].strip() or None
    drive = _CDM_DRIVE.search(fields.get("test", ""))
    return (drive[1].strip(), None) if drive else (None, None)


def _rows(lines: list[str]) -> tuple[list[_Row], dict[str, str], int | None]:
    """The result lines, the footer fields and the mix's read share."""
    rows: list[_Row] = []
    fields: dict[str, str] = {}
    direction: str | None = None
    mix_read_pct: int | None = None
    for line_no, line in enumerate(lines, start=1):
        if not line or set(line) <= set("-=*_ "):
            continue
        block = _BLOCK.match(line)
        if block:
            direction = block[1].lower()
            if direction == "mix":
                mix = _MIX.search(block[2])
                mix_read_pct = int(mix[1]) if mix else None
            continue
        v6_match = _V6_LINE.match(line)
        if v6_match:
            rows.append(_Row(v6_match, v6_match["dir"].lower(), line_no, True))
            continue
        match = _LINE.match(line)
        if match:
            if direction is None:
                raise ParseError(
                    f"line {line_no}: a result before any [Read], [Write] or [Mix] line"
                )
            rows.append(_Row(match, direction, line_no, False))
            continue
        if _LOOKS_LIKE_RESULT.match(line):
            raise ParseError(
                f"line {line_no}: looks like a result but is not in a known layout: {line!r}"
            )
        field = _FIELD.match(line)
        if field and field[1].lower() not in fields:
            fields[field[1].lower()] = field[2].strip()
    return rows, fields, mix_read_pct


def parse_benchmark_text(text: str) -> ImportedBenchmark:
    """Parse a CrystalDiskMark (5–9) or KDiskMark text export, with or without its header."""
    lines = clean_lines(text)
    if not any(lines):
        raise ParseError("the text is empty")
    detected = _detect(lines)
    headerless = detected is None
    rows, fields, mix_read_pct = _rows(lines)
    if detected is None:
        if not rows:
            raise ParseError(
                f"not a CrystalDiskMark or KDiskMark text export: {_NO_HEADER} and no result "
                "lines (import takes their 'Save text'/copy output, AS SSD Benchmark's text, "
                "Iometer's results CSV, or fio JSON)"
            )
        detected = (_headerless_tool(rows), None, None)
    tool, version, fio = detected
    mb = KDM_MB if tool == "kdiskmark" else CDM_MB
    tests = [_test(row, mb) for row in rows]
    if not tests:
        raise ParseError(
            f"the {tool} export holds no result lines (expected lines such as "
            "'SEQ    1MiB (Q=  8, T= 1):  3500.123 MB/s [ 3338.0 IOPS] <  2394.50 us>')"
        )
    v6 = any(row.v6 for row in rows)
    test_line = fields.get("test", "")
    size = _SIZE.search(test_line)
    count = _COUNT.search(test_line)
    time_text = " ".join((fields.get("time", ""), test_line))
    measure = _MEASURE.search(time_text)
    interval = _INTERVAL.search(time_text)
    profile = fields.get("profile")
    mode = fields.get("mode")
    target, model = _target(fields)
    comment = fields.get("comment") or None
    return ImportedBenchmark(
        tool=tool,
        tool_version=version,
        profile=profile.split()[0] if profile else None,
        tests=tuple(tests),
        test_size_bytes=(round(float(size[1]) * _SIZE_FACTOR[size[2].lower()]) if size else None),
        count=int(count[1]) if count else None,
        measure_s=(
            float(measure[1])
            if measure
            else (5.0 if v6 and not (version or "").startswith("5") else None)
        ),
        interval_s=float(interval[1]) if interval else None,
        date=fields.get("date"),
        os=fields.get("os"),
        target=target,
        comment=comment,
        mix_read_pct=mix_read_pct,
        zero_fill=None if mode is None else "0fill" in mode.lower().replace(" ", ""),
        semantics=_semantics(tool, version, fio, v6, headerless),
        identity=ImportedIdentity(model=model or comment),
    )
