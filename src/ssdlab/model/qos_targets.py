"""Quality-of-service targets: workloads with their rates per TB of the drive and the latency
each direction must stay under, as a TOML file (the OCP defaults ship in
profiles/qos_targets.toml; a buyer may give their own of the same schema, `--targets`).

Schema, one table per workload under `workload`:

```toml
[workload.NAME]
source = "where the workload is defined"
block_size_bytes = 4096
read_mib_s_per_tb = 68      # any of read, write, trim; a direction without a rate is not run
write_mib_s_per_tb = 72
trim_mib_s_per_tb = 117

[[workload.NAME.target]]
direction = "read"          # read | write | trim
percentile = 99.9999        # or "max": the largest latency measured
limit_us = 8500             # the target, in microseconds
source = "requirement ID and document"

[[workload.NAME.target]]    # a count: at most `at_most` I/Os over `over_us`
direction = "all"           # a count may take every direction's I/Os together
over_us = 2000000
at_most = 7
window_s = 3600             # in this long (optional): a shorter run cannot pass it
source = "…"
```

A change target (`phase = "trim"` or `"burst"`, `percentile`, `change_pct = 5`) compares a
read percentile while trims run, or after a write burst, with the same reads alone (OCP
TRIM-6/7). A rate may be "unlimited" (the direction runs as fast as the drive goes); a
workload may set its own `iodepth` and `duration_s` (OCP CTO-3: an hour at QD1). TB are 10^12
bytes, MiB 2^20. Parsing is pure: a bad file raises ValueError with one line that says what is
wrong and where."""

import math
import tomllib
from dataclasses import dataclass
from typing import Any

DIRECTIONS = ("read", "write", "trim")
ALL = "all"  # a count target over every direction's I/Os together
PHASES = {"trim": "trims running", "burst": "after a write burst"}
MAX = "max"


@dataclass(frozen=True, slots=True)
class QosTarget:
    """One check: `direction`'s `percentile` (None: the maximum) at or under `limit_ns`; or,
    with `at_most`, at most that many I/Os over `limit_ns` (in `window_s`, when given)."""

    direction: str
    percentile: float | None
    limit_ns: float
    source: str
    at_most: int | None = None
    window_s: float | None = None
    phase: str | None = None  # a change target: "trim" or "burst", against the baseline
    change_pct: float | None = None  # at most this much slower than in the baseline

    @property
    def check(self) -> str:
        if self.phase is not None:
            return f"p{self.percentile:g} change, {PHASES[self.phase]}"
        if self.at_most is not None:
            return f"I/Os > {self.limit_ns / 1e9:g} s"
        return MAX if self.percentile is None else f"p{self.percentile:g}"

    def as_data(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "percentile": self.percentile,
            "limit_ns": self.limit_ns,
            "source": self.source,
            "at_most": self.at_most,
            "window_s": self.window_s,
            "phase": self.phase,
            "change_pct": self.change_pct,
        }


@dataclass(frozen=True, slots=True)
class QosWorkload:
    name: str
    source: str
    block_size_bytes: int
    # (direction, MiB/s per TB), rate > 0; math.inf: unlimited
    rates_mib_s_per_tb: tuple[tuple[str, float], ...]
    targets: tuple[QosTarget, ...]
    iodepth: int | None = None  # the workload's own queue depth (CTO-3: 1)
    duration_s: float | None = None  # the workload's own length (CTO-3: an hour)

    def rate(self, direction: str) -> float:
        return dict(self.rates_mib_s_per_tb).get(direction, 0.0)


UNLIMITED = "unlimited"


def _number(table: dict[str, Any], key: str, where: str, *, required: bool = True) -> float:
    value = table.get(key)
    if value is None and not required:
        return 0.0
    if value == UNLIMITED and key.endswith("_mib_s_per_tb"):
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{where}: {key} must be a number ≥ 0 (got {value!r})")
    return float(value)


def _target(entry: Any, where: str, rates: dict[str, float]) -> QosTarget:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: a target is a table")
    direction = entry.get("direction")
    if "at_most" in entry and direction == ALL:
        return _count_target(entry, where, ALL)
    if direction not in DIRECTIONS:
        raise ValueError(f"{where}: direction must be one of {', '.join(DIRECTIONS)}")
    if not rates.get(direction):
        raise ValueError(f"{where}: the workload has no {direction} rate to judge")
    if "at_most" in entry:
        return _count_target(entry, where, str(direction))
    if "change_pct" in entry:
        return _change_target(entry, where, str(direction))
    raw = entry.get("percentile")
    percentile: float | None
    if raw == MAX:
        percentile = None
    elif isinstance(raw, int | float) and not isinstance(raw, bool) and 0 < raw < 100:
        percentile = float(raw)
    else:
        raise ValueError(f'{where}: percentile must be a number in (0, 100) or "max"')
    limit = _number(entry, "limit_us", where)
    if limit <= 0:
        raise ValueError(f"{where}: limit_us must be above 0")
    return QosTarget(str(direction), percentile, limit * 1000.0, _source(entry, where))


def _source(entry: dict[str, Any], where: str) -> str:
    source = entry.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f'{where}: every target names its source (source = "…")')
    return source


def _change_target(entry: dict[str, Any], where: str, direction: str) -> QosTarget:
    phase = entry.get("phase")
    if phase not in PHASES:
        raise ValueError(f"{where}: phase must be one of {', '.join(PHASES)}")
    if direction != "read":
        raise ValueError(f"{where}: a change is judged on reads")
    raw = entry.get("percentile")
    if not isinstance(raw, int | float) or isinstance(raw, bool) or not 0 < raw < 100:
        raise ValueError(f"{where}: percentile must be a number in (0, 100)")
    change = _number(entry, "change_pct", where)
    return QosTarget(
        direction, float(raw), 0.0, _source(entry, where), phase=str(phase), change_pct=change
    )


def _count_target(entry: dict[str, Any], where: str, direction: str) -> QosTarget:
    at_most = entry.get("at_most")
    if not isinstance(at_most, int) or isinstance(at_most, bool) or at_most < 0:
        raise ValueError(f"{where}: at_most must be a whole number ≥ 0")
    over = _number(entry, "over_us", where)
    if over <= 0:
        raise ValueError(f"{where}: over_us must be above 0")
    window = entry.get("window_s")
    if window is not None and (not isinstance(window, int | float) or window <= 0):
        raise ValueError(f"{where}: window_s must be a number of seconds above 0")
    return QosTarget(
        direction,
        None,
        over * 1000.0,
        _source(entry, where),
        at_most,
        None if window is None else float(window),
    )


def _workload(name: str, table: Any, origin: str) -> QosWorkload:
    where = f"{origin}: workload {name}"
    if not isinstance(table, dict):
        raise ValueError(f"{where} is not a table")
    unknown = set(table) - {
        "source",
        "block_size_bytes",
        "iodepth",
        "duration_s",
        "target",
        *(f"{d}_mib_s_per_tb" for d in DIRECTIONS),
    }
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]}")
    rates = {d: _number(table, f"{d}_mib_s_per_tb", where, required=False) for d in DIRECTIONS}
    if not any(rates.values()):
        raise ValueError(f"{where}: no read, write or trim rate")
    block = table.get("block_size_bytes", 4096)
    if not isinstance(block, int) or isinstance(block, bool) or block <= 0 or block % 512:
        raise ValueError(f"{where}: block_size_bytes must be a multiple of 512")
    entries = table.get("target", [])
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{where}: no [[workload.{name}.target]]")
    targets = tuple(_target(e, f"{where}, target {i + 1}", rates) for i, e in enumerate(entries))
    iodepth = table.get("iodepth")
    if iodepth is not None and (not isinstance(iodepth, int) or iodepth < 1):
        raise ValueError(f"{where}: iodepth must be a whole number ≥ 1")
    duration = table.get("duration_s")
    if duration is not None and (not isinstance(duration, int | float) or duration < 1):
        raise ValueError(f"{where}: duration_s must be at least 1 second")
    return QosWorkload(
        name,
        str(table.get("source", "")),
        block,
        tuple((d, r) for d, r in rates.items() if r > 0),
        targets,
        iodepth,
        None if duration is None else float(duration),
    )


def parse_qos_targets(text: str, origin: str) -> tuple[QosWorkload, ...]:
    """The workloads of a targets file, in file order; ValueError (one line) on a bad file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{origin} is not TOML: {error}") from None
    workloads = data.get("workload")
    if not isinstance(workloads, dict) or not workloads:
        raise ValueError(f"{origin}: no [workload.NAME] table")
    extra = set(data) - {"workload", "title"}
    if extra:
        raise ValueError(f"{origin}: unknown key {sorted(extra)[0]}")
    return tuple(_workload(name, table, origin) for name, table in workloads.items())


def qos_workload(text: str, origin: str, name: str | None) -> QosWorkload:
    """The workload named (None: the file's first)."""
    workloads = parse_qos_targets(text, origin)
    if name is None:
        return workloads[0]
    for workload in workloads:
        if workload.name == name:
            return workload
    names = ", ".join(w.name for w in workloads)
    raise ValueError(f"{origin} has no workload {name} (it has {names})")
