"""The shipped monitoring files as the tests read them: the alert rules, the dashboard's PromQL
with its template variables substituted, the metric names they use, and promtool."""

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import HANG_S, ROOT

MONITORING = ROOT / "src" / "ssdlab" / "monitoring"
RULES = MONITORING / "ssdlab-alerts.yml"
DASHBOARD = MONITORING / "ssdlab-dashboard.json"
RULE_TESTS = ROOT / "tests" / "data" / "monitoring" / "ssdlab-alerts.test.yml"

# Grafana's interval variables become a duration, every other variable (all of them regex
# matchers: host=~"$host") a regex matching anything
_DURATION_VARIABLES = {"__interval", "__rate_interval", "__range"}
_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")
_METRIC_NAME = re.compile(r"\b((?:ssdlab|node_textfile)_[a-z0-9_]+)\b")
# metrics the rules and dashboard read that are not ssdlab's: node_exporter's textfile
# collector, Prometheus's own
FOREIGN_METRICS = {"node_textfile_mtime_seconds", "node_textfile_scrape_error", "up", "ALERTS"}


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip("promtool is not installed (Debian package prometheus)")
    return found


def run_promtool(*args: str, cwd: Path | None = None) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [promtool(), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )


def load_rules() -> dict[str, Any]:
    rules: dict[str, Any] = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    return rules


def alerts() -> list[dict[str, Any]]:
    return [rule for group in load_rules()["groups"] for rule in group["rules"] if "alert" in rule]


def load_dashboard() -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return dashboard


def all_panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel, rows included, and the panels of collapsed rows."""
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])


def substitute(expr: str) -> str:
    """The expression as Prometheus sees it once Grafana filled in the variables."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return "5m" if name in _DURATION_VARIABLES else ".*"

    return _VARIABLE.sub(value, expr)


@dataclass(frozen=True)
class PanelQuery:
    panel_id: int
    panel_title: str
    ref_id: str
    expr: str  # with the variables substituted

    @property
    def record_name(self) -> str:
        return f"ssdlab_dashboard_check:panel_{self.panel_id}_{self.ref_id}"


def dashboard_queries(dashboard: dict[str, Any]) -> list[PanelQuery]:
    return [
        PanelQuery(panel["id"], panel["title"], target["refId"], substitute(target["expr"]))
        for panel in all_panels(dashboard)
        for target in panel.get("targets", [])
    ]


def variable_queries(dashboard: dict[str, Any]) -> list[str]:
    """The PromQL inside the query variables' label_values(SELECTOR, LABEL)."""
    selectors = []
    for variable in dashboard["templating"]["list"]:
        if variable["type"] != "query":
            continue
        match = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", variable["query"]["query"])
        assert match, f"variable {variable['name']} is not label_values(SELECTOR, LABEL)"
        selectors.append(substitute(match.group(1)))
    return selectors


def recording_rules_of(queries: list[PanelQuery]) -> str:
    """The queries as one group of recording rules: promtool check rules parses each one."""
    rules = [{"record": q.record_name, "expr": q.expr} for q in queries]
    text: str = yaml.safe_dump({"groups": [{"name": "ssdlab-dashboard-check", "rules": rules}]})
    return text


def metric_names(text: str) -> set[str]:
    return set(_METRIC_NAME.findall(text))
