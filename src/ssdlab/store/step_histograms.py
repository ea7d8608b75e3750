"""A step's per-second latency histograms (schema 10, model/step_histogram.py): written with
the step result, read back checked — a row that is not what ssdlab writes is a StoreError
naming it, never a histogram bent into shape."""

import json
import sqlite3
from collections.abc import Sequence

from ssdlab.errors import StoreError
from ssdlab.model.fio_buckets import FIO_PLAT_BUCKETS
from ssdlab.model.step_histogram import SecondHistogram

DIRECTIONS = ("read", "write", "trim")
MAX_SECOND = 10**9  # 31 years of one step
MAX_COUNT = 2**53  # what a JSON number holds exactly


def add_step_histograms(
    conn: sqlite3.Connection, step_id: int, histograms: Sequence[SecondHistogram]
) -> None:
    """Store a step's histograms (inside the caller's transaction: the step's own)."""
    conn.executemany(
        "INSERT INTO step_histograms (step_result_id, direction, second, ios, counts_json)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (
                step_id,
                h.direction,
                h.second,
                h.ios,
                json.dumps([list(c) for c in h.counts], separators=(",", ":")),
            )
            for h in histograms
        ],
    )


def histogram_problem(direction: object, second: object, ios: object, counts: object) -> str | None:
    """Why a row is not a histogram ssdlab writes (None when it is): a direction of
    DIRECTIONS, a second from 0 to MAX_SECOND, at most FIO_PLAT_BUCKETS pairs [bucket, I/Os]
    of whole numbers, buckets ascending below FIO_PLAT_BUCKETS, I/Os from 1 to MAX_COUNT, and
    `ios` their sum."""
    if direction not in DIRECTIONS:
        return "its direction is not read, write or trim"
    if type(second) is not int or not 0 <= second <= MAX_SECOND:
        return f"its second is not a whole number from 0 to {MAX_SECOND:,}"
    if not isinstance(counts, list) or len(counts) > FIO_PLAT_BUCKETS:
        return f"its counts are not a list of at most {FIO_PLAT_BUCKETS:,} buckets"
    last, total = -1, 0
    for pair in counts:
        if not isinstance(pair, list) or len(pair) != 2 or any(type(v) is not int for v in pair):
            return "a bucket is not a pair of whole numbers [bucket, I/Os]"
        bucket, count = pair
        if not last < bucket < FIO_PLAT_BUCKETS:
            return f"its buckets are not ascending below {FIO_PLAT_BUCKETS:,} (fio's buckets)"
        if not 0 < count <= MAX_COUNT:
            return f"a bucket's I/Os are not from 1 to {MAX_COUNT:,}"
        last, total = bucket, total + count
    if type(ios) is not int or ios != total:
        return "its I/Os are not the sum of its buckets"
    return None


def _histogram(row: sqlite3.Row) -> SecondHistogram:
    where = f"the {row['direction']!r} histogram of second {row['second']!r} of step result "
    where += str(row["step_result_id"])
    try:
        counts = json.loads(row["counts_json"])
    except (TypeError, ValueError, RecursionError):
        raise StoreError(f"{where} is not JSON") from None
    problem = histogram_problem(row["direction"], row["second"], row["ios"], counts)
    if problem is not None:
        raise StoreError(f"{where}: {problem}")
    return SecondHistogram(row["direction"], row["second"], tuple((b, c) for b, c in counts))


def run_step_histograms(
    conn: sqlite3.Connection, run_id: int
) -> dict[tuple[str, int], tuple[SecondHistogram, ...]]:
    """The histograms of a run's measured (not discarded) steps, by (step key, round)."""
    found: dict[tuple[str, int], list[SecondHistogram]] = {}
    for row in conn.execute(
        "SELECT r.step_key, r.round_index, h.* FROM step_histograms h"
        " JOIN step_results r ON r.id = h.step_result_id"
        " WHERE r.run_id = ? AND r.discarded = 0 ORDER BY r.id, h.rowid",
        (run_id,),
    ):
        key = (str(row["step_key"]), int(row["round_index"]))
        found.setdefault(key, []).append(_histogram(row))
    return {key: tuple(each) for key, each in found.items()}
