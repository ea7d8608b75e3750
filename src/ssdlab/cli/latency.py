"""`ssdlab latency LOG…` (app/latency.py): fio latency logs reduced to percentiles, a histogram
and a per-second series, printed as a table or as JSON; nothing is stored."""

import argparse

from rich.console import Console

from ssdlab.app.latency import LatencyRequest, latency_of_logs
from ssdlab.cli.render import emit_document


def cmd_latency(args: argparse.Namespace, out: Console) -> int:
    document = latency_of_logs(LatencyRequest(tuple(args.logs), args.core, args.averaged))
    emit_document(out, document, plots=args.plots, as_json=args.json)
    return 0
