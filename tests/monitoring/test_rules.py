"""The shipped alert rules, checked by promtool: their syntax (`promtool check rules`) and their
behaviour (`promtool test rules` on tests/data/monitoring/ssdlab-alerts.test.yml, where every
alert has series on which it fires and series on which it does not)."""

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import run_ssdlab
from tests.monitoring.shipped import (
    FOREIGN_METRICS,
    RULE_TESTS,
    RULES,
    alerts,
    metric_names,
    run_promtool,
)

SEVERITIES = {"critical", "warning"}
ALERT_NAMES = [rule["alert"] for rule in alerts()]


def test_promtool_check_rules_accepts_the_shipped_rules() -> None:
    result = run_promtool("check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(ALERT_NAMES)} rules found" in result.stdout


def test_promtool_unit_tests_of_every_alert_pass() -> None:
    # run where the test file is: its rule_files path is relative to it
    result = run_promtool("test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_a_wrong_expectation_fails_the_promtool_unit_tests(tmp_path: Path) -> None:
    # the unit tests above are not vacuous: promtool compares labels and annotations exactly
    text = RULE_TESTS.read_text(encoding="utf-8")
    text = text.replace("../../../src/ssdlab/monitoring/ssdlab-alerts.yml", str(RULES))
    wrong = text.replace("has 5% spare blocks left", "has 6% spare blocks left")
    assert wrong != text
    (tmp_path / "wrong.test.yml").write_text(wrong, encoding="utf-8")
    result = run_promtool("test", "rules", "wrong.test.yml", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "alertname: SsdlabDriveSpareBelowThreshold" in result.stderr


def _unit_test_outcomes() -> dict[str, set[bool]]:
    """alert name → the outcomes its unit tests expect (True: fires, False: stays silent)."""
    outcomes: dict[str, set[bool]] = {}
    for test in yaml.safe_load(RULE_TESTS.read_text(encoding="utf-8"))["tests"]:
        for case in test.get("alert_rule_test", []):
            outcomes.setdefault(case["alertname"], set()).add(bool(case["exp_alerts"]))
    return outcomes


@pytest.mark.parametrize("alert", ALERT_NAMES)
def test_every_alert_has_unit_tests_where_it_fires_and_where_it_does_not(alert: str) -> None:
    outcomes = _unit_test_outcomes().get(alert, set())
    assert outcomes == {True, False}, (
        f"{alert}: tests/data/monitoring/ssdlab-alerts.test.yml needs a case where it fires and "
        "one where it does not"
    )


def test_the_unit_tests_name_only_shipped_alerts() -> None:
    assert set(_unit_test_outcomes()) == set(ALERT_NAMES)


@pytest.mark.parametrize("rule", alerts(), ids=ALERT_NAMES)
def test_every_alert_waits_has_a_severity_and_explains_itself(rule: dict[str, Any]) -> None:
    assert re.fullmatch(r"\d+[smh]", str(rule.get("for", ""))), "every alert has a for:"
    assert set(rule["labels"]) == {"severity"}
    assert rule["labels"]["severity"] in SEVERITIES
    assert set(rule["annotations"]) == {"summary", "description"}


@pytest.mark.parametrize(
    "rule", [r for r in alerts() if "ssdlab_" in r["expr"]], ids=lambda r: r["alert"]
)
def test_drive_alerts_name_the_drive_and_host(rule: dict[str, dict[str, str]]) -> None:
    for text in rule["annotations"].values():
        assert "{{ $labels.serial }}" in text
        assert "{{ $labels.host }}" in text


def test_the_rules_read_only_metrics_that_ssdlab_metrics_declares(tmp_path: Path) -> None:
    # an empty store: ssdlab metrics still declares (HELP/TYPE) every metric it can emit
    result = run_ssdlab("metrics", "--db", str(tmp_path / "store.db"))
    assert result.code == 0, result.stderr
    declared = set(re.findall(r"^# TYPE (\S+) ", result.stdout, re.M)) | FOREIGN_METRICS
    used = metric_names(RULES.read_text(encoding="utf-8"))
    assert used - declared == set()
