"""The shipped Grafana dashboard: every PromQL expression it sends is parsed and type-checked by
promtool (written as recording rules into a temporary rules file, then `promtool check rules`),
and its JSON has what Grafana needs (datasource, title and unit on every panel, unique ids,
the datasource / host / serial variables)."""

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import run_ssdlab
from tests.monitoring.shipped import (
    DASHBOARD,
    FOREIGN_METRICS,
    PanelQuery,
    all_panels,
    dashboard_queries,
    load_dashboard,
    metric_names,
    recording_rules_of,
    run_promtool,
    substitute,
    variable_queries,
)

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
DASH = load_dashboard()
PANELS = [p for p in all_panels(DASH) if p["type"] != "row"]


def _check_as_rules(tmp_path: Path, queries: list[PanelQuery]) -> tuple[int, str]:
    rules = tmp_path / "dashboard-queries.yml"
    rules.write_text(recording_rules_of(queries), encoding="utf-8")
    result = run_promtool("check", "rules", str(rules))
    return result.returncode, result.stdout + result.stderr


def test_promtool_accepts_every_promql_expression_of_the_dashboard(tmp_path: Path) -> None:
    queries = dashboard_queries(DASH)
    selectors = [
        PanelQuery(0, "variable", f"var{i}", expr) for i, expr in enumerate(variable_queries(DASH))
    ]
    code, output = _check_as_rules(tmp_path, queries + selectors)
    assert code == 0, output
    assert f"SUCCESS: {len(queries) + len(selectors)} rules found" in output


def test_the_promql_check_rejects_a_broken_expression(tmp_path: Path) -> None:
    # the check above is not vacuous: a range vector where an instant one belongs is refused
    good = dashboard_queries(DASH)[0]
    broken = PanelQuery(good.panel_id, good.panel_title, "Z", "ssdlab_drive_info[5m] > 0")
    code, output = _check_as_rules(tmp_path, [good, broken])
    assert code == 1
    assert "ssdlab_dashboard_check:panel_" in output


def test_every_variable_is_substituted() -> None:
    exprs = [q.expr for q in dashboard_queries(DASH)] + variable_queries(DASH)
    assert [e for e in exprs if "$" in e] == []


def test_substitution_makes_regex_matchers_and_durations() -> None:
    expr = 'rate(x{host=~"$host", serial=~"${serial}"}[$__rate_interval])'
    assert substitute(expr) == 'rate(x{host=~".*", serial=~".*"}[5m])'


def test_the_dashboard_reads_only_metrics_that_ssdlab_metrics_declares(tmp_path: Path) -> None:
    result = run_ssdlab("metrics", "--db", str(tmp_path / "store.db"))
    assert result.code == 0, result.stderr
    declared = set(re.findall(r"^# TYPE (\S+) ", result.stdout, re.M)) | FOREIGN_METRICS
    used = metric_names(DASHBOARD.read_text(encoding="utf-8"))
    assert used - declared == set()


def test_panel_ids_are_unique() -> None:
    ids = Counter(p["id"] for p in all_panels(DASH))
    assert [i for i, n in ids.items() if n > 1] == []


@pytest.mark.parametrize("panel", PANELS, ids=lambda p: f"{p['id']}-{p['title']}")
def test_every_panel_has_a_title_the_datasource_a_unit_and_queries(panel: dict[str, Any]) -> None:
    assert panel["title"].strip()
    assert panel["datasource"] == DATASOURCE
    assert panel["fieldConfig"]["defaults"]["unit"]
    assert panel["targets"]
    assert all(t["datasource"] == DATASOURCE for t in panel["targets"])
    ref_ids = [t["refId"] for t in panel["targets"]]
    assert len(set(ref_ids)) == len(ref_ids)


def test_panels_stay_inside_the_24_column_grid() -> None:
    outside = [p["title"] for p in all_panels(DASH) if p["gridPos"]["x"] + p["gridPos"]["w"] > 24]
    assert outside == []


@pytest.mark.parametrize(
    ("title", "unit"),
    [
        ("Wear used", "percentunit"),
        ("Days to end of life", "d"),
        ("Write amplification", "none"),
        ("Temperature", "celsius"),
        ("Bytes written per second", "Bps"),
        ("Written against the rating", "bytes"),
        ("Benchmark throughput", "Bps"),
        ("Benchmark IOPS", "iops"),
        ("Benchmark latency", "s"),
        ("Benchmark regressions", "bool_yes_no"),
    ],
)
def test_per_drive_panels_show_their_unit(title: str, unit: str) -> None:
    [panel] = [p for p in PANELS if p["title"] == title]
    assert panel["fieldConfig"]["defaults"]["unit"] == unit


def test_the_fleet_table_shows_wear_end_of_life_waf_temperature_and_regressions() -> None:
    [table] = [p for p in PANELS if p["type"] == "table" and p["title"] == "Drives"]
    exprs = " ".join(t["expr"] for t in table["targets"])
    for metric in (
        "ssdlab_drive_wear_used_ratio",
        "ssdlab_drive_end_of_life_seconds",
        'ssdlab_drive_write_amplification{window="recent"',
        "ssdlab_drive_temperature_celsius",
        "ssdlab_benchmark_regression",
    ):
        assert metric in exprs


def test_per_drive_rows_repeat_for_each_selected_drive() -> None:
    rows = [p for p in DASH["panels"] if p["type"] == "row"]
    assert [r.get("repeat") for r in rows] == [None, "serial"]


def test_variables_choose_a_prometheus_datasource_then_host_then_drive() -> None:
    variables = {v["name"]: v for v in DASH["templating"]["list"]}
    assert list(variables) == ["datasource", "host", "serial"]
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert variables["host"]["query"]["query"] == "label_values(ssdlab_drive_info, host)"
    assert (
        variables["serial"]["query"]["query"]
        == 'label_values(ssdlab_drive_info{host=~"$host"}, serial)'
    )
    assert all(variables[n]["allValue"] == ".*" for n in ("host", "serial"))


def test_the_dashboard_is_importable_as_is() -> None:
    assert DASH["uid"] == "ssdlab-drives"
    assert 36 <= DASH["schemaVersion"] <= 41
    assert "__inputs" not in DASH  # the datasource is a variable: no import-time mapping
