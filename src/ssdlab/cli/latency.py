"""`ssdlab latency LOG…` (app/latency.py): fio latency logs reduced to percentiles, a histogram
and a per-second series, printed as a table or as JSON; nothing is stored. With the OCP
Latency Monitor log read before and after the run, reconciled with the drive's counts."""

import argparse
from typing import TYPE_CHECKING

from ssdlab.app.latency import LatencyRequest, latency_of_logs
from ssdlab.cli.render import emit_document

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def cmd_latency(args: argparse.Namespace, out: "Console") -> int:
    document = latency_of_logs(
        LatencyRequest(tuple(args.logs), args.core, args.averaged, args.c3_before, args.c3_after)
    )
    emit_document(out, document, plots=args.plots, as_json=args.json)
    return 0
