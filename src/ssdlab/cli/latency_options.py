"""The options of `ssdlab latency` (handled by cli/latency.py). Kept apart from the handler so
that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import Commands, json_output


def add_log_reading(parser: argparse.ArgumentParser) -> None:
    """--core and --averaged/--per-io: how latency logs are read (latency, import --logs)."""
    parser.add_argument(
        "--core",
        choices=("auto", "compiled", "python"),
        default="auto",
        help="the log reducer: compiled (logcore/, built by 'make install' with cargo), "
        "python (numpy reference), auto (compiled when installed; default)",
    )
    values = parser.add_mutually_exclusive_group()
    values.add_argument(
        "--averaged",
        dest="averaged",
        action="store_const",
        const=True,
        default=None,
        help="the logs hold window means (log_avg_msec), whatever they look like",
    )
    values.add_argument(
        "--per-io",
        dest="averaged",
        action="store_const",
        const=False,
        help="the logs hold one value per I/O, whatever they look like",
    )


def add_commands(commands: Commands) -> None:
    latency = commands.add_parser(
        "latency",
        help="percentiles, histogram and per-second series of fio latency logs (no store)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Reads fio's write_lat_log files (lat, clat or slat; plain, .gz or fio's "
        "compressed .fz) of any length in bounded memory; several files (one per job) are "
        "merged.",
        epilog="examples:\n"
        "  ssdlab latency job_clat.*.log           merge every job's completion latency log\n"
        "  ssdlab latency job_lat.1.log --json     the numbers as JSON\n"
        "  ssdlab latency job_lat.1.log.fz         a log fio stored compressed\n"
        "  ssdlab latency job_lat.1.log --plots charts   percentile, histogram, series charts\n"
        "  ssdlab latency job_lat.*.log --c3-before c3-before.json --c3-after c3-after.json\n"
        "      the host's outliers against the drive's OCP latency monitor (docs/ocp.md)\n",
        parents=[json_output("print the result as JSON")],
    )
    latency.add_argument("logs", nargs="+", metavar="LOG", help="fio latency log files or globs")
    latency.add_argument("--plots", metavar="DIR", help="also write the charts here as SVG and PNG")
    add_log_reading(latency)
    latency.add_argument(
        "--c3-before",
        metavar="FILE",
        help="the OCP Latency Monitor log (C3h) read before the run: 'nvme ocp "
        "latency-monitor-log DEV -o json', its hex dump or the raw page",
    )
    latency.add_argument(
        "--c3-after",
        metavar="FILE",
        help="the same log read after the run; with --c3-before, every host I/O above "
        "threshold A is matched to the drive's buckets or attributed to the host",
    )
