"""The options of `ssdlab health`, `ssdlab wear` and `ssdlab watch` (handled by
cli/health.py). Kept apart from the handlers so that building the parser imports no handler."""

import argparse

from ssdlab.cli.arg_types import duration_arg, positive_int_arg, size_arg
from ssdlab.cli.common_options import STORE, Commands, add_rating, json_output

VENDOR_MAP_HELP = "extra or overriding attribute map"


def add_commands(commands: Commands) -> None:
    health = commands.add_parser(
        "health",
        help="SMART / NVMe health, normalised, with WAF and wear where computable",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab health /dev/nvme0n1\n"
        "  ssdlab health saved-smartctl-x.json --json\n"
        "  ssdlab health --import smart-cron.log --model 'CT500MX500SSD1'\n",
        parents=[json_output(), STORE],
    )
    health.add_argument(
        "target", nargs="?", help="block device, or a saved smartctl JSON/text or nvme-cli JSON"
    )
    health.add_argument(
        "--import",
        dest="import_log",
        metavar="LOG",
        help="a file of timestamped smartctl snapshots (e.g. appended by cron)",
    )
    health.add_argument("--model", help="model name for logs that lack identity lines")
    health.add_argument(
        "--step-metric",
        default="erase_count_avg",
        help="counter whose steps are timed in a series (default erase_count_avg)",
    )
    health.add_argument("--vendor-map", metavar="TOML", help=VENDOR_MAP_HELP)
    health.add_argument(
        "--elapsed",
        type=duration_arg,
        metavar="DURATION",
        help="time between the first and last samples, e.g. 97h or 4d; overrides their "
        "timestamps and Power_On_Hours (used when the samples carry no time)",
    )
    add_rating(health)

    wear = commands.add_parser(
        "wear",
        help="what happened between two health samples: writes, WAF, wear rate, days to EOL",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="A and B are stored sample ids, saved smartctl/nvme-cli files, or a device "
        "(sampled now).\nexamples:\n  ssdlab wear 12 /dev/sdb --tbw 600TB\n"
        "  ssdlab wear before.json after.json --json\n",
        parents=[json_output(), STORE],
    )
    wear.add_argument("before", help="sample id, file, or device")
    wear.add_argument("after", help="sample id, file, or device")
    wear.add_argument(
        "--raw-nand-capacity", type=size_arg, help="raw NAND capacity for erase-count WAF"
    )
    wear.add_argument("--slc-cached", action="store_true", help="the drive has an SLC cache")
    wear.add_argument("--vendor-map", metavar="TOML", help=VENDOR_MAP_HELP)
    wear.add_argument("--model", help="model name for files that lack identity lines")
    wear.add_argument(
        "--elapsed",
        type=duration_arg,
        metavar="DURATION",
        help="time between the two samples, e.g. 97h or 4d; overrides their "
        "timestamps and Power_On_Hours (used when the samples carry no time)",
    )
    add_rating(wear)

    watch = commands.add_parser(
        "watch",
        help="sample health into the store until stopped (continues the device's series)",
        epilog="example: ssdlab watch /dev/nvme0n1 --every 5m --for 72h",
        parents=[STORE],
    )
    watch.add_argument("device", help="block device")
    watch.add_argument(
        "--every", type=duration_arg, default=300.0, help="interval, e.g. 30s, 5m (default 5m)"
    )
    watch.add_argument("--for", dest="duration", type=duration_arg, help="stop after, e.g. 72h")
    watch.add_argument("--count", type=positive_int_arg, help="stop after this many samples")
    watch.add_argument("--new", action="store_true", help="start a new series")
    watch.add_argument("--vendor-map", metavar="TOML", help=VENDOR_MAP_HELP)
