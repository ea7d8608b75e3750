"""`ssdlab metrics` prints what it printed before it read the store by indexed queries: the
exporter's text for varied stores (tests/unit/app/metrics_stores.py) is compared with the
text of the code it replaced (oracle_metrics_state.py and oracle_metrics_report.py, kept
verbatim), and checked by Prometheus' own `promtool check metrics`."""

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from ssdlab.app.metrics import MetricsRequest, store_metrics
from ssdlab.store.db import open_store
from tests.unit.app import oracle_metrics_report, oracle_metrics_state
from tests.unit.app.metrics_stores import varied_store


def oracle_text(conn: sqlite3.Connection, now_s: float) -> str:
    return oracle_metrics_report.metrics_text(oracle_metrics_state.metrics_state(conn, now_s))


def promtool_check(text: str) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian package prometheus)")
    done = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_store_without_saved_files_prints_the_same_text(tmp_path: Path) -> None:
    store = varied_store(tmp_path, files=False)
    conn = open_store(store.path)
    before = oracle_text(conn, store.now_s)
    now = store_metrics(conn, MetricsRequest(store.now_s))
    assert now == before
    assert now.count("\n") > 250  # every family with samples: drives, tests, endurance runs
    promtool_check(now)


def test_a_store_with_saved_files_prints_the_same_text(tmp_path: Path) -> None:
    store = varied_store(tmp_path)
    conn = open_store(store.path)
    now = store_metrics(conn, MetricsRequest(store.now_s))
    assert now == oracle_text(conn, store.now_s)
    promtool_check(now)


def test_an_empty_store_prints_the_same_descriptions(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "empty.sqlite")
    assert store_metrics(conn, MetricsRequest(0.0)) == oracle_text(conn, 0.0)
