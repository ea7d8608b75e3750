"""The `align` profile: random-write IOPS per block size at 4 KiB-aligned and misaligned offsets."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import AlignSettings
from ssdlab.model.units import KiB, MiB
from ssdlab.profiles.repeats import repeat_option

SPEC = ProfileSpec(
    name="align",
    version=1,
    summary="sub-4K and misaligned random writes against 4 KiB-aligned ones",
    description=(
        "Random-write IOPS at queue depth 1 for each block size, at 4 KiB-aligned offsets "
        "and at offsets shifted by --misalign bytes (512 by default), each --repeat times in "
        "rounds, as a table with aligned/misaligned ratios and their 95 % intervals, and a "
        "verdict that says yes, no or inconclusive. For devices also the partition start "
        "alignment, the logical and physical sector sizes and, for NVMe, the LBA formats "
        "offered and the one in use, with a plain-language verdict. Writes to the target."
    ),
    options=(
        OptionSpec(
            "block_sizes",
            OptionKind.SIZES,
            (512, KiB, 2 * KiB, 4 * KiB, 8 * KiB),
            "block sizes to test (default 512,1KiB,2KiB,4KiB,8KiB)",
            minimum=512,
            maximum=MiB,
            group="workload",
        ),
        OptionSpec(
            "misalign",
            OptionKind.SIZE,
            512,
            "offset shift of the misaligned runs in bytes (default 512)",
            minimum=512,
            maximum=4 * KiB - 512,
            group="workload",
        ),
        OptionSpec(
            "runtime",
            OptionKind.SECONDS,
            10.0,
            "seconds per block size and alignment (default 10)",
            minimum=0.1,
            maximum=3600,
            group="workload",
        ),
        OptionSpec(
            "iodepth",
            OptionKind.INT,
            1,
            "queue depth (default 1)",
            minimum=1,
            maximum=1024,
            group="workload",
        ),
        repeat_option(
            3,
            "a point is --runtime, 10 s: three rounds of the default ten points take about five "
            "minutes, and three is the fewest repeats whose spread says much",
        ),
    ),
    examples=(
        "ssdlab run align /mnt/ssd",
        "ssdlab run align /dev/sdb --destroy-data /dev/sdb --runtime 20",
        "ssdlab plan align /dev/nvme0n1 --block-sizes 4KiB,8KiB",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=256 * MiB,
    whole_device_by_default=True,
    settings_type=AlignSettings,
)
