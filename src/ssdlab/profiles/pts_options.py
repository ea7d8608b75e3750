"""The option tables of the PTS profiles: `pts-iops`, `pts-tp`, `pts-lat`, `pts-wsat`,
`pts-hir`, `pts-xsr`.

Every option whose default is None takes its value from the PTS catalogue (profiles/pts.toml)
for the chosen spec version and device class. Changing any of the *trial* options makes a
run a trial: it is stored and reported like any other, but never labelled conformant.
"""

from ssdlab.model.plan import SEED_MAX
from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import (
    PtsHirSettings,
    PtsRoundSettings,
    PtsSettings,
    PtsWsatSettings,
    PtsXsrSettings,
)
from ssdlab.model.target import PURGE_METHODS
from ssdlab.model.units import GiB, MiB

DEFAULT_SEED = 20201001  # fixed, so every run draws the same offsets (pts.md §1.4, §9.6)

# the headings of --help, in the order they first appear in a test's table
TEST = "PTS test"
PURGE = "purge and preconditioning"
ROUND = "rounds"
REGION = "region and elements"

PURGE_HELP = (
    ("auto", "the drive's own purge, else TRIM, else a zero fill (each fallback labelled)"),
    ("nvme-format", "NVMe Format with User Data Erase"),
    ("ata-secure-erase", "ATA SECURITY ERASE UNIT"),
    ("scsi-format", "SCSI FORMAT UNIT"),
    ("trim", "discard every block: a fallback, not a PTS purge (never conformant)"),
    ("zero", "write zeros over the range: a fallback, not a PTS purge (never conformant)"),
    ("none", "no purge (never conformant)"),
)

COMMON: tuple[OptionSpec, ...] = (
    OptionSpec(
        "device_class",
        OptionKind.CHOICE,
        "enterprise",
        "PTS class (default enterprise)",
        choices=("enterprise", "client"),
        group=TEST,
        choice_help=(
            ("enterprise", "PTS-E: ActiveRange 100 %, volatile write cache off"),
            ("client", "PTS-C: ActiveRange 75 %, volatile write cache on"),
        ),
    ),
    OptionSpec(
        "pts_version",
        OptionKind.CHOICE,
        "2.0.2",
        "PTS version (default 2.0.2)",
        choices=("2.0.2", "1.1"),
        group=TEST,
        choice_help=(("2.0.2", "SNIA PTS 2.0.2"), ("1.1", "PTS-E 1.1 tracking (enterprise only)")),
    ),
    OptionSpec(
        "purge",
        OptionKind.CHOICE,
        "auto",
        "how to purge before the test (default auto)",
        choices=PURGE_METHODS,
        group=PURGE,
        choice_help=PURGE_HELP,
    ),
    OptionSpec(
        "write_cache",
        OptionKind.CHOICE,
        "class",
        "volatile write cache (default class)",
        choices=("class", "keep"),
        group=PURGE,
        choice_help=(
            ("class", "set it as the class requires (PTS-E off, PTS-C on)"),
            ("keep", "leave it as it is (trial)"),
        ),
    ),
    OptionSpec(
        "threads",
        OptionKind.INT,
        None,
        "thread count TC (default: the class's)",
        minimum=1,
        maximum=256,
        group=TEST,
    ),
    OptionSpec(
        "iodepth",
        OptionKind.INT,
        None,
        "queue depth QD (default: the class's)",
        minimum=1,
        maximum=1024,
        group=TEST,
    ),
    OptionSpec(
        "seed",
        OptionKind.INT,
        DEFAULT_SEED,
        "random seed of the run; each pass draws its own from it (default fixed)",
        minimum=1,
        maximum=SEED_MAX,
        group=TEST,
    ),
)

TRIAL: tuple[OptionSpec, ...] = (
    OptionSpec(
        "round_seconds",
        OptionKind.SECONDS,
        None,
        "trial: seconds each element of a round runs (PTS: 60)",
        minimum=0.1,
        maximum=3600,
        group=ROUND,
    ),
    OptionSpec(
        "active_range",
        OptionKind.PCT,
        None,
        "trial: ActiveRange in percent of the device (PTS-E 100, PTS-C 75)",
        minimum=1,
        maximum=100,
        group=REGION,
    ),
    OptionSpec(
        "wipc_multiple",
        OptionKind.FLOAT,
        None,
        "trial: preconditioning writes this many times the ActiveRange (PTS: 2; 0 skips it)",
        minimum=0,
        maximum=100,
        group=PURGE,
    ),
)

ROUNDS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "max_rounds",
        OptionKind.INT,
        25,
        "rounds before giving up on steady state; more than 25 means the operator chose to "
        "continue (default 25)",
        minimum=5,
        maximum=1000,
        group=ROUND,
    ),
)

MATRIX: tuple[OptionSpec, ...] = (
    OptionSpec(
        "block_sizes",
        OptionKind.SIZES,
        None,
        "trial: only these block sizes of the round (the tracking ones are always kept)",
        minimum=512,
        maximum=64 * MiB,
        group=REGION,
    ),
    OptionSpec(
        "mixes",
        OptionKind.PCTS,
        None,
        "trial: only these R/W mixes, as read percentages, e.g. 100,65,0",
        group=REGION,
    ),
)

_SAFETY = (
    "Purges the device first (only with --destroy-data naming it). Results are labelled "
    "conformant only for an unchanged run on a whole, purged block device."
)


def _spec(
    name: str,
    summary: str,
    description: str,
    options: tuple[OptionSpec, ...],
    example: str,
    settings_type: type[PtsSettings],
) -> ProfileSpec:
    return ProfileSpec(
        name=name,
        version=2,  # 2: each pass its own random offsets, drawn from --seed (plan/seeds.py)
        summary=summary,
        description=f"{description} {_SAFETY}",
        options=(*COMMON, *options),
        examples=(
            f"ssdlab run {name} /dev/nvme0n1 --destroy-data /dev/nvme0n1",
            example,
            # PTS-C has no XSR test: the enterprise plan is the one there is
            f"ssdlab plan {name} /dev/sdb --device-class "
            f"{'enterprise' if name == 'pts-xsr' else 'client'}",
        ),
        writes=Writes.ALWAYS,
        default_file_size_bytes=GiB,
        whole_device_by_default=True,
        reads_purge_support=True,
        settings_type=settings_type,
    )


SPECS: dict[str, ProfileSpec] = {
    "pts-iops": _spec(
        "pts-iops",
        "SNIA PTS IOPS: 7 R/W mixes × 8 block sizes, rounds to steady state",
        "Purge, precondition with 2× the ActiveRange of 128 KiB sequential writes, then rounds "
        "of 56 one-minute random elements (R/W mix outer, block size inner) until the tracking "
        "variables are in steady state (5-round window, range ≤ 20 %, slope ≤ 10 %) or "
        "--max-rounds.",
        (*TRIAL, *ROUNDS, *MATRIX),
        "ssdlab run pts-iops /dev/loop0 --destroy-data /dev/loop0 --round-seconds 1 "
        "--block-sizes 4KiB,64KiB,1MiB --mixes 100,65,0 --wipc-multiple 0.1",
        PtsRoundSettings,
    ),
    "pts-tp": _spec(
        "pts-tp",
        "SNIA PTS Throughput: 128 KiB and 1024 KiB sequential read and write to steady state",
        "For each block size: purge, precondition with 2× the ActiveRange of sequential writes "
        "at that block size, then rounds of a one-minute read and a one-minute write until "
        "write MB/s is in steady state.",
        (*TRIAL, *ROUNDS, *MATRIX),
        "ssdlab run pts-tp /dev/loop0 --destroy-data /dev/loop0 --round-seconds 1 "
        "--wipc-multiple 0.1",
        PtsRoundSettings,
    ),
    "pts-lat": _spec(
        "pts-lat",
        "SNIA PTS Latency: 3 R/W mixes × 3 block sizes at TC1/QD1 to steady state",
        "Purge, precondition with 2× the ActiveRange of 128 KiB sequential writes, then rounds "
        "of 9 one-minute random elements at one thread and queue depth 1 until the mean "
        "response time of 4 KiB writes is in steady state; mean, 99.999 % and maximum "
        "response times.",
        (*TRIAL, *ROUNDS, *MATRIX),
        "ssdlab run pts-lat /dev/loop0 --destroy-data /dev/loop0 --round-seconds 1 "
        "--wipc-multiple 0.1",
        PtsRoundSettings,
    ),
    "pts-wsat": _spec(
        "pts-wsat",
        "SNIA PTS Write Saturation: 4 KiB random writes from a purged drive",
        "Purge, then one-minute rounds of 4 KiB random writes (no preconditioning) until 4× the "
        "user capacity is written or 24 hours pass: IOPS against time, total bytes written and "
        "drive fills.",
        (
            *TRIAL,
            OptionSpec(
                "capacity_multiple",
                OptionKind.FLOAT,
                None,
                "trial: stop after this many times the ActiveRange is written (PTS: 4)",
                minimum=0.01,
                maximum=100,
                group=ROUND,
            ),
            OptionSpec(
                "max_hours",
                OptionKind.FLOAT,
                None,
                "trial: stop after this many hours (PTS: 24)",
                minimum=0.0001,
                maximum=1000,
                group=ROUND,
            ),
        ),
        "ssdlab run pts-wsat /dev/loop0 --destroy-data /dev/loop0 --round-seconds 1 "
        "--capacity-multiple 0.5",
        PtsWsatSettings,
    ),
    "pts-hir": _spec(
        "pts-hir",
        "SNIA PTS Host Idle Recovery: 4 KiB random writes with idle wait states",
        "Purge, precondition with one-minute rounds of 4 KiB random writes to steady state, then "
        "for each wait state 5 s of writes followed by 5, 10, 15, 25 and 50 s idle, repeated, "
        "and a baseline of writes with no idle: how much IOPS the drive recovers when the host "
        "leaves it idle.",
        (
            *TRIAL,
            *ROUNDS,
            OptionSpec(
                "repeats",
                OptionKind.INT,
                None,
                "trial: access + wait repeats per wait state (PTS: 360)",
                minimum=1,
                maximum=10_000,
                group="wait states",
            ),
            OptionSpec(
                "wait_scale",
                OptionKind.FLOAT,
                None,
                "trial: multiply the access and wait times (PTS: 1)",
                minimum=0.001,
                maximum=10,
                group="wait states",
            ),
        ),
        "ssdlab run pts-hir /dev/loop0 --destroy-data /dev/loop0 --round-seconds 1 "
        "--repeats 3 --wait-scale 0.02",
        PtsHirSettings,
    ),
    "pts-xsr": _spec(
        "pts-xsr",
        "SNIA PTS Cross Stimulus Recovery: sequential, random, sequential writes",
        "Purge, then 1024 KiB sequential writes (8 h), 8 KiB random writes (6 h) and 1024 KiB "
        "sequential writes again (8 h), throughput and response time every minute: how the "
        "drive recovers from one stimulus to the next.",
        (
            *TRIAL,
            OptionSpec(
                "duration_scale",
                OptionKind.FLOAT,
                None,
                "trial: multiply the access groups' durations (PTS: 1)",
                minimum=0.00001,
                maximum=10,
                group="access groups",
            ),
        ),
        "ssdlab run pts-xsr /dev/loop0 --destroy-data /dev/loop0 --duration-scale 0.0002 "
        "--round-seconds 1",
        PtsXsrSettings,
    ),
}
