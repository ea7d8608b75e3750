"""AS SSD Benchmark's text export (tests/corpus/bench/asssd*, published by others) -> the
figures the exports state, in bytes/s and ns. The unit of its MB/s is read from two exports of
one run: its MB/s view and its IOPS view."""

import re

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark
from ssdlab.model.units import GiB, MiB
from ssdlab.parse.asssd_text import is_asssd_text, parse_asssd_text
from tests.conftest import ROOT

BENCH = ROOT / "tests" / "corpus" / "bench"
MBS = (BENCH / "asssd2.0.7316_nvme-redacted_mbs.txt").read_text(encoding="utf-8")
IOPS = (BENCH / "asssd2.0.7316_nvme-redacted_iops.txt").read_text(encoding="utf-8")
EVO = (BENCH / "asssd2.0.7316_samsung-970-evo-plus-250gb.txt").read_text(encoding="utf-8")
HDD = (BENCH / "asssd2.0.7316_wdc-wd20ears-hdd_4k-not-run.txt").read_text(encoding="utf-8")


def figure(text: str, section: str, what: str) -> float:
    """A figure as the export prints it, read with a regex."""
    block = text[text.index(section) :]
    return float(re.search(rf"^{what}: ([\d.]+)", block, re.MULTILINE)[1])  # type: ignore[index]


def cell(bench: ImportedBenchmark, key: str) -> tuple[float, float | None, float | None]:
    found = next(t for t in bench.tests if t.key == key)
    return found.bw_bytes_per_s, found.iops, found.lat_mean_ns


def test_the_mb_of_as_ssd_is_a_mebibyte() -> None:
    """One run, two views: 2468.65 MB/s is 154.29 iops of 16 MB and 60.63 MB/s 15521 iops
    of 4K only when MB = 2^20 bytes (10^6 would give 147.1 and 14802)."""
    seq_mb, seq_iops = figure(MBS, "Sequential:", "Read"), figure(IOPS, "16MB", "Read")
    k4_mb, k4_iops = figure(MBS, "4K:", "Read"), figure(IOPS, "4K:", "Read")
    assert seq_mb * MiB / (16 * MiB) == pytest.approx(seq_iops, abs=0.005)
    assert k4_mb * MiB / 4096 == pytest.approx(k4_iops, abs=0.5 * MiB / 4096 * 0.01 + 0.5)
    mbs, iops = parse_asssd_text(MBS), parse_asssd_text(IOPS)
    for key in ("asssd-seq-read", "asssd-4k-read", "asssd-4k-64thrd-write"):
        assert cell(mbs, key)[0] == pytest.approx(cell(iops, key)[0], rel=2e-4)
    assert cell(mbs, "asssd-seq-read")[0] == 2468.65 * MiB
    assert cell(iops, "asssd-seq-read") == (154.29 * 16 * MiB, 154.29, None)


def test_access_time_is_latency_and_its_iops_view_one_over_it() -> None:
    """0.098 ms read access time; the IOPS view shows 10204 iops under '512B' (1 ÷ 0.098 ms)."""
    _bw, iops, lat = cell(parse_asssd_text(MBS), "asssd-acc-time-read")
    assert lat == pytest.approx(98_000)
    assert iops == pytest.approx(1e9 / 98_000)
    bw, iops, lat = cell(parse_asssd_text(IOPS), "asssd-acc-time-read")
    assert iops == 10204
    assert lat == pytest.approx(1e9 / 10204)
    assert bw == 10204 * 512
    assert lat == pytest.approx(98_000, rel=0.005)  # the MB/s view's 0.098 ms, to its digits


def test_the_drive_is_named_by_the_export() -> None:
    bench = parse_asssd_text(EVO)
    assert bench.identity.model == "Samsung SSD 970 EVO Plus 250GB"
    assert bench.identity.firmware == "1B2QEXM7"
    assert bench.identity.transport == "nvme"  # stornvme, Microsoft's NVMe driver
    # 232.88 'GB' is GiB: 250,059,350,016 bytes is 232.888 GiB
    assert bench.identity.capacity_bytes == round(232.88 * GiB)
    assert bench.identity.serial is None
    assert bench.date == "2024/11/28 14:18:03"
    assert bench.details["partition_offset_bytes"] == 233472 * 1024
    assert bench.details["partition_aligned"] is True
    assert bench.details["score"] == {"read": 1126.0, "write": 1368.0, "total": 3046.0}
    assert parse_asssd_text(MBS).identity.transport is None  # iaStorVD: Intel RST, SATA or NVMe
    assert parse_asssd_text(HDD).identity.transport == "sata"  # storahci


def test_tests_printed_as_zero_did_not_run() -> None:
    """The WD20EARS export prints 0.00 MB/s for 4K and 4K-64Thrd (not run) and no Score."""
    bench = parse_asssd_text(HDD)
    assert {t.key for t in bench.tests} == {
        "asssd-seq-read", "asssd-seq-write", "asssd-acc-time-read", "asssd-acc-time-write",
    }  # fmt: skip
    assert bench.details["not_run"] == ["4K read", "4K write", "4K-64Thrd read", "4K-64Thrd write"]
    assert "score" not in bench.details


def test_every_test_of_the_export_and_its_shape() -> None:
    bench = parse_asssd_text(EVO)
    shapes = {
        t.key: (t.label, t.direction, t.block_bytes, t.random, t.threads) for t in bench.tests
    }
    assert shapes["asssd-seq-write"] == ("Seq", "write", 16 * MiB, False, None)
    assert shapes["asssd-4k-64thrd-read"] == ("4K-64Thrd", "read", 4096, True, 64)
    assert len(bench.tests) == 8
    assert all(t.queue_depth is None for t in bench.tests)  # the export does not state it


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello", "no 'AS SSD Benchmark' line"),
        (EVO + "\n" + EVO, "holds 2 AS SSD Benchmark results"),
        (EVO.replace("Read: 49.57 MB/s", "Read: 4x.57 MB/s"), "line 17: not a figure"),
        (EVO.replace("Read: 49.57 MB/s", "Read: 49.57 GB/s"), "line 17: not a figure"),
        (EVO.replace("Read: 49.57 MB/s", "Read: 49.57 ms"), "in 'ms'"),
        (EVO.replace("Sequential:", "Sequenzielle:"), "a figure before any test"),
        (EVO.split("Sequential:")[0], "holds no result"),
        (EVO.replace("Write: 89.19 MB/s", "Read: 89.19 MB/s"), "a second 4K read"),
        (EVO.replace("Read: 1126", "Total: 1126").replace("Read: 49.57", "Total: 49.57"), "Total"),
    ],
)
def test_malformed_exports_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as refused:
        parse_asssd_text(text)
    assert "\n" not in str(refused.value)


def test_a_quoted_export_reads_the_same() -> None:
    quoted = "".join(f"> {line}" for line in EVO.replace("\n", "\r\n").splitlines(True))
    assert is_asssd_text(quoted)
    assert parse_asssd_text(quoted).tests == parse_asssd_text(EVO).tests
