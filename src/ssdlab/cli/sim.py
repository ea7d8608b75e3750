"""`ssdlab sim`: simulate a drive (or a sweep of drives) and store it as a run; `sim presets`.

Every configuration is checked before anything runs (validate_config, validate_workload, trace
addresses against the logical capacity, the memory the simulation would need against the
memory available): an impossible one exits 2 with the reason and no store is created. What a
run stores is bounded (runner.sim.MAX_STORED_INTERVALS): a finer --interval is coarsened, and
said so. A signal ends the run `interrupted` (SignalGuard: the first stops the simulation at
its next check and keeps what finished, the second exits at once).
"""

import argparse
import json
import math
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ssdlab.app.runs import run_document, stored_run
from ssdlab.cli.render import emit_document
from ssdlab.cli.run_session import session_for
from ssdlab.errors import ParseError, UsageError
from ssdlab.model.units import (
    format_binary_bytes,
    format_decimal_bytes,
    format_size,
    parse_size_bytes,
)
from ssdlab.runner.sim import (
    MAX_STORED_INTERVALS,
    MAX_SWEEP_POINTS,
    STORED_BYTES_PER_INTERVAL,
    SimPlan,
    SimRunSpec,
    run_simulation,
)
from ssdlab.sim.config import GcPolicy, SimConfig, validate_config
from ssdlab.sim.engine import resolve_core
from ssdlab.sim.memory import MemoryLimit, check_memory
from ssdlab.sim.presets import APPROXIMATION, Preset, find_preset, load_presets
from ssdlab.sim.trace import read_trace
from ssdlab.sim.workload import Workload, parse_workload, validate_workload
from ssdlab.system.meminfo import mem_available_bytes
from ssdlab.system.user_files import read_user_file

DEFAULT_CAPACITY = 4 * 2**30
DEFAULT_SPARE = 0.07
DEFAULT_DRIVE_WRITES = 5  # host writes = this × capacity: preconditioning, then steady state
DEFAULT_INTERVALS = 100
# rated P/E when neither --pe-cycles nor a preset gives one: typical 3D NAND by bits per cell
TYPICAL_PE = {1: 50_000, 2: 5_000, 3: 3_000, 4: 1_000}
MAX_TRACE_BYTES = 512 * 2**20
MEMORY_LIMIT_ENV = "SSDLAB_SIM_MEMORY_LIMIT"
MEMORY_SHARE = 0.8  # of MemAvailable: the rest for ssdlab itself, the store and the system


def parse_pct(text: str, what: str) -> float:
    """'7%', '7' (both per cent) or '0.07%' → fraction; anything else a UsageError."""
    raw = text.strip().removesuffix("%").strip()
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a percentage such as 7% or 28") from None
    if not math.isfinite(value):
        raise UsageError(f"{what} {text!r} is not a finite percentage")
    return value / 100.0


def _spare(text: str) -> float:
    spare = parse_pct(text, "--spare")
    if spare <= 0:
        raise UsageError(
            f"--spare {text}: spare must be more than 0 % (the FTL needs free blocks to "
            "collect garbage into)"
        )
    return spare


def _preset(args: argparse.Namespace) -> Preset | None:
    return find_preset(args.preset) if args.preset else None


def build_config(args: argparse.Namespace, preset: Preset | None, spare: float | None) -> SimConfig:
    """The drive from --preset and the options given (options override the preset)."""
    overrides: dict[str, Any] = {}
    if args.page_size is not None:
        overrides["page_bytes"] = args.page_size
    if args.pages_per_block is not None:
        overrides["pages_per_block"] = args.pages_per_block
    if args.gc is not None:
        overrides["gc_policy"] = GcPolicy(args.gc)
    if args.slc_static is not None:
        overrides["slc_static_bytes"] = args.slc_static
    if args.slc_dynamic is not None:
        overrides["slc_dynamic"] = args.slc_dynamic
    if args.bits_per_cell is not None:
        overrides["bits_per_cell"] = args.bits_per_cell
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.initial is not None:
        overrides["initial_state"] = args.initial
    if preset is not None:
        config = preset.config(args.capacity, **overrides)
        if spare is not None:
            kept = {k: v for k, v in _fields(config).items() if k not in _SIZES}
            config = SimConfig.from_spare(config.logical_bytes, spare, args.spare_of, **kept)
    else:
        capacity = args.capacity if args.capacity is not None else DEFAULT_CAPACITY
        config = SimConfig.from_spare(
            capacity, DEFAULT_SPARE if spare is None else spare, args.spare_of, **overrides
        )
    validate_config(config)
    return config


_SIZES = ("logical_bytes", "physical_bytes")


def _fields(config: SimConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in SimConfig.__dataclass_fields__}


def _read_trace_file(path_text: str) -> str:
    data = read_user_file(path_text, MAX_TRACE_BYTES, "the trace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path_text} is not a text trace (not UTF-8)") from None


def build_workload(args: argparse.Namespace, config: SimConfig) -> tuple[Workload, str | None]:
    """The workload and, for a trace, the trace text (stored verbatim with the run)."""
    if args.trace is None:
        workload = parse_workload(args.workload)
        validate_workload(workload)
        return workload, None
    text = _read_trace_file(args.trace)
    try:
        ops = read_trace(text, args.trace_format, capacity_bytes=config.logical_bytes)
    except ParseError as error:
        raise UsageError(f"trace {args.trace}: {error}") from None
    except UsageError as error:
        raise UsageError(f"trace {args.trace}: {error}") from None
    workload = Workload(kind="trace", trace=ops)
    validate_workload(workload)
    return workload, text


def _pe_cycles(args: argparse.Namespace, preset: Preset | None, config: SimConfig) -> float:
    if args.pe_cycles is not None:
        if not args.pe_cycles > 0:
            raise UsageError(f"--pe-cycles must be positive, not {args.pe_cycles:g}")
        return float(args.pe_cycles)
    if preset is not None:
        return float(preset.pe_cycles)
    return float(TYPICAL_PE.get(config.bits_per_cell, 3_000))


def _volumes(args: argparse.Namespace, config: SimConfig) -> tuple[int, int, int]:
    host = args.write if args.write is not None else DEFAULT_DRIVE_WRITES * config.logical_bytes
    if host < config.page_bytes:
        raise UsageError(f"--write must be at least one page ({format_size(config.page_bytes)})")
    interval = args.interval if args.interval is not None else host // DEFAULT_INTERVALS
    interval = max(config.page_bytes, interval - interval % config.page_bytes)
    if interval > host:
        raise UsageError(
            f"--interval ({format_decimal_bytes(interval)}) is larger than --write "
            f"({format_decimal_bytes(host)})"
        )
    daily = args.daily_write if args.daily_write is not None else config.logical_bytes
    if daily <= 0:
        raise UsageError("--daily-write must be more than 0 bytes")
    return host, interval, daily


def bound_interval(host: int, interval: int, page: int, points: int) -> tuple[int, str | None]:
    """The interval coarsened so that the run stores at most MAX_STORED_INTERVALS intervals
    over its points (whole pages, as the core counts them), and the note saying so."""
    per_point = MAX_STORED_INTERVALS // points
    host_pages = host // page
    pages = interval // page
    if math.ceil(host_pages / pages) <= per_point:
        return interval, None
    coarse = math.ceil(host_pages / per_point) * page
    wanted = math.ceil(host_pages / pages)
    where = "" if points == 1 else f" per simulated drive ({points} drives)"
    return coarse, (
        f"an interval of {format_decimal_bytes(interval)} would store {wanted:,} intervals"
        f"{where}; coarsened to {format_decimal_bytes(coarse)} so that a run stores at most "
        f"{MAX_STORED_INTERVALS:,} intervals "
        f"(about {format_decimal_bytes(MAX_STORED_INTERVALS * STORED_BYTES_PER_INTERVAL)})"
    )


def memory_limit() -> MemoryLimit | None:
    """$SSDLAB_SIM_MEMORY_LIMIT (a size, or 'none'), else 80 % of MemAvailable."""
    text = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if text.lower() == "none":
        return None
    if text:
        try:
            limit = parse_size_bytes(text)
        except ValueError as error:
            raise UsageError(f"{MEMORY_LIMIT_ENV}: {error}") from None
        return MemoryLimit(limit, f"{MEMORY_LIMIT_ENV}={text}")
    available = mem_available_bytes()
    if available is None:  # no /proc/meminfo: nothing to judge by
        return None
    return MemoryLimit(
        int(available * MEMORY_SHARE),
        f"{MEMORY_SHARE:.0%} of the {format_binary_bytes(available)} available now "
        f"(MemAvailable); "
        f"{MEMORY_LIMIT_ENV}=SIZE or =none changes it",
    )


def _plan(
    args: argparse.Namespace,
    key: str,
    label: str,
    config: SimConfig,
    workload: Workload,
    preset: Preset | None,
    trace_text: str | None,
    pe: float,
    value: str | None = None,
) -> SimPlan:
    return SimPlan(
        key=key,
        label=label,
        config=config,
        workload=workload,
        pe_cycles=pe,
        preset=preset.name if preset else None,
        preset_source=preset.source_text(args.capacity) if preset else None,
        trace_name=Path(args.trace).name if args.trace else None,
        trace_text=trace_text,
        sweep_value=value,
    )


def _spec(args: argparse.Namespace, points: Sequence[SimPlan], parameter: str | None) -> SimRunSpec:
    """The run: volumes, the stored-size bound, and the memory check of every point."""
    if len(points) > MAX_SWEEP_POINTS:
        raise UsageError(
            f"a sweep has at most {MAX_SWEEP_POINTS} points, not {len(points)}; split it"
        )
    config = points[0].config
    host, requested, daily = _volumes(args, config)
    interval, note = bound_interval(host, requested, config.page_bytes, len(points))
    spec = SimRunSpec(
        points=tuple(points),
        host_bytes=host,
        interval_bytes=interval,
        daily_write_bytes=daily,
        core=args.core,
        argv=("ssdlab", *sys.argv[1:]),
        sweep_parameter=parameter,
        interval_requested_bytes=requested if note else None,
        interval_note=note,
        memory_limit=memory_limit(),
    )
    if spec.memory_limit is not None:
        core = resolve_core(spec.core)
        intervals = math.ceil((host // config.page_bytes) / (interval // config.page_bytes))
        for plan in points:
            check_memory(plan.config, plan.workload, core, intervals, spec.memory_limit)
    return spec


def _list(text: str | None) -> list[str]:
    return [] if text is None else [part.strip() for part in text.split(",") if part.strip()]


def sweep_points(args: argparse.Namespace) -> tuple[str, list[SimPlan]]:
    """The points of `sim sweep`: one parameter varied, everything else as given."""
    given = {
        name: _list(getattr(args, name))
        for name in ("spare", "skew", "trim", "fill")
        if getattr(args, name)
    }
    if len(given) != 1:
        raise UsageError(
            "sim sweep varies one parameter: give exactly one of --spare, --skew, --trim, --fill "
            "with a comma-separated list (e.g. --spare 7,12,20,28)"
        )
    parameter, values = next(iter(given.items()))
    if not values:
        raise UsageError(f"--{parameter} needs a comma-separated list of values")
    if parameter == "fill" and args.initial not in (None, "empty"):
        raise UsageError(
            f"--fill needs an empty start: with --initial {args.initial} every LBA already "
            "holds data, so the LBAs outside the fill level are not free space"
        )
    preset = _preset(args)
    base_config = build_config(args, preset, None)
    base_workload, trace_text = build_workload(args, base_config)
    if base_workload.kind == "trace" and parameter != "spare":
        raise UsageError(
            f"--{parameter} does not apply to a trace, which replays its own requests; "
            "sweep --spare over a trace"
        )
    pe = _pe_cycles(args, preset, base_config)
    points = []
    for number, value in enumerate(values, 1):
        config, workload, label = base_config, base_workload, value
        if parameter == "spare":
            config = build_config(args, preset, _spare(value))
            label = f"spare {value.removesuffix('%')} % of {args.spare_of}"
        elif parameter == "skew":
            workload = _skewed(base_workload, value)
            label = f"{value} hot/cold"
        elif parameter == "trim":
            workload = replace(base_workload, trim_fraction=parse_pct(value, "--trim"))
            label = f"TRIM {value.removesuffix('%')} %"
        else:
            workload = replace(base_workload, span_fraction=parse_pct(value, "--fill"))
            label = f"{value.removesuffix('%')} % of LBAs in use"
        validate_workload(workload)
        points.append(
            _plan(args, f"p{number}", label, config, workload, preset, trace_text, pe, value)
        )
    return parameter, points


def _skewed(base: Workload, value: str) -> Workload:
    writes, slash, space = value.partition("/")
    if not slash:
        raise UsageError(f"--skew {value!r}: give WRITES/SPACE percentages such as 80/20")
    hot_writes = parse_pct(writes, "--skew writes")
    hot_space = parse_pct(space, "--skew space")
    if math.isclose(hot_writes, hot_space):
        return replace(base, kind="uniform")
    return replace(
        base, kind="hotcold", hot_write_fraction=hot_writes, hot_space_fraction=hot_space
    )


class _PointProgress:
    """A bar over the points of a sweep (one point: a spinner with the elapsed time)."""

    def __init__(self, console: Console, total: int) -> None:
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._progress.add_task("simulating", total=total)

    def __enter__(self) -> "_PointProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, number: int, _total: int, plan: SimPlan) -> None:
        self._progress.update(
            self._task, completed=number - 1, description=f"simulating {plan.label}"
        )


def _progress_line(number: int, total: int, plan: SimPlan) -> None:
    """Progress for logs and pipes: one line per simulated drive on stderr."""
    print(f"ssdlab sim: simulating {number}/{total}: {plan.label}", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace, out: Console, spec: SimRunSpec) -> int:
    if spec.interval_note:
        print(f"ssdlab sim: note: {spec.interval_note}", file=sys.stderr, flush=True)
    session = session_for(args)
    conn = session.conn
    err = Console(stderr=True)
    stop = threading.Event()
    advice = "the run is marked interrupted when ssdlab next starts"
    with session.guard(stop.set, lambda: None, advice):
        if err.is_terminal and not args.json:
            with _PointProgress(err, len(spec.points)) as progress:
                run_id = run_simulation(conn, spec, on_point=progress, should_stop=stop.is_set)
        else:
            run_id = run_simulation(conn, spec, on_point=_progress_line, should_stop=stop.is_set)
    document = run_document(stored_run(conn, run_id))
    if emit_document(out, document, plots=args.plots, as_json=args.json):
        out.print(f"stored as run {run_id} in {session.database}", highlight=False)
    return 0


def cmd_sim(args: argparse.Namespace, out: Console) -> int:
    if args.sim_command == "presets":
        return _presets(args, out)
    if args.sim_command == "sweep":
        parameter, points = sweep_points(args)
        return _run(args, out, _spec(args, points, parameter))
    if args.spare is not None and "," in args.spare:
        raise UsageError("a list of spare values is a sweep: ssdlab sim sweep --spare 7,12,20")
    preset = _preset(args)
    config = build_config(args, preset, None if args.spare is None else _spare(args.spare))
    workload, trace_text = build_workload(args, config)
    pe = _pe_cycles(args, preset, config)
    label = f"{workload.describe()} write"
    plan = _plan(args, "write", label, config, workload, preset, trace_text, pe)
    return _run(args, out, _spec(args, [plan], None))


def _presets(args: argparse.Namespace, out: Console) -> int:
    presets = load_presets()
    if args.json:
        data = {
            "format": "ssdlab-sim-presets",
            "format_version": 1,
            "note": APPROXIMATION,
            "presets": [
                {
                    "name": p.name,
                    "summary": p.summary,
                    "logical_bytes": p.logical_bytes,
                    "physical_bytes": p.physical_bytes,
                    "page_bytes": p.page_bytes,
                    "pages_per_block": p.pages_per_block,
                    "bits_per_cell": p.bits_per_cell,
                    "slc_static_bytes": p.slc_static_bytes,
                    "slc_dynamic": p.slc_dynamic,
                    "pe_cycles": p.pe_cycles,
                    "gc": p.gc,
                    "source": p.source,
                    "assumed": p.assumed,
                }
                for p in presets.values()
            ],
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return 0
    out.print(f"simulator presets ({APPROXIMATION}):", highlight=False)
    for preset in presets.values():
        out.print(f"\n[bold]{preset.name}[/bold]  {preset.summary}", highlight=False)
        out.print(f"  source: {preset.source}", highlight=False, markup=False)
        out.print(f"  assumed: {preset.assumed}", highlight=False, markup=False)
    out.print(
        "\nuse one with 'ssdlab sim --preset NAME'; '--capacity 16GiB' scales it down to "
        "simulate faster",
        highlight=False,
    )
    return 0
