"""The rated endurance a life projection of `health` and `wear` uses: the one given on the
command line (--tbw, --dwpd, --warranty-years), else the one of the drive's spec sheet."""

import sqlite3
from dataclasses import dataclass

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.model.health import HealthSample


@dataclass(frozen=True, slots=True)
class GivenRating:
    """The rating given on the command line; all None: the drive's spec sheet decides."""

    tbw_bytes: float | None = None
    dwpd: float | None = None
    warranty_years: float | None = None


def rating_for(
    conn: sqlite3.Connection, given: GivenRating, sample: HealthSample
) -> RatedEndurance | None:
    """The rating given, else the one of the spec sheet of the drive `sample` names."""
    if given.tbw_bytes is None and given.dwpd is None and given.warranty_years is None:
        identity = sample.identity
        spec = match_spec(identity.model, identity.capacity_bytes, known_spec_sheets(conn))
        return rated_endurance(spec)
    return RatedEndurance(
        tbw_bytes=given.tbw_bytes,
        dwpd=given.dwpd,
        warranty_years=given.warranty_years,
        capacity_bytes=None,
    )
