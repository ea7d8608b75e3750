"""The pure-Python reference core: a page-mapped FTL driven by one job.

The Rust core (simcore/, module `ssdlab_simcore`) is a line-by-line port of this file: the same
data structures, the same order of random draws from the same splitmix64 generator, so both
give identical counters for the same job. Change one, change the other.

Physical layout: native blocks 0 … N−1 (dynamic SLC blocks are native blocks opened in SLC
mode), static SLC blocks N … total−1. Page p of block b is physical page b·Np + p.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MASK64 = (1 << 64) - 1
NONE = -1

POLICY_CODES = {"greedy": 0, "cost-benefit": 1, "fifo": 2, "random": 3, "d-choices": 4}
INITIAL_CODES = {"empty": 0, "full": 1, "steady": 2}
OP_READ, OP_WRITE, OP_TRIM = 0, 1, 2

FREE, OPEN, CLOSED, SLC_OPEN, SLC_CLOSED = 0, 1, 2, 3, 4
# pages of work (host writes, reads, TRIMs, fill writes, steady-state shuffle steps) between two
# calls of the stop check; the checks draw no random numbers, so they never change the counters
STOP_CHECK_PAGES = 1 << 16

StopCheck = Callable[[], bool]


def _never() -> bool:
    return False


# the cumulative counters one interval snapshot holds, in order
COUNTERS = (
    "host_write_pages",
    "host_read_pages",
    "trim_pages",
    "nand_read_pages",
    "native_program_pages",
    "slc_program_pages",
    "erases",
    "free_blocks",
    "slc_valid_pages",
    "erase_min",
    "erase_sum",
    "erase_max",
)


@dataclass(frozen=True, slots=True)
class CoreJob:
    """Everything a core needs, as integers (thresholds are draws < t out of 2^32)."""

    logical_pages: int
    total_blocks: int
    native_blocks: int
    pages_per_block: int
    slc_pages_per_block: int
    slc_dynamic: bool
    policy: int
    gc_d: int
    gc_low: int
    gc_high: int
    seed: int
    initial: int
    steady_levels: tuple[int, ...]
    sequential: bool
    span_pages: int
    trim_threshold: int
    read_threshold: int  # cumulative: trim_threshold + reads
    zone_thresholds: tuple[int, ...]
    zone_starts: tuple[int, ...]
    zone_pages: tuple[int, ...]
    size_thresholds: tuple[int, ...]
    size_pages: tuple[int, ...]
    trace_ops: tuple[int, ...]
    trace_starts: tuple[int, ...]
    trace_counts: tuple[int, ...]
    host_pages: int
    interval_pages: int


def set_add(items: list[int], pos: list[int], x: int) -> None:
    """Add x to an indexed set (a list plus each member's position in it)."""
    pos[x] = len(items)
    items.append(x)


def set_remove(items: list[int], pos: list[int], x: int) -> None:
    """Remove x in O(1): the last member takes its place."""
    i = pos[x]
    last = items.pop()
    if last != x:
        items[i] = last
        pos[last] = i
    pos[x] = NONE


class SplitMix64:
    """The seeded generator both cores share (no `random` module in pure packages)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next() * n) >> 64


class Ftl:
    def __init__(self, job: CoreJob) -> None:
        self.job = job
        np_ = job.pages_per_block
        total = job.total_blocks
        self.np = np_
        self.rng = SplitMix64(job.seed)
        self.l2p = [NONE] * job.logical_pages
        self.p2l = [NONE] * (total * np_)
        self.valid = [0] * total
        self.erase_count = [0] * total
        self.state = [FREE] * total
        self.close_time = [0] * total
        self.free: deque[int] = deque(range(job.native_blocks))
        self.static_free: deque[int] = deque(range(job.native_blocks, total))
        self.static_queue: deque[int] = deque()
        self.dyn_queue: deque[int] = deque()
        self.front = NONE
        self.front_off = 0
        self.sfront = NONE
        self.sfront_off = 0
        self.in_gc = False
        self.slc_enabled = total > job.native_blocks or job.slc_dynamic
        # greedy: doubly linked bucket lists of closed native blocks keyed on valid count
        self.head = [NONE] * (np_ + 1)
        self.nxt = [NONE] * total
        self.prv = [NONE] * total
        self.min_hint = np_ + 1
        self.fifo: deque[int] = deque()
        self.closed: list[int] = []
        self.closed_pos = [NONE] * total
        self.track_live = job.trim_threshold > 0 and not job.trace_ops
        self.live: list[int] = []
        self.live_pos = [NONE] * (job.logical_pages if self.track_live else 0)
        self.cursor = 0
        self.work = 0
        self.next_check = STOP_CHECK_PAGES
        # counters
        self.host_writes = 0
        self.host_reads = 0
        self.trims = 0
        self.nand_reads = 0
        self.native_programs = 0
        self.slc_programs = 0
        self.erases = 0
        self.slc_valid = 0

    # -- closed native blocks -------------------------------------------------------------
    def _bucket_insert(self, b: int, v: int) -> None:
        h = self.head[v]
        self.nxt[b] = h
        self.prv[b] = NONE
        if h != NONE:
            self.prv[h] = b
        self.head[v] = b
        if v < self.min_hint:
            self.min_hint = v

    def _bucket_remove(self, b: int, v: int) -> None:
        p, n = self.prv[b], self.nxt[b]
        if p != NONE:
            self.nxt[p] = n
        else:
            self.head[v] = n
        if n != NONE:
            self.prv[n] = p

    def _close_native(self, b: int) -> None:
        self.state[b] = CLOSED
        self.close_time[b] = self.host_writes
        policy = self.job.policy
        if policy == 0:
            self._bucket_insert(b, self.valid[b])
        elif policy == 2:
            self.fifo.append(b)
        else:
            set_add(self.closed, self.closed_pos, b)

    def _pick_victim(self) -> int:
        policy = self.job.policy
        if policy == 0:
            v = self.min_hint
            while self.head[v] == NONE:
                v += 1
            b = self.head[v]
            self._bucket_remove(b, v)
            self.min_hint = v
            return b
        if policy == 2:
            return self.fifo.popleft()
        closed = self.closed
        if policy == 3:
            b = closed[self.rng.below(len(closed))]
        elif policy == 4:
            b = closed[self.rng.below(len(closed))]
            for _ in range(self.job.gc_d - 1):
                c = closed[self.rng.below(len(closed))]
                if self.valid[c] < self.valid[b]:
                    b = c
        else:  # cost-benefit: max (1 − u) / 2u × age, compared exactly in integers
            b = NONE
            best_num, best_den = 0, 1
            for c in closed:
                v = self.valid[c]
                if v == 0:
                    b = c
                    break
                num = (self.np - v) * (self.host_writes - self.close_time[c] + 1)
                den = 2 * v
                if b == NONE or num * best_den > best_num * den:
                    b, best_num, best_den = c, num, den
        set_remove(self.closed, self.closed_pos, b)
        return b

    # -- allocation, GC and folding --------------------------------------------------------
    def _erase(self, b: int) -> None:
        self.erase_count[b] += 1
        self.erases += 1
        self.valid[b] = 0
        self.state[b] = FREE

    def _move(self, src: int) -> None:
        """Copy one valid page to the native frontier (GC or folding)."""
        lpn = self.p2l[src]
        self.p2l[src] = NONE
        dst = self._alloc_native()
        self.l2p[lpn] = dst
        self.p2l[dst] = lpn
        self.valid[dst // self.np] += 1
        self.nand_reads += 1
        self.native_programs += 1

    def _reclaim_one(self) -> None:
        if self.dyn_queue:  # fold the oldest dynamic SLC block first: it gives a whole block
            b = self.dyn_queue.popleft()
            base = b * self.np
            for off in range(self.job.slc_pages_per_block):
                if self.p2l[base + off] != NONE:
                    self.slc_valid -= 1
                    self._move(base + off)
            self._erase(b)
            self.free.append(b)
            return
        b = self._pick_victim()
        base = b * self.np
        for off in range(self.np):
            if self.p2l[base + off] != NONE:
                self._move(base + off)
        self._erase(b)
        self.free.append(b)

    def reclaim_one(self) -> None:
        """One block reclaimed as GC reclaims it, asked from outside: the virtual drive's idle
        GC (sim/virtual_drive.py). The Rust core runs no idle, so it has no counterpart."""
        self._reclaim_one()

    def _alloc_native(self) -> int:
        while True:
            if self.front != NONE and self.front_off < self.np:
                ppn = self.front * self.np + self.front_off
                self.front_off += 1
                return ppn
            if self.front != NONE:
                self._close_native(self.front)
                self.front = NONE
            if not self.in_gc and len(self.free) <= self.job.gc_low:
                self.in_gc = True
                rounds = 0
                while len(self.free) < self.job.gc_high:
                    self._reclaim_one()
                    rounds += 1
                    if rounds > 4 * self.job.total_blocks:  # a victim policy without progress
                        raise RuntimeError("garbage collection reclaims no space")
                self.in_gc = False
                continue
            if not self.free:
                raise RuntimeError("no free block left")
            self.front = self.free.popleft()
            self.front_off = 0
            self.state[self.front] = OPEN

    def _slc_room(self) -> bool:
        if self.sfront != NONE:
            if self.sfront_off < self.job.slc_pages_per_block:
                return True
            self.state[self.sfront] = SLC_CLOSED
            if self.sfront >= self.job.native_blocks:
                self.static_queue.append(self.sfront)
            else:
                self.dyn_queue.append(self.sfront)
            self.sfront = NONE
        if self.static_free:
            b = self.static_free.popleft()
        elif self.static_queue and self.valid[self.static_queue[0]] == 0:
            b = self.static_queue.popleft()
            self._erase(b)
        elif self.job.slc_dynamic and len(self.free) > self.job.gc_high + 1:
            b = self.free.popleft()
        else:
            return False
        self.sfront = b
        self.sfront_off = 0
        self.state[b] = SLC_OPEN
        return True

    # -- host operations -------------------------------------------------------------------
    def _invalidate(self, ppn: int) -> None:
        b = ppn // self.np
        self.p2l[ppn] = NONE
        v = self.valid[b]
        self.valid[b] = v - 1
        st = self.state[b]
        if st == CLOSED:
            if self.job.policy == 0:
                self._bucket_remove(b, v)
                self._bucket_insert(b, v - 1)
        elif st >= SLC_OPEN:
            self.slc_valid -= 1

    def write(self, lpn: int) -> None:
        old = self.l2p[lpn]
        if old != NONE:
            self._invalidate(old)
        elif self.track_live:
            set_add(self.live, self.live_pos, lpn)
        if self.slc_enabled and self._slc_room():
            ppn = self.sfront * self.np + self.sfront_off
            self.sfront_off += 1
            self.slc_programs += 1
            self.slc_valid += 1
        else:
            ppn = self._alloc_native()
            self.native_programs += 1
        self.l2p[lpn] = ppn
        self.p2l[ppn] = lpn
        self.valid[ppn // self.np] += 1
        self.host_writes += 1

    def read(self, lpn: int) -> None:
        self.host_reads += 1
        if self.l2p[lpn] != NONE:
            self.nand_reads += 1

    def trim(self, lpn: int) -> None:
        self.trims += 1
        old = self.l2p[lpn]
        if old == NONE:
            return
        self._invalidate(old)
        self.l2p[lpn] = NONE
        if self.track_live:
            set_remove(self.live, self.live_pos, lpn)

    # -- stopping --------------------------------------------------------------------------
    def tick(self, stop: StopCheck, pages: int) -> bool:
        """Count `pages` of work; every STOP_CHECK_PAGES ask whether to stop."""
        self.work += pages
        if self.work < self.next_check:
            return False
        self.next_check = self.work + STOP_CHECK_PAGES
        return stop()

    # -- initial states --------------------------------------------------------------------
    def fill_sequential(self, stop: StopCheck = _never) -> bool:
        """Write every LBA once; True when asked to stop part-way."""
        slc = self.slc_enabled
        self.slc_enabled = False
        for lpn in range(self.job.logical_pages):
            self.write(lpn)
            if self.tick(stop, 1):
                return True
        self.slc_enabled = slc
        return False

    def fill_steady(self, stop: StopCheck = _never) -> bool:
        """Place a seeded permutation of all logical pages by the analytic valid counts;
        True when asked to stop while shuffling."""
        order = list(range(self.job.logical_pages))
        for i in range(len(order) - 1, 0, -1):
            j = self.rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
            if self.tick(stop, 1):
                return True
        k = 0
        for b, level in enumerate(self.job.steady_levels):
            base = b * self.np
            for off in range(level):
                lpn = order[k]
                k += 1
                self.l2p[lpn] = base + off
                self.p2l[base + off] = lpn
                if self.track_live:
                    set_add(self.live, self.live_pos, lpn)
            self.valid[b] = level
            self._close_native(b)
        used = len(self.job.steady_levels)
        self.free = deque(range(used, self.job.native_blocks))
        return False

    def reset_counters(self) -> None:
        self.host_writes = self.host_reads = self.trims = self.nand_reads = 0
        self.native_programs = self.slc_programs = self.erases = 0
        self.close_time = [0] * self.job.total_blocks  # ages count from the measured start
        self.work = 0  # stop checks count from the measured start too
        self.next_check = STOP_CHECK_PAGES

    def snapshot(self) -> tuple[int, ...]:
        ec = self.erase_count
        return (
            self.host_writes,
            self.host_reads,
            self.trims,
            self.nand_reads,
            self.native_programs,
            self.slc_programs,
            self.erases,
            len(self.free),
            self.slc_valid,
            min(ec),
            sum(ec),
            max(ec),
        )

    # -- the workload loop -----------------------------------------------------------------
    def _pick(self, thresholds: tuple[int, ...]) -> int:
        if len(thresholds) == 1:
            return 0
        r = self.rng.next() >> 32
        for i, t in enumerate(thresholds):
            if r < t:
                return i
        return len(thresholds) - 1

    def next_request(self) -> tuple[int, int, int]:
        job = self.job
        op = OP_WRITE
        if job.read_threshold > 0:
            r = self.rng.next() >> 32
            if r < job.trim_threshold:
                op = OP_TRIM
            elif r < job.read_threshold:
                op = OP_READ
        count = job.size_pages[self._pick(job.size_thresholds)]
        if job.sequential:
            count = min(count, job.span_pages)
            start = self.cursor
            if start + count > job.span_pages:
                start = 0
            self.cursor = start + count
            return op, start, count
        if op == OP_TRIM and self.track_live:
            if not self.live:
                return op, 0, 0
            start = self.live[self.rng.below(len(self.live))]
            return op, start, min(count, job.logical_pages - start)
        z = self._pick(job.zone_thresholds)
        zone_pages = job.zone_pages[z]
        count = min(count, zone_pages)
        start = job.zone_starts[z] + self.rng.below(zone_pages - count + 1)
        return op, start, count

    def run(self, stop: StopCheck = _never) -> list[tuple[int, ...]]:
        """Per-interval counters; fewer rows than intervals when `stop` asked to end early."""
        job = self.job
        if job.initial == 1 and self.fill_sequential(stop):
            return []
        if job.initial == 2 and self.fill_steady(stop):
            return []
        self.reset_counters()
        out: list[tuple[int, ...]] = []
        boundary = min(job.interval_pages, job.host_pages)
        trace_len = len(job.trace_ops)
        t = 0
        while self.host_writes < job.host_pages:
            if trace_len:
                op, start, count = job.trace_ops[t], job.trace_starts[t], job.trace_counts[t]
                t = t + 1 if t + 1 < trace_len else 0
            else:
                op, start, count = self.next_request()
            if op == OP_WRITE:
                for lpn in range(start, start + count):
                    self.write(lpn)
            elif op == OP_READ:
                for lpn in range(start, start + count):
                    self.read(lpn)
            else:
                for lpn in range(start, start + count):
                    self.trim(lpn)
            while self.host_writes >= boundary and len(out) * job.interval_pages < job.host_pages:
                out.append(self.snapshot())
                boundary = min(boundary + job.interval_pages, job.host_pages)
            if self.tick(stop, count):
                break
        return out


def run_python(job: CoreJob, stop: StopCheck | None = None) -> list[tuple[int, ...]]:
    return Ftl(job).run(stop or _never)
