"""Which spec sheet describes a drive: matched on the model string the drive reports; and the
endurance rating a sheet gives the life projection."""

import re
from collections.abc import Sequence

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.model.spec import SpecSheet


def _normal(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text).lower()


def match_spec(
    model_name: str | None, capacity_bytes: int | None, specs: Sequence[SpecSheet]
) -> SpecSheet | None:
    """The one sheet whose part numbers include the drive's model string (case, spaces,
    '-' and '_' ignored); with several, the one whose capacity is within 2 % of the drive's.
    Ambiguous or unknown: None — a wrong sheet would be worse than none."""
    if not model_name or not model_name.strip():
        return None
    wanted = _normal(model_name)
    found = [s for s in specs if any(_normal(p) == wanted for p in (*s.part_numbers, s.key))]
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
