"""A simulated drive driven one host request at a time: what `ssdlab sim serve` serves.

The FTL (the Python core, `sim/ftl.Ftl`) decides where every page goes and what that costs;
the data itself is kept elsewhere (the served file's backing store). A request is mapped to
whole pages as a replayed trace is (`sim/engine._trace_arrays`: a request covering part of a
page costs the whole page), so the same requests replayed through `simulate` as a trace give
the same counters, page for page.

A request's model time is the NAND work it caused (host and GC reads, native and SLC
programs, erases: the GC and folding a write triggers are charged to that write, a stall)
spread over the parallel units, as `engine.build_intervals` times an interval. Pure: no
clock; randomness only from the configuration's seed.

**Idle GC** (off unless `idle_gc_bytes_per_s` is given): the server tells the drive how long
the host left it idle (`idle`, in seconds of model time), and once the host has been idle for
`IDLE_GC_DELAY_S` the drive reclaims blocks as its foreground GC does (the FTL's victim
choice; dynamic SLC blocks folded first), each taking its NAND time (reads, programs, the
erase, spread over the parallel units) or its block's bytes at the idle-GC rate, whichever is
longer, until the idle time is spent or the drive has every free block its spare allows.
Its moves count in the NAND counters (a drive's WAF includes them) and add no time to any
host request; a reclaim that overruns the idle is paid for from the next idle.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.sim.config import SimConfig
from ssdlab.sim.engine import build_job
from ssdlab.sim.ftl import NONE, Ftl
from ssdlab.sim.workload import Workload

IDLE_GC_DELAY_S = 100e-6
"""Model seconds the host must leave the drive idle before idle GC starts: a pause between
two requests of a running workload is not idle (a stated choice; real drives wait from
milliseconds to seconds)."""
# reclaims one idle may run at most, in total blocks: a victim policy that picks full blocks
# (fifo, random) gains no block, and an idle of unbounded model time (time scale 0) must end
IDLE_GC_MAX_ROUNDS = 2


@dataclass(frozen=True, slots=True)
class DriveCounters:
    """The drive's lifetime counters since it was served (the initial fill not counted)."""

    host_write_bytes: int
    host_read_bytes: int
    trim_bytes: int
    host_write_commands: int
    host_read_commands: int
    trim_commands: int
    nand_write_bytes: int  # host programs, GC copies and SLC folding
    slc_write_bytes: int  # the part of it programmed in SLC mode
    nand_read_bytes: int
    erases: int
    erase_count_min: int
    erase_count_avg: float
    erase_count_max: int
    free_blocks: int
    total_blocks: int
    slc_used_bytes: int
    model_time_s: float  # the NAND time of every request, as the model counts it

    @property
    def waf(self) -> float | None:
        """NAND bytes ÷ host bytes written; None before the first write."""
        if self.host_write_bytes == 0:
            return None
        return self.nand_write_bytes / self.host_write_bytes


@dataclass(frozen=True, slots=True)
class _Work:
    nand_reads: int
    native_programs: int
    slc_programs: int
    erases: int


class VirtualDrive:
    """The FTL of one served drive. Not thread-safe: the server holds a lock around it."""

    def __init__(self, config: SimConfig, idle_gc_bytes_per_s: float | None = None) -> None:
        if idle_gc_bytes_per_s is not None and not (
            math.isfinite(idle_gc_bytes_per_s) and idle_gc_bytes_per_s > 0
        ):
            raise UsageError(f"the idle-GC rate must be positive, not {idle_gc_bytes_per_s:g}")
        self.idle_gc_bytes_per_s = idle_gc_bytes_per_s
        self._idle_s = 0.0  # model seconds the host has left the drive idle so far
        self._idle_credit_s = 0.0  # idle model time not yet spent (negative: overrun)
        # the job's workload is never run: requests come from the host, one at a time
        job = build_job(config, Workload(kind="uniform"), config.page_bytes, config.page_bytes)
        self.config = config
        self._ftl = Ftl(job)
        if job.initial == 1:
            self._ftl.fill_sequential()
        elif job.initial == 2:
            self._ftl.fill_steady()
        self._ftl.reset_counters()
        self._writes = self._reads = self._trims = 0
        self._model_time_s = 0.0

    @property
    def capacity_bytes(self) -> int:
        return self.config.logical_bytes

    def _pages(self, offset: int, length: int) -> range:
        if offset < 0 or length < 0 or offset + length > self.capacity_bytes:
            raise UsageError(
                f"request at {offset} B of {length} B is outside the drive's "
                f"{self.capacity_bytes} B"
            )
        if length == 0:
            return range(0)
        page = self.config.page_bytes
        return range(offset // page, (offset + length - 1) // page + 1)

    def _work(self) -> _Work:
        f = self._ftl
        return _Work(f.nand_reads, f.native_programs, f.slc_programs, f.erases)

    def _nand_seconds(self, before: _Work) -> float:
        after = self._work()
        t = self.config.timing
        busy_us = (
            (after.nand_reads - before.nand_reads) * t.page_read_us
            + (after.native_programs - before.native_programs) * t.page_program_us
            + (after.slc_programs - before.slc_programs) * t.slc_program_us
            + (after.erases - before.erases) * t.block_erase_us
        )
        return busy_us / t.parallel_units / 1e6

    def _time_since(self, before: _Work) -> float:
        seconds = self._nand_seconds(before)
        self._model_time_s += seconds
        return seconds

    def _request(self, offset: int, length: int, each: Callable[[int], None]) -> float:
        pages = self._pages(offset, length)
        self._idle_s = 0.0  # the host is back: the next idle starts afresh
        before = self._work()
        for lpn in pages:
            each(lpn)
        return self._time_since(before)

    def write(self, offset: int, length: int) -> float:
        """Program the pages the request covers; the model time it took, in seconds."""
        self._writes += 1
        return self._request(offset, length, self._ftl.write)

    def write_settled(self, offset: int, length: int) -> None:
        """Write the range straight to native blocks, no model time counted: the data as a
        drive leaves it once it has folded its SLC cache while idle (an idle the drive is not
        asked to spend: this drive's idle GC, when on, folds only in the idles `idle` is
        told of). What a drive holds after `ssdlab run cache --prefill P --prefill-idle S`."""
        ftl = self._ftl
        slc = ftl.slc_enabled
        ftl.slc_enabled = False
        try:
            for page in self._pages(offset, length):
                ftl.write(page)
        finally:
            ftl.slc_enabled = slc

    def read(self, offset: int, length: int) -> float:
        self._reads += 1
        return self._request(offset, length, self._ftl.read)

    def trim(self, offset: int, length: int) -> float:
        """Unmap the pages the request covers (TRIM costs no NAND time)."""
        self._trims += 1
        return self._request(offset, length, self._ftl.trim)

    def idle(self, seconds: float) -> int:
        """The host has left the drive idle `seconds` more (model time, since the last request
        or the last call): once the idle passes `IDLE_GC_DELAY_S`, clean blocks with what is
        past it (see the module's note); the blocks it erased. Nothing when idle GC is off."""
        rate = self.idle_gc_bytes_per_s
        if rate is None or not seconds > 0:
            return 0
        before = self._idle_s
        self._idle_s = before + seconds
        if math.isinf(self._idle_s):
            self._idle_credit_s = math.inf
        else:
            past = max(0.0, self._idle_s - IDLE_GC_DELAY_S) - max(0.0, before - IDLE_GC_DELAY_S)
            self._idle_credit_s += past
        return self._clean(rate)

    def idle_gc_target(self) -> int:
        """The free blocks idle GC aims for: every native block its spare leaves once the
        valid data is packed into whole blocks (one open block kept, and the open dynamic SLC
        block, if any)."""
        f = self._ftl
        native = self.config.native_blocks
        packed = -(-sum(f.valid[:native]) // f.np)
        open_slc = 1 if f.sfront != NONE and f.sfront < native else 0
        return max(0, native - packed - 1 - open_slc)

    def _clean(self, rate: float) -> int:
        if self._idle_credit_s <= 0:  # within the delay, or paying back an overrun
            return 0
        f = self._ftl
        block_s = self.config.block_bytes / rate
        target = self.idle_gc_target()
        erases = f.erases
        rounds = 0
        while self._idle_credit_s > 0 and len(f.free) < target:
            if rounds >= IDLE_GC_MAX_ROUNDS * self.config.total_blocks:
                break
            before = self._work()
            f.reclaim_one()  # its moves may start the foreground GC too: idle work all the same
            rounds += 1
            blocks = f.erases - before.erases
            self._idle_credit_s -= max(self._nand_seconds(before), blocks * block_s)
        if self._idle_credit_s > 0:  # done before the idle was: idle time is not kept
            self._idle_credit_s = 0.0
        return f.erases - erases

    def counters(self) -> DriveCounters:
        f = self._ftl
        page = self.config.page_bytes
        erase = f.erase_count
        return DriveCounters(
            host_write_bytes=f.host_writes * page,
            host_read_bytes=f.host_reads * page,
            trim_bytes=f.trims * page,
            host_write_commands=self._writes,
            host_read_commands=self._reads,
            trim_commands=self._trims,
            nand_write_bytes=(f.native_programs + f.slc_programs) * page,
            slc_write_bytes=f.slc_programs * page,
            nand_read_bytes=f.nand_reads * page,
            erases=f.erases,
            erase_count_min=min(erase),
            erase_count_avg=sum(erase) / len(erase),
            erase_count_max=max(erase),
            free_blocks=len(f.free),
            total_blocks=self.config.total_blocks,
            slc_used_bytes=f.slc_valid * page,
            model_time_s=self._model_time_s,
        )
