"""What `ssdlab sim` and `ssdlab sim sweep` simulate: the request (a drive from `--preset` and
the options given over it, a workload or a trace, the write volume) checked into a
`runner.sim.SimRunSpec` before anything runs.

Every configuration is checked (validate_config, validate_workload, trace addresses against
the logical capacity, the memory the simulation would need against the memory available): an
impossible one is a UsageError with the reason, and no store is created. What a run stores is
bounded (runner.sim.MAX_STORED_INTERVALS): a finer interval is coarsened, and the spec says so
(`interval_note`)."""

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ssdlab.app.command_context import command_context
from ssdlab.errors import ParseError, UsageError
from ssdlab.model.next_command import next_command
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
)
from ssdlab.sim.config import GcPolicy, SimConfig, SpareConvention, validate_config
from ssdlab.sim.engine import resolve_core
from ssdlab.sim.memory import MemoryLimit, check_memory
from ssdlab.sim.presets import Preset, find_preset
from ssdlab.sim.trace import TraceFormat, read_trace
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
SWEPT = ("spare", "skew", "trim", "fill")  # what a sweep varies, one of them


@dataclass(frozen=True, slots=True, kw_only=True)
class SimRequest:
    """A simulation as asked: the drive (a preset and options over it; sizes in bytes, `spare`
    as typed, '7%'), the workload or a trace, the write volume and, for a sweep (`sweep`), the
    comma-separated values of the one parameter varied (`spare`, `skew`, `trim` or `fill`).
    `argv` is the command as typed after 'ssdlab', kept with the run."""

    argv: tuple[str, ...] = ()
    database: Path | None = None  # the store, for the hints (None: the default one)
    sweep: bool = False
    preset: str | None = None
    capacity: int | None = None
    spare: str | None = None
    spare_of: SpareConvention = "logical"
    page_size: int | None = None
    pages_per_block: int | None = None
    gc: str | None = None
    slc_static: int | None = None
    slc_dynamic: bool | None = None
    bits_per_cell: int | None = None
    pe_cycles: float | None = None
    initial: str | None = None
    workload: str = "uniform"
    trace: str | None = None
    trace_format: TraceFormat = "auto"
    write: int | None = None
    interval: int | None = None
    daily_write: int | None = None
    seed: int | None = None
    core: str = "auto"
    skew: str | None = None
    trim: str | None = None
    fill: str | None = None


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


def _preset(request: SimRequest) -> Preset | None:
    return find_preset(request.preset) if request.preset else None


_SIZES = ("logical_bytes", "physical_bytes")


def build_config(request: SimRequest, preset: Preset | None, spare: float | None) -> SimConfig:
    """The drive from the preset and the options given (options override the preset)."""
    given: dict[str, Any] = {
        "page_bytes": request.page_size,
        "pages_per_block": request.pages_per_block,
        "gc_policy": None if request.gc is None else GcPolicy(request.gc),
        "slc_static_bytes": request.slc_static,
        "slc_dynamic": request.slc_dynamic,
        "bits_per_cell": request.bits_per_cell,
        "seed": request.seed,
        "initial_state": request.initial,
    }
    overrides = {name: value for name, value in given.items() if value is not None}
    if preset is not None:
        config = preset.config(request.capacity, **overrides)
        if spare is not None:
            kept = {
                name: getattr(config, name)
                for name in SimConfig.__dataclass_fields__
                if name not in _SIZES
            }
            config = SimConfig.from_spare(config.logical_bytes, spare, request.spare_of, **kept)
    else:
        capacity = request.capacity if request.capacity is not None else DEFAULT_CAPACITY
        config = SimConfig.from_spare(
            capacity, DEFAULT_SPARE if spare is None else spare, request.spare_of, **overrides
        )
    validate_config(config)
    return config


def _read_trace_file(path_text: str) -> str:
    data = read_user_file(path_text, MAX_TRACE_BYTES, "the trace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path_text} is not a text trace (not UTF-8)") from None


def build_workload(request: SimRequest, config: SimConfig) -> tuple[Workload, str | None]:
    """The workload and, for a trace, the trace text (stored verbatim with the run)."""
    if request.trace is None:
        workload = parse_workload(request.workload)
        validate_workload(workload)
        return workload, None
    text = _read_trace_file(request.trace)
    try:
        ops = read_trace(text, request.trace_format, capacity_bytes=config.logical_bytes)
    except (ParseError, UsageError) as error:
        raise UsageError(f"trace {request.trace}: {error}") from None
    workload = Workload(kind="trace", trace=ops)
    validate_workload(workload)
    return workload, text


def _pe_cycles(request: SimRequest, preset: Preset | None, config: SimConfig) -> float:
    if request.pe_cycles is not None:
        if not request.pe_cycles > 0:
            raise UsageError(f"--pe-cycles must be positive, not {request.pe_cycles:g}")
        return float(request.pe_cycles)
    if preset is not None:
        return float(preset.pe_cycles)
    return float(TYPICAL_PE.get(config.bits_per_cell, 3_000))


def _volumes(request: SimRequest, config: SimConfig) -> tuple[int, int, int]:
    host = (
        request.write if request.write is not None else DEFAULT_DRIVE_WRITES * config.logical_bytes
    )
    if host < config.page_bytes:
        raise UsageError(f"--write must be at least one page ({format_size(config.page_bytes)})")
    interval = request.interval if request.interval is not None else host // DEFAULT_INTERVALS
    interval = max(config.page_bytes, interval - interval % config.page_bytes)
    if interval > host:
        raise UsageError(
            f"--interval ({format_decimal_bytes(interval)}) is larger than --write "
            f"({format_decimal_bytes(host)})"
        )
    daily = request.daily_write if request.daily_write is not None else config.logical_bytes
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


@dataclass(frozen=True, slots=True)
class _Base:
    """What every point of a run shares: the preset, the trace, the rated P/E cycles."""

    preset: Preset | None
    trace_text: str | None
    pe_cycles: float


def _plan(
    request: SimRequest,
    base: _Base,
    key: str,
    label: str,
    drive: tuple[SimConfig, Workload],
    value: str | None = None,
) -> SimPlan:
    config, workload = drive
    return SimPlan(
        key=key,
        label=label,
        config=config,
        workload=workload,
        pe_cycles=base.pe_cycles,
        preset=base.preset.name if base.preset else None,
        preset_source=base.preset.source_text(request.capacity) if base.preset else None,
        trace_name=Path(request.trace).name if request.trace else None,
        trace_text=base.trace_text,
        sweep_value=value,
    )


def _spec(request: SimRequest, points: Sequence[SimPlan], parameter: str | None) -> SimRunSpec:
    """The run: volumes, the stored-size bound, and the memory check of every point."""
    if len(points) > MAX_SWEEP_POINTS:
        raise UsageError(
            f"a sweep has at most {MAX_SWEEP_POINTS} points, not {len(points)}; split it"
        )
    config = points[0].config
    host, requested, daily = _volumes(request, config)
    interval, note = bound_interval(host, requested, config.page_bytes, len(points))
    spec = SimRunSpec(
        points=tuple(points),
        host_bytes=host,
        interval_bytes=interval,
        daily_write_bytes=daily,
        core=request.core,
        argv=("ssdlab", *request.argv),
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


def _varied(request: SimRequest) -> tuple[str, list[str]]:
    """The one parameter a sweep varies, and its values."""
    given = {name: _list(getattr(request, name)) for name in SWEPT if getattr(request, name)}
    if len(given) != 1:
        raise UsageError(
            "sim sweep varies one parameter: give exactly one of --spare, --skew, --trim, --fill "
            "with a comma-separated list (e.g. --spare 7,12,20,28)"
        )
    parameter, values = next(iter(given.items()))
    if not values:
        raise UsageError(f"--{parameter} needs a comma-separated list of values")
    if parameter == "fill" and request.initial not in (None, "empty"):
        raise UsageError(
            f"--fill needs an empty start: with --initial {request.initial} every LBA already "
            "holds data, so the LBAs outside the fill level are not free space"
        )
    return parameter, values


def _point(
    request: SimRequest, preset: Preset | None, parameter: str, value: str, base: Workload
) -> tuple[SimConfig | None, Workload, str]:
    """One point of a sweep: its drive (None: the base drive), workload and label."""
    if parameter == "spare":
        label = f"spare {value.removesuffix('%')} % of {request.spare_of}"
        return build_config(request, preset, _spare(value)), base, label
    if parameter == "skew":
        return None, _skewed(base, value), f"{value} hot/cold"
    if parameter == "trim":
        workload = replace(base, trim_fraction=parse_pct(value, "--trim"))
        return None, workload, f"TRIM {value.removesuffix('%')} %"
    workload = replace(base, span_fraction=parse_pct(value, "--fill"))
    return None, workload, f"{value.removesuffix('%')} % of LBAs in use"


def sweep_points(request: SimRequest) -> tuple[str, list[SimPlan]]:
    """The points of `sim sweep`: one parameter varied, everything else as given."""
    parameter, values = _varied(request)
    preset = _preset(request)
    base_config = build_config(request, preset, None)
    base_workload, trace_text = build_workload(request, base_config)
    if base_workload.kind == "trace" and parameter != "spare":
        raise UsageError(
            f"--{parameter} does not apply to a trace, which replays its own requests; "
            "sweep --spare over a trace"
        )
    base = _Base(preset, trace_text, _pe_cycles(request, preset, base_config))
    points = []
    for number, value in enumerate(values, 1):
        config, workload, label = _point(request, preset, parameter, value, base_workload)
        validate_workload(workload)
        drive = (config or base_config, workload)
        points.append(_plan(request, base, f"p{number}", label, drive, value))
    return parameter, points


def plan_simulation(request: SimRequest) -> SimRunSpec:
    """The run the request asks for, checked whole."""
    if request.sweep:
        parameter, points = sweep_points(request)
        return _spec(request, points, parameter)
    if request.spare is not None and "," in request.spare:
        words = ("sim", "sweep", "--spare", request.spare)
        hint = next_command(command_context(request.database), words)
        raise UsageError(f"a list of spare values is a sweep: {hint}")
    preset = _preset(request)
    config = build_config(request, preset, None if request.spare is None else _spare(request.spare))
    workload, trace_text = build_workload(request, config)
    base = _Base(preset, trace_text, _pe_cycles(request, preset, config))
    label = f"{workload.describe()} write"
    return _spec(request, [_plan(request, base, "write", label, (config, workload))], None)
