"""Which spec sheet describes a drive: matched on the model string the drive reports; and the
endurance rating a sheet gives the life projection."""

import re
from collections.abc import Sequence

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.model.spec import SpecSheet


def _normal(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text).lower()


def _marketing_names(spec: SpecSheet) -> tuple[str, ...]:
    """'Samsung 970 EVO 500GB' for a sheet of vendor Samsung, model 970 EVO, 500 GB: how people
    name a drive where no tool reported its model (a CrystalDiskMark Comment line)."""
    names = []
    for unit, size in (("GB", 10**9), ("TB", 10**12)):
        if spec.capacity_bytes % size == 0:
            names.append(f"{spec.vendor} {spec.model} {spec.capacity_bytes // size}{unit}")
    return tuple(names)


def match_spec(
    model_name: str | None, capacity_bytes: int | None, specs: Sequence[SpecSheet]
) -> SpecSheet | None:
    """The one sheet whose part numbers (or key, or vendor, model and capacity as a name)
    are the drive's model string (case, spaces, '-' and '_' ignored); with several, the one
    whose capacity is within 2 % of the drive's. Ambiguous or unknown: None — a wrong sheet
    would be worse than none."""
    if not model_name or not model_name.strip():
        return None
    wanted = _normal(model_name)
    # a part number (or key) is the stronger name: the marketing name only when none is
    found = [s for s in specs if any(_normal(p) == wanted for p in (*s.part_numbers, s.key))]
    if not found:
        found = [s for s in specs if any(_normal(p) == wanted for p in _marketing_names(s))]
    if len(found) > 1 and capacity_bytes is not None:
        found = [
            s for s in found if abs(s.capacity_bytes - capacity_bytes) <= 0.02 * s.capacity_bytes
        ]
    return found[0] if len(found) == 1 else None


def rated_endurance(spec: SpecSheet | None) -> RatedEndurance | None:
    """The spec sheet's rating, for the life projection (None: no sheet, or it rates none)."""
    if spec is None or (spec.tbw_bytes is None and spec.dwpd is None):
        return None
    return RatedEndurance(
        tbw_bytes=spec.tbw_bytes,
        dwpd=spec.dwpd,
        warranty_years=spec.warranty_years,
        capacity_bytes=spec.capacity_bytes,
    )
