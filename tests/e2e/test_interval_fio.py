"""Intervals on real fio measurements of known truth.

Each trial runs one fio job file on fio's null engine: three "aligned" and three "misaligned"
jobs side by side, each held by `rate_iops` to a rate drawn (with the trial's seed) from a
known distribution — the truth times 1 ± 5 % — so the truth of the ratio is known and fio's
own rate keeping (and the machine's load) is part of what is measured. ssdlab reads fio's JSON
as it reads any run and makes the alignment verdict from the six passes: the 95 % interval of
aligned ÷ misaligned must hold the true ratio, and the verdict must say yes, no or
inconclusive as the truth stands to the 1.5× threshold. Sixteen trials a case: an interval
that holds the truth 19 times in 20 misses it in more than four of 16 about one time in a
thousand, so 12 of 16 is the band (on this machine it held 15 or 16 of 16, and 13 to 16 on the
threshold); a loaded machine that makes fio miss its rate widens the interval rather than moving
it.
"""

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ssdlab.analysis.alignment import AlignmentVerdict, AlignResult, alignment_verdict
from ssdlab.parse.fio_json import parse_fio_json
from tests.conftest import needs_fio

pytestmark = [needs_fio]
TRIALS = 16
BAND = 12
NO_DEVICE = {
    "partition_start_bytes": None,
    "logical_block_bytes": None,
    "physical_block_bytes": None,
}


def measured_iops(folder: Path, rates: list[int]) -> list[float]:
    """Each rate as one null-engine job of half a second, all at once: the IOPS fio reports."""
    lines = ["[global]", "ioengine=null", "size=1g", "rw=randwrite", "bs=4k", "time_based",
             "runtime=500ms", "thread", ""]  # fmt: skip
    for number, rate in enumerate(rates):
        lines += [f"[job{number}]", f"rate_iops={rate}", ""]
    job = folder / "rates.fio"
    job.write_text("\n".join(lines))
    done = subprocess.run(
        ["fio", "--output-format=json", str(job)], capture_output=True, text=True, check=True
    )
    found = []
    for result in parse_fio_json(done.stdout).jobs:
        assert result.write is not None
        found.append(result.write.iops)
    return found


def trial(folder: Path, seed: int, aligned: float, misaligned: float) -> AlignmentVerdict:
    r = np.random.default_rng(seed)
    rates = [round(truth * (1 + 0.05 * r.standard_normal())) for truth in (aligned,) * 3]
    rates += [round(truth * (1 + 0.05 * r.standard_normal())) for truth in (misaligned,) * 3]
    iops = measured_iops(folder, rates)
    results = [AlignResult(4096, 4096, v) for v in iops[:3]]
    results += [AlignResult(4096, 512, v) for v in iops[3:]]
    return alignment_verdict(results, **NO_DEVICE)


@pytest.mark.parametrize(
    ("aligned", "misaligned", "state"),
    [(3000.0, 1000.0, "yes"), (2000.0, 2000.0, "no"), (1500.0, 1000.0, "inconclusive")],
    ids=["3x-penalty", "none", "on-the-threshold"],
)
def test_the_interval_holds_the_true_ratio_and_the_verdict_says_what_it_can(
    tmp_path: Path, aligned: float, misaligned: float, state: str
) -> None:
    verdicts = [trial(tmp_path, seed, aligned, misaligned) for seed in range(TRIALS)]
    truth = aligned / misaligned
    intervals = [v.misaligned_ratio_interval for v in verdicts]
    assert all(i is not None and i.basis == "repeats" and i.count == 3 for i in intervals)
    assert sum(i is not None and i.holds(truth) for i in intervals) >= BAND
    assert sum(v.misaligned_state == state for v in verdicts) >= BAND
    said = {"yes": "Misalignment penalty: yes — ", "no": "Misalignment penalty: no — ",
            "inconclusive": "Misalignment penalty: inconclusive — "}[state]  # fmt: skip
    assert sum(v.sentences[0].startswith(said) for v in verdicts) >= BAND
