"""The rated endurance a life projection is held against: the one given on the command line
(`--tbw`, `--dwpd`, `--warranty-years`), else the one of the drive's spec sheet."""

import sqlite3

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.model.health import HealthSample


def given_rating(
    tbw_bytes: float | None, dwpd: float | None, warranty_years: float | None
) -> RatedEndurance | None:
    """The rating given on the command line; None when none of it was given."""
    if tbw_bytes is None and dwpd is None and warranty_years is None:
        return None
    return RatedEndurance(
        tbw_bytes=tbw_bytes, dwpd=dwpd, warranty_years=warranty_years, capacity_bytes=None
    )


def rating_of(
    conn: sqlite3.Connection, sample: HealthSample, given: RatedEndurance | None
) -> RatedEndurance | None:
    """`given`, else the rating of the sampled drive's spec sheet (None: neither)."""
    if given is not None:
        return given
    identity = sample.identity
    spec = match_spec(identity.model, identity.capacity_bytes, known_spec_sheets(conn))
    return rated_endurance(spec)
