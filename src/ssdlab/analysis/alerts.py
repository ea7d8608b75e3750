"""The alerts of `ssdlab watch`: a health series, thresholds and what has already fired →
the alerts of the latest sample and the state to keep.

Edge-triggered: a threshold condition (temperature, spare, days to end of life, WAF) fires once
when it becomes true and not again while it stays true; once it clears it may fire again. An
error counter fires whenever it rises above the level it last fired at (the first sample of the
series is the baseline), so A → B fires and a later B → C fires again. An NVMe critical
warning bit fires when it is set and was not at the previous sample (a bit already set in the
first sample fires too: a watch that starts on a warning drive says so). A value the drive does
not report is unknown: it neither fires nor clears anything.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ssdlab.analysis.wear import analyse_series
from ssdlab.model.health import HealthSample, HealthValue

DEFAULT_MIN_DAYS_LEFT = 180.0

# The error counters of a normalised sample: any rise fires (a counter the sample does not
# carry, or the drive does not report, is left out).
ERROR_COUNTERS: tuple[str, ...] = (
    "media_errors",
    "uncorrectable_errors",
    "reallocated_sectors",
    "pending_sectors",
    "error_log_entries",
)

CRITICAL_WARNING_BITS: tuple[str, ...] = (
    "available spare below its threshold",
    "temperature beyond a threshold",
    "NVM subsystem reliability degraded",
    "media placed in read-only mode",
    "volatile memory backup device failed",
    "persistent memory region read-only or unreliable",
)


@dataclass(frozen=True, slots=True)
class DriveLimits:
    """What the drive itself reports as its limits (None when it does not)."""

    warning_temperature_c: float | None = None
    spare_threshold_pct: float | None = None


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The limits a watch judges by; None: that condition is not watched."""

    max_temperature_c: float | None = None
    min_spare_pct: float | None = None
    min_days_left: float | None = DEFAULT_MIN_DAYS_LEFT
    max_waf: float | None = None


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert. `threshold` for a limit crossed, `previous` for a counter or bit field that
    changed; `severity` is "warning" or "critical"."""

    name: str
    severity: str
    value: float
    threshold: float | None
    previous: float | None
    message: str
    taken_at_s: float | None


@dataclass(frozen=True, slots=True)
class AlertState:
    """What has fired: the threshold conditions now true (fired once already), each error
    counter's level at the baseline or at its last alert, and the critical warning bits of the
    previous sample."""

    active: tuple[str, ...] = ()
    counters: tuple[tuple[str, float], ...] = ()
    warning_bits: int = 0


@dataclass(frozen=True, slots=True)
class Judgement:
    alerts: tuple[Alert, ...]
    state: AlertState


def drive_limits(sample: HealthSample) -> DriveLimits:
    """The drive's warning temperature and spare threshold, as its sample reports them."""
    return DriveLimits(
        warning_temperature_c=_positive_number(sample.temperature_warning_c.value),
        spare_threshold_pct=_positive_number(sample.available_spare_threshold_pct.value),
    )


def _positive_number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def resolve_thresholds(given: Thresholds, limits: DriveLimits) -> Thresholds:
    """The thresholds given, the drive's own for temperature and spare where none was given."""
    return replace(
        given,
        max_temperature_c=(
            given.max_temperature_c
            if given.max_temperature_c is not None
            else limits.warning_temperature_c
        ),
        min_spare_pct=(
            given.min_spare_pct if given.min_spare_pct is not None else limits.spare_threshold_pct
        ),
    )


def baseline_state(first: HealthSample) -> AlertState:
    """The state before any alert: the error counters of the series' first sample."""
    return AlertState(counters=tuple(_counter_values(first)))


def _counter_values(sample: HealthSample) -> list[tuple[str, float]]:
    values = []
    for name in ERROR_COUNTERS:
        field = getattr(sample, name, None)
        value = field.value if isinstance(field, HealthValue) else None
        if value is not None:
            values.append((name, float(value)))
    return values


@dataclass(frozen=True, slots=True)
class _Condition:
    """A threshold condition at the latest sample: true, false, or None (unknown)."""

    name: str
    true: bool | None
    alert: Alert | None


def judge(
    samples: Sequence[HealthSample], thresholds: Thresholds, state: AlertState | None
) -> Judgement:
    """The alerts of the latest of `samples` (the series so far, oldest first) and the state
    after it. `state` None: nothing judged yet, the first sample is the baseline."""
    if not samples:
        return Judgement((), state or AlertState())
    latest = samples[-1]
    before = state if state is not None else baseline_state(samples[0])
    conditions = _conditions(samples, thresholds)
    alerts: list[Alert] = []
    active = set(before.active)
    for condition in conditions:
        if condition.true is None:
            continue
        if condition.true and condition.name not in active and condition.alert is not None:
            alerts.append(condition.alert)
        if condition.true:
            active.add(condition.name)
        else:
            active.discard(condition.name)
    counter_alerts, counters = _counter_alerts(latest, dict(before.counters))
    bit_alerts, bits = _warning_bit_alerts(latest, before.warning_bits)
    alerts += counter_alerts + bit_alerts
    after = AlertState(
        active=tuple(sorted(active)), counters=tuple(sorted(counters.items())), warning_bits=bits
    )
    return Judgement(tuple(alerts), after)


def _conditions(samples: Sequence[HealthSample], thresholds: Thresholds) -> list[_Condition]:
    latest = samples[-1]
    conditions = [
        _above(
            "temperature-high",
            latest.temperature_c.value,
            thresholds.max_temperature_c,
            latest,
            "temperature {value:g} °C reached the limit {threshold:g} °C",
        ),
        _below(
            "spare-low",
            latest.available_spare_pct.value,
            thresholds.min_spare_pct,
            latest,
            "available spare {value:g} % fell below {threshold:g} %",
            severity="critical",
        ),
    ]
    if thresholds.min_days_left is None and thresholds.max_waf is None:
        return conditions
    days_left, waf = _wear_figures(samples)
    conditions.append(
        _below(
            "days-left-low",
            days_left,
            thresholds.min_days_left,
            latest,
            "{value:,.0f} days to the end of rated life at this wear rate, under {threshold:g}",
        )
    )
    conditions.append(
        _above(
            "waf-high",
            waf,
            thresholds.max_waf,
            latest,
            "write amplification {value:.3g} over the last 24 h, above {threshold:g}",
            strict=True,
        )
    )
    return conditions


def _wear_figures(samples: Sequence[HealthSample]) -> tuple[float | None, float | None]:
    """Days to end of life and the WAF of the last 24 h, as `ssdlab wear`/`health` compute them
    (None while the series cannot tell)."""
    if len(samples) < 2:
        return None, None
    report = analyse_series(samples)
    if report.reason is not None:
        return None, None
    waf = report.recent.waf.waf if report.recent is not None else None
    return report.projection.days_to_eol, waf


def _above(
    name: str,
    value: float | None,
    threshold: float | None,
    sample: HealthSample,
    text: str,
    *,
    strict: bool = False,
) -> _Condition:
    if value is None or threshold is None:
        return _Condition(name, None, None)
    true = value > threshold if strict else value >= threshold
    alert = Alert(
        name,
        "warning",
        value,
        threshold,
        None,
        text.format(value=value, threshold=threshold),
        sample.taken_at_s,
    )
    return _Condition(name, true, alert)


def _below(
    name: str,
    value: float | None,
    threshold: float | None,
    sample: HealthSample,
    text: str,
    *,
    severity: str = "warning",
) -> _Condition:
    if value is None or threshold is None:
        return _Condition(name, None, None)
    alert = Alert(
        name,
        severity,
        value,
        threshold,
        None,
        text.format(value=value, threshold=threshold),
        sample.taken_at_s,
    )
    return _Condition(name, value < threshold, alert)


def _counter_alerts(
    sample: HealthSample, levels: dict[str, float]
) -> tuple[list[Alert], dict[str, float]]:
    """An alert per error counter above its level; the level follows the counter (a counter
    that went down, e.g. after a reset, is followed down so that its next rise fires)."""
    alerts = []
    for name, value in _counter_values(sample):
        previous = levels.get(name)
        if previous is not None and value > previous:
            alerts.append(
                Alert(
                    f"{name}-increased",
                    "critical",
                    value,
                    None,
                    previous,
                    f"{name.replace('_', ' ')} rose from {previous:g} to {value:g}",
                    sample.taken_at_s,
                )
            )
        levels[name] = value
    return alerts, levels


def _warning_bit_alerts(sample: HealthSample, previous_bits: int) -> tuple[list[Alert], int]:
    value = sample.critical_warning.value
    if value is None:
        return [], previous_bits
    bits = int(value)
    new = bits & ~previous_bits
    if not new:
        return [], bits
    meanings = [m for i, m in enumerate(CRITICAL_WARNING_BITS) if new & (1 << i)]
    alert = Alert(
        "critical-warning",
        "critical",
        float(bits),
        None,
        float(previous_bits),
        f"NVMe critical warning 0x{bits:02x} newly set: {'; '.join(meanings) or 'unknown bit'}",
        sample.taken_at_s,
    )
    return [alert], bits


def state_from_json(body: Mapping[str, object]) -> AlertState | None:
    """A stored state read back by field; None when the body is not one."""
    active = body.get("active")
    counters = body.get("counters")
    bits = body.get("warning_bits")
    if not isinstance(active, list) or not isinstance(counters, list) or not isinstance(bits, int):
        return None
    return AlertState(
        active=tuple(str(a) for a in active),
        counters=tuple(
            (str(c[0]), float(c[1]))
            for c in counters
            if isinstance(c, list | tuple) and len(c) == 2 and isinstance(c[1], int | float)
        ),
        warning_bits=bits,
    )
