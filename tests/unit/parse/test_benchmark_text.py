"""CrystalDiskMark 6–9 and KDiskMark text exports, written here by hand in the published
layouts (benchmarks.md §1.5, §2.6), as pasted into forums, and malformed."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark
from ssdlab.parse.benchmark_text import parse_benchmark_text

RULE = "-" * 78

CDM8 = f"""{RULE}
CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo
                                  Crystal Dew World: https://crystalmark.info/
{RULE}
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
  SEQ    1MiB (Q=  8, T= 1):  3500.123 MB/s [   3338.0 IOPS] <  2394.50 us>
  SEQ    1MiB (Q=  1, T= 1):  2100.456 MB/s [   2003.2 IOPS] <   498.91 us>
  RND    4KiB (Q= 32, T= 1):   650.789 MB/s [ 158884.0 IOPS] <   201.22 us>
  RND    4KiB (Q=  1, T= 1):    60.012 MB/s [  14651.4 IOPS] <    68.10 us>

[Write]
  SEQ    1MiB (Q=  8, T= 1):  2300.000 MB/s [   2193.5 IOPS] <  3640.10 us>
  SEQ    1MiB (Q=  1, T= 1):  2000.500 MB/s [   1907.8 IOPS] <   523.77 us>
  RND    4KiB (Q= 32, T= 1):   420.300 MB/s [ 102612.3 IOPS] <   311.52 us>
  RND    4KiB (Q=  1, T= 1):   150.250 MB/s [  36682.1 IOPS] <    27.15 us>

Profile: Default
   Test: 1 GiB (x5) [C: 12% (56/476GiB)]
   Mode: [Admin]
   Time: Measure 5 sec / Interval 5 sec
   Date: 2024/03/01 12:34:56
     OS: Windows 11 Professional 23H2 [10.0 Build 22631] (x64)
Comment: Samsung 970 EVO 500GB
"""

CDM9_NVME = f"""{RULE}
CrystalDiskMark 9.0.1 x64 (C) 2007-2025 hiyohiyo
                                  Crystal Dew World: https://crystalmark.info/
{RULE}
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
  SEQ    1MiB (Q=  8, T= 1):  7100.000 MB/s [   6771.0 IOPS] <  1180.40 us>
  SEQ  128KiB (Q= 32, T= 1):  6900.500 MB/s [  52647.3 IOPS] <   607.55 us>
  RND    4KiB (Q= 32, T=16):  3100.250 MB/s [ 756896.0 IOPS] <   675.10 us>
  RND    4KiB (Q=  1, T= 1):    90.100 MB/s [  21997.1 IOPS] <    45.35 us>

[Write]
  SEQ    1MiB (Q=  8, T= 1):  6300.000 MB/s [   6008.1 IOPS] <  1330.00 us>

[Mix] Read 70%/Write 30%
  SEQ    1MiB (Q=  8, T= 1):  5200.000 MB/s [   4959.1 IOPS] <  1611.20 us>
  RND    4KiB (Q=  1, T= 1):    70.000 MB/s [  17089.8 IOPS] <    58.40 us>

Profile: Default + Mix
   Test: 1 GiB (x3) [D: 0% (0/1863GiB)]
   Mode: [Admin] <0Fill>
   Time: Measure 5 sec / Interval 5 sec
   Date: 2025/06/02 08:00:00
     OS: Windows 11 Professional 24H2 [10.0 Build 26100] (x64)
"""

CDM7 = f"""{RULE}
CrystalDiskMark 7.0.0 x64 (C) 2007-2019 hiyohiyo
                                  Crystal Dew World: https://crystalmark.info/
{RULE}
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
Sequential 1MiB (Q=  8, T= 1):   560.123 MB/s [    534.2 IOPS] < 14949.10 us>
Sequential 1MiB (Q=  1, T= 1):   530.000 MB/s [    505.4 IOPS] <  1977.30 us>
    Random 4KiB (Q= 32, T=16):   380.500 MB/s [  92895.5 IOPS] <  5504.70 us>
    Random 4KiB (Q=  1, T= 1):    45.250 MB/s [  11047.4 IOPS] <    90.22 us>

[Write]
Sequential 1MiB (Q=  8, T= 1):   520.000 MB/s [    495.9 IOPS] < 16106.00 us>
    Random 4KiB (Q=  1, T= 1):   110.000 MB/s [  26855.5 IOPS] <    37.03 us>

Profile: Default
   Test: 1 GiB (x5) [Interval: 5 sec] <DefaultAffinity=DISABLED>
   Date: 2019/11/03 20:10:11
     OS: Windows 10 Professional [10.0 Build 18362] (x64)
"""

CDM6 = f"""{RULE[:71]}
CrystalDiskMark 6.0.2 x64 (C) 2007-2018 hiyohiyo
                          Crystal Dew World : https://crystalmark.info/
{RULE[:71]}
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

   Sequential Read (Q= 32,T= 1) :   561.270 MB/s
  Sequential Write (Q= 32,T= 1) :   528.893 MB/s
  Random Read 4KiB (Q=  8,T= 8) :   390.125 MB/s [  95245.4 IOPS]
 Random Write 4KiB (Q=  8,T= 8) :   355.004 MB/s [  86670.9 IOPS]
  Random Read 4KiB (Q= 32,T= 1) :   270.650 MB/s [  66076.7 IOPS]
 Random Write 4KiB (Q= 32,T= 1) :   250.111 MB/s [  61062.3 IOPS]
  Random Read 4KiB (Q=  1,T= 1) :    42.108 MB/s [  10280.3 IOPS]
 Random Write 4KiB (Q=  1,T= 1) :   110.700 MB/s [  27026.4 IOPS]

  Test : 1024 MiB [C: 35.1% (163.4/465.1 GiB)] (x5)  [Interval=5 sec]
  Date : 2018/05/20 10:11:12
    OS : Windows 10 Professional [10.0 Build 16299] (x64)
"""

KDM = """                      KDiskMark (3.1.4): https://github.com/JonMagon/KDiskMark
                  Flexible I/O Tester (fio-3.33): https://github.com/axboe/fio
--------------------------------------------------------------------------------
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
Sequential   1 MiB (Q=  8, T= 1):   508.897 MB/s [    497.0 IOPS] < 13840.05 us>
Sequential   1 MiB (Q=  1, T= 1):   474.111 MB/s [    463.0 IOPS] <  2157.82 us>
    Random   4 KiB (Q= 32, T= 1):   345.678 MB/s [  84393.0 IOPS] <   378.83 us>
    Random   4 KiB (Q=  1, T= 1):    38.225 MB/s [   9332.0 IOPS] <   106.71 us>

[Write]
Sequential   1 MiB (Q=  8, T= 1):   470.000 MB/s [    459.0 IOPS] < 17291.31 us>
    Random   4 KiB (Q=  1, T= 1):    95.500 MB/s [  23315.0 IOPS] <    41.88 us>

Profile: Default
   Test: 1 GiB (x5) [Measure: 5 sec / Interval: 5 sec]
   Date: 2024-02-11 18:05:33
     OS: debian 12 [linux 6.1.0-18-amd64]
 Target: / 41% (38/93GiB) [Samsung SSD 860 EVO 500GB]
"""


def cell(
    bench: ImportedBenchmark, label: str, direction: str
) -> tuple[float, float | None, float | None]:
    test = next(t for t in bench.tests if t.label == label and t.direction == direction)
    return test.bw_bytes_per_s, test.iops, test.lat_mean_ns


def test_cdm8_every_number_in_si_units() -> None:
    bench = parse_benchmark_text(CDM8)
    assert (bench.tool, bench.tool_version, bench.profile) == (
        "crystaldiskmark",
        "8.0.4",
        "Default",
    )
    assert len(bench.tests) == 8
    bw, iops, lat = cell(bench, "SEQ1M Q8T1", "read")
    assert bw == 3_500_123_000
    assert iops == 3338.0
    assert lat == 2_394_500
    assert cell(bench, "RND4K Q1T1", "write") == (150_250_000, 36682.1, 27_150)
    first = bench.tests[0]
    assert (first.block_bytes, first.random, first.queue_depth, first.threads) == (
        2**20,
        False,
        8,
        1,
    )
    assert bench.test_size_bytes == 2**30
    assert bench.count == 5
    assert (bench.measure_s, bench.interval_s) == (5.0, 5.0)
    assert bench.date == "2024/03/01 12:34:56"
    assert bench.os is not None
    assert "Windows 11" in bench.os
    assert bench.comment == "Samsung 970 EVO 500GB"
    assert bench.zero_fill is False
    assert any("best of N passes" in s for s in bench.semantics)


def test_cdm9_nvme_preset_mix_and_zero_fill() -> None:
    bench = parse_benchmark_text(CDM9_NVME)
    assert bench.tool_version == "9.0.1"
    assert bench.count == 3
    assert bench.zero_fill is True
    assert cell(bench, "SEQ128K Q32T1", "read")[0] == 6_900_500_000
    assert cell(bench, "RND4K Q32T16", "read")[1] == 756896.0
    assert cell(bench, "SEQ1M Q8T1", "mix")[0] == 5_200_000_000
    assert bench.mix_read_pct == 70
    assert bench.profile == "Default"


def test_cdm7_words_instead_of_seq_rnd() -> None:
    bench = parse_benchmark_text(CDM7)
    assert bench.tool_version == "7.0.0"
    assert bench.interval_s == 5.0
    assert bench.count == 5
    assert [t.label for t in bench.tests] == [
        "SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1", "SEQ1M Q8T1", "RND4K Q1T1",
    ]  # fmt: skip
    assert cell(bench, "RND4K Q32T16", "read") == (380_500_000, 92895.5, 5_504_700)


def test_cdm6_interleaved_lines_and_128k_sequential() -> None:
    bench = parse_benchmark_text(CDM6)
    assert bench.tool_version == "6.0.2"
    assert len(bench.tests) == 8
    seq = bench.tests[0]
    assert (seq.label, seq.direction, seq.block_bytes, seq.iops) == (
        "SEQ128K Q32T1",
        "read",
        131072,
        None,
    )
    assert bench.tests[1].direction == "write"
    assert bench.tests[1].bw_bytes_per_s == 528_893_000
    assert cell(bench, "RND4K Q8T8", "read") == (390_125_000, 95245.4, None)
    assert bench.test_size_bytes == 1024 * 2**20
    assert bench.count == 5
    assert bench.interval_s == 5.0
    assert bench.measure_s == 5.0  # v6 passes were a fixed 5 s
    assert any("no latency" in s for s in bench.semantics)


def test_kdiskmark_mb_is_1024000_bytes() -> None:
    bench = parse_benchmark_text(KDM)
    assert (bench.tool, bench.tool_version) == ("kdiskmark", "3.1.4")
    bw, iops, lat = cell(bench, "SEQ1M Q8T1", "read")
    assert math.isclose(bw, 508.897 * 1.024e6, rel_tol=1e-12)
    assert iops == 497.0
    assert lat is not None
    assert math.isclose(lat, 13_840_050, rel_tol=1e-12)
    # KDiskMark's Target line: the mount and its use, then the model in brackets
    assert bench.target == "/ 41% (38/93GiB)"
    assert bench.identity.model == "Samsung SSD 860 EVO 500GB"
    assert (bench.measure_s, bench.interval_s, bench.count) == (5.0, 5.0, 5)
    assert any("1,024,000" in s for s in bench.semantics)
    assert any("fio-3.33" in s for s in bench.semantics)
    assert any("clat" in s for s in bench.semantics)


def mangle(text: str) -> str:
    """What a forum does: separators gone, blank lines doubled, spaces squeezed or tabbed,
    CRLF, a BOM, quoted, fenced, the drive's name on a line of its own."""
    lines = []
    for i, line in enumerate(text.splitlines()):
        if set(line.strip()) <= {"-"} and line.strip():
            continue
        squeezed = " ".join(line.split())
        lines.append(("\t" if i % 3 == 0 else "") + squeezed)
        lines.append("")
    body = "\r\n".join(f"> {line}" for line in lines)
    return "\ufeffMy new drive, Samsung 970 EVO:\r\n```\r\n" + body + "\r\n```\r\nthoughts?\r\n"


@pytest.mark.parametrize(
    "text", [CDM6, CDM7, CDM8, CDM9_NVME, KDM], ids=["6", "7", "8", "9", "kdm"]
)
def test_forum_mangled_text_parses_the_same(text: str) -> None:
    clean = parse_benchmark_text(text)
    mangled = parse_benchmark_text(mangle(text))
    assert mangled.tests == clean.tests
    assert (mangled.count, mangled.test_size_bytes, mangled.tool_version) == (
        clean.count, clean.test_size_bytes, clean.tool_version,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("hello world\nthis is not a benchmark\n", "not a CrystalDiskMark or KDiskMark"),
        ('{"fio version": "fio-3.33", "jobs": []}', "not a CrystalDiskMark or KDiskMark"),
        (CDM8.split("[Read]")[0], "no result lines"),
        (CDM8.replace("3500.123", "35OO.123"), "line 9: the MB/s '35OO.123' is not a number"),
        (CDM8.replace("[ 158884.0 IOPS]", "[ 1588x84.0 IOPS]"), "IOPS"),
        (CDM8.replace("[Read]\n", ""), "before any [Read]"),
        (CDM8.replace("(Q=  8, T= 1):  3500.123", "(Q=  8 T= 1):  3500.123"), "known layout"),
    ],
)
def test_malformed_text_is_refused_clearly(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_benchmark_text(text)


@given(
    st.floats(0.001, 99999.999),
    st.floats(0.1, 9999999.9),
    st.floats(0.01, 999999.99),
    st.sampled_from([(1, 1), (8, 1), (32, 1), (32, 16), (1, 64)]),
)
def test_published_format_strings_round_trip(
    mb: float, iops: float, lat: float, shape: tuple[int, int]
) -> None:
    q, t = shape
    line = f"  RND    4KiB (Q={q:3d}, T={t:2d}): {mb:9.3f} MB/s [{iops:9.1f} IOPS] <{lat:9.2f} us>"
    text = f"CrystalDiskMark 8.0.4 x64\n[Write]\n{line}\n"
    (test,) = parse_benchmark_text(text).tests
    assert test.label == f"RND4K Q{q}T{t}"
    assert test.direction == "write"
    assert math.isclose(test.bw_bytes_per_s, round(mb, 3) * 1e6, rel_tol=1e-12)
    assert test.iops is not None
    assert math.isclose(test.iops, round(iops, 1), rel_tol=1e-12)
    assert test.lat_mean_ns is not None
    assert math.isclose(test.lat_mean_ns, round(lat, 2) * 1000, rel_tol=1e-12)


def test_ssdlab_cdm_export_parses_back() -> None:
    """The CrystalDiskMark-layout text ssdlab writes (golden file) is read back exactly."""
    from tests.conftest import ROOT

    bench = parse_benchmark_text((ROOT / "tests" / "golden" / "report" / "quick.txt").read_text())
    assert bench.tool == "ssdlab"
    assert bench.count == 2
    assert bench.test_size_bytes == 2**30
    assert [(t.label, t.direction) for t in bench.tests] == [
        ("RND4K Q32T1", "read"),
        ("SEQ1M Q1T1", "write"),
        ("RND4K Q32T1", "mix"),
    ]
    assert cell(bench, "SEQ1M Q1T1", "write") == (3_050_403_000, 2909.1, 2_641_170)
    assert bench.mix_read_pct == 70
    assert bench.zero_fill is False


# Regressions found by the benchmark corpus (tests/corpus/bench/)

CDM5 = """    CrystalDiskMark 5.1.0 x64 (C) 2007-2015 hiyohiyo
    Sequential Read (Q= 32,T= 1)   :   554.872 MB/s
    Sequential Write (Q= 32,T= 1)  :   500.100 MB/s
    Random Read 4KiB (Q= 32,T= 1)  :   281.610 MB/s [ 68752.4 IOPS]
    Random Write 4KiB (Q= 32,T= 1) :   237.549 MB/s [ 57995.4 IOPS]
    Sequential Read (T= 1)         :   532.327 MB/s
    Sequential Write (T= 1)        :   486.142 MB/s
    Random Read 4KiB (Q= 1,T= 1)   :    39.854 MB/s [  9730.0 IOPS]
    Random Write 4KiB (Q= 1,T= 1)  :   106.855 MB/s [ 26087.6 IOPS]
"""


def test_cdm5_sequential_without_queue_depth_is_1mib_q1t1() -> None:
    """cdm5.1.0_*.txt: CrystalDiskMark 5's 'Seq' test prints '(T= 1)' and no queue depth."""
    bench = parse_benchmark_text(CDM5)
    shapes = {(t.direction, t.block_bytes, t.queue_depth, t.threads) for t in bench.tests}
    assert ("read", 2**20, 1, 1) in shapes
    assert ("write", 2**20, 1, 1) in shapes
    assert ("read", 128 * 1024, 32, 1) in shapes
    seq_q1 = next(t for t in bench.tests if t.block_bytes == 2**20 and t.direction == "read")
    assert seq_q1.bw_bytes_per_s == pytest.approx(532.327e6)
    assert bench.tool_version == "5.1.0"
    assert bench.measure_s is None  # version 5's pass length is not in the text
    assert not any("Version 6" in s for s in bench.semantics)


def test_sized_line_without_queue_depth_is_refused() -> None:
    text = CDM5.replace("Random Read 4KiB (Q= 1,T= 1)", "Random Read 4KiB (T= 1)")
    with pytest.raises(ParseError, match="line 8"):
        parse_benchmark_text(text)


def test_results_kept_in_source_comments_import() -> None:
    """cdm6.0.2_in-code-comment.txt: a result quoted with '// ' as in source code."""
    text = "\n".join("// " + line for line in CDM5.splitlines())
    assert len(parse_benchmark_text(text).tests) == 8


def test_ssdlab_cdm_export_of_a_kdiskmark_import_is_not_kdiskmark() -> None:
    """kdiskmark*.txt: the CDM-layout export names KDiskMark as the source, but its MB/s are
    10^6 B/s already; read as KDiskMark it came back 2.4 % higher."""
    text = f"""{RULE}
ssdlab 0.1.0 import of KDiskMark 3.0.0, CrystalDiskMark 8 text layout
{RULE}
[Read]
  SEQ    1MiB (Q=  8, T= 1):   521.110 MB/s [    497.0 IOPS] < 13840.05 us>
"""
    bench = parse_benchmark_text(text)
    assert bench.tool == "ssdlab"
    assert bench.tests[0].bw_bytes_per_s == pytest.approx(521.110e6)


# Blocks pasted without their header, and the drive each export names


def without_header(text: str) -> str:
    """The result block alone: from the first [Read] line on, footer left out."""
    body = text[text.index("[Read]") :]
    return body[: body.index("Profile:")]


def test_a_headerless_crystaldiskmark_block_is_told_by_its_rows() -> None:
    """Every CrystalDiskMark row's IOPS is its MB/s × 10^6 ÷ block size; KDiskMark's is
    × 1,024,000: the rows tell the tool, and the figures are those of the full export."""
    bench = parse_benchmark_text(without_header(CDM8))
    assert bench.tool == "crystaldiskmark"
    assert bench.tool_version is None
    assert bench.tests == parse_benchmark_text(CDM8).tests
    assert any("No header line" in s for s in bench.semantics)


def test_a_headerless_kdiskmark_block_is_told_by_its_rows() -> None:
    """A real KDiskMark report (its README's example; the KDM sample above is made up and its
    IOPS do not follow from its MB/s)."""
    from tests.conftest import ROOT

    path = ROOT / "tests" / "corpus" / "bench" / "kdiskmark3.0.0_fio-3.30_readme.txt"
    full = path.read_text(encoding="utf-8")
    bench = parse_benchmark_text(without_header(full))
    assert bench.tool == "kdiskmark"
    assert bench.tests == parse_benchmark_text(full).tests


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # a row without IOPS cannot say whose MB it is
        (lambda t: t.replace(" [   3338.0 IOPS]", ""), "line 2 prints no IOPS"),
        # a tiny row fits both tools' MB
        (
            lambda t: t.replace("60.012 MB/s [  14651.4 IOPS]", " 0.000 MB/s [      0.0 IOPS]"),
            "fit both",
        ),
        # a row whose IOPS is neither tool's
        (lambda t: t.replace("[   3338.0 IOPS]", "[   3000.0 IOPS]"), "fit neither"),
        # rows of both tools in one block
        (lambda t: t.replace("[   3338.0 IOPS]", "[   3418.1 IOPS]"), "rows disagree"),
    ],
)
def test_a_headerless_block_that_does_not_say_its_tool_is_refused(
    change: object, message: str
) -> None:
    text = change(without_header(CDM8))  # type: ignore[operator]
    with pytest.raises(ParseError, match=message) as refused:
        parse_benchmark_text(text)
    assert "header" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_kdiskmark_target_without_a_model_names_no_model() -> None:
    """kdiskmark3.2.0_fio-3.39_target.txt: 'Target: / 4% (31.72/748.08 GiB)' is a mount, and
    was stored as the drive's model."""
    bench = parse_benchmark_text(KDM.replace(" [Samsung SSD 860 EVO 500GB]", ""))
    assert bench.target == "/ 41% (38/93GiB)"
    assert bench.identity.model is None


def test_crystaldiskmark_names_the_drive_letter_and_the_comment_the_model() -> None:
    bench = parse_benchmark_text(CDM8)
    assert bench.target == "C: 12% (56/476GiB)"
    assert bench.identity.model == "Samsung 970 EVO 500GB"  # its Comment line
    assert parse_benchmark_text(CDM9_NVME).identity.model is None  # no Comment
