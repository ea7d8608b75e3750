"""The `endurance` profile: write for days in bounded fio iterations, sample health while fio
runs, project the drive's life, stop on a limit or on a safety problem.

The workloads are data: each is one or more fio job sections (what I/O), while ssdlab sets where
(the target) and how long (an iteration is bounded by time or by bytes).
"""

from dataclasses import dataclass

from ssdlab.model.profile import UNBOUNDED_ROUNDS, OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.units import GiB, KiB

WORKLOADS = ("randwrite-4k", "jesd219-enterprise", "jesd219-client", "seq-128k", "job")

# JESD219 enterprise transfer sizes (% of I/Os), reference/pts.md §7.2. Transfers below 4 KiB
# (10 % of I/Os) are 512-byte aligned, the others 4 KiB aligned: two fio jobs, because fio's
# blockalign applies to every size of a job.
JESD219_SMALL = ((512, 4.0), (1024, 1.0), (1536, 1.0), (2048, 1.0), (2560, 1.0), (3072, 1.0),
                 (3584, 1.0))  # fmt: skip
JESD219_LARGE = ((4 * KiB, 67.0), (8 * KiB, 10.0), (16 * KiB, 7.0), (32 * KiB, 3.0),
                 (64 * KiB, 3.0))  # fmt: skip
# 50 % of accesses to the first 5 % of the LBA space, 30 % to the next 15 %, 20 % to the rest.
JESD219_ZONES = "zoned:50/5:30/15:20/80"

# The JESD219A client workload is a trace JEDEC does not publish. ssdlab's approximation
# (documented in docs/endurance.md, never called JESD219A): mostly 4 KiB with larger
# transfers, a hotter skew than the enterprise zones, and TRIM of 5 % of the bytes written on
# block devices (files cannot be trimmed through fio).
CLIENT_WRITES = ((4 * KiB, 55.0), (8 * KiB, 10.0), (16 * KiB, 10.0), (32 * KiB, 5.0),
                 (64 * KiB, 10.0), (128 * KiB, 10.0))  # fmt: skip
CLIENT_ZONES = "zoned:70/10:20/20:10/70"
CLIENT_TRIM_FRACTION = 0.05
CLIENT_TRIM_BYTES = 64 * KiB


@dataclass(frozen=True, slots=True)
class SafetyLimits:
    """When the sampler stops a run: too hot, new media errors, SMART failed, end of life."""

    max_temperature_c: float
    stop_on_media_errors: bool = True
    stop_on_smart_failure: bool = True
    max_wear_pct: float = 100.0


SPEC = ProfileSpec(
    name="endurance",
    version=1,
    summary="days-long write loop: iterations of fio, health sampled while it runs, "
    "WAF, wear rate and days to end of life",
    description=(
        "Writes to the target in bounded fio iterations (by time or by bytes), each stored as "
        "it finishes, until a stop condition (--for, --until-written, --until-wear; any "
        "combination, the first reached stops) or a safety limit (temperature, new media "
        "errors, SMART failure, end of life). Health is sampled every --health-every while "
        "fio runs; 'ssdlab status RUN' shows host vs NAND writes, WAF so far and recently, "
        "the wear rate and the projected days and TBW to end of life with how sure they are. "
        "Workloads: randwrite-4k, seq-128k, jesd219-enterprise (JESD219 transfer-size mix and "
        "LBA hot spots, two jobs so only transfers of 4 KiB and more are 4 KiB aligned), "
        "jesd219-client (an approximation: JEDEC does not publish the client trace), or your "
        "own fio job file (--job-file; ssdlab sets the target and the iteration bound). "
        "Crash-safe: after kill -9, a power cut or a reboot, 'ssdlab resume RUN' continues "
        "without losing or repeating an iteration. Writes to the target."
    ),
    options=(
        OptionSpec(
            "workload",
            OptionKind.CHOICE,
            "randwrite-4k",
            "what to write (default randwrite-4k)",
            choices=WORKLOADS,
            group="workload",
            choice_help=(
                ("randwrite-4k", "4 KiB random writes, iterations of 10m by default"),
                (
                    "jesd219-enterprise",
                    "the JESD219 transfer-size mix and LBA hot spots, in two jobs so only "
                    "transfers of 4 KiB and more are 4 KiB aligned; bounded by bytes",
                ),
                (
                    "jesd219-client",
                    "ssdlab's approximation of the JESD219A client workload (JEDEC does not "
                    "publish its trace), with TRIM on block devices; bounded by bytes",
                ),
                ("seq-128k", "128 KiB sequential writes, iterations of 10m by default"),
                ("job", "your own fio job file (--job-file); ssdlab sets the target and bound"),
            ),
        ),
        OptionSpec(
            "job_file",
            OptionKind.TEXT,
            None,
            "your fio job file (with --workload job)",
            group="workload",
        ),
        OptionSpec(
            "job_text",
            OptionKind.TEXT,
            None,
            "the job file's text (read from --job-file, and stored with the run)",
            group="workload",
        ),
        OptionSpec(
            "iteration_time",
            OptionKind.SECONDS,
            None,
            "length of one iteration (default 10m for randwrite-4k, seq-128k and job files)",
            minimum=0.1,
            maximum=7 * 86400,
            group="iterations",
        ),
        OptionSpec(
            "iteration_bytes",
            OptionKind.SIZE,
            None,
            "bytes one iteration writes (default for the jesd219 workloads: one fill of the "
            "region, at most 64GiB)",
            minimum=64 * KiB,
            group="iterations",
        ),
        OptionSpec(
            "for_time",
            OptionKind.SECONDS,
            None,
            "stop after this much writing time, e.g. 72h (counted over iterations, so time "
            "the machine was down does not count)",
            minimum=0.1,
            aliases=("--for",),
            group="stop conditions (the first reached stops)",
        ),
        OptionSpec(
            "until_written",
            OptionKind.SIZE,
            None,
            "stop once fio has written this much, e.g. 100TB",
            minimum=KiB,
            group="stop conditions (the first reached stops)",
        ),
        OptionSpec(
            "until_wear",
            OptionKind.FLOAT,
            None,
            "stop once the drive's wear indicator rose by this many points, e.g. 10 (needs a "
            "drive that reports wear)",
            minimum=0.001,
            maximum=200,
            group="stop conditions (the first reached stops)",
        ),
        OptionSpec(
            "health_every",
            OptionKind.SECONDS,
            300.0,
            "sample health this often while fio runs (default 5m)",
            minimum=0.05,
            maximum=86400,
            group="health and safety",
        ),
        OptionSpec(
            "max_temperature",
            OptionKind.FLOAT,
            70.0,
            "safety stop above this drive temperature in °C (default 70)",
            minimum=20,
            maximum=150,
            group="health and safety",
        ),
        OptionSpec(
            "iodepth",
            OptionKind.INT,
            32,
            "queue depth of the write job (default 32)",
            minimum=1,
            maximum=1024,
            group="workload",
        ),
        OptionSpec(
            "log_interval",
            OptionKind.SECONDS,
            10.0,
            "seconds per throughput point within an iteration (default 10)",
            minimum=0.05,
            maximum=3600,
            group="output",
        ),
        OptionSpec(
            "last_hours",
            OptionKind.FLOAT,
            24.0,
            "the recent window for 'WAF over the last hours' (default 24)",
            minimum=0.001,
            maximum=24 * 365,
            group="output",
        ),
        OptionSpec(
            "health_replay",
            OptionKind.TEXT,
            None,
            "for demonstrations and tests: replay a log of saved smartctl snapshots as the "
            "health source (labelled as a replay everywhere, never as live data)",
            group="health and safety",
        ),
    ),
    examples=(
        "ssdlab run endurance /dev/nvme0n1 --destroy-data /dev/nvme0n1 "
        "--workload jesd219-enterprise --for 72h",
        "ssdlab run endurance /mnt/ssd --size 100GiB --until-written 10TB --health-every 10m",
        "ssdlab run endurance /dev/sdb --destroy-data /dev/sdb --until-wear 3 --max-temperature 65",
        "ssdlab resume last --destroy-data /dev/sdb --for 168h",
        "ssdlab status last",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=4 * GiB,
    whole_device_by_default=True,
    settings_type=EnduranceSettings,
)

# An endurance loop runs until a stop condition; this only bounds the plan as data.
MAX_ITERATIONS = UNBOUNDED_ROUNDS
DEFAULT_ITERATION_S = 600.0
MAX_DEFAULT_ITERATION_BYTES = 64 * GiB
BYTE_BOUNDED = ("jesd219-enterprise", "jesd219-client")
