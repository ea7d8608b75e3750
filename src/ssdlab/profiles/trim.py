"""The `trim` profile: discard support, what discarded blocks read back as, fstrim's time, and
random writes on a dirty region against a freshly discarded one."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.units import GiB, KiB, MiB

SPEC = ProfileSpec(
    name="trim",
    version=1,
    summary="TRIM: discard support, zeroes after discard, fstrim time, dirty vs discarded writes",
    description=(
        "Reads the device's discard limits (granularity, largest discard). On a device target "
        "it writes a pattern, discards it and reads it back to see whether discarded blocks "
        "return zeroes, then measures random writes over a fully written (dirty) region and "
        "again right after discarding it. With --fstrim MOUNTPOINT it times fstrim on that "
        "mount (root needed; only the mount point you name). A file target measures only the "
        "facts and fstrim: fio cannot discard inside a file. Writes to a device target."
    ),
    options=(
        OptionSpec(
            "fstrim", OptionKind.TEXT, None, "a mount point to run and time 'fstrim --verbose' on"
        ),
        OptionSpec(
            "runtime",
            OptionKind.SECONDS,
            10.0,
            "seconds of random writes on each region state (default 10)",
            minimum=0.1,
            maximum=3600,
        ),
        OptionSpec(
            "block_size",
            OptionKind.SIZE,
            4 * KiB,
            "random-write block size (default 4KiB)",
            minimum=512,
            maximum=16 * MiB,
        ),
        OptionSpec(
            "iodepth", OptionKind.INT, 32, "queue depth (default 32)", minimum=1, maximum=1024
        ),
    ),
    examples=(
        "ssdlab run trim /dev/sdb --destroy-data /dev/sdb --size 8GiB",
        "ssdlab run trim /mnt/ssd --fstrim /mnt/ssd",
        "ssdlab plan trim /dev/nvme0n1",
    ),
    writes=Writes.DEPENDS,
    default_file_size_bytes=GiB,
    whole_device_by_default=False,
)

ZERO_CHECK_BYTES = 16 * MiB
