"""How a kind of stored run is read back, as one typed record: its documents and its headline
metrics (built from the whole stored run, `model/stored_run.StoredRun`) and what `export`,
`compare` and `card` need to know of it. `show`, `export`, `report`, `compare`, `card`,
baselines, `metrics` and `fleet compare` reach every kind of run through its record only
(`registry.kind_record`); a new kind of run is one more record.

A record is chosen by the run's kind and profile: a record naming profiles takes the runs of
its kind with one of them, a record naming none every other run of its kind. Each profile's
record (`ProfileRecord`) gives the record of its runs (`profile_kind`); the runs no profile
makes (imports, health samples, simulations, fleet loads) have records of their own.

The functions are loaded on first use (`load`), as a profile's parts are, so that building the
command line imports no report."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.report.document import Document

if TYPE_CHECKING:  # the analyses load with a record's parts, not with the command line
    from ssdlab.analysis.compare import MetricSamples

DocumentOf = Callable[[StoredRun, Sequence[SpecSheet]], Document]
ShownOf = Callable[[StoredRun], Document]
TextOf = Callable[[StoredRun], str]
MetricsOf = Callable[[StoredRun, int | None], "tuple[MetricSamples, ...]"]


def _with_thermal(document: Document, stored: StoredRun) -> Document:
    """Every kind's document, with the run's thermal section when it has one, and its OCP
    latency monitor's (C3h) when it was read (loaded with the documents, not with the command
    line)."""
    from ssdlab.report.latency_monitor_run import with_latency_monitor
    from ssdlab.report.thermal import with_thermal

    return with_latency_monitor(with_thermal(document, stored), stored)


def measured_steps(stored: StoredRun, window: int | None) -> "tuple[MetricSamples, ...]":
    """Every measured step's throughput and latency over its passes, or over the last `window`
    rounds of a step that ran in rounds."""
    from ssdlab.analysis.run_metrics import step_metrics

    return step_metrics(stored.steps, window=window)


@dataclass(frozen=True, slots=True)
class KindParts:
    """The functions that read a stored run of the kind (pure, from the StoredRun):

    - `document`: the run's whole document, as `report` lays it out (spec sheets known to the
      store at hand for the parts that match the drive against one);
    - `shown`: what `show` prints and `export --format json` writes, when that is not the
      document (a run of passes shows its result grid);
    - `texts`: export formats of its own by name (`md`, `cdm`); a format not named here is
      the shown document as Markdown (`md`) or refused (`cdm`);
    - `metrics`: its headline metrics (what `compare`, baselines and `fleet compare` read),
      given `window`, the rounds of a step that are compared (the SNIA PTS measurement
      window: the last five; None: every pass)."""

    document: DocumentOf
    shown: ShownOf | None = None
    texts: Mapping[str, TextOf] = field(default_factory=dict)
    metrics: MetricsOf = measured_steps
    window: int | None = None


@dataclass(frozen=True, slots=True)
class KindRecord:
    """One kind of stored run. `name` is what it is called in messages ('quick', 'cache',
    'sim sweep', 'health'); `kind` and `profiles` choose its runs (no profiles: every run of
    the kind no other record takes); `main_table` is the CSV table `export --format csv` writes
    unless `--table` says; `passes` marks runs of tests of passes, laid out as CrystalDiskMark
    does (their CSV `passes` table; a job file named by its test and pass); `plan_shapes`
    takes each step's queue depth, threads and block size from the stored plan (else from the
    test's label, 'SEQ1M Q8T1'); `card` whether `ssdlab card` draws it; `family` the runs it
    is compared with (None: runs of the same profile)."""

    name: str
    kind: RunKind
    load: Callable[[], KindParts]
    profiles: tuple[str, ...] = ()
    main_table: str = "steps"
    passes: bool = False
    plan_shapes: bool = False
    card: bool = False
    family: str | None = None

    def parts(self) -> KindParts:
        return self.load()

    def document(self, stored: StoredRun, specs: Sequence[SpecSheet] = ()) -> Document:
        """The run's whole document (what `report` lays out), with its thermal section when
        its drive gave temperatures during its passes (report/thermal.py)."""
        return _with_thermal(self.load().document(stored, specs), stored)

    def shown(self, stored: StoredRun) -> Document:
        """What `show` prints and `export --format json` writes."""
        parts = self.load()
        shown = parts.document(stored, ()) if parts.shown is None else parts.shown(stored)
        return _with_thermal(shown, stored)

    def metrics(self, stored: StoredRun) -> "tuple[MetricSamples, ...]":
        """The run's headline metrics, each with every sample behind it."""
        parts = self.load()
        return parts.metrics(stored, parts.window)

    def family_of(self, run: RunRecord) -> str:
        """What `run` is compared as: runs compare when they ran the same tests."""
        return run.profile if self.family is None else self.family
