"""OCP log pages for the tests: the real C0h outputs of tests/data/nvme-ocp (README.md there)
and a C3h page composed at the offsets of nvme-cli's ``struct ssd_latency_monitor_log``
(plugins/ocp/ocp-nvme.h, nvme-cli e117ee68) with the JSON nvme-cli's ``json_c3_log``
(ocp-print-json.c, same commit) prints for it. No real C3h output was found; the values are
chosen so a misplaced field shows, and the stamp is nvme-cli's own time test
(shared/tests/test-time-util.c: 1704165845678 ms is "2024-01-02D|03:24:05:678")."""

from pathlib import Path
from typing import Any

OCP = Path(__file__).resolve().parent / "data" / "nvme-ocp"
C0_OUTPUTS = (OCP / "autoval-c0-v1-keys.json", OCP / "qemu-ocp-c0-nvme-cli-2.16.json")
C0_PAGES = (OCP / "autoval-c0-composed.bin", OCP / "qemu-ocp-c0-composed.bin")

GUID = bytes([0x92, 0x7A, 0xC0, 0x8C, 0xD0, 0x84, 0x6C, 0x9C,
              0x70, 0x43, 0xE6, 0xD4, 0x58, 0x5E, 0xD4, 0x85])  # lat_mon_guid  # fmt: skip
STAMP_MS = 1_704_165_845_678  # test-time-util.c
STAMP_TEXT = "2024-01-02D|03:24:05:678"
NO_STAMP = 2**64 - 1
C0_GUID_TEXT = "AFD514C97C6F4F9CA4F2BFEA2810AFC5"  # the C0h GUID: a page of the wrong log
OPERATIONS = ("Trim", "Write", "Read")  # json_c3_log's operation[j], j = 0, 1, 2


def c3_count(bucket: int, j: int, static: bool) -> int:
    """A distinct count per bucket, command and half, so a misplaced field shows."""
    return 1000 * bucket + 10 * (j + 1) + (5 if static else 0)


def c3_latency_ms(bucket: int, j: int) -> int:
    return 0 if (bucket, j) == (3, 0) else 20 + 3 * bucket + j  # one invalid (0000h)


def c3_stamp(bucket: int, j: int) -> int:
    return NO_STAMP if (bucket, j) == (2, 1) else STAMP_MS + 1000 * bucket + j


def compose_c3_page(version: int = 4) -> bytes:
    """The page at ssd_latency_monitor_log's offsets: counters [bucket][1 + j], stamps and
    measured latencies [3 - bucket][j]."""
    page = bytearray(512)
    page[0] = 0x07  # feature status: enabled, mode 1, measured latency supported
    page[2:4] = (12).to_bytes(2, "little")  # active bucket timer: 12 x 5 min
    page[4:6] = (0x0100).to_bytes(2, "little")  # its threshold: 256 x 5 min
    page[6:10] = bytes([0x00, 0x01, 0x12, 0xFF])  # thresholds A-D
    page[10:12] = (0x0FFF).to_bytes(2, "little")  # active latency configuration
    page[12] = 0x0A  # minimum window: 10 x 100 ms
    for static, counters, stamps, latencies, units in (
        (False, 0x20, 0x60, 0xC0, 0xD8),
        (True, 0xF0, 0x130, 0x190, 0x1A8),
    ):
        for b in range(4):
            for j in range(3):
                at = counters + 16 * b + 4 * (j + 1)
                page[at : at + 4] = c3_count(b, j, static).to_bytes(4, "little")
                at = stamps + 24 * (3 - b) + 8 * j
                page[at : at + 8] = c3_stamp(b, j).to_bytes(8, "little")
                at = latencies + 6 * (3 - b) + 2 * j
                page[at : at + 2] = c3_latency_ms(b, j).to_bytes(2, "little")
        page[units : units + 2] = (0x0FFF).to_bytes(2, "little")
    page[0x1EE:0x1F0] = version.to_bytes(2, "little")
    page[0x1F0:0x200] = GUID
    return bytes(page)


def _stamp_text(value: int) -> str:
    if value == NO_STAMP:
        return "NA"
    if value == STAMP_MS:
        return STAMP_TEXT
    seconds = (value - STAMP_MS) // 1000
    return f"2024-01-02D|03:24:{5 + seconds:02d}:{678 + (value - STAMP_MS) % 1000:03d}"


def c3_json(page: bytes) -> dict[str, Any]:
    """What json_c3_log prints for `page` (the fields ssdlab reads)."""
    le = lambda at, n: int.from_bytes(page[at : at + n], "little")  # noqa: E731
    doc: dict[str, Any] = {
        "Feature Status": page[0],
        "Active Bucket Timer": 5 * le(2, 2),
        "Active Bucket Timer Threshold": 5 * le(4, 2),
        **{f"Active Threshold {x}": 5 * (page[6 + k] + 1) for k, x in enumerate("ABCD")},
        "Active Latency Configuration": le(10, 2),
        "Active Latency Minimum Window": 100 * page[12],
    }
    for half, counters, stamps, latencies, units in (
        ("Active", 0x20, 0x60, 0xC0, 0xD8),
        ("Static", 0xF0, 0x130, 0x190, 0x1A8),
    ):
        for i in range(4):
            doc[f"{half} Bucket Counter: Bucket {i}"] = {
                OPERATIONS[j]: le(counters + 16 * i + 4 * (j + 1), 4) for j in (2, 1, 0)
            }
        for i in range(4):
            doc[f"{half} Latency Time Stamp: Bucket {i}"] = {
                OPERATIONS[j]: _stamp_text(le(stamps + 24 * (3 - i) + 8 * j, 8)) for j in (2, 1, 0)
            }
        for i in range(4):
            doc[f"{half} Measured Latency: Bucket {i}"] = {
                OPERATIONS[j]: le(latencies + 6 * (3 - i) + 2 * j, 2) for j in (2, 1, 0)
            }
        doc[f"{half} Latency Stamp Units"] = le(units, 2)
    doc["Log Page Version"] = le(0x1EE, 2)
    doc["Log Page GUID"] = page[0x1F0:0x200][::-1].hex().upper()
    return doc


C3_ACTIVE_COUNTERS = 0x20
C3_OPERATION_INDEX = {"trim": 0, "write": 1, "read": 2}  # j in the page's [bucket][1 + j]


def compose_c3_counts(
    deltas: dict[tuple[int, str], int] | None = None,
    *,
    timer: int = 12,
    thresholds: tuple[int, int, int, int] = (0x00, 0x01, 0x12, 0xFF),
    version: int = 4,
    enabled: bool = True,
    counts: dict[tuple[int, str], int] | None = None,
) -> bytes:
    """compose_c3_page with the active counters of (bucket, operation) raised by `deltas` (or
    set to `counts`), the Active Bucket Timer (5-minute units) and thresholds A-D (raw bytes:
    (value + 1) x 5 ms) chosen: the "after" page of a run whose "before" page is the same call
    without deltas."""
    page = bytearray(compose_c3_page(version))
    page[0] = 0x07 if enabled else 0x06
    page[2:4] = timer.to_bytes(2, "little")
    page[6:10] = bytes(thresholds)
    for changes, add in ((deltas or {}, True), (counts or {}, False)):
        for (bucket, operation), value in changes.items():
            j = C3_OPERATION_INDEX[operation]
            at = C3_ACTIVE_COUNTERS + 16 * bucket + 4 * (j + 1)
            base = int.from_bytes(page[at : at + 4], "little") if add else 0
            page[at : at + 4] = (base + value).to_bytes(4, "little")
    return bytes(page)
