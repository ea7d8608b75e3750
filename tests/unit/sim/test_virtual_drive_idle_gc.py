"""The served drive's idle GC (sim/virtual_drive.py, `VirtualDrive.idle`): blocks reclaimed in
the model time the host leaves idle, at the model's NAND costs, up to the free blocks the spare
allows; counted in the NAND counters, never in a request's time; nothing when it is off."""

import math

import pytest

from ssdlab.errors import UsageError
from ssdlab.sim import SimConfig
from ssdlab.sim.config import GcPolicy
from ssdlab.sim.ftl import SplitMix64
from ssdlab.sim.virtual_drive import IDLE_GC_DELAY_S, VirtualDrive

PAGE = 4096
MiB = 2**20
FAST = 1e12  # an idle-GC rate that never limits: the NAND sets the pace


def _config(**kw: object) -> SimConfig:
    base: dict[str, object] = {"pages_per_block": 32, "initial_state": "full"}
    base.update(kw)
    return SimConfig.from_spare(8 * MiB, 0.12, "logical", **base)  # type: ignore[arg-type]


def _fragmented(drive: VirtualDrive, writes: int = 4000, seed: int = 3) -> VirtualDrive:
    """Random 4 KiB writes over the whole (full) drive: GC runs in the foreground, few blocks
    are free after."""
    rng = SplitMix64(seed)
    pages = drive.capacity_bytes // PAGE
    for _ in range(writes):
        drive.write(rng.below(pages) * PAGE, PAGE)
    return drive


def _block_nand_s(config: SimConfig) -> float:
    """The NAND time of reclaiming one whole block of valid pages: its upper bound."""
    t = config.timing
    copy_us = config.pages_per_block * (t.page_read_us + t.page_program_us)
    return (copy_us + t.block_erase_us) / t.parallel_units / 1e6


def test_free_blocks_rise_after_an_idle_and_the_moves_count_as_nand_writes() -> None:
    config = _config()
    drive = _fragmented(VirtualDrive(config, idle_gc_bytes_per_s=FAST))
    before = drive.counters()
    reclaimed = drive.idle(1.0)  # a second of model time: far more than the drive needs
    after = drive.counters()
    assert reclaimed > 0
    assert after.free_blocks == drive.idle_gc_target() > before.free_blocks
    assert after.erases - before.erases == reclaimed
    moved = after.nand_write_bytes - before.nand_write_bytes
    assert moved > 0  # the valid pages the victims held, copied
    assert after.nand_read_bytes - before.nand_read_bytes == moved
    # the host wrote nothing and no request took the time: WAF rose, model time did not
    assert after.host_write_bytes == before.host_write_bytes
    assert after.model_time_s == before.model_time_s
    assert after.waf is not None
    assert before.waf is not None
    assert after.waf > before.waf


def test_writes_after_an_idle_take_less_model_time_than_without_it() -> None:
    config = _config()
    idle, busy = (_fragmented(VirtualDrive(config, rate)) for rate in (FAST, None))
    idle.idle(1.0)
    busy.idle(1.0)
    rng = SplitMix64(11)
    pages = config.logical_bytes // PAGE
    starts = [rng.below(pages) * PAGE for _ in range(200)]
    assert sum(idle.write(s, PAGE) for s in starts) < sum(busy.write(s, PAGE) for s in starts)


def test_a_zero_gap_or_one_within_the_delay_does_nothing() -> None:
    drive = _fragmented(VirtualDrive(_config(), idle_gc_bytes_per_s=FAST))
    before = drive.counters()
    assert drive.idle(0.0) == 0
    assert drive.idle(IDLE_GC_DELAY_S / 2) == 0
    assert drive.counters() == before


def test_the_delay_counts_over_the_whole_idle_and_starts_again_at_a_request() -> None:
    config = _config()
    drive = _fragmented(VirtualDrive(config, idle_gc_bytes_per_s=FAST))
    block_s = _block_nand_s(config)
    assert drive.idle(IDLE_GC_DELAY_S * 0.9) == 0
    # together past the delay by more than a block's worst NAND time: work is done
    assert drive.idle(IDLE_GC_DELAY_S * 0.1 + 2 * block_s) >= 1
    drive.write(0, PAGE)  # the host is back
    before = drive.counters()
    assert drive.idle(IDLE_GC_DELAY_S * 0.9) == 0
    assert drive.counters() == before


def test_the_idle_time_bounds_the_work_at_the_models_nand_costs() -> None:
    config = _config()
    drive = _fragmented(VirtualDrive(config, idle_gc_bytes_per_s=FAST))
    block_s = _block_nand_s(config)
    erased = drive.idle(IDLE_GC_DELAY_S + 2 * block_s)
    # two whole blocks' NAND time at least: each erase costs at most a whole block's; the time
    # ran out before the target was reached
    assert erased >= 2
    assert drive.counters().free_blocks < drive.idle_gc_target()
    t = config.timing
    erase_s = t.block_erase_us / t.parallel_units / 1e6
    assert erased <= 2 * block_s / erase_s + 1  # no more than the time allows (one overrun)
    # the rest of the work waits for the next idle
    assert drive.idle(1.0) > 0
    assert drive.counters().free_blocks == drive.idle_gc_target()


def test_the_rate_caps_the_blocks_an_idle_reclaims() -> None:
    config = _config()
    rate = config.block_bytes * 10.0  # ten blocks per second of model time
    drive = VirtualDrive(config, idle_gc_bytes_per_s=rate)
    drive.trim(0, config.logical_bytes // 4)  # whole blocks with nothing valid: no moves
    before = drive.counters().free_blocks
    assert drive.idle_gc_target() - before > 6
    assert drive.idle(IDLE_GC_DELAY_S + 0.35) == 4  # 0.35 s: three whole blocks, a fourth begun
    assert drive.idle(0.05) == 0  # the fourth's overrun is paid from this idle
    assert drive.idle(0.1) == 1
    assert drive.counters().free_blocks > before


def test_the_target_caps_it_and_an_unbounded_idle_ends_there() -> None:
    config = _config()
    drive = _fragmented(VirtualDrive(config, idle_gc_bytes_per_s=FAST))
    drive.idle(math.inf)  # time scale 0: any pause is long enough
    target = drive.idle_gc_target()
    counters = drive.counters()
    assert counters.free_blocks == target
    # what the spare allows: the valid data packed into whole blocks, one open block
    logical_blocks = -(-config.logical_pages // config.pages_per_block)
    assert target == config.native_blocks - logical_blocks - 1
    assert drive.idle(10.0) == 0  # at the target: nothing more to do
    assert drive.counters() == counters


def test_idle_gc_folds_a_dynamic_slc_cache() -> None:
    config = _config(slc_dynamic=True, initial_state="empty")
    drive = VirtualDrive(config, idle_gc_bytes_per_s=FAST)
    drive.write(0, 2 * MiB)  # into the cache
    assert drive.counters().slc_used_bytes > 0
    drive.idle(1.0)
    counters = drive.counters()
    assert counters.slc_used_bytes < 2 * MiB  # folded, all but the open SLC block
    assert counters.free_blocks == drive.idle_gc_target()


@pytest.mark.parametrize("policy", ["fifo", "random", "cost-benefit", "d-choices"])
def test_every_victim_policy_ends_an_unbounded_idle(policy: str) -> None:
    drive = _fragmented(VirtualDrive(_config(gc_policy=GcPolicy(policy)), idle_gc_bytes_per_s=FAST))
    before = drive.counters().free_blocks
    drive.idle(math.inf)
    assert drive.counters().free_blocks >= before


def test_without_idle_gc_an_idle_changes_nothing() -> None:
    config = _config()
    off = _fragmented(VirtualDrive(config))
    before = off.counters()
    assert off.idle(1.0) == 0
    assert off.idle(math.inf) == 0
    assert off.counters() == before
    # and the same requests give the same counters as a drive that is never told of idles
    assert _fragmented(VirtualDrive(config)).counters() == before


@pytest.mark.parametrize("rate", [0.0, -1.0, math.nan, math.inf])
def test_a_rate_that_is_not_positive_and_finite_is_refused(rate: float) -> None:
    with pytest.raises(UsageError, match="idle-GC rate"):
        VirtualDrive(_config(), idle_gc_bytes_per_s=rate)
