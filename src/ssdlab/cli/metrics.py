"""`ssdlab metrics`: the store's latest state as Prometheus metrics, to stdout or as
node_exporter's textfile; `ssdlab metrics rules` / `dashboard`: the shipped alert rules and
Grafana dashboard."""

import argparse
import sqlite3
import sys
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab.app.metrics import MetricsRequest, store_metrics
from ssdlab.cli.store_open import open_db
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.system.textfile import write_textfile

if TYPE_CHECKING:
    from rich.console import Console

MONITORING_PACKAGE = "ssdlab.monitoring"
SHIPPED_FILES = {"rules": "ssdlab-alerts.yml", "dashboard": "ssdlab-dashboard.json"}


def store_metrics_text(conn: sqlite3.Connection) -> str:
    """The store's latest state now, in Prometheus' text exposition format (also what
    `watch --textfile` writes after each sample)."""
    return store_metrics(conn, MetricsRequest(now_s=time.time()))


def shipped_text(what: str) -> str:
    """The text of a file shipped in ssdlab.monitoring: 'rules' or 'dashboard'."""
    name = SHIPPED_FILES[what]
    try:
        return resources.files(MONITORING_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise SsdlabError(f"this ssdlab was installed without {name}") from error


def cmd_metrics(args: argparse.Namespace, out: "Console") -> int:
    if args.shipped is not None:
        if args.textfile is not None:
            raise UsageError(f"--textfile writes the metrics, not the {args.shipped}")
        sys.stdout.write(shipped_text(args.shipped))
        return 0
    text = store_metrics_text(open_db(args))
    if args.textfile is None:
        sys.stdout.write(text)
        return 0
    path = write_textfile(Path(args.textfile), text)
    out.print(f"wrote {path}", highlight=False, soft_wrap=True)
    return 0
