"""Each fio pass's own random sequence, drawn repeatably from the run's seed.

fio seeds its random offsets (and the data `refill_buffers` writes, and the mix and block-size
draws) from `randseed` when the job sets it with `randrepeat=0` (plan/pts.py says why that
one); a fixed seed makes a run repeatable (pts.md §1.4, pitfall 6), but the same seed in every
pass makes every pass replay the same sequence: an access period of a HIR wait state rewrites
the very blocks the previous one wrote, in the same order, so a drive's GC finds whole blocks
of stale copies to erase for free, and every round of a PTS test rewrites the addresses of the
round before. The passes then measure a small hot set written in order, not random writes
over the ActiveRange.

So a plan that asks for it (`ProfilePlan.pass_seeds`) runs each pass with a seed drawn from the
job's own (the run's `--seed`), the step's key and the round it is stored under: the same run
settings give the same sequences, pass by pass, and no pass replays another's. Pure.
"""

import hashlib

from ssdlab.model.plan import SEED_MAX, FioJob, Options
from ssdlab.model.profile import ProfilePlan, ProfileStep

SEED_OPTION = "randseed"


def pass_seed(seed: int, step_key: str, unit: int) -> int:
    """The seed of one pass: 63 bits of a hash of the run's seed, the step's key and its
    round (never 0)."""
    text = f"{seed}:{step_key}:{unit}".encode()
    value = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") & SEED_MAX
    return value or 1


def _reseeded(options: Options, step_key: str, unit: int) -> Options:
    return tuple(
        (name, str(pass_seed(int(value), step_key, unit)) if name == SEED_OPTION else value)
        for name, value in options
    )


def seeded_job(job: FioJob, step_key: str, unit: int) -> FioJob:
    """`job` with each `randseed` it sets replaced by the pass's own (see the module's text);
    a job that sets none comes back equal."""
    return FioJob(
        global_options=_reseeded(job.global_options, step_key, unit),
        sections=tuple(
            (name, _reseeded(options, step_key, unit)) for name, options in job.sections
        ),
    )


def pass_job(plan: ProfilePlan, step: ProfileStep, unit: int) -> FioJob:
    """The job one pass of `step` runs, stored under round `unit`: seeded for the pass when the
    plan asks for it, else the step's own."""
    if step.job is None:
        raise ValueError(f"step {step.key} has no fio job")
    return seeded_job(step.job, step.key, unit) if plan.pass_seeds else step.job
