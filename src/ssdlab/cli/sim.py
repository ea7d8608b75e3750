"""`ssdlab sim`, `sim sweep` and `sim presets` (app/sim_setup.py, app/sim.py): a simulated
drive (or a sweep of drives) stored as a run; `sim serve` (app/sim_serve.py): a simulated drive
served through FUSE until a signal. The command line keeps the edges: progress on stderr, and
the signal guard (the first signal stops the simulation at its next check and keeps what
finished, the run ending `interrupted`; the second exits at once)."""

import argparse
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ssdlab.app.sim import list_presets, simulate
from ssdlab.app.sim_serve import (
    DEFAULT_TIME_SCALE,
    ServeRequest,
    counters_document,
    plan_serve,
    serve,
    serving_lines,
    stopped_text,
)
from ssdlab.app.sim_setup import SimRequest, plan_simulation
from ssdlab.cli.render import emit_document
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path
from ssdlab.runner.sim import Progress as OnPoint
from ssdlab.runner.sim import SimPlan

ADVICE = "the run is marked interrupted when ssdlab next starts"
OPTIONS = {f.name for f in fields(SimRequest)} - {"argv", "database", "sweep"}
SERVE_DRIVE_OPTIONS = OPTIONS - {"workload", "trace", "trace_format", "write", "interval"}


def request_from(args: argparse.Namespace) -> SimRequest:
    """The options of `sim` or `sim sweep` as they are named, and the command as typed."""
    given = {name: getattr(args, name) for name in OPTIONS if hasattr(args, name)}
    return SimRequest(
        argv=tuple(sys.argv[1:]),
        database=db_path(args),
        sweep=args.sim_command == "sweep",
        **given,
    )


def _progress_line(number: int, total: int, plan: SimPlan) -> None:
    """Progress for logs and pipes: one line per simulated drive on stderr."""
    print(f"ssdlab sim: simulating {number}/{total}: {plan.label}", file=sys.stderr, flush=True)


@contextmanager
def _progress(as_json: bool, total: int) -> Iterator[OnPoint]:
    """A bar over the points on a terminal (one point: a spinner with the elapsed time),
    else a line per point."""
    err = Console(stderr=True)
    if not err.is_terminal or as_json:
        yield _progress_line
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn())
    shown = (TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())
    with Progress(*columns, *shown, console=err, transient=True) as bar:
        task = bar.add_task("simulating", total=total)

        def on_point(number: int, _total: int, plan: SimPlan) -> None:
            bar.update(task, completed=number - 1, description=f"simulating {plan.label}")

        yield on_point


def _presets(args: argparse.Namespace, out: Console) -> int:
    listed = list_presets(db_path(args))
    if args.json:
        sys.stdout.write(json.dumps(listed.document, indent=2) + "\n")
        return 0
    out.print(f"simulator presets ({listed.note}):", highlight=False)
    for preset in listed.presets:
        out.print(f"\n[bold]{preset.name}[/bold]  {preset.summary}", highlight=False)
        out.print(f"  source: {preset.source}", highlight=False, markup=False)
        out.print(f"  assumed: {preset.assumed}", highlight=False, markup=False)
    out.print(
        f"\nuse one with {listed.hint}; '--capacity 16GiB' scales it down to simulate faster",
        highlight=False,
        markup=False,
    )
    return 0


def serve_request_from(args: argparse.Namespace) -> ServeRequest:
    """The options of `sim serve`: the drive as `sim` takes it, and how it is served."""
    drive = {name: getattr(args, name) for name in SERVE_DRIVE_OPTIONS if hasattr(args, name)}
    scale = DEFAULT_TIME_SCALE if args.time_scale is None else args.time_scale
    return ServeRequest(
        mountpoint=args.mountpoint,
        drive=SimRequest(**drive),
        random_config=args.random_config,
        secret=args.secret,
        time_scale=scale,
        backing=args.backing,
        c0=not args.no_c0,
        idle_gc_mb_per_s=args.idle_gc,
    )


def _serve(args: argparse.Namespace, out: Console) -> int:
    spec = plan_serve(serve_request_from(args))
    for line in serving_lines(spec):
        print(f"ssdlab sim serve: {line}", file=sys.stderr, flush=True)
    counters = serve(spec)
    summary = counters_document(spec, counters)
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        return 0
    out.print(stopped_text(counters), highlight=False, markup=False)
    return 0


def cmd_sim(args: argparse.Namespace, out: Console) -> int:
    if args.sim_command == "presets":
        return _presets(args, out)
    if args.sim_command == "serve":
        return _serve(args, out)
    spec = plan_simulation(request_from(args))
    if spec.interval_note:
        print(f"ssdlab sim: note: {spec.interval_note}", file=sys.stderr, flush=True)
    session = session_for(args)
    conn = session.conn
    stop = threading.Event()
    guard = session.guard(stop.set, lambda: None, ADVICE)
    with guard, _progress(args.json, len(spec.points)) as on_point:
        outcome = simulate(conn, spec, on_point, stop.is_set)
    if emit_document(out, outcome.document, plots=args.plots, as_json=args.json):
        out.print(f"stored as run {outcome.run_id} in {session.database}", highlight=False)
    return 0
