"""The options of `ssdlab health`, `ssdlab wear` and `ssdlab watch` (handled by
cli/health.py). Kept apart from the handlers so that building the parser imports no handler."""

import argparse

from ssdlab.analysis.alerts import DEFAULT_MIN_DAYS_LEFT
from ssdlab.cli.arg_types import duration_arg, float_arg, positive_int_arg, size_arg
from ssdlab.cli.common_options import STORE, Commands, add_rating, json_output

VENDOR_MAP_HELP = "extra or overriding attribute map"


def add_commands(commands: Commands) -> None:
    health = commands.add_parser(
        "health",
        help="SMART / NVMe health, normalised, with WAF and wear where computable",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab health /dev/nvme0n1\n"
        "  ssdlab health saved-smartctl-x.json --json\n"
        "  ssdlab health --import smart-cron.log --model 'CT500MX500SSD1'\n"
        "  ssdlab health --import grepped-241.log --interval 5m --model 'CT500MX500SSD1'\n"
        "accepted files and logs, with an example of each: docs/health.md\n",
        parents=[json_output(), STORE],
    )
    health.add_argument(
        "target", nargs="?", help="block device, or a saved smartctl JSON/text or nvme-cli JSON"
    )
    health.add_argument(
        "--import",
        dest="import_log",
        metavar="LOG",
        help="a log of many readings: smartctl snapshots after date lines, attribute lines "
        "grep'd from smartctl -A (or their uniq -c), a smartd attribute log, a CSV of "
        "attribute values (docs/health.md)",
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
    health.add_argument(
        "--interval",
        type=duration_arg,
        metavar="DURATION",
        help="time between the readings of a log that carries no times (grep'd attribute "
        "lines, a CSV without a time column), e.g. 5m; the last reading is taken at the "
        "file's modification time",
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
        help="sample health into the store until stopped, alerting on limits and rising errors",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Sample a drive's health into the store (continuing the device's series "
        "unless --new) and alert: a threshold fires once when crossed and again only after it "
        "cleared; any error counter (media, uncorrectable, reallocated, pending) that rose "
        "since the series' first sample fires at each rise; newly set NVMe critical warning "
        "bits fire. What fired is stored, so a restarted watch does not fire it again.",
        epilog="examples:\n  ssdlab watch /dev/nvme0n1 --every 5m --for 72h\n"
        "  ssdlab watch /dev/sda --every 10m --no-wake --on-alert 'notify-admins --json' "
        "--textfile /var/lib/prometheus/node-exporter\n"
        "  ssdlab watch /dev/sda --every 10m --print-systemd-unit > "
        "/etc/systemd/system/ssdlab-watch.service\n"
        "alert hooks get one JSON document on stdin per alert (format ssdlab-alert); see "
        "docs/watch.md.",
        parents=[STORE],
    )
    watch.add_argument(
        "device",
        nargs="?",
        help="block device (with --health-replay: optional, only the series' label)",
    )
    watch.add_argument(
        "--every", type=duration_arg, default=300.0, help="interval, e.g. 30s, 5m (default 5m)"
    )
    watch.add_argument("--for", dest="duration", type=duration_arg, help="stop after, e.g. 72h")
    watch.add_argument("--count", type=positive_int_arg, help="stop after this many samples")
    watch.add_argument("--new", action="store_true", help="start a new series")
    watch.add_argument("--vendor-map", metavar="TOML", help=VENDOR_MAP_HELP)
    add_watch_alerts(watch)
    watch.add_argument(
        "--no-wake",
        action="store_true",
        help="leave a sleeping drive asleep (smartctl -n standby): its sample is skipped",
    )
    watch.add_argument(
        "--health-replay",
        metavar="LOG",
        help="sample a recorded log of smartctl snapshots instead of a drive, one per sample, "
        "with the log's times (for tests and demonstrations)",
    )
    watch.add_argument(
        "--print-systemd-unit",
        action="store_true",
        help="print a long-running systemd service that runs this watch: one process samples "
        "every --every and keeps its store open; after a crash or reboot it continues the same "
        "series with its stored alert state, so nothing fires twice (a timer would start a "
        "process per sample for the same result)",
    )


def add_watch_alerts(watch: argparse.ArgumentParser) -> None:
    """The thresholds, hooks and textfile output of `ssdlab watch`."""
    alerts = watch.add_argument_group("alerts")
    alerts.add_argument(
        "--max-temperature",
        type=float_arg,
        metavar="C",
        help="alert at this temperature (default: the drive's warning temperature, if it "
        "reports one)",
    )
    alerts.add_argument(
        "--min-spare",
        type=float_arg,
        metavar="PCT",
        help="alert below this available spare (default: the drive's spare threshold, if it "
        "reports one)",
    )
    alerts.add_argument(
        "--min-days-left",
        type=float_arg,
        metavar="DAYS",
        default=DEFAULT_MIN_DAYS_LEFT,
        help="alert when the wear rate leaves fewer days to the end of rated life, as "
        "'ssdlab health' projects it (default %(default)g)",
    )
    alerts.add_argument(
        "--max-waf",
        type=float_arg,
        metavar="X",
        help="alert when the write amplification of the last 24 h exceeds X (default: none)",
    )
    alerts.add_argument(
        "--on-alert",
        action="append",
        metavar="CMD",
        default=[],
        help="run CMD (split like a shell would, but run without one) for each alert, the "
        "alert as JSON on its stdin; repeatable",
    )
    alerts.add_argument(
        "--hook-timeout",
        type=duration_arg,
        default=30.0,
        metavar="DURATION",
        help="kill a hook still running after this (default 30s)",
    )
    alerts.add_argument(
        "--textfile",
        metavar="DIR",
        help="after each sample, write the store's metrics into node_exporter's textfile folder",
    )
