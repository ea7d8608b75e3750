"""Load and validate the SNIA PTS test catalogue from profiles/pts.toml.

The catalogue holds, per spec version (2.0.2, the default, and PTS-E 1.1) and device class
(Enterprise, Client), each PTS test's settings as the reference gives them
(../shared/reference/pts.md §1, §3): ActiveRange, write cache, threads (TC, fio `numjobs`) and
queue depth (QD, fio `iodepth`), the R/W mixes and block sizes in the spec's loop order, the
tracking variables for steady state, element durations, WIPC, the steady-state rule and the
test-specific schedules (WSAT stop rule, HIR wait states, XSR access groups).

None means the spec leaves the value to the Test Operator or the reference does not give it.
"""

import math
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from typing import Any, TypeVar

from ssdlab.errors import UsageError
from ssdlab.model.plan import Pattern
from ssdlab.model.toml_text import parse_toml
from ssdlab.model.units import KiB, parse_size_bytes


class DeviceClass(StrEnum):
    """PTS-E and PTS-C (pts.md §0, §1.4)."""

    ENTERPRISE = "enterprise"
    CLIENT = "client"


class WriteCache(StrEnum):
    """The device's volatile write cache during the test: WCE / WCD (pts.md §1.4)."""

    ENABLED = "enabled"
    DISABLED = "disabled"


class TrackingMetric(StrEnum):
    """What a tracking variable measures, per element and round (pts.md §2.3)."""

    IOPS = "iops"  # read + write IOPS of the element
    BW = "bw_bytes_per_s"
    LAT_MEAN = "lat_mean_ns"  # IO-count-weighted mean response time


def block_label(size_bytes: int) -> str:
    """The PTS's block size notation: 512 → '0.5KiB', 4096 → '4KiB', 1 MiB → '1024KiB'."""
    if size_bytes % KiB == 0:
        return f"{size_bytes // KiB}KiB"
    return f"{size_bytes / KiB:g}KiB"


@dataclass(frozen=True, slots=True)
class PtsElement:
    """One access pattern run for a fixed time: an element of a round, a histogram run, or an
    XSR access group. duration_s is None where the reference gives no duration."""

    pattern: Pattern
    rwmix_read_pct: int
    block_size_bytes: int
    duration_s: float | None

    @property
    def label(self) -> str:
        """'RND 4KiB 65/35' (R/W mix as read/write percent)."""
        mix = f"{self.rwmix_read_pct}/{100 - self.rwmix_read_pct}"
        return f"{self.pattern.value.upper()} {block_label(self.block_size_bytes)} {mix}"


@dataclass(frozen=True, slots=True)
class TrackingVariable:
    """A steady-state tracking variable: the metric of one element of the round.

    block_size_bytes is None when it is the block size of the sub-test (TP tracks each block
    size's own sub-test).
    """

    metric: TrackingMetric
    rwmix_read_pct: int
    block_size_bytes: int | None

    @property
    def name(self) -> str:
        """'iops 0/100 4KiB'; the key of this variable's series for steady-state detection."""
        size = "test" if self.block_size_bytes is None else block_label(self.block_size_bytes)
        return f"{self.metric.value} {self.rwmix_read_pct}/{100 - self.rwmix_read_pct} {size}"


@dataclass(frozen=True, slots=True)
class Wipc:
    """Workload Independent Preconditioning (pts.md §1.2): capacity_multiple × the user capacity
    (of the ActiveRange) written with the pattern; block_size_bytes None means the sub-test's
    block size (TP)."""

    pattern: Pattern
    rwmix_read_pct: int
    block_size_bytes: int | None
    capacity_multiple: int
    threads: int | None
    iodepth: int | None


@dataclass(frozen=True, slots=True)
class SteadyStateRule:
    """pts.md §1.3, §2.1–§2.2: the arguments of analysis.steady_state.detect_steady_state."""

    window_rounds: int
    max_data_excursion_pct: float
    max_slope_excursion_pct: float
    max_rounds: int


@dataclass(frozen=True, slots=True)
class WsatStop:
    """WSAT stops at capacity_multiple × user capacity written or max_duration_s (pts.md §3.4)."""

    capacity_multiple: int
    max_duration_s: float


@dataclass(frozen=True, slots=True)
class HirSchedule:
    """HIR after preconditioning (pts.md §3.5): for each wait state, access_repeats × (access_s of
    writes then wait_s idle), then baseline_repeats × access_s of writes with no idle."""

    access_s: float
    access_repeats: int
    wait_states: tuple[int, ...]
    wait_s: tuple[float, ...]
    baseline_repeats: int


@dataclass(frozen=True, slots=True)
class PtsTest:
    """One PTS test for one spec version and device class."""

    name: str  # iops, tp, lat, wsat, hir, xsr
    title: str
    spec_version: str
    device_class: DeviceClass
    source: str  # where in pts.md the values come from, with [IMPL]/[VERIFY] marks
    active_range_pct: int
    write_cache: WriteCache
    data_pattern: str  # "random": incompressible data (pts.md §1.4)
    threads: int | None  # TC; None: Test Operator Choice
    iodepth: int | None  # QD; None: Test Operator Choice
    pattern: Pattern | None  # None: no round matrix (XSR)
    rwmix_read_pcts: tuple[int, ...]  # outer loop of a round, in spec order
    block_sizes_bytes: tuple[int, ...]  # inner loop (or one sub-test each), in spec order
    block_size_per_sub_test: bool  # TP: purge + WIPC + rounds per block size
    element_s: float | None  # duration of one element of a round; None: not given
    wipc: Wipc | None  # None: no WIPC (starts from purge, FOB)
    steady_state: SteadyStateRule | None  # None: the test does not run to steady state
    tracking: tuple[TrackingVariable, ...]
    latency_percentiles: tuple[float, ...]  # reported beyond average and maximum
    histogram: PtsElement | None  # response-time histogram run after the test
    stop: WsatStop | None
    hir: HirSchedule | None
    access_groups: tuple[PtsElement, ...]  # XSR
    sample_s: float | None  # XSR: one sample every sample_s

    def sub_tests(self) -> tuple[tuple[PtsElement, ...], ...]:
        """The elements of one round of each sub-test, in the order they run (pts.md §1.3).

        R/W mix is the outer loop and block size the inner; with block_size_per_sub_test each
        block size is a sub-test whose round runs the mixes.
        """
        if self.pattern is None:
            return ()
        pattern = self.pattern

        def element(mix: int, size: int) -> PtsElement:
            return PtsElement(pattern, mix, size, self.element_s)

        if self.block_size_per_sub_test:
            return tuple(
                tuple(element(mix, size) for mix in self.rwmix_read_pcts)
                for size in self.block_sizes_bytes
            )
        return (
            tuple(
                element(mix, size)
                for mix in self.rwmix_read_pcts
                for size in self.block_sizes_bytes
            ),
        )

    @property
    def round_s(self) -> float | None:
        """Duration of one round of one sub-test (IOPS: 56 × 60 s)."""
        subs = self.sub_tests()
        if not subs or self.element_s is None:
            return None
        return len(subs[0]) * self.element_s

    def tracking_for(self, block_size_bytes: int | None = None) -> tuple[TrackingVariable, ...]:
        """The tracking variables with the sub-test's block size filled in where it applies."""
        needs_size = any(v.block_size_bytes is None for v in self.tracking)
        if needs_size and block_size_bytes not in self.block_sizes_bytes:
            raise ValueError(
                f"{self.name}: tracking needs one of the sub-test block sizes "
                f"{[block_label(b) for b in self.block_sizes_bytes]}, not {block_size_bytes}"
            )
        return tuple(
            v
            if v.block_size_bytes is not None
            else TrackingVariable(v.metric, v.rwmix_read_pct, block_size_bytes)
            for v in self.tracking
        )


@dataclass(frozen=True, slots=True)
class PtsSpec:
    version: str
    title: str
    steady_state: SteadyStateRule
    tests: tuple[PtsTest, ...]  # per class, in catalogue order


@dataclass(frozen=True, slots=True)
class PtsCatalogue:
    version: int
    default_spec: str
    specs: dict[str, PtsSpec]

    def test(
        self,
        name: str,
        *,
        spec: str | None = None,
        device_class: DeviceClass = DeviceClass.ENTERPRISE,
    ) -> PtsTest:
        """The named test of a spec version (default: the catalogue's default) and class."""
        version = self.default_spec if spec is None else spec
        if version not in self.specs:
            raise UsageError(
                f"unknown PTS version {version!r}; choose one of: {', '.join(self.specs)}"
            )
        tests = [t for t in self.specs[version].tests if t.device_class == device_class]
        for test in tests:
            if test.name == name:
                return test
        names = ", ".join(t.name for t in tests) or "none"
        raise UsageError(
            f"PTS {version} has no {device_class.value} test {name!r}; choose one of: {names}"
        )


_TEST_KEYS = {
    "title",
    "source",
    "pattern",
    "rwmix_read_pct",
    "block_sizes",
    "block_size_per_sub_test",
    "element_s",
    "steady_state",
    "tracking",
    "wipc",
    "threads",
    "iodepth",
    "latency_percentiles",
    "histogram",
    "stop",
    "hir",
    "access_groups",
    "sample_s",
    "per_class",
}
_WIPC_KEYS = {"pattern", "rwmix_read_pct", "block_size", "capacity_multiple", "threads", "iodepth"}
_ELEMENT_KEYS = {"pattern", "rwmix_read_pct", "block_size", "duration_s"}
_RULE_KEYS = {"window_rounds", "max_data_excursion_pct", "max_slope_excursion_pct", "max_rounds"}
_HIR_KEYS = {"access_s", "access_repeats", "wait_states", "wait_s", "baseline_repeats"}
_OPERATOR = "operator"
_UNKNOWN = "unknown"
_E = TypeVar("_E", bound=StrEnum)
_SUB_TEST_SIZE = "test"


def parse_pts_catalogue(text: str, origin: str = "profiles/pts.toml") -> PtsCatalogue:
    """Validate the TOML text of the PTS catalogue; raise ValueError naming the bad entry."""
    data = parse_toml(text, origin)
    _keys("catalogue", data, {"catalogue", "version", "default_spec", "specs"})
    specs: dict[str, PtsSpec] = {}
    for version, entry in _table("specs", data.get("specs")).items():
        specs[version] = _spec(f"specs.{version}", version, _table(f"specs.{version}", entry))
    if not specs:
        raise ValueError("catalogue: no specs")
    default = data.get("default_spec")
    if default not in specs:
        raise ValueError(f"default_spec {default!r} is not defined")
    return PtsCatalogue(
        version=_int("version", data.get("version"), minimum=1),
        default_spec=str(default),
        specs=specs,
    )


def load_pts_catalogue() -> PtsCatalogue:
    """The built-in PTS catalogue shipped with ssdlab."""
    text = resources.files("ssdlab.profiles").joinpath("pts.toml").read_text(encoding="utf-8")
    return parse_pts_catalogue(text)


def _spec(where: str, version: str, entry: Mapping[str, Any]) -> PtsSpec:
    _keys(where, entry, {"title", "data_pattern", "steady_state", "classes", "tests"})
    rule_entry = _table(f"{where}.steady_state", entry.get("steady_state"))
    _keys(f"{where}.steady_state", rule_entry, _RULE_KEYS, required=_RULE_KEYS)
    window = _int(f"{where}.steady_state.window_rounds", rule_entry["window_rounds"], minimum=2)
    rule = SteadyStateRule(
        window_rounds=window,
        max_data_excursion_pct=_pct(
            f"{where}.steady_state.max_data_excursion_pct", rule_entry["max_data_excursion_pct"]
        ),
        max_slope_excursion_pct=_pct(
            f"{where}.steady_state.max_slope_excursion_pct", rule_entry["max_slope_excursion_pct"]
        ),
        max_rounds=_int(
            f"{where}.steady_state.max_rounds", rule_entry["max_rounds"], minimum=window
        ),
    )
    data_pattern = entry.get("data_pattern")
    if data_pattern != "random":
        raise ValueError(f"{where}.data_pattern: the PTS requires 'random', not {data_pattern!r}")
    classes: dict[DeviceClass, tuple[int, WriteCache]] = {}
    for class_name, settings in _table(f"{where}.classes", entry.get("classes")).items():
        cwhere = f"{where}.classes.{class_name}"
        device_class = _enum(cwhere, DeviceClass, class_name)
        settings = _table(cwhere, settings)
        _keys(cwhere, settings, {"active_range_pct", "write_cache"}, required=None)
        active_range = _int(f"{cwhere}.active_range_pct", settings["active_range_pct"], minimum=1)
        if active_range > 100:
            raise ValueError(f"{cwhere}.active_range_pct must be ≤ 100, not {active_range}")
        cache = _enum(f"{cwhere}.write_cache", WriteCache, settings["write_cache"])
        classes[device_class] = (active_range, cache)
    tests: list[PtsTest] = []
    for test_name, test_entry in _table(f"{where}.tests", entry.get("tests")).items():
        twhere = f"{where}.tests.{test_name}"
        test_entry = _table(twhere, test_entry)
        per_class = _table(f"{twhere}.per_class", test_entry.get("per_class"))
        if not per_class:
            raise ValueError(f"{twhere}: no per_class table, so no class has this test")
        for class_name, overrides in per_class.items():
            cwhere = f"{twhere}.per_class.{class_name}"
            device_class = _enum(cwhere, DeviceClass, class_name)
            if device_class not in classes:
                raise ValueError(f"{cwhere}: class {class_name!r} is not in {where}.classes")
            merged = _merge(cwhere, test_entry, _table(cwhere, overrides))
            active_range, cache = classes[device_class]
            tests.append(
                _test(cwhere, test_name, version, device_class, active_range, cache, rule, merged)
            )
    return PtsSpec(
        version=version, title=str(entry.get("title", "")), steady_state=rule, tests=tuple(tests)
    )


def _merge(where: str, base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The shared test keys with the class's keys over them (tables merged one level deep)."""
    _keys(where, overrides, _TEST_KEYS - {"per_class", "title", "source"})
    merged = {k: v for k, v in base.items() if k != "per_class"}
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _matrix(
    where: str, entry: Mapping[str, Any], per_sub_test: bool
) -> tuple[Pattern | None, tuple[int, ...], tuple[int, ...]]:
    """A test's access pattern, read/write mixes and block sizes (none for a test without a
    matrix), each list non-empty and without repeats."""
    if not ("pattern" in entry or "rwmix_read_pct" in entry or "block_sizes" in entry):
        if per_sub_test:
            raise ValueError(f"{where}: block_size_per_sub_test without block sizes")
        return None, (), ()
    pattern = _enum(f"{where}.pattern", Pattern, entry.get("pattern"))
    mixes = tuple(
        _mix(f"{where}.rwmix_read_pct", m)
        for m in _list(f"{where}.rwmix_read_pct", entry.get("rwmix_read_pct"))
    )
    sizes = tuple(
        _size(f"{where}.block_sizes", s)
        for s in _list(f"{where}.block_sizes", entry.get("block_sizes"))
    )
    for label, values in (("rwmix_read_pct", mixes), ("block_sizes", sizes)):
        if not values:
            raise ValueError(f"{where}.{label} is empty")
        if len(set(values)) != len(values):
            raise ValueError(f"{where}.{label} repeats a value: {list(values)}")
    return pattern, mixes, sizes


def _test(
    where: str,
    name: str,
    version: str,
    device_class: DeviceClass,
    active_range_pct: int,
    write_cache: WriteCache,
    rule: SteadyStateRule,
    entry: Mapping[str, Any],
) -> PtsTest:
    _keys(where, entry, _TEST_KEYS - {"per_class"}, required={"title", "source", "steady_state"})
    per_sub_test = _bool(
        f"{where}.block_size_per_sub_test", entry.get("block_size_per_sub_test", False)
    )
    pattern, mixes, sizes = _matrix(where, entry, per_sub_test)
    tracking = tuple(
        _tracking(f"{where}.tracking[{i}]", t, mixes, sizes, per_sub_test)
        for i, t in enumerate(_list(f"{where}.tracking", entry.get("tracking", [])))
    )
    runs_to_steady_state = _bool(f"{where}.steady_state", entry["steady_state"])
    if runs_to_steady_state and not tracking:
        raise ValueError(f"{where}: steady_state = true needs tracking variables")
    if not runs_to_steady_state and tracking:
        raise ValueError(f"{where}: tracking variables given but steady_state = false")

    wipc = None
    if "wipc" in entry:
        wipc = _wipc(f"{where}.wipc", _table(f"{where}.wipc", entry["wipc"]), per_sub_test)
    histogram = None
    if "histogram" in entry:
        histogram = _element(f"{where}.histogram", entry["histogram"])
    stop = None
    if "stop" in entry:
        swhere = f"{where}.stop"
        stop_entry = _table(swhere, entry["stop"])
        _keys(swhere, stop_entry, {"capacity_multiple", "max_duration_s"}, required=None)
        stop = WsatStop(
            capacity_multiple=_int(
                f"{swhere}.capacity_multiple", stop_entry["capacity_multiple"], minimum=1
            ),
            max_duration_s=_seconds(f"{swhere}.max_duration_s", stop_entry["max_duration_s"]),
        )
    hir = None
    if "hir" in entry:
        hir = _hir(f"{where}.hir", _table(f"{where}.hir", entry["hir"]))
    groups = tuple(
        _element(f"{where}.access_groups[{i}]", g)
        for i, g in enumerate(_list(f"{where}.access_groups", entry.get("access_groups", [])))
    )
    if pattern is None and not groups:
        raise ValueError(
            f"{where}: neither a round matrix (pattern, mixes, block sizes) nor access groups"
        )
    percentiles = tuple(
        _float(f"{where}.latency_percentiles", p)
        for p in _list(f"{where}.latency_percentiles", entry.get("latency_percentiles", []))
    )
    for p in percentiles:
        if not 0 < p < 100:
            raise ValueError(f"{where}.latency_percentiles: {p} is not between 0 and 100")
    return PtsTest(
        name=name,
        title=str(entry["title"]),
        spec_version=version,
        device_class=device_class,
        source=str(entry["source"]),
        active_range_pct=active_range_pct,
        write_cache=write_cache,
        data_pattern="random",
        threads=_count(f"{where}.threads", entry.get("threads")),
        iodepth=_count(f"{where}.iodepth", entry.get("iodepth")),
        pattern=pattern,
        rwmix_read_pcts=mixes,
        block_sizes_bytes=sizes,
        block_size_per_sub_test=per_sub_test,
        element_s=_seconds(f"{where}.element_s", entry["element_s"])
        if "element_s" in entry
        else None,
        wipc=wipc,
        steady_state=rule if runs_to_steady_state else None,
        tracking=tracking,
        latency_percentiles=percentiles,
        histogram=histogram,
        stop=stop,
        hir=hir,
        access_groups=groups,
        sample_s=_seconds(f"{where}.sample_s", entry["sample_s"]) if "sample_s" in entry else None,
    )


def _tracking(
    where: str,
    value: object,
    mixes: tuple[int, ...],
    sizes: tuple[int, ...],
    per_sub_test: bool,
) -> TrackingVariable:
    entry = _table(where, value)
    _keys(where, entry, {"metric", "rwmix_read_pct", "block_size"}, required=None)
    mix = _mix(f"{where}.rwmix_read_pct", entry["rwmix_read_pct"])
    if mix not in mixes:
        raise ValueError(f"{where}: R/W mix {mix} is not one of the test's mixes {list(mixes)}")
    size: int | None
    if entry["block_size"] == _SUB_TEST_SIZE:
        if not per_sub_test:
            raise ValueError(f"{where}: block_size = 'test' needs block_size_per_sub_test")
        size = None
    else:
        size = _size(f"{where}.block_size", entry["block_size"])
        if size not in sizes:
            raise ValueError(f"{where}: block size {block_label(size)} is not one of the test's")
    return TrackingVariable(_enum(f"{where}.metric", TrackingMetric, entry["metric"]), mix, size)


def _wipc(where: str, entry: Mapping[str, Any], per_sub_test: bool) -> Wipc:
    _keys(
        where,
        entry,
        _WIPC_KEYS,
        required={"pattern", "rwmix_read_pct", "block_size", "capacity_multiple"},
    )
    size: int | None
    if entry["block_size"] == _SUB_TEST_SIZE:
        if not per_sub_test:
            raise ValueError(f"{where}: block_size = 'test' needs block_size_per_sub_test")
        size = None
    else:
        size = _size(f"{where}.block_size", entry["block_size"])
    return Wipc(
        pattern=_enum(f"{where}.pattern", Pattern, entry["pattern"]),
        rwmix_read_pct=_mix(f"{where}.rwmix_read_pct", entry["rwmix_read_pct"]),
        block_size_bytes=size,
        capacity_multiple=_int(f"{where}.capacity_multiple", entry["capacity_multiple"], minimum=1),
        threads=_count(f"{where}.threads", entry.get("threads")),
        iodepth=_count(f"{where}.iodepth", entry.get("iodepth")),
    )


def _element(where: str, value: object) -> PtsElement:
    entry = _table(where, value)
    _keys(where, entry, _ELEMENT_KEYS, required=None)
    return PtsElement(
        pattern=_enum(f"{where}.pattern", Pattern, entry["pattern"]),
        rwmix_read_pct=_mix(f"{where}.rwmix_read_pct", entry["rwmix_read_pct"]),
        block_size_bytes=_size(f"{where}.block_size", entry["block_size"]),
        duration_s=_seconds(f"{where}.duration_s", entry["duration_s"]),
    )


def _hir(where: str, entry: Mapping[str, Any]) -> HirSchedule:
    _keys(where, entry, _HIR_KEYS, required=None)
    states = tuple(
        _int(f"{where}.wait_states", s, minimum=1)
        for s in _list(f"{where}.wait_states", entry["wait_states"])
    )
    waits = tuple(_seconds(f"{where}.wait_s", s) for s in _list(f"{where}.wait_s", entry["wait_s"]))
    if not states or len(states) != len(waits):
        raise ValueError(f"{where}: wait_states and wait_s must be non-empty and of equal length")
    return HirSchedule(
        access_s=_seconds(f"{where}.access_s", entry["access_s"]),
        access_repeats=_int(f"{where}.access_repeats", entry["access_repeats"], minimum=1),
        wait_states=states,
        wait_s=waits,
        baseline_repeats=_int(f"{where}.baseline_repeats", entry["baseline_repeats"], minimum=1),
    )


# --- value checks: each raises ValueError naming the entry ----------------------------------


def _keys(
    where: str,
    entry: Mapping[str, Any],
    allowed: AbstractSet[str],
    *,
    required: AbstractSet[str] | None = frozenset(),
) -> None:
    """Refuse unknown keys; `required` None means every allowed key is required."""
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")
    missing = sorted((allowed if required is None else required) - set(entry))
    if missing:
        raise ValueError(f"{where}: missing key(s) {', '.join(missing)}")


def _table(where: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a table, not {value!r}")
    return value


def _list(where: str, value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list, not {value!r}")
    return value


def _bool(where: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{where} must be true or false, not {value!r}")
    return value


def _int(where: str, value: object, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{where} must be a whole number ≥ {minimum}, not {value!r}")
    return value


def _float(where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{where} must be a number, not {value!r}")
    return float(value)


def _seconds(where: str, value: object) -> float:
    seconds = _float(where, value)
    if seconds <= 0:
        raise ValueError(f"{where} must be > 0 s, not {value!r}")
    return seconds


def _pct(where: str, value: object) -> float:
    pct = _float(where, value)
    if not 0 < pct <= 100:
        raise ValueError(f"{where} must be a percentage in (0, 100], not {value!r}")
    return pct


def _mix(where: str, value: object) -> int:
    mix = _int(where, value, minimum=0)
    if mix > 100:
        raise ValueError(f"{where} must be a read percentage 0–100, not {value!r}")
    return mix


def _count(where: str, value: object) -> int | None:
    """Threads or queue depth: a whole number ≥ 1, 'operator' (Test Operator Choice) or
    'unknown' (the reference gives no value); both words load as None."""
    if value in (_OPERATOR, _UNKNOWN):
        return None
    if value is None:
        raise ValueError(f"{where} is missing (give a number, {_OPERATOR!r} or {_UNKNOWN!r})")
    return _int(where, value, minimum=1)


def _size(where: str, value: object) -> int:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a size such as '4KiB', not {value!r}")
    try:
        size = parse_size_bytes(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if size <= 0 or size % 512:
        raise ValueError(f"{where}: {value!r} is not a positive multiple of 512 bytes")
    return size


def _enum(where: str, kind: type[_E], value: object) -> _E:
    try:
        return kind(str(value))
    except ValueError:
        choices = ", ".join(repr(m.value) for m in kind)
        raise ValueError(f"{where}: {value!r} is not one of {choices}") from None
