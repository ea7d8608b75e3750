"""Synthetic and trace workloads: what the simulated host does, and the text form for them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.sim.trace import TraceOp

KINDS = ("uniform", "sequential", "hotcold", "jesd219", "trace")
KIND_ALIASES = {
    "uniform": "uniform",
    "random": "uniform",
    "seq": "sequential",
    "sequential": "sequential",
    "hotcold": "hotcold",
    "jesd219": "jesd219",
}

# JESD219 enterprise endurance workload (pts.md §7.2): accesses by LBA zone, transfer sizes.
JESD219_ZONES = ((0.50, 0.00, 0.05), (0.30, 0.05, 0.15), (0.20, 0.20, 0.80))
JESD219_SIZES = (
    (512, 0.04),
    (1024, 0.01),
    (1536, 0.01),
    (2048, 0.01),
    (2560, 0.01),
    (3072, 0.01),
    (3584, 0.01),
    (4096, 0.67),
    (8192, 0.10),
    (16384, 0.07),
    (32768, 0.03),
    (65536, 0.03),
)


@dataclass(frozen=True, slots=True)
class Workload:
    """What the host does. Fractions are of requests (read/trim) or of the span (space).

    hotcold: `hot_write_fraction` of the requests go to the first `hot_space_fraction` of the
    span. Requests are `request_pages` pages long (JESD219 draws its own sizes).
    """

    kind: str = "uniform"
    hot_space_fraction: float = 0.2
    hot_write_fraction: float = 0.8
    read_fraction: float = 0.0
    trim_fraction: float = 0.0
    request_pages: int = 1
    span_fraction: float = 1.0
    trace: tuple[TraceOp, ...] = ()

    @property
    def write_fraction(self) -> float:
        return 1.0 - self.read_fraction - self.trim_fraction

    def describe(self) -> str:
        if self.kind == "trace":
            writes = sum(1 for op in self.trace if op.op == "write")
            return f"trace replay ({len(self.trace)} requests, {writes} writes)"
        name = {
            "uniform": "uniform random",
            "sequential": "sequential",
            "jesd219": "JESD219 enterprise (zones 50/5 30/15 20/80, mixed sizes)",
            "hotcold": f"hot/cold {_pct(self.hot_write_fraction)} of writes to "
            f"{_pct(self.hot_space_fraction)} of the span",
        }.get(self.kind, self.kind)
        parts = [name]
        if self.kind != "jesd219":
            parts.append(f"{self.request_pages} page{'s' if self.request_pages != 1 else ''}")
        if self.read_fraction:
            parts.append(f"{_pct(self.read_fraction)} reads")
        if self.trim_fraction:
            parts.append(f"{_pct(self.trim_fraction)} TRIM")
        if self.span_fraction != 1.0:
            parts.append(f"over {_pct(self.span_fraction)} of the LBAs")
        return ", ".join(parts)


def _pct(x: float) -> str:
    return f"{x * 100:g} %"


def validate_workload(w: Workload) -> None:
    if w.kind not in KINDS:
        raise UsageError(f"unknown workload kind {w.kind!r}; known: {', '.join(KINDS)}")
    for name in ("read_fraction", "trim_fraction"):
        value = getattr(w, name)
        if not (math.isfinite(value) and 0 <= value < 1):
            raise UsageError(f"{name.replace('_', ' ')} must be in 0 … <1, not {value}")
    if w.kind != "trace" and w.write_fraction <= 0:
        raise UsageError("reads and TRIM leave no writes: the simulation is driven by writes")
    if w.request_pages < 1:
        raise UsageError(f"request size must be at least one page, not {w.request_pages}")
    if not (math.isfinite(w.span_fraction) and 0 < w.span_fraction <= 1):
        raise UsageError(f"span must be in (0, 1], not {w.span_fraction}")
    if w.kind == "hotcold":
        _check_hot_cold(w)
    _check_trace(w)


def _check_hot_cold(w: Workload) -> None:
    for name in ("hot_space_fraction", "hot_write_fraction"):
        value = getattr(w, name)
        if not (math.isfinite(value) and 0 < value < 1):
            what = name.replace("_", " ")
            raise UsageError(f"hot/cold {what} must be in (0, 1), not {value}")


def _check_trace(w: Workload) -> None:
    """A trace workload has trace operations with writes among them; no other kind has any."""
    if w.kind == "trace":
        if not w.trace:
            raise UsageError("a trace workload needs trace operations")
        if not any(op.op == "write" for op in w.trace):
            raise UsageError("the trace holds no writes: the simulation is driven by writes")
    elif w.trace:
        raise UsageError(f"trace operations given for a {w.kind!r} workload")


def _fraction(key: str, text: str) -> float:
    raw = text.strip().removesuffix("%")
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{key}={text!r} is not a number") from None
    return value / 100.0


def parse_workload(text: str) -> Workload:
    """'uniform', 'seq', 'hotcold:80/20', 'jesd219', 'uniform,read=30%,trim=5%,pages=2,span=50%'."""
    parts = [p.strip() for p in text.strip().split(",")]
    head = parts[0].lower()
    name, _, arg = head.partition(":")
    kind = KIND_ALIASES.get(name)
    if kind is None:
        known = "uniform, seq, hotcold:80/20, jesd219"
        raise UsageError(f"unknown workload {name!r} in {text!r}; known: {known}")
    fields: dict[str, float | int | str] = {"kind": kind}
    if kind == "hotcold":
        writes, slash, space = (arg or "80/20").partition("/")
        if not slash:
            raise UsageError(f"hot/cold needs WRITES/SPACE percentages (e.g. 80/20), not {arg!r}")
        fields["hot_write_fraction"] = _fraction("hotcold writes", writes)
        fields["hot_space_fraction"] = _fraction("hotcold space", space)
    elif arg:
        raise UsageError(f"workload {name!r} takes no ':' argument ({text!r})")
    for option in parts[1:]:
        key, eq, value = option.partition("=")
        key = key.strip().lower()
        if not eq:
            raise UsageError(f"workload option {option!r} needs KEY=VALUE")
        if key == "read":
            fields["read_fraction"] = _fraction(key, value)
        elif key == "trim":
            fields["trim_fraction"] = _fraction(key, value)
        elif key == "span":
            fields["span_fraction"] = _fraction(key, value)
        elif key == "pages":
            if not value.strip().isdigit():
                raise UsageError(f"pages={value!r} is not a whole number")
            fields["request_pages"] = int(value)
        else:
            raise UsageError(f"unknown workload option {key!r}; known: read, trim, span, pages")
    workload = Workload(**fields)  # type: ignore[arg-type]
    validate_workload(workload)
    return workload
