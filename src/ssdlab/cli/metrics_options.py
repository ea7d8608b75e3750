"""The options of `ssdlab metrics` (handled by cli/metrics.py). Kept apart from the handler so
that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands

SHIPPED = ("rules", "dashboard")


def add_commands(commands: Commands) -> None:
    metrics = commands.add_parser(
        "metrics",
        help="the store's latest drive health, wear and benchmark figures for Prometheus",
        description="Print the store's latest state as Prometheus metrics (text exposition), "
        "or write it atomically as DIR/ssdlab.prom for node_exporter's textfile collector. "
        "ssdlab opens no port. 'rules' and 'dashboard' print the shipped Prometheus alert "
        "rules and Grafana dashboard. Every metric: docs/metrics.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab metrics                           the metrics, to stdout\n"
        "  ssdlab metrics --textfile /var/lib/prometheus/node-exporter\n"
        "                                           as ssdlab.prom there, for node_exporter\n"
        "  ssdlab metrics rules > ssdlab-alerts.yml     Prometheus alert rules\n"
        "  ssdlab metrics dashboard > ssdlab.json       Grafana dashboard to import\n",
        parents=[STORE],
    )
    metrics.add_argument(
        "shipped",
        nargs="?",
        choices=SHIPPED,
        metavar="{rules,dashboard}",
        help="print the shipped alert rules (YAML) or Grafana dashboard (JSON) instead",
    )
    metrics.add_argument(
        "--textfile",
        metavar="DIR",
        help="write DIR/ssdlab.prom atomically (temp file + rename) instead of printing: "
        "node_exporter's --collector.textfile.directory",
    )
