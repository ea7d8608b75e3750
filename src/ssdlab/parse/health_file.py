"""A saved health file of any accepted format -> health samples (``ssdlab health FILE``,
``health --import LOG``, ``wear A B``).

Formats, tried in this order (docs/health.md shows an example of each):

1. JSON: ``smartctl -j`` output (also a JSON array holding one such document, as inventory
   tools save it) or ``nvme smart-log -o json``;
2. smartd's attribute log (``smartd -A``: ``2024-05-01 12:00:01;	9;100;4854;	...``);
3. smartctl text: one report (``-a``/``-x``/``-A``, ATA, NVMe or SCSI/SAS, any version from
   5.4x) or a log of many, each after a date line or starting at smartctl's banner;
4. attribute lines grep'd from ``smartctl -A``, one cron tick after another, with a time before
   each tick (or each line), or none at all (then ``--interval`` or ``--elapsed`` times them), and
   ``uniq -c`` output of such a log;
5. CSV of attribute raw values (wide: a column per attribute ID; long: ``id`` and ``raw``
   columns), with or without a time column.

Anything else is refused with one line naming these formats.
"""

import json
from collections.abc import Sequence
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.health import HealthSample
from ssdlab.parse.attribute_csv import looks_like_attribute_csv, read_attribute_csv
from ssdlab.parse.attribute_log import looks_like_attribute_log, read_attribute_log
from ssdlab.parse.nvme_json import parse_nvme_smart_log
from ssdlab.parse.smart_vendors import VendorMap
from ssdlab.parse.smartctl_json import normalise_smartctl, parse_smartctl_json
from ssdlab.parse.smartctl_log import LogSnapshot, split_snapshot_log
from ssdlab.parse.smartd_attrlog import looks_like_smartd_attrlog, read_smartd_attrlog

ACCEPTED = (
    "smartctl -j JSON (or a JSON array of one), nvme-cli smart-log JSON, smartctl -a/-x/-A text "
    "(ATA, NVMe, SCSI/SAS; one report or a log of many after date lines), attribute lines "
    "grep'd from smartctl -A (times before the lines, or --interval/--elapsed), uniq -c of "
    "those, smartd attribute logs (smartd -A), CSV of attribute raw values with a header of "
    "attribute IDs (see docs/health.md)"
)


def read_health_text(
    text: str,
    *,
    name: str,
    vendor_map: VendorMap | None = None,
    model: str | None = None,
    interval_s: float | None = None,
    elapsed_s: float | None = None,
    end_s: float | None = None,
) -> list[HealthSample]:
    """The samples a saved health file holds, in file order.

    `name` names the file in messages; `interval_s` / `elapsed_s` time the readings of logs that
    carry no time, the last one at `end_s` (the file's modification time). Raises ParseError
    (one line) when the text is none of the accepted formats or is damaged.
    """
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return [_from_json(text, name, vendor_map, model)]
    timing = {"interval_s": interval_s, "elapsed_s": elapsed_s, "end_s": end_s}
    snapshots: Sequence[LogSnapshot]
    if looks_like_smartd_attrlog(text):
        snapshots = read_smartd_attrlog(text, model=model)
    elif looks_like_attribute_log(text):
        snapshots = read_attribute_log(text, model=model, **timing)
    else:
        try:
            snapshots = split_snapshot_log(text, model_override=model)
        except ParseError as error:
            if not str(error).startswith("no smartctl runs found"):
                raise
            if not looks_like_attribute_csv(text):
                raise ParseError(
                    f"{name}: no smartctl runs or attribute readings found; accepted: {ACCEPTED}"
                ) from None
            snapshots = read_attribute_csv(text, model=model, **timing)
    return [
        normalise_smartctl(
            s.doc, taken_at_s=s.taken_at_s, vendor_map=vendor_map, model_override=model
        )
        for s in snapshots
    ]


def _from_json(
    text: str, name: str, vendor_map: VendorMap | None, model: str | None
) -> HealthSample:
    try:
        doc: Any = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ParseError(f"{name} looks like JSON but is not valid JSON: {error}") from None
    if isinstance(doc, list):
        documents = [d for d in doc if isinstance(d, dict)]
        if len(documents) != 1 or len(doc) != 1:
            raise ParseError(
                f"{name} is a JSON array of {len(doc)} items; ssdlab reads one drive per file "
                "(an array holding one smartctl -j document, or the document itself)"
            )
        doc = documents[0]
        text = json.dumps(doc)
    if isinstance(doc, dict) and ("smartctl" in doc or "device" in doc):
        return parse_smartctl_json(text, vendor_map=vendor_map, model_override=model)
    return parse_nvme_smart_log(text)
