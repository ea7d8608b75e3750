"""Plan the SNIA PTS tests (pts.md §1, §3): purge, WIPC, then rounds in the spec's loop order.

A plan holds: the write-cache setting the class requires (a system tool), then one round loop
per sub-test whose `before` steps are the purge and the WIPC, and whose steps are the round's
elements — R/W mix outer, block size inner — each a time-based fio job with a fixed seed and
random data. HIR adds its wait states after the preconditioning loop; XSR has no rounds.

Everything a conformance verdict needs later is kept in the plan's params: the purge method
and whether it is a PTS purge, the ActiveRange, TC/QD, and `deviations` — every way the run
differs from the spec (a file target, a shortened element, a changed ActiveRange, ...).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob, Pattern
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileSpec,
    ProfileStep,
    RoundLoop,
    Settings,
    SettingValue,
    StepRole,
)
from ssdlab.model.profile_settings import (
    PtsHirSettings,
    PtsRoundSettings,
    PtsSettings,
    PtsWsatSettings,
    PtsXsrSettings,
)
from ssdlab.model.target import PurgeSupport
from ssdlab.model.units import KiB, MiB, format_size
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_step,
    format_runtime,
    log_options,
    start_plan,
)
from ssdlab.plan.purge import BROADCAST_NSID, choose_purge, purge_steps
from ssdlab.profiles.pts import (
    DeviceClass,
    PtsElement,
    PtsTest,
    TrackingVariable,
    WriteCache,
    block_label,
    load_pts_catalogue,
)
from ssdlab.profiles.pts_options import SPECS

WIPC_IODEPTH = 32  # numjobs=1 so 2× capacity means 2× capacity (pts.md §1.2 pitfall)
WSAT_LOG_MS = 1000
LAT_PERCENTILES = "50:99:99.9:99.99:99.999"
P = TypeVar("P", bound=PtsSettings)


@dataclass(frozen=True, slots=True)
class PtsSetup:
    """The test and every setting resolved against the catalogue."""

    spec: ProfileSpec
    test: PtsTest
    pairs: tuple[tuple[str, SettingValue], ...]  # as the plan stores them
    settings: PtsSettings
    active_range_pct: int
    active_range_bytes: int
    threads: int
    iodepth: int
    element_s: float
    seed: int
    deviations: tuple[str, ...]
    operator_choice: bool  # the spec leaves TC/QD to the operator (PTS-E 1.1)


def _capacity(target: PlanTarget) -> int:
    return target.capacity_bytes if target.capacity_bytes is not None else target.size_bytes


def resolve_pts(
    name: str, kind: type[P], given: Settings, target: PlanTarget
) -> tuple[PtsSetup, P]:
    """Settings → the catalogue test with its class values, and every deviation from it; and
    the test's own settings (`kind`)."""
    spec = SPECS[name]
    pairs, settings = start_plan(spec, kind, given, target)
    device_class = DeviceClass(settings.device_class)
    test = load_pts_catalogue().test(
        name.removeprefix("pts-"), spec=settings.pts_version, device_class=device_class
    )
    deviations: list[str] = []
    if target.kind != "device":
        deviations.append("the target is a file, not a block device")
    elif target.capacity_bytes is not None and target.size_bytes < target.capacity_bytes:
        deviations.append(f"only {format_size(target.size_bytes)} of the device is used (--size)")

    def chosen(
        value: int | float | None, default: int | float | None, what: str
    ) -> int | float | None:
        if value is None:
            return default
        if value != default:
            deviations.append(f"{what} {value} instead of the spec's {default}")
        return value

    active = int(chosen(settings.active_range, test.active_range_pct, "ActiveRange %") or 100)
    element = chosen(settings.round_seconds, test.element_s, "element seconds")
    threads = settings.threads
    iodepth = settings.iodepth
    operator = test.threads is None or test.iodepth is None
    if operator and (threads is None or iodepth is None):
        fallback = load_pts_catalogue().test(test.name, device_class=device_class)
        threads = threads or fallback.threads or 1
        iodepth = iodepth or fallback.iodepth or 1
    threads = threads if threads is not None else test.threads or 1
    iodepth = iodepth if iodepth is not None else test.iodepth or 1
    if not operator and (threads, iodepth) != (test.threads, test.iodepth):
        deviations.append(
            f"TC{threads}/QD{iodepth} instead of the spec's TC{test.threads}/QD{test.iodepth}"
        )
    if settings.write_cache == "keep":
        deviations.append(f"write cache left as it was (the class requires it {test.write_cache})")
    region = _capacity(target) * active // 100 // MiB * MiB
    if region < MiB:
        raise UsageError(f"the ActiveRange of {target.path} is smaller than 1 MiB")
    setup = PtsSetup(
        spec=spec,
        test=test,
        pairs=pairs,
        settings=settings,
        active_range_pct=active,
        active_range_bytes=region,
        threads=threads,
        iodepth=iodepth,
        element_s=float(element or 60),
        seed=settings.seed,
        deviations=tuple(deviations),
        operator_choice=operator,
    )
    return setup, settings


def _rw(pattern: Pattern, mix: int) -> tuple[tuple[str, str], ...]:
    prefix = "rand" if pattern is Pattern.RND else ""
    if mix == 100:
        return (("rw", f"{prefix}read"),)
    if mix == 0:
        return (("rw", f"{prefix}write"),)
    return (("rw", f"{prefix}rw" if prefix else "rw"), ("rwmixread", str(mix)))


def _direction(mix: int) -> str:
    return "read" if mix == 100 else "write" if mix == 0 else "mix"


def _common(setup: PtsSetup, target: PlanTarget) -> list[tuple[str, str]]:
    """What every PTS job shares: the device, direct I/O, the ActiveRange, random data from a
    seed (pts.md §1.4, §9): the run's, from which the runner draws each pass's own
    (plan/seeds.py), so no pass replays another's sequence. `randrepeat=0` is what makes fio
    use it: fio 3.33 takes the offsets from its own constant unless randrepeat is off (fio
    #1502), and `allrandrepeat=1`, which pts.md's template has, replaces every seed with that
    constant (fio #1391) — every pass of every run wrote the same offsets whatever the seed."""
    return [
        ("filename", target.path),
        ("ioengine", DEFAULT_IOENGINE),
        ("direct", "1"),
        ("thread", ""),
        ("size", str(setup.active_range_bytes)),
        ("refill_buffers", ""),
        ("random_generator", "tausworthe64"),
        ("randseed", str(setup.seed)),
        ("randrepeat", "0"),
    ]


def element_key(element: PtsElement) -> str:
    """'rnd-4kib-r65', 'rnd-512b-r0': the step key of an element (unique within a plan)."""
    size = element.block_size_bytes
    label = f"{size // KiB}kib" if size % KiB == 0 else f"{size}b"
    return f"{element.pattern.value}-{label}-r{element.rwmix_read_pct}"


def _element_step(
    setup: PtsSetup,
    target: PlanTarget,
    element: PtsElement,
    *,
    tracks: str | None,
    seconds: float | None = None,
    key: str | None = None,
    log_ms: int | None = None,
) -> ProfileStep:
    runtime = setup.element_s if seconds is None else seconds
    key = key or element_key(element)
    options = [
        *_common(setup, target),
        ("time_based", ""),
        ("runtime", format_runtime(runtime)),
        ("group_reporting", ""),
    ]
    if element.pattern is Pattern.RND:
        options.append(("norandommap", ""))
    if setup.test.name == "lat":
        options.append(("percentile_list", LAT_PERCENTILES))
    if log_ms is not None:
        options += log_options(key, log_ms, ("bw", "iops", "lat"))
    section = (
        *_rw(element.pattern, element.rwmix_read_pct),
        ("bs", str(element.block_size_bytes)),
        ("numjobs", str(setup.threads)),
        ("iodepth", str(setup.iodepth)),
    )
    return ProfileStep(
        key=key,
        label=element.label,
        role=StepRole.MEASURE,
        direction=_direction(element.rwmix_read_pct),
        job=FioJob(global_options=tuple(options), sections=((key, section),)),
        params=(
            ("pattern", element.pattern.value),
            ("block_size_bytes", element.block_size_bytes),
            ("rwmix_read_pct", element.rwmix_read_pct),
            ("tracks", tracks),
        ),
        log_interval_ms=log_ms,
        expected_s=runtime,
    )


def _wipc_step(
    setup: PtsSetup, target: PlanTarget, block_size: int, suffix: str
) -> ProfileStep | None:
    """2× the ActiveRange of sequential writes, one job at QD32 (pts.md §1.2)."""
    multiple = setup.settings.wipc_multiple
    wipc = setup.test.wipc
    if wipc is None:
        return None
    if multiple is None:
        multiple = float(wipc.capacity_multiple)
    total = int(setup.active_range_bytes * multiple) // block_size * block_size
    if total == 0:
        return None
    options = [*_common(setup, target), ("io_size", str(total))]
    section = (
        ("rw", "write"),
        ("bs", str(block_size)),
        ("numjobs", "1"),
        ("iodepth", str(wipc.iodepth or WIPC_IODEPTH)),
    )
    key = f"wipc{suffix}"
    return ProfileStep(
        key=key,
        label=f"WIPC: {multiple:g}× the ActiveRange of SEQ {block_label(block_size)} writes",
        role=StepRole.PREPARE,
        direction="write",
        job=FioJob(global_options=tuple(options), sections=((key, section),)),
        params=(("block_size_bytes", block_size), ("wipc_bytes", total)),
        log_interval_ms=None,
        expected_bytes=total,
    )


def _trial_deviations(setup: PtsSetup) -> list[str]:
    multiple = setup.settings.wipc_multiple
    wipc = setup.test.wipc
    if wipc is None or multiple is None or multiple == wipc.capacity_multiple:
        return []
    return [f"WIPC of {multiple}× instead of {wipc.capacity_multiple}× the capacity"]


def _write_cache_step(setup: PtsSetup, target: PlanTarget) -> tuple[ProfileStep | None, str | None]:
    """The command that sets the volatile write cache as the class requires, or why not."""
    if setup.settings.write_cache == "keep":
        return None, None
    enable = setup.test.write_cache is WriteCache.ENABLED
    device = target.path
    argv: tuple[str, ...]
    if target.kind != "device":
        return None, "the write cache of a file's drive is not set"
    if target.transport == "nvme":
        # Volatile Write Cache (06h) is the controller's feature, not a namespace's: sent
        # through a namespace node it must carry the broadcast NSID (NVMe base spec, Set
        # Features), else nvme-cli sends the namespace's own NSID and the controller refuses
        # it (Feature Not Namespace Specific, status 0x410f).
        argv = (
            "nvme",
            "set-feature",
            device,
            "--feature-id=6",
            f"--namespace-id={BROADCAST_NSID}",
            f"--value={int(enable)}",
        )
    elif target.transport in ("sata", "usb"):
        argv = ("hdparm", f"-W{int(enable)}", device)
    elif target.transport in ("sas", "scsi"):
        argv = ("sdparm", "--set=WCE" if enable else "--clear=WCE", device)
    else:
        transport = target.transport or "unknown"
        return None, f"ssdlab cannot set the write cache of this device (transport {transport})"
    step = ProfileStep(
        key="write-cache",
        label=f"write cache {setup.test.write_cache} ({setup.test.device_class.value} class)",
        role=StepRole.COMMAND,
        direction="command",
        command=argv,
        log_interval_ms=None,
    )
    return step, None


def _tracked(
    elements: Sequence[PtsElement], tracking: Sequence[TrackingVariable]
) -> dict[PtsElement, str]:
    found: dict[PtsElement, str] = {}
    for variable in tracking:
        for element in elements:
            if (element.rwmix_read_pct, element.block_size_bytes) == (
                variable.rwmix_read_pct,
                variable.block_size_bytes,
            ):
                found[element] = (
                    found[element] + "," + variable.name if element in found else variable.name
                )
    return found


def _filtered(
    settings: PtsRoundSettings, elements: Sequence[PtsElement], tracked: dict[PtsElement, str]
) -> tuple[PtsElement, ...]:
    """The round's elements, less any the trial options left out (tracked ones stay)."""
    sizes, mixes = settings.block_sizes, settings.mixes
    kept = tuple(
        e
        for e in elements
        if e in tracked
        or (
            (sizes is None or e.block_size_bytes in sizes)
            and (mixes is None or e.rwmix_read_pct in mixes)
        )
    )
    return kept


def _purge(setup: PtsSetup, target: PlanTarget, suffix: str) -> tuple[ProfileStep, ...]:
    requested = setup.settings.purge
    if target.kind != "device":
        return ()
    support = target.purge_support or PurgeSupport(target.transport)
    choice = choose_purge(requested, support, target.path)
    steps = purge_steps(choice, target)
    return tuple(_suffixed(step, suffix) for step in steps)


def _suffixed(step: ProfileStep, suffix: str) -> ProfileStep:
    return replace(step, key=f"{step.key}{suffix}") if suffix else step


def _purge_params(setup: PtsSetup, target: PlanTarget) -> tuple[list[str], dict[str, SettingValue]]:
    if target.kind != "device":
        return ["no purge: a file cannot be purged"], {
            "purge_method": "none",
            "purge_conformant": False,
        }
    support = target.purge_support or PurgeSupport(target.transport)
    choice = choose_purge(setup.settings.purge, support, target.path)
    deviations = [] if choice.conformant else [f"purge by {choice.method}: {choice.reason}"]
    if choice.method == "none":
        deviations = ["no purge (--purge none)"]
    return deviations, {
        "purge_method": choice.method,
        "purge_conformant": choice.conformant,
        "purge_reason": choice.reason,
    }


def _round_check(setup: PtsSetup, tracking: Sequence[TrackingVariable]) -> str:
    rule = setup.test.steady_state
    if rule is None:
        return ""
    names = ", ".join(v.name for v in tracking)
    return (
        f"steady state of {names}: over a {rule.window_rounds}-round window, range ≤ "
        f"{rule.max_data_excursion_pct:g} % and least-squares slope excursion ≤ "
        f"{rule.max_slope_excursion_pct:g} % of the average"
    )


def _rule_params(setup: PtsSetup) -> list[tuple[str, SettingValue]]:
    rule = setup.test.steady_state
    if rule is None:
        return []
    return [
        ("ss_window_rounds", rule.window_rounds),
        ("ss_max_data_excursion_pct", rule.max_data_excursion_pct),
        ("ss_max_slope_excursion_pct", rule.max_slope_excursion_pct),
        ("ss_spec_max_rounds", rule.max_rounds),
    ]


def _plan(
    setup: PtsSetup,
    target: PlanTarget,
    *,
    steps: Sequence[ProfileStep],
    loops: Sequence[RoundLoop],
    after: Sequence[ProfileStep] = (),
    deviations: Sequence[str] = (),
    params: Sequence[tuple[str, SettingValue]] = (),
    notes: Sequence[str] = (),
) -> ProfilePlan:
    purge_deviations, purge = _purge_params(setup, target)
    cache_step, cache_problem = _write_cache_step(setup, target)
    all_deviations = [
        *setup.deviations,
        *_trial_deviations(setup),
        *purge_deviations,
        *([cache_problem] if cache_problem else []),
        *deviations,
    ]
    plan_params: list[tuple[str, SettingValue]] = [
        ("test", setup.test.name),
        ("pts_version", setup.test.spec_version),
        ("device_class", setup.test.device_class.value),
        ("active_range_pct", setup.active_range_pct),
        ("active_range_bytes", setup.active_range_bytes),
        ("capacity_bytes", _capacity(target)),
        ("threads", setup.threads),
        ("iodepth", setup.iodepth),
        ("element_s", setup.element_s),
        ("write_cache", setup.test.write_cache.value),
        ("write_cache_step", cache_step is not None),
        *purge.items(),
        *_rule_params(setup),
        *params,
        ("deviations", "\n".join(all_deviations)),
    ]
    if setup.operator_choice:
        notes = (
            *notes,
            f"PTS {setup.test.spec_version} leaves TC/QD to the operator: "
            f"TC{setup.threads}/QD{setup.iodepth}",
        )
    return ProfilePlan(
        profile=setup.spec.name,
        profile_version=setup.spec.version,
        settings=setup.pairs,
        target_path=target.path,
        target_kind=target.kind,
        destructive=target.kind == "device",
        steps=(*((cache_step,) if cache_step else ()), *steps),
        loops=tuple(loops),
        after=tuple(after),
        notes=(
            *notes,
            *(f"not conformant: {d}" for d in all_deviations),
        ),
        params=tuple(plan_params),
        pass_seeds=True,
    )


def _before(setup: PtsSetup, target: PlanTarget, block_size: int, suffix: str) -> list[ProfileStep]:
    before = list(_purge(setup, target, suffix))
    wipc = _wipc_step(setup, target, block_size, suffix)
    if wipc is not None:
        before.append(wipc)
    elif target.needs_fill:
        before.append(_fill_step(target, setup.active_range_bytes, suffix))
    return before


def _purge_or_fill(setup: PtsSetup, target: PlanTarget) -> tuple[ProfileStep, ...]:
    """Tests without WIPC start from the purge; a new test file is written once instead."""
    purge = _purge(setup, target, "")
    if purge or not target.needs_fill:
        return purge
    return (_fill_step(target, setup.active_range_bytes, ""),)


def _fill_step(target: PlanTarget, size: int, suffix: str) -> ProfileStep:
    return fill_step(target, size, key=f"fill{suffix}")


def _round_plan(name: str, given: Settings, target: PlanTarget) -> ProfilePlan:
    """IOPS, TP and LAT: purge + WIPC + rounds to steady state, per sub-test."""
    setup, settings = resolve_pts(name, PtsRoundSettings, given, target)
    test = setup.test
    rule = test.steady_state
    if rule is None or test.wipc is None:
        raise ValueError(f"{name} is not a round test")
    max_rounds = settings.max_rounds
    loops: list[RoundLoop] = []
    deviations: list[str] = []
    sub_tests = test.sub_tests()
    sizes_given = settings.block_sizes
    for index, elements in enumerate(sub_tests):
        size = test.block_sizes_bytes[index] if test.block_size_per_sub_test else None
        if size is not None and sizes_given is not None and size not in sizes_given:
            deviations.append(f"block size {block_label(size)} left out")
            continue
        tracking = test.tracking_for(size)
        tracked = _tracked(elements, tracking)
        kept = _filtered(settings, elements, tracked)
        if not test.block_size_per_sub_test and len(kept) < len(elements):
            deviations.append(f"{len(elements) - len(kept)} of {len(elements)} elements left out")
        suffix = f"-{block_label(size).lower()}" if size is not None else ""
        wipc_size = (
            size if test.wipc.block_size_bytes is None and size else test.wipc.block_size_bytes
        )
        assert wipc_size is not None
        loops.append(
            RoundLoop(
                steps=tuple(_element_step(setup, target, e, tracks=tracked.get(e)) for e in kept),
                max_rounds=max_rounds,
                min_rounds=rule.window_rounds,
                check=_round_check(setup, tracking),
                name=block_label(size).lower() if size is not None else "",
                before=tuple(_before(setup, target, wipc_size, suffix)),
            )
        )
    if not loops:
        raise UsageError("--block-sizes left no sub-test of the throughput test")
    notes = []
    if max_rounds > rule.max_rounds:
        notes.append(
            f"the operator continues past {rule.max_rounds} rounds (up to {max_rounds}); "
            "the measurement window is the last 5 rounds"
        )
    return _plan(setup, target, steps=(), loops=loops, deviations=deviations, notes=notes)


def plan_pts_iops(given: Settings, target: PlanTarget) -> ProfilePlan:
    return _round_plan("pts-iops", given, target)


def plan_pts_tp(given: Settings, target: PlanTarget) -> ProfilePlan:
    return _round_plan("pts-tp", given, target)


def plan_pts_lat(given: Settings, target: PlanTarget) -> ProfilePlan:
    return _round_plan("pts-lat", given, target)


def plan_pts_wsat(given: Settings, target: PlanTarget) -> ProfilePlan:
    """Purge, then one-minute rounds of RND 4 KiB writes until the stop rule (pts.md §3.4)."""
    setup, settings = resolve_pts("pts-wsat", PtsWsatSettings, given, target)
    test = setup.test
    assert test.stop is not None
    (elements,) = test.sub_tests()
    deviations = []
    multiple = settings.capacity_multiple
    if multiple is None:
        multiple = float(test.stop.capacity_multiple)
    elif multiple != test.stop.capacity_multiple:
        deviations.append(f"stops at {multiple:g}× instead of {test.stop.capacity_multiple}×")
    hours = settings.max_hours
    spec_hours = test.stop.max_duration_s / 3600
    if hours is None:
        hours = spec_hours
    elif hours != spec_hours:
        deviations.append(f"stops after {hours:g} h instead of {spec_hours:g} h")
    max_rounds = max(1, math.ceil(hours * 3600 / setup.element_s))
    stop_bytes = int(setup.active_range_bytes * multiple)
    loop = RoundLoop(
        steps=tuple(
            _element_step(setup, target, e, tracks=None, log_ms=WSAT_LOG_MS) for e in elements
        ),
        max_rounds=max_rounds,
        min_rounds=1,
        check=f"until {multiple:g}× the ActiveRange ({format_size(stop_bytes)}) is written or "
        f"{hours:g} h pass",
        before=_purge_or_fill(setup, target),
    )
    return _plan(
        setup,
        target,
        steps=(),
        loops=(loop,),
        deviations=deviations,
        params=(("stop_bytes", stop_bytes), ("stop_hours", hours)),
    )


def plan_pts_hir(given: Settings, target: PlanTarget) -> ProfilePlan:
    """Purge, precondition to steady state, then the wait states and the baseline (§3.5)."""
    setup, settings = resolve_pts("pts-hir", PtsHirSettings, given, target)
    test = setup.test
    assert test.hir is not None
    assert test.steady_state is not None
    (elements,) = test.sub_tests()
    (element,) = elements
    hir = test.hir
    deviations = []
    repeats = settings.repeats
    if repeats is None:
        repeats = hir.access_repeats
    elif repeats != hir.access_repeats:
        deviations.append(f"{repeats} repeats per wait state instead of {hir.access_repeats}")
    scale = settings.wait_scale
    if scale is None:
        scale = 1.0
    elif scale != 1.0:
        deviations.append(f"access and wait times scaled by {scale:g}")
    tracking = test.tracking_for(None)
    loop = RoundLoop(
        steps=(
            _element_step(
                setup, target, element, tracks=",".join(v.name for v in tracking), key="pc"
            ),
        ),
        max_rounds=settings.max_rounds,
        min_rounds=test.steady_state.window_rounds,
        check=_round_check(setup, tracking),
        before=_purge_or_fill(setup, target),
    )
    access_s = hir.access_s * scale
    after: list[ProfileStep] = []
    for state, wait in zip(hir.wait_states, hir.wait_s, strict=True):
        for repeat in range(1, repeats + 1):
            step = _element_step(
                setup, target, element, tracks=None, seconds=access_s, key=f"ws{state}-a{repeat}"
            )
            after.append(_with_params(step, (("wait_state", state), ("repeat", repeat))))
            after.append(
                ProfileStep(
                    key=f"ws{state}-w{repeat}",
                    label=f"wait state {state}: host idle {wait * scale:g} s",
                    role=StepRole.IDLE,
                    direction="idle",
                    idle_s=wait * scale,
                    params=(("wait_state", state), ("repeat", repeat)),
                    log_interval_ms=None,
                )
            )
        baseline_s = access_s * max(1, hir.baseline_repeats * repeats // hir.access_repeats)
        step = _element_step(
            setup,
            target,
            element,
            tracks=None,
            seconds=baseline_s,
            key=f"ws{state}-baseline",
            log_ms=max(1, round(access_s * 1000)),
        )
        after.append(_with_params(step, (("wait_state", state), ("baseline", True))))
    return _plan(setup, target, steps=(), loops=(loop,), after=after, deviations=deviations)


def _with_params(step: ProfileStep, params: tuple[tuple[str, SettingValue], ...]) -> ProfileStep:
    return replace(step, params=(*step.params, *params))


def plan_pts_xsr(given: Settings, target: PlanTarget) -> ProfilePlan:
    """Purge, then the three access groups back to back, sampled every minute (§3.6)."""
    setup, settings = resolve_pts("pts-xsr", PtsXsrSettings, given, target)
    test = setup.test
    scale = settings.duration_scale
    deviations = []
    if scale is None:
        scale = 1.0
    elif scale != 1.0:
        deviations.append(f"access group durations scaled by {scale:g}")
    sample_ms = int((test.sample_s or 60) * 1000)
    if settings.round_seconds is not None:
        sample_ms = int(setup.element_s * 1000)
    steps: list[ProfileStep] = list(_purge_or_fill(setup, target))
    for index, group in enumerate(test.access_groups, start=1):
        seconds = (group.duration_s or 0) * scale
        step = _element_step(
            setup,
            target,
            group,
            tracks=None,
            seconds=seconds,
            key=f"ag{index}-{element_key(group)}",
            log_ms=sample_ms,
        )
        steps.append(_with_params(step, (("access_group", index),)))
    return _plan(
        setup,
        target,
        steps=steps,
        loops=(),
        deviations=deviations,
        params=(("sample_ms", sample_ms),),
    )
