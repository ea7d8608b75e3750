"""fio's histogram logs as fio 3.33's client writes them (real logs, tests/data/fio/
client-hist-2servers): per interval once the server's in-place subtraction is undone, bucket
for bucket the per-I/O clat log of the same run; bad lines refused."""

import numpy as np
import pytest

from ssdlab.analysis.latency_stream import buckets_of
from ssdlab.errors import ParseError
from ssdlab.model.fio_buckets import FIO_PLAT_BITS, FIO_PLAT_BUCKETS
from ssdlab.parse.fio_hist_log import parse_hist_log
from tests.hist_logs import HOSTS, hist_text, raw_by_record, raw_clat


@pytest.mark.parametrize("host", HOSTS)
def test_each_record_counts_its_interval_in_fios_buckets(host: str) -> None:
    for record, values in raw_by_record(host):
        assert len(values) == record.ios  # the clat log holds every I/O the record counts
        buckets = np.minimum(buckets_of(values, FIO_PLAT_BITS), FIO_PLAT_BUCKETS - 1)
        expected = np.bincount(buckets, minlength=FIO_PLAT_BUCKETS)
        assert np.array_equal(record.counts, expected)


def test_the_relayed_log_is_wrong_from_its_third_record_unless_undone() -> None:
    raw = raw_clat("0")
    reads = int((raw[:, 2] == 0).sum())
    as_written = [r for r in parse_hist_log(hist_text("0"), relayed=False) if r.direction == 0]
    undone = [r for r in parse_hist_log(hist_text("0"), relayed=True) if r.direction == 0]
    assert len(as_written) == 3
    assert sum(r.ios for r in undone) == reads  # this host's last read interval was logged
    assert sum(r.ios for r in as_written) == reads + as_written[0].ios  # D3 = C3 - C2 + C1
    assert [r.time_ms for r in undone] == [r.time_ms for r in as_written]


def test_the_last_part_of_an_interval_is_not_logged() -> None:
    raw = raw_clat("1")
    for direction in (0, 1):
        logged = sum(
            r.ios for r in parse_hist_log(hist_text("1"), True) if r.direction == direction
        )
        assert 0 < logged < int((raw[:, 2] == direction).sum())


def _line(*head: int, counts: list[int] | None = None) -> str:
    return ", ".join(str(v) for v in (*head, *(counts or [0] * FIO_PLAT_BUCKETS)))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1000, 0, 4096, 1, 2, 3", "not fio's time, ddir, bs"),
        (_line(1000, 0, 4096, counts=[0] * (FIO_PLAT_BUCKETS // 4)), "log_hist_coarseness"),
        (_line(1000, 0, 4096).replace("0, 0, 0", "0, x, 0", 1), "whole number"),
        (_line(1000, 3, 4096), "direction"),
        (_line(1000, 0, 4096, counts=[-1] + [0] * (FIO_PLAT_BUCKETS - 1)), "negative"),
    ],
)
def test_bad_lines_are_refused_with_their_number(text: str, match: str) -> None:
    with pytest.raises(ParseError, match=f"line 2: .*{match}"):
        parse_hist_log("\n" + text + "\n", relayed=False)


def test_a_relayed_log_that_could_not_come_from_fio_is_refused() -> None:
    big = [5] + [0] * (FIO_PLAT_BUCKETS - 1)
    small = [1] + [0] * (FIO_PLAT_BUCKETS - 1)
    text = "\n".join(
        _line(t, 0, 4096, counts=c) for t, c in ((1000, big), (2000, big), (3000, small))
    )
    assert len(parse_hist_log(text, relayed=False)) == 3
    with pytest.raises(ParseError, match="record 3"):
        parse_hist_log(text, relayed=True)
