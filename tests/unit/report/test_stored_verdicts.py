"""A stored verdict reads back as the verdict it was made from, so a report built from the
store shows what the analysis decided, to the last digit."""

import json

from ssdlab.analysis.alignment import AlignmentVerdict, AlignResult, LbaFormat, alignment_verdict
from ssdlab.analysis.cliff import CacheCliffVerdict, detect_cache_cliff
from ssdlab.analysis.knee import KneeVerdict, SweepCell, select_knee
from ssdlab.analysis.steady_state import SteadyStateVerdict, detect_steady_state
from ssdlab.model.json_fields import decode_fields
from ssdlab.store.lifecycle import to_json


def _stored(verdict: object) -> dict[str, object]:
    body = json.loads(to_json(verdict))
    assert isinstance(body, dict)
    return body


def test_cliff_knee_alignment_and_steady_state_read_back_equal() -> None:
    series = [(float(i) * 1e8, 2e9 if i < 40 else 5e8 + (i % 3) * 1e6) for i in range(1, 90)]
    cliff = detect_cache_cliff(series)
    assert cliff.cliff_bytes is not None
    assert decode_fields(CacheCliffVerdict, _stored(cliff)) == cliff
    short = detect_cache_cliff(series[:3])
    assert short.short is not None
    assert decode_fields(CacheCliffVerdict, _stored(short)) == short
    cells = [
        SweepCell(t, q, 1000.0 * t * q, 4096e3 * t * q, 50e3 * q, 90e3 * q, 150e3 * q, None)
        for t in (1, 2)
        for q in (1, 4, 16)
    ]
    knee = select_knee(cells, max_latency_ns=500e3)
    assert decode_fields(KneeVerdict, _stored(knee)) == knee
    alignment = alignment_verdict(
        (AlignResult(4096, 4096, 9000.0), AlignResult(4096, 512, 3000.0)),
        partition_start_bytes=1 << 20,
        logical_block_bytes=512,
        physical_block_bytes=4096,
        lba_formats=(LbaFormat(0, 512, 0, 2), LbaFormat(1, 4096, 0, 0)),
        lba_format_in_use=0,
    )
    assert decode_fields(AlignmentVerdict, _stored(alignment)) == alignment
    steady = detect_steady_state({"IOPS": [100.0, 101.0, 99.0, 100.5, 100.0]}, window=5)
    assert decode_fields(SteadyStateVerdict, _stored(steady)) == steady
