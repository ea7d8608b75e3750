"""The options of `ssdlab report` and `ssdlab compare` (handled by cli/report.py). Kept apart
from the handlers so that building the parser imports no handler."""

import argparse

from ssdlab.cli.arg_types import alpha_arg, threshold_arg
from ssdlab.cli.common_options import STORE, Commands, json_output


def _add_significance(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=threshold_arg,
        default=5.0,
        metavar="PCT",
        help="smallest change called a difference (default 5%%)",
    )
    parser.add_argument(
        "--alpha",
        type=alpha_arg,
        default=0.05,
        help="significance level of Welch's t-test on the passes (default 0.05)",
    )


def add_commands(commands: Commands) -> None:
    report = commands.add_parser(
        "report",
        help="runs as one self-contained HTML, Markdown or PDF report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab report last -o report.html       the last run, plots inline, nothing fetched\n"
        "  ssdlab report 3 7 -o drives.html        two runs, compared up front when same profile\n"
        "  ssdlab report 3 -o result.md            Markdown, its charts embedded as SVG images\n"
        "  ssdlab report 3 -o result.pdf           printed to PDF by headless Chromium\n"
        "  ssdlab report 3 -o - | less             the HTML on stdout (refused on a terminal)\n",
        parents=[STORE],
    )
    report.add_argument("runs", nargs="+", metavar="RUN", help="run ids, or 'last'")
    report.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here, as its suffix says: .html/.htm, .md or .pdf; '-' for stdout "
        "(default: stdout, unless it is a terminal)",
    )
    report.add_argument(
        "--format", choices=("html", "md"), help="on stdout (default html); a file: its suffix"
    )
    report.add_argument("--title", help="the report's title")
    _add_significance(report)

    compare = commands.add_parser(
        "compare",
        help="runs of one profile side by side: ratios, and real differences told from noise",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compare runs against the first. A change is marked better (+) or worse "
        "(-) only when it is larger than --threshold and Welch's t-test on the passes gives "
        "p < --alpha; otherwise ~ (not significant) or ? (one pass a side: the ratio "
        "stands, no significance test is possible).",
        epilog="examples:\n"
        "  ssdlab compare 3 7                       run 7 against run 3\n"
        "  ssdlab compare 3 7 9 --format md         three runs, as a Markdown table\n"
        "  ssdlab compare 3 7 --fail-if rnd4k-q1t1-read:-5%   exit 4 on a significant fall\n"
        "  ssdlab compare 3 7 --fail-if '*-lat:+10%'          any latency up more than 10%\n",
        parents=[json_output("print as JSON (= --format json)"), STORE],
    )
    compare.add_argument("runs", nargs="+", metavar="RUN", help="run ids, or 'last'")
    compare.add_argument(
        "--format",
        choices=("term", "md", "html", "json", "csv"),
        default="term",
        help="default term; csv: one row per run and metric",
    )
    compare.add_argument("-o", "--output", metavar="FILE", help="write here (md, html, json, csv)")
    compare.add_argument(
        "--fail-if",
        action="append",
        metavar="RULE",
        help="METRIC:-5%% or METRIC:+10%% (wildcards allowed); exit 4 when a run breaks it",
    )
    _add_significance(compare)
