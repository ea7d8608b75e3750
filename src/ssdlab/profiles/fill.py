"""The `fill` profile: random-write IOPS at several fill levels (what free space is worth)."""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import FillSettings
from ssdlab.model.units import GiB
from ssdlab.profiles.random_writes import random_write_options
from ssdlab.profiles.repeats import repeat_option

SPEC = ProfileSpec(
    name="fill",
    version=1,
    summary="random-write IOPS at 0, 50, 75 and 90 % full: what free space is worth",
    description=(
        "A device is discarded so it starts empty, then filled sequentially level by level; at "
        "each level random writes run over the written part only, so the rest stays free and "
        "works as extra over-provisioning; they run --repeat times at each level, and the "
        "fullest level is set against the emptiest with a 95 % interval: slower (yes), not "
        "(no) or inconclusive. The 0 % level writes over the whole region of an "
        "empty drive (fresh-out-of-box). On a file the levels are of the test file: the file "
        "system, not ssdlab, decides what the drive sees. Writes to the target."
    ),
    options=(
        OptionSpec(
            "levels",
            OptionKind.PCTS,
            (0, 50, 75, 90),
            "fill levels in percent (default 0,50,75,90)",
            group="fill levels",
        ),
        *random_write_options(30.0, "seconds of random writes per level"),
        repeat_option(
            3,
            "a repeat is --runtime of random writes at each level, 30 s, and no fill: three "
            "add a minute a level",
        ),
    ),
    examples=(
        "ssdlab run fill /dev/sdb --destroy-data /dev/sdb --plots plots/",
        "ssdlab run fill /dev/nvme0n1 --destroy-data /dev/nvme0n1 --levels 0,25,50,75,95",
        "ssdlab plan fill /mnt/ssd --size 8GiB",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=GiB,
    whole_device_by_default=True,
    settings_type=FillSettings,
)
