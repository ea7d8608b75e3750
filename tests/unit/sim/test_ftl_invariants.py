"""The Python core's mapping stays consistent whatever the policy, cache and workload."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.sim import GcPolicy, SimConfig, parse_workload
from ssdlab.sim.engine import build_job
from ssdlab.sim.ftl import CLOSED, FREE, NONE, Ftl

WORKLOADS = [
    "uniform",
    "seq,pages=4",
    "hotcold:90/10,trim=10%",
    "jesd219,read=20%",
    "uniform,trim=30%,pages=3,span=60%",
]


@settings(max_examples=100)
@given(
    policy=st.sampled_from(list(GcPolicy)),
    workload=st.sampled_from(WORKLOADS),
    initial=st.sampled_from(["empty", "full", "steady"]),
    static_pages=st.sampled_from([0, 10, 25]),
    dynamic=st.booleans(),
    seed=st.integers(0, 2**64 - 1),
)
def test_mapping_counts_and_free_blocks_stay_consistent(
    policy: GcPolicy, workload: str, initial: str, static_pages: int, dynamic: bool, seed: int
) -> None:
    config = SimConfig.from_spare(
        2**21,
        0.3,
        "logical",
        pages_per_block=16,
        gc_policy=policy,
        initial_state=initial,
        slc_static_bytes=static_pages * 4096,
        slc_dynamic=dynamic,
        seed=seed,
    )
    job = build_job(config, parse_workload(workload), host_bytes=2**23, interval_bytes=2**21)
    ftl = Ftl(job)
    rows = ftl.run()
    np_ = ftl.np
    mapped = [(lpn, ppn) for lpn, ppn in enumerate(ftl.l2p) if ppn != NONE]
    for lpn, ppn in mapped:
        assert ftl.p2l[ppn] == lpn
    assert sum(1 for x in ftl.p2l if x != NONE) == len(mapped)
    for b in range(job.total_blocks):
        live = sum(1 for x in ftl.p2l[b * np_ : (b + 1) * np_] if x != NONE)
        assert ftl.valid[b] == live
    for b in ftl.free:
        assert ftl.state[b] == FREE
        assert ftl.valid[b] == 0
    assert len(set(ftl.free)) == len(ftl.free)
    if policy is GcPolicy.GREEDY:
        in_buckets = {b for v in range(np_ + 1) for b in _bucket(ftl, v)}
        assert in_buckets == {b for b in range(job.total_blocks) if ftl.state[b] == CLOSED}
    slc = {b for b in range(job.total_blocks) if ftl.state[b] >= 3}
    assert ftl.slc_valid == sum(ftl.valid[b] for b in slc)
    assert rows[-1][-4] == ftl.slc_valid
    if ftl.track_live:
        assert sorted(ftl.live) == [lpn for lpn, _ in mapped]


def _bucket(ftl: Ftl, v: int) -> list[int]:
    out, b = [], ftl.head[v]
    while b != NONE:
        assert ftl.valid[b] == v
        out.append(b)
        b = ftl.nxt[b]
    return out
