"""The `trim` profile: discard support, what discarded blocks read back as, fstrim's time, and
random writes on a dirty region against a freshly discarded one."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import TrimSettings
from ssdlab.model.units import GiB, MiB
from ssdlab.profiles.random_writes import random_write_options
from ssdlab.profiles.repeats import repeat_option

SPEC = ProfileSpec(
    name="trim",
    version=1,
    summary="TRIM: discard support, zeroes after discard, fstrim time, dirty vs discarded writes",
    description=(
        "Reads the device's discard limits (granularity, largest discard). On a device target "
        "it writes a pattern, discards it and reads it back to see whether discarded blocks "
        "return zeroes, then measures random writes over a fully written (dirty) region and "
        "again right after discarding it, --repeat times over, and says with a 95 % interval "
        "whether writes run faster after the discard (yes, no or inconclusive). With --fstrim "
        "MOUNTPOINT it times fstrim on that mount (root needed; only the mount point you "
        "name). A file target measures only the facts and fstrim: fio cannot discard inside a "
        "file. Writes to a device target."
    ),
    options=(
        OptionSpec(
            "fstrim",
            OptionKind.TEXT,
            None,
            "a mount point to run and time 'fstrim --verbose' on",
            group="fstrim",
        ),
        *random_write_options(10.0, "seconds of random writes on each region state"),
        repeat_option(
            3,
            "a repeat writes the region in full again, then 10 s of writes on it dirty and "
            "10 s after discarding it: about half a minute for the default 1 GiB",
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
    settings_type=TrimSettings,
)

ZERO_CHECK_BYTES = 16 * MiB
