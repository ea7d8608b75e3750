"""What a watch fired, kept in its run: each sample judged against the series before it
(analysis/alerts.py), each alert stored as a finding before the state that says it fired, and
both before the `--on-alert` hooks run with the alert on their stdin (format `ssdlab-alert`).
A watch continued after a restart reads its state back, so nothing fires twice."""

import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence

from ssdlab.analysis.alerts import (
    Alert,
    AlertState,
    Thresholds,
    drive_limits,
    judge,
    resolve_thresholds,
    state_from_json,
)
from ssdlab.model.health import HealthSample
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.system.hooks import HookResult, run_hook

ALERT_STATE = "watch-alert-state"
ALERT_PREFIX = "watch-alert-"
SKIPPED = "watch-skipped-samples"


def alert_document(
    alert: Alert, sample: HealthSample, device: str, run_id: int
) -> dict[str, object]:
    """One alert as a hook reads it on stdin (format ssdlab-alert, version 1)."""
    identity = sample.identity
    document: dict[str, object] = {
        "format": "ssdlab-alert",
        "format_version": 1,
        "alert": alert.name,
        "severity": alert.severity,
        "device": device,
        "serial": identity.serial,
        "model": identity.model,
        "firmware": identity.firmware,
        "host": os.uname().nodename,
        "value": alert.value,
        "message": alert.message,
        "taken_at_s": alert.taken_at_s,
        "run_id": run_id,
    }
    if alert.threshold is not None:
        document["threshold"] = alert.threshold
    if alert.previous is not None:
        document["previous"] = alert.previous
    return document


class AlertBook:
    """The alerts of one watch run: its state and count read back from the run, each new
    sample judged and what fired stored and passed to the hooks. `announce` is told of each
    alert as it is stored, `hook_failed` of each hook that failed (its result, the alert's
    finding)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        run_id: int,
        device: str,
        thresholds: Thresholds,
        hooks: Sequence[Sequence[str]],
        hook_timeout_s: float,
    ) -> None:
        self.conn, self.run_id, self.device = conn, run_id, device
        self.thresholds = thresholds
        self.hooks, self.hook_timeout_s = tuple(hooks), hook_timeout_s
        findings = {f.name: f for f in load_findings(conn, run_id)}
        found = findings.get(ALERT_STATE)
        self.state: AlertState | None = state_from_json(found.body) if found is not None else None
        self.stored = sum(
            1 for name in findings if name.startswith(ALERT_PREFIX) and name != ALERT_STATE
        )
        skipped = findings.get(SKIPPED)
        self.skipped = int(skipped.body.get("count", 0)) if skipped is not None else 0
        self.fired = 0  # by this watch process

    def skip(self, reason: str) -> None:
        """A sample skipped (the drive slept and was left asleep): counted in the run."""
        self.skipped += 1
        body = {"count": self.skipped, "last_at_s": time.time(), "reason": reason}
        add_finding(self.conn, self.run_id, SKIPPED, "facts", body, time.time())

    def judge(
        self,
        sample: HealthSample,
        sample_id: int | None,
        announce: Callable[[Alert], None],
        hook_failed: Callable[[HookResult, str], None],
    ) -> None:
        """Judge the series with this sample last; store and announce what fired, then run
        the hooks of each alert."""
        earlier = [
            s.sample
            for s in load_health_samples(self.conn, run_id=self.run_id)
            if s.sample_id != sample_id
        ]
        thresholds = resolve_thresholds(self.thresholds, drive_limits(sample))
        judgement = judge([*earlier, sample], thresholds, self.state)
        fired = []
        for alert in judgement.alerts:
            fired.append(self._store(alert, sample))
            announce(alert)
        self.state = judgement.state
        add_finding(self.conn, self.run_id, ALERT_STATE, "facts", judgement.state, time.time())
        for name, document in fired:
            self._run_hooks(name, document, hook_failed)

    def _store(self, alert: Alert, sample: HealthSample) -> tuple[str, dict[str, object]]:
        self.fired += 1
        self.stored += 1
        name = f"{ALERT_PREFIX}{self.stored}"
        document = alert_document(alert, sample, self.device, self.run_id)
        add_finding(self.conn, self.run_id, name, "verdict", {"alert": document}, time.time())
        return name, document

    def _run_hooks(
        self, name: str, document: dict[str, object], failed: Callable[[HookResult, str], None]
    ) -> None:
        """Every hook with the alert on stdin; each result stored with the alert."""
        if not self.hooks:
            return
        text = json.dumps(document, sort_keys=True) + "\n"
        results = [run_hook(argv, text, self.hook_timeout_s) for argv in self.hooks]
        for result in results:
            if result.failed:
                failed(result, name)
        body = {"alert": document, "hooks": [dataclasses.asdict(r) for r in results]}
        add_finding(self.conn, self.run_id, name, "verdict", body, time.time())
