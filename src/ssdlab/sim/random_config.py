"""Drive configurations drawn at random from a seed, for a drive whose internals the measuring
side must not know (`ssdlab sim serve --random-config SEED`), and the digest that names one.

Ranges are those of real drives scaled to a small capacity: spare 7–50 % of logical, TLC or
QLC (sometimes MLC), no cache, a static, a dynamic or a hybrid pseudo-SLC cache, any GC
policy, NAND times and parallelism of current flash. Pure: the draws come from the FTL's own
splitmix64 generator, so a seed gives the same drive on every machine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from ssdlab.sim.config import GcPolicy, SimConfig, Timing, validate_config
from ssdlab.sim.ftl import SplitMix64

_POLICIES = (GcPolicy.GREEDY, GcPolicy.COST_BENEFIT, GcPolicy.FIFO, GcPolicy.D_CHOICES)
_CACHES = ("none", "static", "dynamic", "hybrid")


def _uniform(rng: SplitMix64, low: float, high: float) -> float:
    return low + (high - low) * (rng.next() >> 11) / float(1 << 53)


def _choice(rng: SplitMix64, items: tuple[Any, ...]) -> Any:
    return items[rng.below(len(items))]


def draw_config(seed: int, logical_bytes: int, page_bytes: int = 4096) -> SimConfig:
    """A valid configuration of `logical_bytes` drawn from `seed` (whole pages)."""
    rng = SplitMix64(seed)
    logical = logical_bytes - logical_bytes % page_bytes
    bits = _choice(rng, (2, 3, 3, 3, 4))
    spare = round(_uniform(rng, 0.07, 0.50), 4)
    cache = _choice(rng, _CACHES)
    policy = _choice(rng, _POLICIES)
    pages_per_block = _choice(rng, (64, 128, 256))
    program_us = round(_uniform(rng, 150.0, 400.0) * bits / 3, 1)
    timing = Timing(
        page_read_us=round(_uniform(rng, 40.0, 90.0), 1),
        page_program_us=program_us,
        block_erase_us=round(_uniform(rng, 2000.0, 5000.0)),
        slc_program_us=round(_uniform(rng, 0.12, 0.3) * program_us, 1),
        channels=_choice(rng, (2, 4, 8)),
        dies_per_channel=_choice(rng, (1, 2, 4)),
    )
    # a static pool costs bits-per-cell times its size in spare: at most half the spare
    static = cache in ("static", "hybrid")
    static_share = round(_uniform(rng, 0.1, 0.5) * spare / bits, 4) if static else 0.0
    config = SimConfig.from_spare(
        logical,
        spare,
        "logical",
        pages_per_block=pages_per_block,
        gc_policy=policy,
        slc_static_bytes=round(logical * static_share / page_bytes) * page_bytes,
        slc_dynamic=cache in ("dynamic", "hybrid"),
        bits_per_cell=bits,
        timing=timing,
        seed=rng.next() >> 1,
    )
    validate_config(config)
    return config


def config_json(config: SimConfig) -> dict[str, Any]:
    """The configuration as JSON values, with both spare conventions spelled out."""
    return {
        **asdict(config),
        "gc_policy": config.gc_policy.value,
        "spare_of_logical": config.spare_of_logical,
        "spare_of_physical": config.spare_of_physical,
    }


def config_digest(config: SimConfig) -> str:
    """SHA-256 of the configuration's canonical JSON: names a hidden drive without telling it."""
    text = json.dumps(config_json(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
