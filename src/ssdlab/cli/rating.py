"""The rated endurance given on the command line (`--tbw`, `--dwpd`, `--warranty-years`),
and the one a life projection uses: that, else the drive's spec sheet (app/rating.py)."""

import argparse
import sqlite3

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.app.rating import given_rating, rating_of
from ssdlab.model.health import HealthSample


def rating_given(args: argparse.Namespace) -> RatedEndurance | None:
    """The rating given (None: none, or the command has no rating options)."""
    return given_rating(
        getattr(args, "tbw", None),
        getattr(args, "dwpd", None),
        getattr(args, "warranty_years", None),
    )


def rated_from_args(
    args: argparse.Namespace, conn: sqlite3.Connection, sample: HealthSample
) -> RatedEndurance | None:
    """The rating given on the command line, else the one of the drive's spec sheet."""
    return rating_of(conn, sample, rating_given(args))
