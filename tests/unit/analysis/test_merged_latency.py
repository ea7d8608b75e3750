"""Fleet-wide latency from histograms merged over hosts (real fio 3.33 histogram logs of two
servers, one direct and one buffered: tests/data/fio/client-hist-2servers): each percentile
is the percentile of every host's raw latencies together, per second and over the run, and
not the average of the hosts' percentiles; a tail is given only where its I/Os support it."""

import numpy as np
import pytest

from ssdlab.analysis.latency_stream import SERIES_SUB_BITS, bucket_of, bucket_value
from ssdlab.analysis.merged_latency import (
    OPEN_BUCKET,
    merged_latency,
    percentile_of,
)
from ssdlab.analysis.tail_intervals import nearest_rank, needs_ios
from ssdlab.model.fio_buckets import FIO_PLAT_BITS, FIO_PLAT_BUCKETS
from ssdlab.parse.fio_hist_log import HistRecord
from tests.hist_logs import HOSTS, host_records, raw_by_record

Ints = np.ndarray


def _raw_percentile(values: Ints, pct: float, sub_bits: int) -> float:
    """The nearest-rank percentile of raw latencies, as the midpoint of its bucket."""
    value = int(np.sort(values)[nearest_rank(len(values), pct) - 1])
    return bucket_value(bucket_of(value, sub_bits), sub_bits)


def _raw(direction: int) -> tuple[Ints, dict[int, list[Ints]]]:
    """Every host's raw latencies of a direction that the histograms count, together and by
    the second their record closed in."""
    together, by_second = [], {}
    for host in HOSTS:
        for record, values in raw_by_record(host):
            if record.direction == direction:
                together.append(values)
                by_second.setdefault(record.time_ms // 1000, []).append(values)
    return np.concatenate(together), by_second


def _merged() -> dict:
    return merged_latency({host: host_records(host) for host in HOSTS})


@pytest.mark.parametrize(("name", "direction"), [("read", 0), ("write", 1)])
def test_merged_percentiles_are_those_of_all_hosts_raw_latencies(name: str, direction: int) -> None:
    merged = _merged()[name]
    values, by_second = _raw(direction)
    assert merged.ios == len(values)
    for pct, value in merged.percentiles_ns:
        if pct < 99.9 or len(values) >= needs_ios(pct):
            assert value == _raw_percentile(values, pct, FIO_PLAT_BITS)
        else:
            assert value is None
    assert [s.second for s in merged.seconds] == sorted(by_second)
    for second in merged.seconds:
        raw = np.concatenate(by_second[second.second])
        assert second.ios == len(raw)
        for pct, value in second.percentiles_ns:
            if pct == 50 or len(raw) >= needs_ios(pct):
                assert value == _raw_percentile(raw, pct, SERIES_SUB_BITS)
            else:
                assert value is None


def test_merged_is_not_the_average_of_the_hosts_percentiles() -> None:
    merged = _merged()["write"]
    alone = [merged_latency({host: host_records(host)})["write"] for host in HOSTS]
    p99 = dict(merged.percentiles_ns)[99.0]
    hosts_p99 = [dict(a.percentiles_ns)[99.0] for a in alone]
    assert p99 is not None
    assert None not in hosts_p99
    average = sum(v for v in hosts_p99 if v is not None) / len(hosts_p99)
    # the direct host's writes take milliseconds, the buffered host's microseconds: their
    # p99s average to about 1.5 ms, while 1 % of all writes together take over 2 ms
    assert p99 > 1.3 * average
    values, _ = _raw(1)
    assert p99 == _raw_percentile(values, 99.0, FIO_PLAT_BITS)


def test_tails_need_their_ios_per_second_and_over_the_run() -> None:
    merged = _merged()
    for direction in merged.values():
        for second in direction.seconds:
            assert second.ios < needs_ios(99.9)  # about 2,800 a second
            assert dict(second.percentiles_ns)[99.9] is None
            assert dict(second.percentiles_ns)[99.0] is not None
    read_tails = {t.pct: t for t in merged["read"].tails}
    write_tails = {t.pct: t for t in merged["write"].tails}
    assert read_tails[99.9].estimable
    assert read_tails[99.9].interval is not None
    assert (
        read_tails[99.9].interval.low <= read_tails[99.9].value_ns <= read_tails[99.9].interval.high
    )
    assert not write_tails[99.9].estimable
    assert write_tails[99.9].needs == 3688
    assert dict(merged["write"].percentiles_ns)[99.9] is None


def _record(time_ms: int, direction: int, counts: dict[int, int]) -> HistRecord:
    array = np.zeros(FIO_PLAT_BUCKETS, dtype=np.int64)
    for bucket, count in counts.items():
        array[bucket] = count
    return HistRecord(time_ms, direction, array)


def test_a_percentile_in_fios_last_bucket_has_no_value() -> None:
    records = [_record(1000, 0, {1000: 400, OPEN_BUCKET: 10})]
    merged = merged_latency({"a": records})["read"]
    assert dict(merged.percentiles_ns)[50.0] is not None
    assert dict(merged.percentiles_ns)[99.0] is None
    tail = {t.pct: t for t in merged.tails}[99.0]
    assert tail.estimable
    assert tail.value_ns is None
    assert tail.unknown
    assert dict(merged.seconds[0].percentiles_ns)[99.0] is None
    assert percentile_of(np.zeros(4, dtype=np.int64), 50.0, 6, 3) is None


def test_hosts_and_intervals_add_in_any_order() -> None:
    a = [_record(1002, 0, {900: 300}), _record(2001, 0, {950: 200})]
    b = [_record(1010, 0, {800: 100, 1200: 5}), _record(2003, 1, {700: 50})]
    one = merged_latency({"a": a, "b": b})
    other = merged_latency({"b": list(reversed(b)), "a": list(reversed(a))})
    assert one == other
    assert [s.ios for s in one["read"].seconds] == [405, 200]
