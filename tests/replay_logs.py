"""Health snapshot logs for endurance tests, made from the MX500 cron fixture.

The first snapshot of `tests/data/smart-text/cron-mx500-date-A.log` (smartctl 7.x text layout,
see that folder's README) is repeated once an hour with the counters an endurance run moves:
host LBAs written, NAND program pages, the average erase count, the wear indicator (attribute
202, with its normalised value), the temperature and the uncorrectable-error count. The logs
are replayed by `ssdlab endure --health-replay`, labelled as a replay, through the same parser
as live smartctl output.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

SOURCE = ROOT / "tests" / "data" / "smart-text" / "cron-mx500-date-A.log"
HOUR_S = 3600
START_HOUR = 12  # the fixture's first snapshot: Wed May  1 12:00:01 UTC 2024
LBA_BYTES = 512
PAGE_BYTES = 16384  # MX500 247/248 program pages (calibrated by ssdlab from 246)


@dataclass(frozen=True)
class Snapshot:
    wear_pct: int
    host_lbas: int
    host_pages: int
    ftl_pages: int
    erase_avg: int
    temperature_c: int = 35
    uncorrectable: int = 0


def first_snapshot_text() -> str:
    text = SOURCE.read_text(encoding="utf-8")
    second = text.index("Wed May  1 13:00:01 UTC 2024")
    return text[:second]


def _attribute(text: str, attr_id: int, raw: str, norm: int | None = None) -> str:
    pattern = re.compile(rf"^(\s*{attr_id} \S+\s+0x[0-9a-f]+\s+)(\d+)(.*?-\s+)(.*)$", re.M)
    match = pattern.search(text)
    assert match, f"attribute {attr_id} not in the fixture"
    value = match.group(2) if norm is None else f"{norm:03d}"
    line = f"{match.group(1)}{value}{match.group(3)}{raw}"
    return text[: match.start()] + line + text[match.end() :]


def render_snapshot(base: str, hour: int, snap: Snapshot) -> str:
    day, clock = 1 + hour // 24, hour % 24
    text = base.replace(
        "Wed May  1 12:00:01 UTC 2024", f"Wed May {day:2d} {clock:02d}:00:01 UTC 2024"
    )
    text = text.replace(
        "Local Time is:    Wed May  1 12:00:01 2024 UTC",
        f"Local Time is:    Wed May {day:2d} {clock:02d}:00:01 2024 UTC",
    )
    text = _attribute(text, 202, str(snap.wear_pct), 100 - snap.wear_pct)
    text = _attribute(text, 246, str(snap.host_lbas))
    text = _attribute(text, 247, str(snap.host_pages))
    text = _attribute(text, 248, str(snap.ftl_pages))
    text = _attribute(text, 173, str(snap.erase_avg))
    text = _attribute(text, 194, f"{snap.temperature_c} (Min/Max 27/{snap.temperature_c})")
    return _attribute(text, 187, str(snap.uncorrectable))


def wear_series(hours: int, *, wear_from: int = 5, waf: float = 3.0) -> list[Snapshot]:
    """One point of wear an hour; 100 GB of host writes an hour at the given WAF."""
    snaps = []
    for h in range(hours):
        host_bytes = 24587123456 * LBA_BYTES + h * 100 * 10**9
        host_pages = host_bytes // PAGE_BYTES
        nand_pages = int(host_pages * waf)
        snaps.append(
            Snapshot(
                wear_pct=wear_from + h,
                host_lbas=host_bytes // LBA_BYTES,
                host_pages=host_pages,
                ftl_pages=nand_pages - host_pages,
                erase_avg=77 + 15 * h,
            )
        )
    return snaps


def write_log(path: Path, snapshots: Sequence[Snapshot]) -> Path:
    base = first_snapshot_text()
    path.write_text(
        "".join(render_snapshot(base, START_HOUR + i, s) for i, s in enumerate(snapshots)),
        encoding="utf-8",
    )
    return path
