"""fio per-I/O latency logs of a known distribution, written as fio writes them: `time_ms,
value_ns, 0, 4096, 0` per line (reads), `ios_per_s` I/Os a second, the values drawn with a seed
from a lognormal whose quantiles are exact."""

import math
from pathlib import Path

import numpy as np
from scipy import stats

MU, SIGMA = math.log(100_000.0), 0.6  # ns: a median of 100 µs
CHUNK = 1_000_000


def true_quantile_ns(pct: float) -> float:
    return math.exp(MU + SIGMA * float(stats.norm.ppf(pct / 100)))


def write_log(path: Path, lines: int, seed: int, ios_per_s: int = 100_000) -> Path:
    """A log of `lines` I/Os, written a million lines at a time."""
    generator = np.random.default_rng(seed)
    with path.open("w", encoding="ascii") as out:
        for start in range(0, lines, CHUNK):
            count = min(CHUNK, lines - start)
            values = generator.lognormal(MU, SIGMA, count).astype(np.int64)
            times = (np.arange(start, start + count) * 1000) // ios_per_s
            out.write(
                "".join(
                    f"{t}, {v}, 0, 4096, 0\n"
                    for t, v in zip(times.tolist(), values.tolist(), strict=True)
                )
            )
    return path
