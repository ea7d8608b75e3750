"""`ssdlab health`, `ssdlab wear` and `ssdlab watch` (app/health.py, app/wear.py,
app/watch.py): drive health, wear between samples, and sampling into the store over days."""

import argparse
import json
import sys
import threading
from typing import TYPE_CHECKING

from ssdlab.analysis.alerts import Alert, Thresholds
from ssdlab.app.health import HealthRequest, check_health
from ssdlab.app.health_readings import SavedReading
from ssdlab.app.rated_endurance import GivenRating
from ssdlab.app.watch import WatchRequest, start_watch, watch_unit_of
from ssdlab.app.wear import WearRequest, compare_wear
from ssdlab.cli.metrics import store_metrics_text
from ssdlab.cli.render import print_sections
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def _rating(args: argparse.Namespace) -> GivenRating:
    return GivenRating(args.tbw, args.dwpd, args.warranty_years)


def _health_request(args: argparse.Namespace) -> HealthRequest:
    saved = SavedReading(args.vendor_map, args.model, args.interval, args.elapsed)
    return HealthRequest(args.target, args.import_log, saved, args.step_metric, _rating(args))


def cmd_health(args: argparse.Namespace, out: "Console") -> int:
    outcome = check_health(session_for(args), _health_request(args))
    if args.json:
        sys.stdout.write(json.dumps(outcome.document, indent=2, default=str) + "\n")
        return 0
    for note in outcome.notes:
        out.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    print_sections(out, outcome.sections)
    ids = outcome.sample_ids
    if len(ids) == 1:
        out.print(f"stored as sample {ids[0]}", highlight=False)
    else:
        out.print(f"stored {len(ids)} samples (ids {ids[0]}–{ids[-1]})", highlight=False)
    return 0


def _wear_request(args: argparse.Namespace) -> WearRequest:
    saved = SavedReading(args.vendor_map, args.model, None, args.elapsed)
    return WearRequest(
        args.before, args.after, saved, args.raw_nand_capacity, args.slc_cached, _rating(args)
    )


def cmd_wear(args: argparse.Namespace, out: "Console") -> int:
    outcome = compare_wear(session_for(args), _wear_request(args))
    if args.json:
        sys.stdout.write(json.dumps(outcome.document, indent=2, default=str) + "\n")
        return 0
    out.print(f"{outcome.before} → {outcome.after}", highlight=False)
    print_sections(out, outcome.sections)
    return 0


def _watch_request(args: argparse.Namespace) -> WatchRequest:
    thresholds = Thresholds(args.max_temperature, args.min_spare, args.min_days_left, args.max_waf)
    return WatchRequest(
        device=args.device,
        every_s=args.every,
        duration_s=args.duration,
        count=args.count,
        new=args.new,
        vendor_map=args.vendor_map,
        thresholds=thresholds,
        on_alert=tuple(args.on_alert),
        hook_timeout_s=args.hook_timeout,
        textfile=args.textfile,
        no_wake=args.no_wake,
        health_replay=args.health_replay,
    )


class _Console:
    """A watch's lines on the terminal, its problems on stderr."""

    def __init__(self, out: "Console") -> None:
        self.out = out

    def said(self, text: str) -> None:
        self.out.print(text, highlight=False)

    def sampled(self, text: str) -> None:
        self.out.print(text)

    def alerted(self, alert: Alert) -> None:
        self.out.print(
            f"[red]ALERT[/red] {alert.name} ({alert.severity}): {alert.message}",
            highlight=False,
            soft_wrap=True,
        )

    def warned(self, text: str) -> None:
        sys.stderr.write(f"ssdlab watch: {text}\n")


def cmd_watch(args: argparse.Namespace, out: "Console") -> int:
    request = _watch_request(args)
    if args.print_systemd_unit:
        unit = watch_unit_of(request, sys.argv[1:], db_path(args))
        sys.stdout.write(unit)  # verbatim: no wrapping
        return 0
    session = session_for(args)
    watch = start_watch(session, request, _Console(out), store_metrics_text)
    stop = threading.Event()
    guard = session.guard(stop.set, stop.set, advice=None)  # every signal ends the watch
    with guard:
        summary = watch.run(stop.is_set, lambda: guard.first_signal)
    out.print(
        f"watch run {summary.run_id}: {summary.samples} samples stored, "
        f"{summary.fired} alert(s) this time",
        highlight=False,
    )
    return 0
