"""The `cache` profile: a sustained write until the speed falls, and where it fell."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import CacheSettings
from ssdlab.model.units import GiB, KiB, MiB
from ssdlab.profiles.repeats import repeat_option

SPEC = ProfileSpec(
    name="cache",
    version=1,
    summary="write-cache cliff: a sustained write, the GB written before it slows, MB/s after",
    description=(
        "One sustained write (sequential by default) over the whole device or --size, its "
        "bandwidth logged every --log-interval seconds, then the cliffs found in that log by a "
        "change-point method robust to noise: the bytes written before the first sustained drop "
        "(the write-cache size), in-cache and post-cache MB/s and any further steps (a slower "
        "folding phase). With --recovery-idle the drive is left idle and written again, to see "
        "how much fast cache came back. With --repeat N the region is written N times, each "
        "after --recovery-idle, for intervals over the writes (one write: from its own log). "
        "With --rate the write runs no faster than that (fio rate=): how the cache fares "
        "under an application's steady write rate, or a write of a known length. The verdict "
        "says whether there is a cliff (yes, no, inconclusive) with 95 % intervals of the "
        "cache size and speeds. With --prefill P the region is first discarded and P % of it "
        "written sequentially, so the write measures the cache of a drive P % full (the fill "
        "level is stored with the run; `ssdlab model fit` tells a static cache from a dynamic "
        "one by two such runs). A write too short to be cut into two levels (fewer log points "
        "than the search needs) is reported as such, with what to change. Writes to the "
        "target."
    ),
    options=(
        OptionSpec(
            "pattern",
            OptionKind.CHOICE,
            "seq",
            "what to write (default seq)",
            choices=("seq", "rand"),
            group="workload",
            choice_help=(
                ("seq", "sequential writes, 1MiB blocks unless --block-size"),
                ("rand", "random writes, 4KiB blocks unless --block-size"),
            ),
        ),
        OptionSpec(
            "block_size",
            OptionKind.SIZE,
            None,
            "block size (default 1MiB sequential, 4KiB random)",
            minimum=512,
            maximum=64 * MiB,
            group="workload",
        ),
        OptionSpec(
            "iodepth",
            OptionKind.INT,
            32,
            "queue depth (default 32)",
            minimum=1,
            maximum=1024,
            group="workload",
        ),
        OptionSpec(
            "log_interval",
            OptionKind.SECONDS,
            1.0,
            "seconds per bandwidth point (default 1; 0.25 on a fast NVMe drive shows more)",
            minimum=0.05,
            maximum=60,
            group="bandwidth log",
        ),
        OptionSpec(
            "rate",
            OptionKind.SIZE,
            None,
            "write at most this many bytes per second (fio rate=), e.g. 200MB; default: "
            "as fast as the target takes it",
            minimum=64 * KiB,
            group="workload",
        ),
        OptionSpec(
            "recovery_idle",
            OptionKind.SECONDS,
            None,
            "idle this long after the write, then write again to measure recovered cache",
            minimum=1,
            maximum=86400,
            group="recovery probe",
        ),
        OptionSpec(
            "recovery_size",
            OptionKind.SIZE,
            None,
            "bytes the recovery write writes (default: the region)",
            minimum=MiB,
            group="recovery probe",
        ),
        OptionSpec(
            "prefill",
            OptionKind.PCT,
            None,
            "discard the region, then write this percentage of it sequentially (a step of "
            "its own, kept) before the measured write, which then starts at the region's "
            "beginning: the fill level the cache is measured at, stored with the run for "
            "`ssdlab model fit` (cache kind: two runs at two levels, e.g. --prefill 0 and "
            "--prefill 90); default: the drive as it is, fill level unknown",
            group="fill level",
            metavar="PCT",
        ),
        OptionSpec(
            "prefill_idle",
            OptionKind.SECONDS,
            None,
            "idle this long after --prefill, so a real drive can empty its cache of the "
            "prefill (e.g. 300; how long a drive takes to fold its cache is its own: see "
            "docs/model-fit.md, Cache kind; default: no idle)",
            minimum=1,
            maximum=86400,
            group="fill level",
            metavar="SECONDS",
        ),
        repeat_option(
            1,
            "a repeat writes the whole region again, and a write fills the cache it measures: "
            "later writes start --recovery-idle after the one before (back to back without "
            "it), so give the drive time to empty its cache; one write takes its intervals "
            "from its own log",
        ),
    ),
    examples=(
        "ssdlab run cache /dev/nvme0n1 --destroy-data /dev/nvme0n1 --plots plots/",
        "ssdlab run cache /mnt/ssd --size 50GiB --recovery-idle 300",
        "ssdlab plan cache /dev/sdb --pattern rand --block-size 128KiB",
        "ssdlab run cache /mnt/ssd --size 20GiB --rate 200MB --log-interval 0.5",
        "ssdlab run cache /dev/nvme0n1 --destroy-data /dev/nvme0n1 --prefill 90% "
        "--prefill-idle 300",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=4 * GiB,
    whole_device_by_default=True,
    settings_type=CacheSettings,
)

DEFAULT_BLOCK = {"seq": MiB, "rand": 4 * KiB}
