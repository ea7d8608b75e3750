//! Compiled core of ssdlab's fio latency-log reducer: a port of the numpy reference in
//! src/ssdlab/analysis/latency_stream.py (buckets, per-second counters) and of the line rules
//! of src/ssdlab/parse/fio_lat_log.py. Both must give identical histograms; the Python side
//! turns them into percentiles, so both cores report the same numbers.
//!
//! A line is `time_ms, value[, ddir[, ...]]` (fio's log layout, any number of further
//! columns, which are skipped unread); a missing ddir is a read. The text is parsed by hand,
//! integers only; a large block is cut at a line boundary and its halves reduced by two
//! threads, each into its own accumulator, merged when the result is asked for.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// 2^7 sub-buckets per power of two: a value is known to within 1/256 (0.39 %) of itself.
const SUB_BITS: u32 = 7;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) << SUB_BITS;
/// The per-second histograms (for each second's p99): 2^4 sub-buckets, values capped at 2^40 ns.
const SERIES_SUB_BITS: u32 = 4;
const SERIES_CAP_BITS: u32 = 40;
const SERIES_BUCKETS: usize =
    (SERIES_CAP_BITS as usize - SERIES_SUB_BITS as usize + 1) << SERIES_SUB_BITS;
const DIRECTIONS: usize = 3;
/// Blocks at least this large are reduced by two threads.
const SPLIT_BYTES: usize = 1 << 20;

#[inline]
fn bucket_of(value: u64, sub_bits: u32) -> usize {
    if value < (1u64 << sub_bits) {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros() - sub_bits;
    ((((exponent + 1) as u64) << sub_bits) + ((value >> exponent) & ((1u64 << sub_bits) - 1)))
        as usize
}

#[inline]
fn series_bucket_of(value: u64) -> usize {
    bucket_of(value.min((1u64 << SERIES_CAP_BITS) - 1), SERIES_SUB_BITS)
}

#[derive(Clone)]
struct Direction {
    count: u64,
    sum_ns: u64,
    min_ns: u64,
    max_ns: u64,
    histogram: Vec<u64>,
    first_second: u64,
    second_counts: Vec<u64>,
    second_sums: Vec<u64>,
    second_histograms: Vec<u32>,
}

impl Direction {
    fn new() -> Self {
        Direction {
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            histogram: vec![0; BUCKETS],
            first_second: 0,
            second_counts: Vec::new(),
            second_sums: Vec::new(),
            second_histograms: Vec::new(),
        }
    }

    /// The index of `second` in the per-second vectors, growing them (at either end) to hold it.
    #[inline]
    fn second_index(&mut self, second: u64) -> usize {
        if self.second_counts.is_empty() {
            self.first_second = second;
        } else if second < self.first_second {
            let more = (self.first_second - second) as usize;
            self.second_counts
                .splice(0..0, std::iter::repeat(0).take(more));
            self.second_sums
                .splice(0..0, std::iter::repeat(0).take(more));
            self.second_histograms
                .splice(0..0, std::iter::repeat(0).take(more * SERIES_BUCKETS));
            self.first_second = second;
        }
        let index = (second - self.first_second) as usize;
        if index >= self.second_counts.len() {
            self.second_counts.resize(index + 1, 0);
            self.second_sums.resize(index + 1, 0);
            self.second_histograms
                .resize((index + 1) * SERIES_BUCKETS, 0);
        }
        index
    }

    #[inline]
    fn add(&mut self, time_ms: u64, value_ns: u64) {
        self.count += 1;
        self.sum_ns = self.sum_ns.wrapping_add(value_ns);
        self.min_ns = self.min_ns.min(value_ns);
        self.max_ns = self.max_ns.max(value_ns);
        self.histogram[bucket_of(value_ns, SUB_BITS)] += 1;
        let index = self.second_index(time_ms / 1000);
        self.second_counts[index] += 1;
        self.second_sums[index] += value_ns;
        self.second_histograms[index * SERIES_BUCKETS + series_bucket_of(value_ns)] += 1;
    }

    fn merge(&mut self, other: &Direction) {
        if other.count == 0 {
            return;
        }
        self.count += other.count;
        self.sum_ns = self.sum_ns.wrapping_add(other.sum_ns);
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        for (mine, theirs) in self.histogram.iter_mut().zip(&other.histogram) {
            *mine += theirs;
        }
        let last = other.first_second + other.second_counts.len() as u64 - 1;
        self.second_index(last);
        let start = self.second_index(other.first_second);
        for (offset, (&n, &s)) in other
            .second_counts
            .iter()
            .zip(&other.second_sums)
            .enumerate()
        {
            self.second_counts[start + offset] += n;
            self.second_sums[start + offset] += s;
        }
        let base = start * SERIES_BUCKETS;
        for (offset, &n) in other.second_histograms.iter().enumerate() {
            self.second_histograms[base + offset] += n;
        }
    }
}

type Accumulator = Vec<Direction>;

fn new_accumulator() -> Accumulator {
    (0..DIRECTIONS).map(|_| Direction::new()).collect()
}

/// A bad line: its number within the block (from 1) and what is wrong with it.
type LineError = (u64, &'static str);

#[inline]
fn skip_spaces(text: &[u8], at: &mut usize) {
    while *at < text.len() && (text[*at] == b' ' || text[*at] == b'\t') {
        *at += 1;
    }
}

/// A whole number of at most 19 digits at `at`, spaces around it skipped.
#[inline]
fn whole_number(text: &[u8], at: &mut usize) -> Option<u64> {
    skip_spaces(text, at);
    let start = *at;
    let mut value: u64 = 0;
    while *at < text.len() {
        let digit = text[*at].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + digit as u64;
        *at += 1;
    }
    let digits = *at - start;
    if digits == 0 || digits > 19 {
        return None;
    }
    skip_spaces(text, at);
    Some(value)
}

#[inline]
fn at_line_end(text: &[u8], at: usize) -> bool {
    at >= text.len()
        || text[at] == b'\n'
        || (text[at] == b'\r' && (at + 1 >= text.len() || text[at + 1] == b'\n'))
}

/// Reduce every line of `text` into `acc`; the number of lines read, or the first bad line.
fn reduce_block(text: &[u8], acc: &mut Accumulator) -> Result<u64, LineError> {
    let mut at = 0usize;
    let mut line = 0u64;
    while at < text.len() {
        line += 1;
        let start = at;
        skip_spaces(text, &mut at);
        if at_line_end(text, at) {
            // a blank line: skipped
            at = match memchr_newline(text, start) {
                Some(end) => end + 1,
                None => text.len(),
            };
            continue;
        }
        let time_ms =
            whole_number(text, &mut at).ok_or((line, "the time is not a whole number"))?;
        if at >= text.len() || text[at] != b',' {
            return Err((line, "expected 'time, latency, direction, ...'"));
        }
        at += 1;
        let value_ns =
            whole_number(text, &mut at).ok_or((line, "the value is not a whole number"))?;
        let mut ddir = 0u64;
        if !at_line_end(text, at) {
            if text[at] != b',' {
                return Err((line, "the value is not a whole number"));
            }
            at += 1;
            ddir =
                whole_number(text, &mut at).ok_or((line, "the direction is not a whole number"))?;
            if ddir >= DIRECTIONS as u64 {
                return Err((line, "the direction is not 0 (read), 1 (write) or 2 (trim)"));
            }
            if !at_line_end(text, at) && text[at] != b',' {
                return Err((line, "the direction is not a whole number"));
            }
        }
        if value_ns > i64::MAX as u64 || time_ms > i64::MAX as u64 {
            return Err((line, "out of range"));
        }
        acc[ddir as usize].add(time_ms, value_ns);
        at = match memchr_newline(text, at) {
            Some(end) => end + 1,
            None => text.len(),
        };
    }
    Ok(line)
}

#[inline]
fn memchr_newline(text: &[u8], from: usize) -> Option<usize> {
    text[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| from + p)
}

fn count_lines(text: &[u8]) -> u64 {
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
    lines + u64::from(!text.is_empty() && *text.last().unwrap() != b'\n')
}

/// The streaming reducer: feed it blocks of whole lines, then ask for the result.
#[pyclass(module = "ssdlab_logcore")]
struct LogReducer {
    parts: [Accumulator; 2],
    lines: u64,
}

#[pymethods]
impl LogReducer {
    #[new]
    fn new() -> Self {
        LogReducer {
            parts: [new_accumulator(), new_accumulator()],
            lines: 0,
        }
    }

    /// Reduce a block of whole lines; the number of lines it held. A bad line raises
    /// ValueError((line number within the block, from 1), reason).
    fn feed(&mut self, py: Python<'_>, block: &Bound<'_, PyBytes>) -> PyResult<u64> {
        let text = block.as_bytes();
        let [first, second] = &mut self.parts;
        let done = py.allow_threads(|| {
            if text.len() < SPLIT_BYTES {
                return reduce_block(text, first);
            }
            let cut = match memchr_newline(text, text.len() / 2) {
                Some(end) => end + 1,
                None => text.len(),
            };
            let (head, tail) = text.split_at(cut);
            let (head_done, tail_done) = std::thread::scope(|scope| {
                let worker = scope.spawn(|| reduce_block(tail, second));
                let head_done = reduce_block(head, first);
                (
                    head_done,
                    worker
                        .join()
                        .expect("the log reducer's worker thread panicked"),
                )
            });
            let head_lines = head_done?;
            match tail_done {
                Ok(tail_lines) => Ok(head_lines + tail_lines),
                Err((line, why)) => Err((count_lines(head) + line, why)),
            }
        });
        match done {
            Ok(lines) => {
                self.lines += lines;
                Ok(lines)
            }
            Err((line, why)) => Err(PyValueError::new_err((line, why))),
        }
    }

    /// Per direction (0 read, 1 write, 2 trim): None without I/Os, else (count, sum_ns,
    /// min_ns, max_ns, histogram, first_second, second_counts, second_sums,
    /// second_histograms), the arrays as little-endian bytes (u64, u64, u64, u32).
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Vec<Option<Bound<'py, PyTuple>>>> {
        let mut out = Vec::with_capacity(DIRECTIONS);
        for ddir in 0..DIRECTIONS {
            let mut merged = self.parts[0][ddir].clone();
            merged.merge(&self.parts[1][ddir]);
            if merged.count == 0 {
                out.push(None);
                continue;
            }
            let items: Vec<PyObject> = vec![
                merged.count.into_pyobject(py)?.into_any().unbind(),
                merged.sum_ns.into_pyobject(py)?.into_any().unbind(),
                merged.min_ns.into_pyobject(py)?.into_any().unbind(),
                merged.max_ns.into_pyobject(py)?.into_any().unbind(),
                le_bytes_u64(py, &merged.histogram),
                merged.first_second.into_pyobject(py)?.into_any().unbind(),
                le_bytes_u64(py, &merged.second_counts),
                le_bytes_u64(py, &merged.second_sums),
                PyBytes::new(
                    py,
                    &merged
                        .second_histograms
                        .iter()
                        .flat_map(|v| v.to_le_bytes())
                        .collect::<Vec<u8>>(),
                )
                .into_any()
                .unbind(),
            ];
            out.push(Some(PyTuple::new(py, items)?));
        }
        Ok(out)
    }

    #[getter]
    fn lines(&self) -> u64 {
        self.lines
    }
}

fn le_bytes_u64(py: Python<'_>, values: &[u64]) -> PyObject {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    PyBytes::new(py, &bytes).into_any().unbind()
}

#[pymodule]
fn ssdlab_logcore(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<LogReducer>()?;
    module.add("SUB_BITS", SUB_BITS)?;
    module.add("SERIES_SUB_BITS", SERIES_SUB_BITS)?;
    module.add("SERIES_CAP_BITS", SERIES_CAP_BITS)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_match_the_python_reference() {
        assert_eq!(bucket_of(0, SUB_BITS), 0);
        assert_eq!(bucket_of(127, SUB_BITS), 127);
        assert_eq!(bucket_of(128, SUB_BITS), 128);
        assert_eq!(bucket_of(256, SUB_BITS), 256);
        assert!(bucket_of(i64::MAX as u64, SUB_BITS) < BUCKETS);
        assert!(series_bucket_of(u64::MAX) < SERIES_BUCKETS);
    }

    #[test]
    fn lines_of_every_layout_parse() {
        let mut acc = new_accumulator();
        let text = b"0, 10, 0, 4096, 0\r\n\n5, 20, 1, 4096, 4096, 0x0000\n7, 30\n2000, 40, 2, 4096";
        assert_eq!(reduce_block(text, &mut acc), Ok(5));
        assert_eq!(acc[0].count, 2);
        assert_eq!(acc[1].count, 1);
        assert_eq!(acc[2].second_counts, vec![1]);
        assert_eq!(acc[2].first_second, 2);
        assert_eq!(
            reduce_block(b"1, 2, 0\n1, x, 0\n", &mut acc),
            Err((2, "the value is not a whole number"))
        );
    }
}
