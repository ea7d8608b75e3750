"""--latency-monitor and --latency-monitor-enable of `quick` and `run PROFILE` (app/
latency_monitor.py, docs/ocp.md); kept apart from the handlers so that building the parser
imports no handler."""

import argparse

from ssdlab.model.latency_monitor import (
    DEFAULT_THRESHOLDS_MS,
    LatencyMonitorRequest,
    MonitorSetting,
    parse_thresholds,
)

DEFAULT_TEXT = ",".join(str(t) for t in DEFAULT_THRESHOLDS_MS)


def _thresholds(text: str) -> tuple[int, int, int, int]:
    try:
        return parse_thresholds(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_latency_monitor_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "OCP latency monitor (NVMe)",
        "the drive's own count of slow commands (log page C3h), read before and after each\n"
        "measured pass; a pass without a per-second series (run qos) is reconciled with its\n"
        "per-I/O latencies: which outliers the drive caused, which the host added",
    )
    group.add_argument(
        "--latency-monitor",
        action="store_true",
        help="read C3h around each measured pass and reconcile it with the pass's I/Os (a "
        "drive whose monitor is off is refused; one without the page runs on without it)",
    )
    group.add_argument(
        "--latency-monitor-enable",
        metavar="A,B,C,D",
        nargs="?",
        const=DEFAULT_THRESHOLDS_MS,
        type=_thresholds,
        help="first set the drive's Latency Monitor (Feature C5h, saved: a change to its "
        f"configuration) with thresholds A-D in ms (default {DEFAULT_TEXT}; multiples of 5); "
        "implies --latency-monitor",
    )


def latency_monitor_request(args: argparse.Namespace) -> LatencyMonitorRequest | None:
    """The request the options give, or None when neither was given."""
    thresholds = getattr(args, "latency_monitor_enable", None)
    if thresholds is not None:
        return LatencyMonitorRequest(MonitorSetting(thresholds))
    if getattr(args, "latency_monitor", False):
        return LatencyMonitorRequest()
    return None
