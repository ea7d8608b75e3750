"""`ssdlab latency LOG…`: fio latency logs reduced to percentiles, a histogram and a per-second
series, printed as a table or as JSON; nothing is stored."""

import argparse
import glob
from pathlib import Path

from rich.console import Console

from ssdlab.cli.render import emit_document
from ssdlab.errors import UsageError
from ssdlab.report.latency import latency_log_data, latency_log_document
from ssdlab.runner.latency_logs import reduce_latency_logs

_GLOB_CHARS = frozenset("*?[")


def expand_log_paths(patterns: list[str]) -> list[Path]:
    """Each pattern as given, or the files a quoted glob matches (sorted); a UsageError for a
    glob that matches nothing."""
    paths: list[Path] = []
    for pattern in patterns:
        if Path(pattern).exists() or not _GLOB_CHARS & set(pattern):
            paths.append(Path(pattern))
            continue
        matched = sorted(glob.glob(pattern))
        if not matched:
            raise UsageError(f"{pattern} matches no file; check the folder and the job's name")
        paths.extend(Path(m) for m in matched)
    return list(dict.fromkeys(paths))


def cmd_latency(args: argparse.Namespace, out: Console) -> int:
    result = reduce_latency_logs(expand_log_paths(args.logs), args.core, args.averaged)
    document = latency_log_document(latency_log_data(result))
    emit_document(out, document, plots=args.plots, as_json=args.json)
    return 0
