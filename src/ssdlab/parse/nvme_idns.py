"""`nvme id-ns DEV -o json` (nvme-cli 1.x and 2.x): the LBA formats a namespace offers.

Each entry of `lbafs` has `ms` (metadata bytes per block), `ds` (data size as a power of two:
9 = 512 B, 12 = 4096 B) and `rp` (relative performance: 0 best … 3 degraded). The format in
use is FLBAS bits 0–3, extended by bits 5–6 when more than 16 formats exist (NVMe 2.0).
"""

import json
from typing import Any

from ssdlab.errors import ParseError


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(f"nvme id-ns JSON: {where} is not a whole number ({value!r})")
    return value


def parse_lba_formats(text: str) -> tuple[list[dict[str, Any]], int | None]:
    """([{index, data_bytes, metadata_bytes, relative_performance}], index in use or None)."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError; int too long; nesting
        raise ParseError(
            f"nvme id-ns output is not JSON: {error or 'nested too deeply'}"
        ) from error
    if not isinstance(document, dict):
        raise ParseError("nvme id-ns JSON is not an object")
    entries = document.get("lbafs")
    if not isinstance(entries, list):
        raise ParseError("nvme id-ns JSON has no lbafs list")
    formats = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ParseError(f"nvme id-ns JSON: lbafs[{index}] is not an object")
        ds = _int(entry.get("ds"), f"lbafs[{index}].ds")
        if ds == 0:
            continue  # an unused slot
        if not 9 <= ds <= 31:
            raise ParseError(f"nvme id-ns JSON: lbafs[{index}].ds = {ds} is not a block size")
        rp = entry.get("rp")
        formats.append(
            {
                "index": index,
                "data_bytes": 2**ds,
                "metadata_bytes": _int(entry.get("ms", 0), f"lbafs[{index}].ms"),
                "relative_performance": None if rp is None else _int(rp, f"lbafs[{index}].rp"),
            }
        )
    flbas = document.get("flbas")
    in_use = None
    if flbas is not None:
        value = _int(flbas, "flbas")
        in_use = (value & 0xF) | (((value >> 5) & 0x3) << 4 if len(entries) > 16 else 0)
    return formats, in_use
