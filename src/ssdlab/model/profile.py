"""Profiles: their option tables, and the plans they produce.

A profile (quick, cache, align, sweep, cachefit, trim, fill, …) is declared as data: a
`ProfileSpec` with an option table in the manner of fio's own option table, from which the
command line, `--help` and validation are built. As each entry of fio's table names the field
of `struct thread_options` it fills, each `OptionSpec` names the field of the profile's typed
settings class (`ProfileSpec.settings_type`, model/profile_settings.py) it fills. Planning
turns settings and a target into a `ProfilePlan`: an ordered list of `ProfileStep`s, each a fio
job file (or an idle pause, or a system tool such as `fstrim`), with the parameters the
profile's analysis reads back from the results.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ssdlab.model.health import HealthSample
from ssdlab.model.plan import FioJob
from ssdlab.model.run import RunRecord
from ssdlab.model.step import StepResult
from ssdlab.model.target import PurgeSupport

SettingValue = int | float | str | bool | tuple[int, ...] | None
Settings = Mapping[str, SettingValue]


class OptionKind(StrEnum):
    SIZE = "size"  # 4KiB, 1GiB, 10GB -> bytes (int)
    SIZES = "sizes"  # 512,1KiB,4KiB -> tuple of bytes
    INT = "int"
    INTS = "ints"  # 1,2,4,8 -> tuple of ints
    PCTS = "pcts"  # 0,50,90 -> tuple of whole percentages
    PCT = "pct"  # 0..100
    SECONDS = "seconds"  # float seconds, fractions allowed
    FLOAT = "float"
    CHOICE = "choice"
    TEXT = "text"
    FLAG = "flag"
    COUNT = "count"  # a whole number, 1 or more (a quick test's passes)
    PLAIN_SECONDS = "plain-seconds"  # seconds as a bare number, 0 or more: 0.5, 5, 30


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a profile: `--name` on the command line, the field `fills` (or `name`)
    of the profile's settings class.

    `group` is the heading it is listed under in --help (empty: the profile's settings);
    `choice_help` says what each of a CHOICE's values does, one line each in --help. A FLAG
    puts `flag_value` in its field when given (quick's --zero-fill puts "zero" in `data`).
    """

    name: str  # settings key, e.g. 'block_sizes' (command line: --block-sizes)
    kind: OptionKind
    default: SettingValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    aliases: tuple[str, ...] = ()  # other spellings on the command line, e.g. '--for'
    metavar: str = ""  # the value's name in --help (default: the option's name)
    group: str = ""
    choice_help: tuple[tuple[str, str], ...] = ()  # (value, what it does), in `choices` order
    fills: str = ""  # the settings field it fills, when not named like the option
    flag_value: SettingValue = True

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def field_name(self) -> str:
        """The field of the profile's settings class this option fills."""
        return self.fills or self.name


class Writes(StrEnum):
    """Whether a profile writes to its target."""

    ALWAYS = "always"
    NEVER = "never"
    DEPENDS = "depends"  # on the settings (e.g. the sweep's pattern)


@dataclass(frozen=True, slots=True)
class ProfileSpec:
    name: str
    version: int
    summary: str  # one line, for `ssdlab run --help`
    description: str  # a paragraph, for `ssdlab run NAME --help`
    options: tuple[OptionSpec, ...]
    examples: tuple[str, ...]
    writes: Writes
    default_file_size_bytes: int  # test region on a file target when --size is not given
    whole_device_by_default: bool  # device targets use the whole device unless --size
    reads_purge_support: bool = False  # planning needs to know how the drive can be purged
    # the frozen dataclass the options fill (model/profile_settings.py), field by field
    settings_type: type[Any] | None = None
    # (field, why): fields of `settings_type` no option of the table fills
    filled_elsewhere: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> OptionSpec:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(f"profile {self.name} has no option {name!r}")


class StepRole(StrEnum):
    PREPARE = "prepare"  # puts the target in a state (fill, discard); kept, not a result
    MEASURE = "measure"  # a result the profile reports
    WARMUP = "warmup"  # measured like a result, then discarded (a quick test's first pass)
    IDLE = "idle"  # a pause (cache recovery): no I/O
    COMMAND = "command"  # a system tool (fstrim), timed


@dataclass(frozen=True, slots=True)
class ProfileStep:
    """One unit of work of a profile run; its results are stored under `key`.

    `params` carry what the analysis needs to read the result back (block size, offset
    alignment, threads, queue depth, fill level, …). `expected_s` (time-based jobs) and
    `expected_bytes` (size-based jobs) let the progress display show how far it is.
    A step outside a round loop is stored under its position in the plan, or under
    `round_index` when it gives one (a quick test's passes 0, 1, 2, … share their test's key);
    `comment` heads its job file (empty: described from its position); a step that does not
    `keep_result` is kept as its raw capture only (a quick run's file preparation).
    """

    key: str
    label: str
    role: StepRole
    direction: str = "write"  # read | write | mix | trim | idle | command
    job: FioJob | None = None
    idle_s: float = 0.0
    command: tuple[str, ...] = ()
    params: tuple[tuple[str, SettingValue], ...] = ()
    log_interval_ms: int | None = 1000
    expected_s: float | None = None
    expected_bytes: int | None = None
    pause_before_s: float = 0.0
    round_index: int | None = None
    comment: str = ""
    keep_result: bool = True

    def param(self, name: str) -> SettingValue:
        for key, value in self.params:
            if key == name:
                return value
        return None


# A step param: with the value HIST_LOG the step's write series is read from fio's histogram
# log, exact in bytes (parse/fio_hist_series.py), not from its averaged bandwidth log.
WRITE_SERIES = "write_series"
HIST_LOG = "hist_log"


# A round loop this long ends only by its check (an endurance run's stop conditions).
UNBOUNDED_ROUNDS = 10_000_000


@dataclass(frozen=True, slots=True)
class RoundLoop:
    """Steps repeated in rounds until the profile's round check says stop (steady state, a
    write budget) or `max_rounds` have run. Results of round r are stored with
    `round_index = r` under the template step's key; the check runs after every complete
    round from `min_rounds` on."""

    steps: tuple[ProfileStep, ...]
    max_rounds: int
    min_rounds: int = 1
    check: str = ""  # what the check is, in words (for plans and reports)
    name: str = ""  # which loop, when a plan has several (a PTS TP block size)
    before: tuple[ProfileStep, ...] = ()  # run once before this loop's rounds (purge, WIPC)

    @property
    def unbounded(self) -> bool:
        return self.max_rounds >= UNBOUNDED_ROUNDS


@dataclass(frozen=True, slots=True)
class RoundVerdict:
    """After a round: whether to stop, a line for the progress display, and the numbers;
    `progress`, for a loop that stops at a bound it can measure (WSAT's bytes written), how
    far towards it the loop is (0 to 1; None: it stops on a judgement, such as steady state,
    or only at its last round)."""

    stop: bool
    summary: str
    body: Mapping[str, Any]
    progress: float | None = None


@dataclass(frozen=True, slots=True)
class ProfilePlan:
    """Everything a profile run will do, in order: `steps`, then each round loop (its
    `before` steps, then its rounds), then `after`. Pure data: print it, store it, run it."""

    profile: str
    profile_version: int
    settings: tuple[tuple[str, SettingValue], ...]
    target_path: str
    target_kind: str
    destructive: bool
    steps: tuple[ProfileStep, ...]
    notes: tuple[str, ...] = ()
    loops: tuple[RoundLoop, ...] = ()
    after: tuple[ProfileStep, ...] = ()
    params: tuple[tuple[str, SettingValue], ...] = ()  # what planning fixed (PTS: purge method)
    # each fio pass's randseed drawn from its job's, its step and its round (plan/seeds.py), so
    # that no pass replays another's random sequence (PTS: the run's --seed)
    pass_seeds: bool = False

    def param(self, name: str) -> SettingValue:
        return dict(self.params).get(name)

    @property
    def fio_steps(self) -> tuple[ProfileStep, ...]:
        return tuple(step for step in self.all_steps if step.job is not None)

    @property
    def all_steps(self) -> tuple[ProfileStep, ...]:
        """Every distinct step: before, one round of the loop, after."""
        looped = tuple(s for loop in self.loops for s in (*loop.before, *loop.steps))
        return (*self.steps, *looped, *self.after)

    def step_named(self, key: str) -> ProfileStep | None:
        return next((step for step in self.all_steps if step.key == key), None)


@dataclass(frozen=True, slots=True)
class PlanTarget:
    """What planning needs to know of a resolved target (see model/target.py)."""

    path: str
    kind: str  # file | device
    size_bytes: int  # the region the profile may use
    capacity_bytes: int | None  # the whole device (devices only)
    direct_io: bool
    needs_fill: bool  # a file target that must be written before it is read
    logical_block_bytes: int | None = None
    discard_supported: bool | None = None
    transport: str | None = None  # nvme, sata, sas, usb, loop, ... (devices only)
    purge_support: PurgeSupport | None = None  # read only for profiles that purge


@dataclass(frozen=True, slots=True)
class ProfileResults:
    """A finished (or stopped) profile run, as its report is built from it."""

    run: RunRecord
    plan: ProfilePlan
    steps: tuple[StepResult, ...]
    facts: Mapping[str, Any]
    outputs: Mapping[int, str]  # fio's JSON output by capture id (json+ latency bins)
    health: tuple[tuple[str, HealthSample], ...] = ()
    findings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # stored, by name
    capture_times: Mapping[int, tuple[float, float]] = field(default_factory=dict)  # wall clock
