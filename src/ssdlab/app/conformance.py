"""`ssdlab conformance`: a drive held against the OCP Datacenter NVMe SSD Specification by
requirement ID. The evidence is read from the drive now (smartctl and nvme-cli, read-only
commands), from saved outputs given with --from, and from the store: this drive's stored
health readings (STD-LOG-3) and the runs named with --run (a `qos` run's verdicts, every
pass's thermal checks). The command keeps nothing in
the store (`ssdlab health` keeps readings). The checks are analysis/conformance/'s; the document
report/conformance.py's."""

import dataclasses
import os
import re
import shlex
import shutil
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.analysis.conformance import check_drive
from ssdlab.analysis.conformance.qos import requirement_of
from ssdlab.app.health_readings import read_drive, vendor_map
from ssdlab.app.run_store import open_store_to_read
from ssdlab.app.runs import run_id_of, stored_run
from ssdlab.errors import ParseError, ToolError, UsageError
from ssdlab.model.conformance import (
    DriveEvidence,
    LogPage,
    PassCheck,
    QosJudged,
    RequirementResult,
    Verdict,
    WearReading,
)
from ssdlab.model.finding_names import (
    LATENCY_MONITOR,
    LATENCY_MONITOR_PASS,
    QOS_VERDICT,
    THERMAL_PASS,
)
from ssdlab.model.health import HealthSample
from ssdlab.model.run import Capture
from ssdlab.model.thermal import ThermalCounters, ThermalLimits
from ssdlab.parse.drive_outputs import C0, C3, DriveOutput, read_drive_output, read_raw_page
from ssdlab.parse.nvme_json import merge_samples
from ssdlab.report.conformance import build_conformance_document
from ssdlab.report.document import Document
from ssdlab.store.captures import load_capture_stdout
from ssdlab.store.health import device_key, load_health_samples
from ssdlab.system.health import smartctl_timeout_s
from ssdlab.system.latency_monitor import page_bytes_of
from ssdlab.system.nvme_nodes import is_drive_path
from ssdlab.system.process import ProcessRunner
from ssdlab.system.user_files import LOG_FILE_BYTES, read_user_file

QOS_PROFILE = "qos"


@dataclass(frozen=True, slots=True)
class ConformanceRequest:
    """A drive to read now (`device`), saved outputs (`files`), stored `qos` runs (`runs`, ids
    or 'last') and the store they are in."""

    device: str | None = None
    files: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    db: Path | None = None


@dataclass(frozen=True, slots=True)
class ConformanceOutcome:
    results: tuple[RequirementResult, ...]
    evidence: DriveEvidence
    document: Document
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return any(r.verdict is Verdict.FAIL for r in self.results)


def _captured(capture: Capture) -> DriveOutput | None:
    """A capture of a drive read now, when it holds something the checks read."""
    if capture.tool != "smartctl" and capture.exit_code != 0:
        return None  # nvme-cli failed: the drive has no such log or command
    try:
        return read_drive_output(capture.stdout.encode(), " ".join(capture.argv))
    except ParseError:
        return None


_NVME_EXTRA = (
    ("id-ctrl", "-o", "json"),
    ("get-log", "--log-id=0xc0", "--log-len=512"),
    ("get-log", "--log-id=0xc3", "--log-len=512"),
)


def _device_outputs(device: str) -> tuple[list[DriveOutput], list[str]]:
    """What the drive answers now: `ssdlab health`'s reading (smartctl, nvme smart-log, the
    OCP C0h log), then nvme-cli's Identify Controller and the raw C0h and C3h pages."""
    reading = read_drive(device, vendor_map(None))
    notes = list(reading.notes)
    captures = list(reading.captures)
    if reading.sample is not None and reading.sample.identity.protocol != "NVMe":
        notes.append(f"{device} is not an NVMe drive: the OCP requirements do not apply to it")
    elif shutil.which("nvme") is None:
        notes.append("nvme-cli is not installed (apt-get install nvme-cli): no Identify data")
    else:
        runner, path = ProcessRunner(), os.path.realpath(device)
        asked = {c.argv for c in captures}
        for command in _NVME_EXTRA:
            argv = ("nvme", command[0], path, *command[1:])
            if argv in asked:
                continue
            try:
                captures.append(runner.run(argv, tool="nvme", timeout_s=smartctl_timeout_s()))
            except ToolError as error:
                notes.append(str(error))
    outputs = [found for c in captures if (found := _captured(c)) is not None]
    return outputs, notes


def _file_output(path: str) -> DriveOutput:
    data = read_user_file(path, LOG_FILE_BYTES, "the --from file")
    try:
        return read_drive_output(data, path)
    except ParseError as error:
        raise UsageError(str(error)) from None


def _health(outputs: Sequence[DriveOutput]) -> tuple[HealthSample | None, str]:
    found = [o for o in outputs if o.sample is not None]
    found.sort(key=lambda o: o.kind != "smartctl")  # smartctl first: it names the drive
    samples = [o.sample for o in found if o.sample is not None]
    if not samples:
        return None, ""
    return merge_samples(samples[0], *samples[1:]), "; ".join(o.source for o in found)


def _counters(outputs: Sequence[DriveOutput]) -> ThermalCounters | None:
    read = [dataclasses.replace(o.counters, source=o.source) for o in outputs if o.counters]
    if not read:
        return None
    merged = read[0]
    for other in read[1:]:
        missing = {
            f.name: getattr(other, f.name)
            for f in dataclasses.fields(merged)
            if getattr(merged, f.name) is None
        }
        merged = dataclasses.replace(merged, **missing)
    return merged


def _limits(outputs: Sequence[DriveOutput]) -> ThermalLimits | None:
    for output in outputs:
        identify = output.identify
        if identify is not None and (identify.wctemp_k or identify.cctemp_k):
            return ThermalLimits(identify.wctemp_k, identify.cctemp_k, identify.source)
    given = next((o for o in outputs if o.limits is not None), None)
    return (
        None
        if given is None or given.limits is None
        else (dataclasses.replace(given.limits, source=given.source))
    )


def _page(outputs: Sequence[DriveOutput], kind: str) -> LogPage | None:
    """The best page of a kind: decoded and raw first, then decoded, then refused."""
    pages = [o.page for o in outputs if o.kind == kind and o.page is not None]
    pages.sort(key=lambda p: (p.log is None, p.page is None))
    return pages[0] if pages else None


def _wear_history(
    conn: sqlite3.Connection | None, health: HealthSample | None, db: Path | None
) -> tuple[tuple[WearReading, ...], str]:
    """This drive's Percentage Used in the store, oldest first, and the reading now last."""
    if health is None or health.identity.serial is None:
        return (), ""
    history: list[WearReading] = []
    if conn is not None:
        for stored in load_health_samples(conn, key=device_key(health.identity)):
            used = stored.sample.wear_used_pct.value
            if used is not None:
                history.append(WearReading(stored.sample_id, stored.sample.taken_at_s, used))
    now = health.wear_used_pct.value
    if now is not None:
        history.append(WearReading(None, health.taken_at_s, now))
    return tuple(history), f"the store {db} and the reading now" if conn else "the reading now"


def _qos_items(body: Any, run_id: int) -> list[QosJudged]:
    workload = str(body.get("workload", "?"))
    items = body.get("items") or ()
    return [
        QosJudged(
            run_id,
            workload,
            requirement_of(str(item.get("source", ""))),
            f"{item.get('direction', '')} {item.get('check', '')}".strip(),
            str(item.get("outcome", "inconclusive")),
            str(item.get("sentence", "")),
        )
        for item in items
        if isinstance(item, dict)
    ]


def _pass_checks(findings: Mapping[str, Any], run_id: int) -> list[PassCheck]:
    """The thermal checks each pass of a run stored (`thermal-pass:…` findings)."""
    found = []
    for name, body in findings.items():
        if not name.startswith(THERMAL_PASS + ":") or not isinstance(body, Mapping):
            continue
        label = f"run {run_id} {body.get('label', '?')} #{body.get('round', '?')}"
        for check in body.get("checks") or ():
            if isinstance(check, Mapping) and isinstance(check.get("requirement"), str):
                state = check.get("state")
                found.append(
                    PassCheck(
                        run_id,
                        label,
                        check["requirement"],
                        state if isinstance(state, str) else None,
                        str(check.get("evidence", "")),
                    )
                )
    return found


@dataclass(slots=True)
class _FromRuns:
    qos: list[QosJudged] = dataclasses.field(default_factory=list)
    passes: list[PassCheck] = dataclasses.field(default_factory=list)
    ids: list[int] = dataclasses.field(default_factory=list)
    targets: list[str] = dataclasses.field(default_factory=list)
    pages: list[DriveOutput] = dataclasses.field(default_factory=list)  # C3h the runs read


def run_c3_pages(
    conn: sqlite3.Connection, findings: Mapping[str, Any], run_id: int
) -> list[DriveOutput]:
    """The C3h pages a `--latency-monitor` run read raw (runner/pass_latency_monitor.py), its
    last first: the LMDATA checks answer from them when no page is read or given now."""
    drive = findings.get(LATENCY_MONITOR)
    if not isinstance(drive, Mapping) or not drive.get("available"):
        return []
    ids = [drive.get("probe_capture_id")]
    for name, body in findings.items():
        if name.startswith(LATENCY_MONITOR_PASS + ":") and isinstance(body, Mapping):
            ids += [body.get("c3_before_capture_id"), body.get("c3_after_capture_id")]
    pages = []
    for capture_id in sorted({i for i in ids if isinstance(i, int) and i > 0}, reverse=True):
        stdout = load_capture_stdout(conn, capture_id)
        if stdout is None:
            continue
        source = f"run {run_id}, capture {capture_id}: nvme get-log --log-id=0xc3 --raw-binary"
        try:
            pages.append(read_raw_page(page_bytes_of(stdout), source))
        except ParseError:
            continue
    return pages


def _from_runs(conn: sqlite3.Connection, runs: Sequence[str]) -> _FromRuns:
    """What the runs named with --run judged: a qos run's verdicts, and the thermal checks of
    every pass that read the drive's temperature (any run since store schema 11)."""
    found = _FromRuns()
    for text in runs:
        stored = stored_run(conn, run_id_of(conn, text))
        run = stored.run
        passes = _pass_checks(stored.findings, run.run_id)
        body = stored.findings.get(QOS_VERDICT)
        if run.profile == QOS_PROFILE and body is None:
            raise UsageError(
                f"run {run.run_id} has no qos verdict (it is {run.status}); finish it with "
                f"`ssdlab resume {run.run_id}`"
            )
        if run.profile != QOS_PROFILE and not passes:
            raise UsageError(
                f"run {run.run_id} is a {run.profile} run whose passes read no temperature; "
                "--run takes `ssdlab run qos` runs and runs that read their drive's "
                "temperature (docs/thermal.md)"
            )
        found.ids.append(run.run_id)
        found.targets.append(run.target_path)
        found.passes.extend(passes)
        found.pages.extend(run_c3_pages(conn, stored.findings, run.run_id))
        if body is not None:
            found.qos.extend(_qos_items(body, run.run_id))
    return found


def _drive_name(
    health: HealthSample | None, outputs: Sequence[DriveOutput], device: str | None
) -> str:
    identity = health.identity if health else None
    identify = next((o.identify for o in outputs if o.identify is not None), None)
    model = (identity.model if identity else None) or (identify.model if identify else None)
    serial = (identity.serial if identity else None) or (identify.serial if identify else None)
    named = " ".join(part for part in (model, serial) if part)
    return named or device or "a drive not named by its inputs"


def gather_evidence(
    outputs: Sequence[DriveOutput],
    *,
    conn: sqlite3.Connection | None = None,
    runs: Sequence[str] = (),
    db: Path | None = None,
    device: str | None = None,
) -> DriveEvidence:
    """The evidence of the outputs read, this drive's stored readings and the qos runs."""
    health, health_source = _health(outputs)
    history, history_source = _wear_history(conn, health, db)
    given = _from_runs(conn, runs) if conn is not None and runs else _FromRuns()
    outputs = [*outputs, *given.pages]  # a page read or given now comes first
    return DriveEvidence(
        drive=_drive_name(health, outputs, device),
        sources=tuple(o.source for o in outputs),
        health=health,
        health_source=health_source,
        counters=_counters(outputs),
        limits=_limits(outputs),
        identify=next((o.identify for o in outputs if o.identify is not None), None),
        smart_page=_page(outputs, C0),
        latency_page=_page(outputs, C3),
        wear_history=history,
        wear_history_source=history_source,
        qos=tuple(given.qos),
        qos_runs=tuple(given.ids),
        qos_targets=tuple(given.targets),
        passes=tuple(given.passes),
    )


_NVME_NODE = re.compile(r"/dev/(nvme\d+)(?:n\d+)?(?:p\d+)?")


def _drive_of(path: str) -> str:
    """The drive a path names: an NVMe controller for any of its namespaces and partitions."""
    real = os.path.realpath(path)
    found = _NVME_NODE.fullmatch(real)
    return found[1] if found else real


def other_drive_runs(device: str, evidence: DriveEvidence) -> list[str]:
    """A note for each qos run that measured something other than the device read: its
    verdicts are still reported, as the run's, but the reader should know."""
    drive = _drive_of(device)
    return [
        f"run {run_id} measured {target}, not {device}: its verdicts are its own"
        for run_id, target in zip(evidence.qos_runs, evidence.qos_targets, strict=True)
        if _drive_of(target) != drive
    ]


def _store(request: ConformanceRequest) -> sqlite3.Connection | None:
    """The store, when --run names runs in it or it exists (for the drive's readings)."""
    if request.db is None or not (request.runs or request.db.exists()):
        return None
    return open_store_to_read(request.db).conn


def check_conformance(request: ConformanceRequest) -> ConformanceOutcome:
    """Read what the request names, answer every requirement, lay the answers out."""
    if not request.device and not request.files:
        raise UsageError(
            "name an NVMe device, or saved outputs with --from, e.g. "
            "'ssdlab conformance --from smart-add-log.json --from id-ctrl.json'"
        )
    outputs: list[DriveOutput] = []
    notes: list[str] = []
    if request.device:
        if not is_drive_path(request.device):
            raise UsageError(
                f"{request.device} is not a drive; a saved output is given with --from: "
                f"'ssdlab conformance --from {shlex.quote(request.device)}'"
            )
        outputs, notes = _device_outputs(request.device)
    outputs.extend(_file_output(path) for path in request.files)
    conn = _store(request)
    try:
        evidence = gather_evidence(
            outputs, conn=conn, runs=request.runs, db=request.db, device=request.device
        )
    finally:
        if conn is not None:
            conn.close()
    if request.device:
        notes.extend(other_drive_runs(request.device, evidence))
    results = check_drive(evidence)
    document = build_conformance_document(evidence, results, notes)
    return ConformanceOutcome(results, evidence, document, tuple(notes))
