"""The `sweep` profile: a threads × queue-depth matrix, and the knee of it."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import SweepSettings
from ssdlab.model.units import GiB
from ssdlab.profiles.repeats import repeat_option

GRID = (1, 2, 4, 8, 16, 32)

SPEC = ProfileSpec(
    name="sweep",
    version=1,
    summary="threads × queue depth matrix: IOPS, MB/s and latency per cell, and the knee",
    description=(
        "Each workload (default 4 KiB random reads, and 8 KiB random 70/30 read/write) runs "
        "in every cell of the threads × queue-depth matrix (default {1,2,4,8,16,32}²), the "
        "whole matrix --repeat times, reporting IOPS, MB/s, mean / p99 / p99.9 / max latency "
        "and the spread p99.9 / p50 per cell with 95 % intervals, as a heatmap and an "
        "IOPS-against-latency curve, with the knee: the most IOPS under --max-latency-us, or "
        "without a bound the best IOPS per latency, said to be the knee (yes) or one of "
        "several (inconclusive), and whether IOPS rise with every step of the matrix. The "
        "percentiles of a read/write mix come from fio's two latency histograms added together. "
        "Writes to the target when a workload writes."
    ),
    options=(
        OptionSpec(
            "threads",
            OptionKind.INTS,
            GRID,
            "thread counts (default 1,2,4,8,16,32)",
            minimum=1,
            maximum=256,
            group="matrix",
        ),
        OptionSpec(
            "iodepths",
            OptionKind.INTS,
            GRID,
            "queue depths (default 1,2,4,8,16,32)",
            minimum=1,
            maximum=1024,
            group="matrix",
        ),
        OptionSpec(
            "workloads",
            OptionKind.TEXT,
            "randread:4KiB,randrw70:8KiB",
            "PATTERN:BLOCK list; PATTERN is randread, randwrite, randrwNN (NN % reads), "
            "read or write (default randread:4KiB,randrw70:8KiB)",
            group="workload",
        ),
        OptionSpec(
            "runtime",
            OptionKind.SECONDS,
            10.0,
            "seconds per cell (default 10)",
            minimum=0.1,
            maximum=3600,
            group="workload",
        ),
        OptionSpec(
            "ramp",
            OptionKind.SECONDS,
            2.0,
            "unmeasured seconds first (default 2)",
            minimum=0,
            maximum=600,
            group="workload",
        ),
        OptionSpec(
            "latency_metric",
            OptionKind.CHOICE,
            "p99",
            "latency the knee is judged by (default p99)",
            choices=("mean", "p99", "p999", "max"),
            group="knee",
            choice_help=(
                ("mean", "mean latency (fio's total: submission and completion)"),
                ("p99", "99th percentile of the completion latency"),
                ("p999", "99.9th percentile of the completion latency"),
                ("max", "the longest latency (fio's total)"),
            ),
        ),
        OptionSpec(
            "max_latency_us",
            OptionKind.FLOAT,
            None,
            "latency bound in µs for the knee (default: none, best IOPS per latency)",
            minimum=0.001,
            group="knee",
        ),
        repeat_option(
            2,
            "a repeat is the whole matrix again, 36 cells a workload at 12 s: about 15 minutes "
            "at the defaults; two give every cell an interval, the spread pooled over a "
            "workload's cells, and the knee its chance of being the knee",
        ),
    ),
    examples=(
        "ssdlab run sweep /mnt/ssd --plots plots/",
        "ssdlab run sweep /dev/nvme0n1 --workloads randread:4KiB --max-latency-us 500",
        "ssdlab plan sweep /dev/sdb --destroy-data /dev/sdb --threads 1,4 --iodepths 1,32",
    ),
    writes=Writes.DEPENDS,
    default_file_size_bytes=GiB,
    whole_device_by_default=True,
    settings_type=SweepSettings,
)
