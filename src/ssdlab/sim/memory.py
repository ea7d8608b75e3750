"""How much memory a simulation needs, estimated from its geometry before anything is allocated.

The model keeps, for every logical page, its mapping entry; for every physical page, its
reverse entry; and a few words per block (valid count, erase count, state, close time, list
links). The Rust core stores them as 4- and 8-byte integers; the Python core as lists of
8-byte references to int objects of 32 bytes (a page number above 256 is an object of its
own). Measured against the peak resident memory of real runs in tests/unit/sim/test_memory.py
and docs/sim.md; the estimate errs on the high side.
"""

from __future__ import annotations

from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.model.units import format_binary_bytes, format_size
from ssdlab.sim.config import SimConfig
from ssdlab.sim.workload import Workload

# bytes per logical page (l2p), physical page (p2l) and block, by core
_RUST_LOGICAL = 4
_RUST_PHYSICAL = 4
_RUST_BLOCK = 48  # valid 4, erase count 8, state 1, close time 8, links 3 × 4, queues ≤ 12
_RUST_LIVE = 12  # TRIM workloads: position 4 + the live list (up to twice its length) 8
_RUST_STEADY = 4  # the steady start's shuffled order of all LBAs
_STEADY_BLOCK = 16  # … and its valid count per block (a Python tuple and the core's copy)
_PY_REF = 8
_PY_INT = 32  # an int object above 256, as pymalloc lays it out
_PY_LOGICAL = _PY_REF + _PY_INT  # l2p: a reference and the physical page number it holds
_PY_PHYSICAL = _PY_REF  # p2l: a reference per physical page …
_PY_MAPPED = _PY_INT  # … and a logical page number object per mapped one (at most L)
_PY_BLOCK = 220  # 7 lists of references, 4 of them to int objects of their own, 2 deques
_PY_LIVE = 2 * _PY_REF + _PY_INT + _PY_REF  # live list, positions, position objects, growth
_PY_STEADY = 2 * _PY_REF  # the shuffled order (its int objects become the reverse map's)
# per interval: the core's row, its Python list and tuple of 12 ints, the SimInterval
_INTERVAL = 1600
# per trace request: the three arrays of the job (Python tuples of ints) and the core's copy
_TRACE_OP = 3 * (_PY_REF + _PY_INT) + 17


@dataclass(frozen=True, slots=True)
class MemoryLimit:
    """The most a simulation may use, and where that figure comes from (said on refusal)."""

    limit_bytes: int
    source: str  # e.g. "80 % of MemAvailable; SSDLAB_SIM_MEMORY_LIMIT raises it"


def estimate_memory(config: SimConfig, workload: Workload, core: str, intervals: int) -> int:
    """Bytes the core needs for this drive and run (`core` is 'rust' or 'python')."""
    logical = config.logical_pages
    physical = config.total_blocks * config.pages_per_block
    blocks = config.total_blocks
    live = workload.trim_fraction > 0 and workload.kind != "trace"
    steady = config.initial_state == "steady"
    if core == "rust":
        total = logical * _RUST_LOGICAL + physical * _RUST_PHYSICAL + blocks * _RUST_BLOCK
        total += logical * (_RUST_LIVE if live else 0) + logical * (_RUST_STEADY if steady else 0)
    else:
        total = logical * (_PY_LOGICAL + _PY_MAPPED) + physical * _PY_PHYSICAL
        total += blocks * _PY_BLOCK
        total += logical * (_PY_LIVE if live else 0) + logical * (_PY_STEADY if steady else 0)
    total += blocks * (_STEADY_BLOCK if steady else 0)
    return total + intervals * _INTERVAL + len(workload.trace) * _TRACE_OP


def check_memory(
    config: SimConfig, workload: Workload, core: str, intervals: int, limit: MemoryLimit
) -> int:
    """The estimate, or a UsageError saying it and the limit when it is over."""
    needed = estimate_memory(config, workload, core, intervals)
    if needed > limit.limit_bytes:
        raise UsageError(
            f"simulating a {format_size(config.logical_bytes)} drive with "
            f"{format_size(config.page_bytes)} pages needs about {format_binary_bytes(needed)} "
            f"of "
            f"memory ({core} core), more than the limit of "
            f"{format_binary_bytes(limit.limit_bytes)} "
            f"({limit.source}); simulate a smaller capacity (--capacity) or larger pages "
            "(--page-size)"
        )
    return needed
