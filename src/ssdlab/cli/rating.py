"""The rated endurance a life projection uses: the one given on the command line, else the
one of the drive's spec sheet."""

import argparse
import sqlite3

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.spec_match import match_spec
from ssdlab.app.ratings import known_spec_sheets
from ssdlab.app.ratings import rated_endurance as rated_endurance
from ssdlab.model.health import HealthSample


def rated_from_args(
    args: argparse.Namespace, conn: sqlite3.Connection, sample: HealthSample
) -> RatedEndurance | None:
    """The rating given on the command line, else the one of the drive's spec sheet."""
    if args.tbw is None and args.dwpd is None and args.warranty_years is None:
        identity = sample.identity
        spec = match_spec(identity.model, identity.capacity_bytes, known_spec_sheets(conn))
        return rated_endurance(spec)
    return RatedEndurance(
        tbw_bytes=args.tbw, dwpd=args.dwpd, warranty_years=args.warranty_years, capacity_bytes=None
    )
