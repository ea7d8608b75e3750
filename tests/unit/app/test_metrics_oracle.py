"""`ssdlab metrics` prints what it printed before it read the store by indexed queries: the
exporter's text for varied stores (tests/unit/app/metrics_stores.py) is compared with the
text of the code it replaced (oracle_metrics_state.py and oracle_metrics_report.py, kept
verbatim), and checked by Prometheus' own `promtool check metrics`.

One thing changed on purpose: a drive's `host` is the host of the run that read its latest
sample from the drive; a sample read from a saved file (`ssdlab health FILE`, `health
--import LOG`) says nothing of where the drive is. Before, a drive known only from such files
had the name of the machine that read the file, and a drive whose newest sample came from a
file had that machine's name instead of its own host's."""

import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ssdlab.app.metrics import MetricsRequest, store_metrics
from ssdlab.store.db import open_store
from ssdlab.store.health import load_health_samples
from ssdlab.store.run_rows import load_run
from tests.unit.app import oracle_metrics_report, oracle_metrics_state
from tests.unit.app.metrics_stores import CENTRAL, varied_store


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


def drive_hosts(conn: sqlite3.Connection) -> dict[tuple[str, str], str]:
    """(model, serial) of each drive -> its host by the rule of this module's docstring, from
    every sample of the drive decoded."""
    keys = [str(r[0]) for r in conn.execute("SELECT DISTINCT device_key FROM health_samples")]
    hosts = {}
    for key in keys:
        samples = load_health_samples(conn, key=key)
        identity = samples[-1].sample.identity
        taken = [s for s in samples if s.phase != "import"]
        run = load_run(conn, taken[-1].run_id) if taken else None
        name = ((identity.model or "").strip(), (identity.serial or "").strip())
        hosts[name] = run.host if run is not None else ""
    return hosts


DRIVE_LINE = re.compile(
    r'^(ssdlab_drive_\w+\{firmware="[^"]*",host=")([^"]*)(",model="([^"]*)",serial="([^"]*)")'
)


def with_hosts(text: str, hosts: dict[tuple[str, str], str]) -> tuple[str, set[tuple[str, str]]]:
    """The oracle's text with each drive's host put right; and the drives that changed."""
    changed: set[tuple[str, str]] = set()
    lines = []
    for line in text.splitlines(keepends=True):
        match = DRIVE_LINE.match(line)
        if match is not None:
            drive = (match.group(4), match.group(5))
            if hosts[drive] != match.group(2):
                changed.add(drive)
            line = match.group(1) + hosts[drive] + match.group(3) + line[match.end() :]
        lines.append(line)
    return "".join(lines), changed


def test_a_store_without_saved_files_prints_the_same_text(tmp_path: Path) -> None:
    store = varied_store(tmp_path, files=False)
    conn = open_store(store.path)
    before = oracle_text(conn, store.now_s)
    now = store_metrics(conn, MetricsRequest(store.now_s))
    assert now == before
    assert now.count("\n") > 250  # every family with samples: drives, tests, endurance runs
    promtool_check(now)


def test_saved_files_change_only_the_host_of_their_drives(tmp_path: Path) -> None:
    store = varied_store(tmp_path)
    conn = open_store(store.path)
    expected, changed = with_hosts(oracle_text(conn, store.now_s), drive_hosts(conn))
    now = store_metrics(conn, MetricsRequest(store.now_s))
    assert now == expected
    promtool_check(now)
    # the drives the saved files changed, and nothing else
    assert changed == {
        ("", ""),  # nvme-cli output, which names no drive, read from two files
        ("CT1000MX500SSD1", "2204E600A1B2"),  # a cron log read here, and a node's endurance run
        ("CT500MX500SSD1", "HANDMADE0001"),  # a node read a smartctl file of it
        ("CT500MX500SSD1", "MX-NODE-1"),  # watched on lab-9, its newest sample from a file
    }


def test_a_drive_read_from_saved_files_is_not_a_drive_of_this_host(tmp_path: Path) -> None:
    store = varied_store(tmp_path)
    conn = open_store(store.path)
    hosts = {}
    for family in text_string_to_metric_families(store_metrics(conn, MetricsRequest(store.now_s))):
        if family.name == "ssdlab_drive_info":
            hosts = {s.labels["serial"]: s.labels["host"] for s in family.samples}
    assert hosts["HANDMADE0001"] == ""  # only ever read from a file, on a node
    assert hosts[""] == ""  # nvme-cli files read on this machine
    assert hosts["MX-NODE-1"] == "lab-9"  # where it is watched, not where a file was read
    assert hosts["2204E600A1B2"] == "lab-8"  # the node's endurance run sampled it
    assert hosts["MX-WATCH-1"] == CENTRAL  # watched here


def test_an_empty_store_prints_the_same_descriptions(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "empty.sqlite")
    assert store_metrics(conn, MetricsRequest(0.0)) == oracle_text(conn, 0.0)
