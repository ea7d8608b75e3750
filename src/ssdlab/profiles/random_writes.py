"""The options of a timed random-write measurement, shared by the profiles that make one
(`fill`, `trim`): they fill the `runtime`, `block_size` and `iodepth` fields of their
profile's settings (plan/profile.RandomWrites)."""

from ssdlab.model.profile import OptionKind, OptionSpec
from ssdlab.model.units import KiB, MiB

GROUP = "random writes"


def random_write_options(runtime_s: float, runtime_help: str) -> tuple[OptionSpec, ...]:
    """--runtime (with this default), --block-size 4KiB and --iodepth 32."""
    return (
        OptionSpec(
            "runtime",
            OptionKind.SECONDS,
            runtime_s,
            f"{runtime_help} (default {runtime_s:g})",
            minimum=0.1,
            maximum=86400,
            group=GROUP,
        ),
        OptionSpec(
            "block_size",
            OptionKind.SIZE,
            4 * KiB,
            "random-write block size (default 4KiB)",
            minimum=512,
            maximum=16 * MiB,
            group=GROUP,
        ),
        OptionSpec(
            "iodepth",
            OptionKind.INT,
            32,
            "queue depth (default 32)",
            minimum=1,
            maximum=1024,
            group=GROUP,
        ),
    )
