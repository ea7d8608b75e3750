//! Compiled core of the ssdlab SSD simulator.
//!
//! A line-by-line port of `src/ssdlab/sim/ftl.py`: the same data structures and the same
//! order of draws from the same splitmix64 generator, so both cores return identical
//! counters for the same job. Change one, change the other.

use pyo3::exceptions::{PyKeyError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;
const FREE: u8 = 0;
const OPEN: u8 = 1;
const CLOSED: u8 = 2;
const SLC_OPEN: u8 = 3;
const SLC_CLOSED: u8 = 4;
const OP_READ: u8 = 0;
const OP_WRITE: u8 = 1;
const OP_TRIM: u8 = 2;
/// Pages of work (host writes, reads, TRIMs, fill writes) between two stop checks; the checks
/// draw no random numbers, so they never change the counters.
const STOP_CHECK_PAGES: u64 = 1 << 16;

struct Job {
    logical_pages: usize,
    total_blocks: usize,
    native_blocks: usize,
    pages_per_block: usize,
    slc_pages_per_block: usize,
    slc_dynamic: bool,
    policy: u8,
    gc_d: usize,
    gc_low: usize,
    gc_high: usize,
    seed: u64,
    initial: u8,
    steady_levels: Vec<u32>,
    sequential: bool,
    span_pages: usize,
    trim_threshold: u64,
    read_threshold: u64,
    zone_thresholds: Vec<u64>,
    zone_starts: Vec<usize>,
    zone_pages: Vec<usize>,
    size_thresholds: Vec<u64>,
    size_pages: Vec<usize>,
    trace_ops: Vec<u8>,
    trace_starts: Vec<usize>,
    trace_counts: Vec<usize>,
    host_pages: u64,
    interval_pages: u64,
}

fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    match d.get_item(key)? {
        Some(v) => v.extract::<T>(),
        None => Err(PyKeyError::new_err(format!("job has no {key}"))),
    }
}

impl Job {
    fn from_dict(d: &Bound<'_, PyDict>) -> PyResult<Job> {
        Ok(Job {
            logical_pages: get(d, "logical_pages")?,
            total_blocks: get(d, "total_blocks")?,
            native_blocks: get(d, "native_blocks")?,
            pages_per_block: get(d, "pages_per_block")?,
            slc_pages_per_block: get(d, "slc_pages_per_block")?,
            slc_dynamic: get(d, "slc_dynamic")?,
            policy: get(d, "policy")?,
            gc_d: get(d, "gc_d")?,
            gc_low: get(d, "gc_low")?,
            gc_high: get(d, "gc_high")?,
            seed: get(d, "seed")?,
            initial: get(d, "initial")?,
            steady_levels: get(d, "steady_levels")?,
            sequential: get(d, "sequential")?,
            span_pages: get(d, "span_pages")?,
            trim_threshold: get(d, "trim_threshold")?,
            read_threshold: get(d, "read_threshold")?,
            zone_thresholds: get(d, "zone_thresholds")?,
            zone_starts: get(d, "zone_starts")?,
            zone_pages: get(d, "zone_pages")?,
            size_thresholds: get(d, "size_thresholds")?,
            size_pages: get(d, "size_pages")?,
            trace_ops: get(d, "trace_ops")?,
            trace_starts: get(d, "trace_starts")?,
            trace_counts: get(d, "trace_counts")?,
            host_pages: get(d, "host_pages")?,
            interval_pages: get(d, "interval_pages")?,
        })
    }
}

#[inline(always)]
fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if index < slice.len() {
        // SAFETY: the pointer is inside the slice; a prefetch never faults or changes memory
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(slice.as_ptr().add(index) as *const i8);
        }
    }
}

/// Add x to an indexed set (a list plus each member's position in it).
fn set_add(items: &mut Vec<u32>, pos: &mut [u32], x: u32) {
    pos[x as usize] = items.len() as u32;
    items.push(x);
}

/// Remove x in O(1): the last member takes its place.
fn set_remove(items: &mut Vec<u32>, pos: &mut [u32], x: u32) {
    let i = pos[x as usize] as usize;
    let last = items.pop().unwrap();
    if last != x {
        items[i] = last;
        pos[last as usize] = i as u32;
    }
    pos[x as usize] = NONE;
}

struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    #[inline(always)]
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

struct Ftl {
    job: Job,
    np: usize,
    rng: SplitMix64,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u32>,
    erase_count: Vec<u64>,
    state: Vec<u8>,
    close_time: Vec<u64>,
    free: VecDeque<u32>,
    static_free: VecDeque<u32>,
    static_queue: VecDeque<u32>,
    dyn_queue: VecDeque<u32>,
    front: u32,
    front_off: usize,
    sfront: u32,
    sfront_off: usize,
    in_gc: bool,
    slc_enabled: bool,
    head: Vec<u32>,
    nxt: Vec<u32>,
    prv: Vec<u32>,
    min_hint: usize,
    fifo: VecDeque<u32>,
    closed: Vec<u32>,
    closed_pos: Vec<u32>,
    track_live: bool,
    live: Vec<u32>,
    live_pos: Vec<u32>,
    cursor: usize,
    work: u64,
    next_check: u64,
    host_writes: u64,
    host_reads: u64,
    trims: u64,
    nand_reads: u64,
    native_programs: u64,
    slc_programs: u64,
    erases: u64,
    slc_valid: u64,
}

type Fail = String;

impl Ftl {
    fn new(job: Job) -> Ftl {
        let np = job.pages_per_block;
        let total = job.total_blocks;
        let track_live = job.trim_threshold > 0 && job.trace_ops.is_empty();
        Ftl {
            np,
            rng: SplitMix64 { state: job.seed },
            l2p: vec![NONE; job.logical_pages],
            p2l: vec![NONE; total * np],
            valid: vec![0; total],
            erase_count: vec![0; total],
            state: vec![FREE; total],
            close_time: vec![0; total],
            free: (0..job.native_blocks as u32).collect(),
            static_free: (job.native_blocks as u32..total as u32).collect(),
            static_queue: VecDeque::new(),
            dyn_queue: VecDeque::new(),
            front: NONE,
            front_off: 0,
            sfront: NONE,
            sfront_off: 0,
            in_gc: false,
            slc_enabled: total > job.native_blocks || job.slc_dynamic,
            head: vec![NONE; np + 1],
            nxt: vec![NONE; total],
            prv: vec![NONE; total],
            min_hint: np + 1,
            fifo: VecDeque::new(),
            closed: Vec::new(),
            closed_pos: vec![NONE; total],
            track_live,
            live: Vec::new(),
            live_pos: vec![NONE; if track_live { job.logical_pages } else { 0 }],
            cursor: 0,
            work: 0,
            next_check: STOP_CHECK_PAGES,
            host_writes: 0,
            host_reads: 0,
            trims: 0,
            nand_reads: 0,
            native_programs: 0,
            slc_programs: 0,
            erases: 0,
            slc_valid: 0,
            job,
        }
    }

    // -- closed native blocks ---------------------------------------------------------------
    #[inline(always)]
    fn bucket_insert(&mut self, b: u32, v: usize) {
        let h = self.head[v];
        self.nxt[b as usize] = h;
        self.prv[b as usize] = NONE;
        if h != NONE {
            self.prv[h as usize] = b;
        }
        self.head[v] = b;
        if v < self.min_hint {
            self.min_hint = v;
        }
    }

    #[inline(always)]
    fn bucket_remove(&mut self, b: u32, v: usize) {
        let p = self.prv[b as usize];
        let n = self.nxt[b as usize];
        if p != NONE {
            self.nxt[p as usize] = n;
        } else {
            self.head[v] = n;
        }
        if n != NONE {
            self.prv[n as usize] = p;
        }
    }

    fn close_native(&mut self, b: u32) {
        self.state[b as usize] = CLOSED;
        self.close_time[b as usize] = self.host_writes;
        match self.job.policy {
            0 => {
                let v = self.valid[b as usize] as usize;
                self.bucket_insert(b, v)
            }
            2 => self.fifo.push_back(b),
            _ => set_add(&mut self.closed, &mut self.closed_pos, b),
        }
    }

    fn pick_victim(&mut self) -> Result<u32, Fail> {
        let policy = self.job.policy;
        if policy == 0 {
            let mut v = self.min_hint;
            while v <= self.np && self.head[v] == NONE {
                v += 1;
            }
            if v > self.np {
                return Err("no closed block to collect".into());
            }
            let b = self.head[v];
            self.bucket_remove(b, v);
            self.min_hint = v;
            return Ok(b);
        }
        if policy == 2 {
            return self
                .fifo
                .pop_front()
                .ok_or_else(|| "no closed block to collect".into());
        }
        if self.closed.is_empty() {
            return Err("no closed block to collect".into());
        }
        let b;
        if policy == 3 {
            let i = self.rng.below(self.closed.len());
            b = self.closed[i];
        } else if policy == 4 {
            let i = self.rng.below(self.closed.len());
            let mut best = self.closed[i];
            for _ in 0..self.job.gc_d.saturating_sub(1) {
                let j = self.rng.below(self.closed.len());
                let c = self.closed[j];
                if self.valid[c as usize] < self.valid[best as usize] {
                    best = c;
                }
            }
            b = best;
        } else {
            let mut best = NONE;
            let mut best_num: u128 = 0;
            let mut best_den: u128 = 1;
            for &c in self.closed.iter() {
                let v = self.valid[c as usize] as u128;
                if v == 0 {
                    best = c;
                    break;
                }
                let age = (self.host_writes - self.close_time[c as usize] + 1) as u128;
                let num = (self.np as u128 - v) * age;
                let den = 2 * v;
                if best == NONE || num * best_den > best_num * den {
                    best = c;
                    best_num = num;
                    best_den = den;
                }
            }
            b = best;
        }
        set_remove(&mut self.closed, &mut self.closed_pos, b);
        Ok(b)
    }

    // -- allocation, GC and folding ---------------------------------------------------------
    fn erase(&mut self, b: u32) {
        self.erase_count[b as usize] += 1;
        self.erases += 1;
        self.valid[b as usize] = 0;
        self.state[b as usize] = FREE;
    }

    fn move_page(&mut self, src: usize) -> Result<(), Fail> {
        let lpn = self.p2l[src];
        self.p2l[src] = NONE;
        let dst = self.alloc_native()?;
        self.l2p[lpn as usize] = dst as u32;
        self.p2l[dst] = lpn;
        self.valid[dst / self.np] += 1;
        self.nand_reads += 1;
        self.native_programs += 1;
        Ok(())
    }

    fn reclaim_one(&mut self) -> Result<(), Fail> {
        if let Some(b) = self.dyn_queue.pop_front() {
            let base = b as usize * self.np;
            for off in 0..self.job.slc_pages_per_block {
                if self.p2l[base + off] != NONE {
                    self.slc_valid -= 1;
                    self.move_page(base + off)?;
                }
            }
            self.erase(b);
            self.free.push_back(b);
            return Ok(());
        }
        let b = self.pick_victim()?;
        let base = b as usize * self.np;
        for off in 0..self.np {
            if off + 8 < self.np {
                let ahead = self.p2l[base + off + 8];
                if ahead != NONE {
                    prefetch(&self.l2p, ahead as usize);
                }
            }
            if self.p2l[base + off] != NONE {
                self.move_page(base + off)?;
            }
        }
        self.erase(b);
        self.free.push_back(b);
        Ok(())
    }

    #[inline]
    fn alloc_native(&mut self) -> Result<usize, Fail> {
        loop {
            if self.front != NONE && self.front_off < self.np {
                let ppn = self.front as usize * self.np + self.front_off;
                self.front_off += 1;
                return Ok(ppn);
            }
            if self.front != NONE {
                let f = self.front;
                self.close_native(f);
                self.front = NONE;
            }
            if !self.in_gc && self.free.len() <= self.job.gc_low {
                self.in_gc = true;
                let mut rounds = 0usize;
                while self.free.len() < self.job.gc_high {
                    self.reclaim_one()?;
                    rounds += 1;
                    if rounds > 4 * self.job.total_blocks {
                        return Err("garbage collection reclaims no space".into());
                    }
                }
                self.in_gc = false;
                continue;
            }
            let b = self
                .free
                .pop_front()
                .ok_or_else(|| String::from("no free block left"))?;
            self.front = b;
            self.front_off = 0;
            self.state[b as usize] = OPEN;
        }
    }

    fn slc_room(&mut self) -> bool {
        if self.sfront != NONE {
            if self.sfront_off < self.job.slc_pages_per_block {
                return true;
            }
            let s = self.sfront;
            self.state[s as usize] = SLC_CLOSED;
            if s as usize >= self.job.native_blocks {
                self.static_queue.push_back(s);
            } else {
                self.dyn_queue.push_back(s);
            }
            self.sfront = NONE;
        }
        let b;
        if let Some(x) = self.static_free.pop_front() {
            b = x;
        } else if !self.static_queue.is_empty() && self.valid[self.static_queue[0] as usize] == 0 {
            b = self.static_queue.pop_front().unwrap();
            self.erase(b);
        } else if self.job.slc_dynamic && self.free.len() > self.job.gc_high + 1 {
            b = self.free.pop_front().unwrap();
        } else {
            return false;
        }
        self.sfront = b;
        self.sfront_off = 0;
        self.state[b as usize] = SLC_OPEN;
        true
    }

    // -- host operations --------------------------------------------------------------------
    #[inline(always)]
    fn invalidate(&mut self, ppn: usize) {
        let b = ppn / self.np;
        self.p2l[ppn] = NONE;
        let v = self.valid[b] as usize;
        self.valid[b] = (v - 1) as u32;
        let st = self.state[b];
        if st == CLOSED {
            if self.job.policy == 0 {
                self.bucket_remove(b as u32, v);
                self.bucket_insert(b as u32, v - 1);
            }
        } else if st >= SLC_OPEN {
            self.slc_valid -= 1;
        }
    }

    #[inline]
    fn write(&mut self, lpn: usize) -> Result<(), Fail> {
        let old = self.l2p[lpn];
        if old != NONE {
            self.invalidate(old as usize);
        } else if self.track_live {
            set_add(&mut self.live, &mut self.live_pos, lpn as u32);
        }
        let ppn;
        if self.slc_enabled && self.slc_room() {
            ppn = self.sfront as usize * self.np + self.sfront_off;
            self.sfront_off += 1;
            self.slc_programs += 1;
            self.slc_valid += 1;
        } else {
            ppn = self.alloc_native()?;
            self.native_programs += 1;
        }
        self.l2p[lpn] = ppn as u32;
        self.p2l[ppn] = lpn as u32;
        self.valid[ppn / self.np] += 1;
        self.host_writes += 1;
        Ok(())
    }

    fn read(&mut self, lpn: usize) {
        self.host_reads += 1;
        if self.l2p[lpn] != NONE {
            self.nand_reads += 1;
        }
    }

    fn trim(&mut self, lpn: usize) {
        self.trims += 1;
        let old = self.l2p[lpn];
        if old == NONE {
            return;
        }
        self.invalidate(old as usize);
        self.l2p[lpn] = NONE;
        if self.track_live {
            set_remove(&mut self.live, &mut self.live_pos, lpn as u32);
        }
    }

    // -- initial states ---------------------------------------------------------------------
    /// Count `pages` of work; every STOP_CHECK_PAGES ask whether to stop.
    #[inline]
    fn tick(&mut self, stop: &mut dyn FnMut() -> bool, pages: u64) -> bool {
        self.work += pages;
        if self.work < self.next_check {
            return false;
        }
        self.next_check = self.work + STOP_CHECK_PAGES;
        stop()
    }

    /// Write every LBA once; Ok(true) when asked to stop part-way.
    fn fill_sequential(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<bool, Fail> {
        let slc = self.slc_enabled;
        self.slc_enabled = false;
        for lpn in 0..self.job.logical_pages {
            self.write(lpn)?;
            if self.tick(stop, 1) {
                return Ok(true);
            }
        }
        self.slc_enabled = slc;
        Ok(false)
    }

    /// Place every LBA by the analytic levels; true when asked to stop while shuffling.
    fn fill_steady(&mut self, stop: &mut dyn FnMut() -> bool) -> bool {
        let mut order: Vec<u32> = (0..self.job.logical_pages as u32).collect();
        let mut i = order.len();
        while i > 1 {
            i -= 1;
            let j = self.rng.below(i + 1);
            order.swap(i, j);
            if self.tick(stop, 1) {
                return true;
            }
        }
        let mut k = 0usize;
        let levels = self.job.steady_levels.clone();
        for (b, &level) in levels.iter().enumerate() {
            let base = b * self.np;
            for off in 0..level as usize {
                let lpn = order[k];
                k += 1;
                self.l2p[lpn as usize] = (base + off) as u32;
                self.p2l[base + off] = lpn;
                if self.track_live {
                    set_add(&mut self.live, &mut self.live_pos, lpn);
                }
            }
            self.valid[b] = level;
            self.close_native(b as u32);
        }
        self.free = (levels.len() as u32..self.job.native_blocks as u32).collect();
        false
    }

    fn reset_counters(&mut self) {
        self.host_writes = 0;
        self.host_reads = 0;
        self.trims = 0;
        self.nand_reads = 0;
        self.native_programs = 0;
        self.slc_programs = 0;
        self.erases = 0;
        self.close_time.fill(0); // ages count from the measured start
        self.work = 0; // stop checks count from the measured start too
        self.next_check = STOP_CHECK_PAGES;
    }

    fn snapshot(&self) -> Vec<u64> {
        let ec = &self.erase_count;
        vec![
            self.host_writes,
            self.host_reads,
            self.trims,
            self.nand_reads,
            self.native_programs,
            self.slc_programs,
            self.erases,
            self.free.len() as u64,
            self.slc_valid,
            *ec.iter().min().unwrap_or(&0),
            ec.iter().sum(),
            *ec.iter().max().unwrap_or(&0),
        ]
    }

    // -- the workload loop ------------------------------------------------------------------
    #[inline]
    fn pick(rng: &mut SplitMix64, thresholds: &[u64]) -> usize {
        if thresholds.len() == 1 {
            return 0;
        }
        let r = rng.next() >> 32;
        for (i, &t) in thresholds.iter().enumerate() {
            if r < t {
                return i;
            }
        }
        thresholds.len() - 1
    }

    #[inline]
    fn next_request(&mut self) -> (u8, usize, usize) {
        let mut op = OP_WRITE;
        if self.job.read_threshold > 0 {
            let r = self.rng.next() >> 32;
            if r < self.job.trim_threshold {
                op = OP_TRIM;
            } else if r < self.job.read_threshold {
                op = OP_READ;
            }
        }
        let si = Ftl::pick(&mut self.rng, &self.job.size_thresholds);
        let mut count = self.job.size_pages[si];
        if self.job.sequential {
            count = count.min(self.job.span_pages);
            let mut start = self.cursor;
            if start + count > self.job.span_pages {
                start = 0;
            }
            self.cursor = start + count;
            return (op, start, count);
        }
        if op == OP_TRIM && self.track_live {
            if self.live.is_empty() {
                return (op, 0, 0);
            }
            let i = self.rng.below(self.live.len());
            let start = self.live[i] as usize;
            return (op, start, count.min(self.job.logical_pages - start));
        }
        let z = Ftl::pick(&mut self.rng, &self.job.zone_thresholds);
        let zone_pages = self.job.zone_pages[z];
        count = count.min(zone_pages);
        let start = self.job.zone_starts[z] + self.rng.below(zone_pages - count + 1);
        (op, start, count)
    }

    /// Single-page writes to one uniform zone with a GC policy that draws no random numbers:
    /// the addresses can be drawn ahead (the same draws in the same order as next_request)
    /// and their mapping entries prefetched, which hides most of the cache misses.
    fn batchable(&self) -> bool {
        let j = &self.job;
        j.trace_ops.is_empty()
            && !j.sequential
            && j.read_threshold == 0
            && j.zone_thresholds.len() == 1
            && j.size_thresholds.len() == 1
            && j.size_pages[0] == 1
            && matches!(j.policy, 0..=2)
    }

    /// Ok(true) when asked to stop (checked after each batch: 256 divides STOP_CHECK_PAGES, so
    /// the checks fall on the same page counts as in the unbatched loop).
    fn run_batched(
        &mut self,
        out: &mut Vec<Vec<u64>>,
        boundary: &mut u64,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<bool, Fail> {
        const BATCH: usize = 256;
        const AHEAD: usize = 16;
        let ip = self.job.interval_pages;
        let hp = self.job.host_pages;
        let zone_pages = self.job.zone_pages[0];
        let zone_start = self.job.zone_starts[0];
        let mut lpns = [0usize; BATCH];
        while self.host_writes < hp {
            let n = ((hp - self.host_writes) as usize).min(BATCH);
            for slot in lpns.iter_mut().take(n) {
                *slot = zone_start + self.rng.below(zone_pages);
            }
            for &lpn in lpns.iter().take(n.min(AHEAD)) {
                prefetch(&self.l2p, lpn);
            }
            for i in 0..n {
                if i + AHEAD < n {
                    prefetch(&self.l2p, lpns[i + AHEAD]);
                }
                if i + AHEAD / 2 < n {
                    let old = self.l2p[lpns[i + AHEAD / 2]];
                    if old != NONE {
                        prefetch(&self.p2l, old as usize);
                    }
                }
                self.write(lpns[i])?;
                while self.host_writes >= *boundary && (out.len() as u64) * ip < hp {
                    out.push(self.snapshot());
                    *boundary = (*boundary + ip).min(hp);
                }
            }
            if self.tick(stop, n as u64) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Per-interval counters; fewer rows than intervals when `stop` asked to end early.
    fn run(&mut self, stop: &mut dyn FnMut() -> bool) -> Result<Vec<Vec<u64>>, Fail> {
        if self.job.initial == 1 {
            if self.fill_sequential(stop)? {
                return Ok(Vec::new());
            }
        } else if self.job.initial == 2 && self.fill_steady(stop) {
            return Ok(Vec::new());
        }
        self.reset_counters();
        let mut out: Vec<Vec<u64>> = Vec::new();
        let ip = self.job.interval_pages;
        let hp = self.job.host_pages;
        let mut boundary = ip.min(hp);
        let trace_len = self.job.trace_ops.len();
        let mut t = 0usize;
        if self.batchable() && self.run_batched(&mut out, &mut boundary, stop)? {
            return Ok(out);
        }
        while self.host_writes < hp {
            let (op, start, count) = if trace_len > 0 {
                let r = (
                    self.job.trace_ops[t],
                    self.job.trace_starts[t],
                    self.job.trace_counts[t],
                );
                t = if t + 1 < trace_len { t + 1 } else { 0 };
                r
            } else {
                self.next_request()
            };
            if op == OP_WRITE {
                for lpn in start..start + count {
                    self.write(lpn)?;
                }
            } else if op == OP_READ {
                for lpn in start..start + count {
                    self.read(lpn);
                }
            } else {
                for lpn in start..start + count {
                    self.trim(lpn);
                }
            }
            while self.host_writes >= boundary && (out.len() as u64) * ip < hp {
                out.push(self.snapshot());
                boundary = (boundary + ip).min(hp);
            }
            if self.tick(stop, count as u64) {
                break;
            }
        }
        Ok(out)
    }
}

/// Run one job (the fields of `ssdlab.sim.ftl.CoreJob` as a dict); per-interval counters.
///
/// Every STOP_CHECK_PAGES pages of work the core takes the GIL, lets Python run its signal
/// handlers and calls `should_stop()`: when it returns true the intervals finished so far are
/// returned (fewer rows than intervals); an exception from a handler (Ctrl-C without a
/// handler of its own: KeyboardInterrupt) or from `should_stop` is raised.
#[pyfunction]
#[pyo3(signature = (job, should_stop=None))]
fn run(
    py: Python<'_>,
    job: &Bound<'_, PyDict>,
    should_stop: Option<PyObject>,
) -> PyResult<Vec<Vec<u64>>> {
    let job = Job::from_dict(job)?;
    let (result, error) = py.allow_threads(move || {
        let mut error: Option<PyErr> = None;
        let result = {
            let mut stop = || -> bool {
                Python::with_gil(|py| {
                    let asked = py.check_signals().and_then(|()| match &should_stop {
                        Some(callback) => callback.call0(py)?.bind(py).is_truthy(),
                        None => Ok(false),
                    });
                    asked.unwrap_or_else(|e| {
                        error = Some(e);
                        true
                    })
                })
            };
            Ftl::new(job).run(&mut stop)
        };
        (result, error)
    });
    if let Some(e) = error {
        return Err(e);
    }
    result.map_err(PyRuntimeError::new_err)
}

#[pymodule]
fn ssdlab_simcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
