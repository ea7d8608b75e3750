"""The `cachefit` profile: the quick tests with direct and buffered I/O, inside and beyond the
drive's write cache, side by side.

The tests, the runtime per test and the pause between tests come from the quick suite's data
(profiles/quick.toml), so the two profiles never disagree about what "SEQ1M Q8T1" is.
"""

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import CachefitSettings
from ssdlab.model.units import GiB
from ssdlab.profiles.quick import load_quick_profile, preset_tests
from ssdlab.profiles.repeats import repeat_option

QUICK = load_quick_profile()

SPEC = ProfileSpec(
    name="cachefit",
    version=1,
    summary="quick tests direct and buffered, inside and beyond the drive's write cache",
    description=(
        "The quick suite's tests (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1 by default), "
        "read and write, each run four ways: with direct I/O and through the page cache, over a "
        "test region inside the drive's write cache (--inside-fraction of it) and one beyond it "
        "(--beyond-multiple of it), --repeat times in rounds, in one table with buffered/direct "
        "and inside/beyond ratios and their 95 % intervals. "
        "The cache size is given with --cache-size or read from the cache-cliff finding of an "
        "earlier `cache` run (--from-run). The region is written once before the tests. "
        "Writes to the target."
    ),
    options=(
        OptionSpec(
            "cache_size",
            OptionKind.SIZE,
            None,
            "the drive's write-cache size, e.g. 8GiB (or take it from --from-run)",
            minimum=1,
            group="cache size",
        ),
        OptionSpec(
            "from_run",
            OptionKind.INT,
            None,
            "take the cache size from the cache-cliff finding of this earlier `cache` run",
            minimum=1,
            group="cache size",
        ),
        OptionSpec(
            "inside_fraction",
            OptionKind.FLOAT,
            0.5,
            "inside test region as a fraction of the cache (default 0.5)",
            minimum=0.01,
            maximum=1.0,
            group="test regions",
        ),
        OptionSpec(
            "beyond_multiple",
            OptionKind.FLOAT,
            3.0,
            "beyond test region as a multiple of the cache (default 3)",
            minimum=1.5,
            maximum=100.0,
            group="test regions",
        ),
        OptionSpec(
            "preset",
            OptionKind.CHOICE,
            QUICK.default_preset,
            f"which quick preset's tests to run (default {QUICK.default_preset})",
            choices=tuple(QUICK.presets),
            group="tests",
            choice_help=tuple(
                (preset.name, preset_tests(preset)) for preset in QUICK.presets.values()
            ),
        ),
        OptionSpec(
            "runtime",
            OptionKind.SECONDS,
            QUICK.default_measure_s,
            f"seconds per test (default {QUICK.default_measure_s:g}, as quick's measure)",
            minimum=0.1,
            maximum=3600,
            group="tests",
        ),
        OptionSpec(
            "interval",
            OptionKind.SECONDS,
            QUICK.default_interval_s,
            f"idle seconds before each test (default {QUICK.default_interval_s:g}, as quick's)",
            minimum=0,
            maximum=3600,
            group="tests",
        ),
        OptionSpec(
            "recover",
            OptionKind.SECONDS,
            30.0,
            "idle seconds after the fill and before the write tests, so the drive can empty "
            "its write cache (default 30)",
            minimum=0,
            maximum=3600,
            group="tests",
        ),
        repeat_option(
            3,
            "a test is --runtime after --interval, 10 s: a round of the default 32 tests "
            "takes about six minutes and each round of writes first rests --recover",
        ),
    ),
    examples=(
        "ssdlab run cachefit /mnt/ssd --cache-size 2GiB --size 8GiB",
        "ssdlab run cachefit /dev/sdb --destroy-data /dev/sdb --from-run 12",
        "ssdlab plan cachefit /dev/nvme0n1 --cache-size 16GiB --preset real",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=GiB,
    whole_device_by_default=True,
    settings_type=CachefitSettings,
)
