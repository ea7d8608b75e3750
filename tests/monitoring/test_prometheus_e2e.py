"""End to end with the real components: a replayed wear log is imported into a store,
`ssdlab metrics --textfile` writes ssdlab.prom, a real node_exporter (textfile collector only)
exposes it on 127.0.0.1, and a real Prometheus scrapes it every second with the shipped alert
rules loaded. Prometheus's HTTP API must then return the store's values, have loaded and
evaluated every shipped rule without error, and answer every query of the dashboard.

Both servers are this test's own processes on free ports with their own directories; a
Prometheus or node_exporter started by the distribution's packages is neither used nor
touched."""

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from tests.conftest import HANG_S
from tests.e2e.conftest import run_ssdlab
from tests.monitoring.shipped import RULES, alerts, dashboard_queries, load_dashboard
from tests.replay_logs import wear_series, write_log

pytestmark = pytest.mark.slow

NODE_EXPORTER_NAMES = ("prometheus-node-exporter", "node_exporter")
DEADLINE_S = HANG_S  # a hang guard: the loop returns as soon as the value is in
T = TypeVar("T")


def _binary(*names: str, package: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found is not None:
            return found
    pytest.skip(f"{names[0]} is not installed (Debian package {package})")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    name: str
    process: "subprocess.Popen[bytes]"
    log: Path
    url: str

    def log_tail(self) -> str:
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return f"--- {self.name} log (last lines) ---\n" + "\n".join(lines[-20:])


@contextmanager
def _server(name: str, argv: list[str], port: int, workdir: Path) -> Iterator[Server]:
    log = workdir / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=workdir
        )
    server = Server(name, process, log, f"http://127.0.0.1:{port}")
    try:
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, b""


def _api(server: Server, path: str, **params: str) -> dict[str, Any]:
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    status, body = _get(f"{server.url}/api/v1/{path}{query}")
    if status == 0:
        return {"status": "unreachable"}
    try:
        doc: dict[str, Any] = json.loads(body)
    except ValueError:  # not an API answer yet: a server still starting (503, plain text)
        return {"status": f"HTTP {status}, not JSON"}
    return doc


def _poll(what: str, probe: Callable[[], T | None], servers: list[Server]) -> T:
    """probe() until it returns a value; fail naming what never came, with the servers' logs."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        for server in servers:
            if server.process.poll() is not None:
                pytest.fail(f"{server.name} exited ({server.process.returncode})\n"
                            + server.log_tail())  # fmt: skip
        found = probe()
        if found is not None:
            return found
        time.sleep(0.25)
    logs = "\n".join(s.log_tail() for s in servers)
    pytest.fail(f"no {what} within {DEADLINE_S:.0f} s\n{logs}")


def _instant(prometheus: Server, query: str) -> list[dict[str, Any]] | None:
    doc = _api(prometheus, "query", query=query)
    if doc.get("status") != "success" or not doc["data"]["result"]:
        return None
    result: list[dict[str, Any]] = doc["data"]["result"]
    return result


def _prometheus_config(node_port: int, workdir: Path) -> Path:
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(RULES)],
        "scrape_configs": [
            {
                "job_name": "node",
                "static_configs": [{"targets": [f"127.0.0.1:{node_port}"]}],
            }
        ],
    }
    path = workdir / "prometheus.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture
def store_of_a_replayed_wear_log(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A store holding six hourly samples of an MX500 wearing one point an hour; the latest
    sample as `ssdlab health --import --json` reports it."""
    log = write_log(tmp_path / "smart-cron.log", wear_series(6, wear_from=20))
    store = tmp_path / "store.db"
    result = run_ssdlab("health", "--import", str(log), "--json", "--db", str(store))
    assert result.code == 0, result.stderr
    latest: dict[str, Any] = json.loads(result.stdout)["latest_sample"]
    return store, latest


def test_prometheus_scrapes_ssdlab_metrics_through_node_exporter_and_evaluates_the_rules(
    tmp_path: Path, store_of_a_replayed_wear_log: tuple[Path, dict[str, Any]]
) -> None:
    node_exporter = _binary(*NODE_EXPORTER_NAMES, package="prometheus-node-exporter")
    prometheus_bin = _binary("prometheus", package="prometheus")
    store, latest = store_of_a_replayed_wear_log
    serial = latest["identity"]["serial"]
    textfiles = tmp_path / "textfiles"
    textfiles.mkdir()
    written = run_ssdlab("metrics", "--textfile", str(textfiles), "--db", str(store))
    assert written.code == 0, written.stderr
    assert (textfiles / "ssdlab.prom").is_file()

    node_port = _free_port()
    prom_port = _free_port()
    while prom_port == node_port:
        prom_port = _free_port()
    node_argv = [
        node_exporter,
        f"--web.listen-address=127.0.0.1:{node_port}",
        "--collector.disable-defaults",
        "--collector.textfile",
        f"--collector.textfile.directory={textfiles}",
    ]
    prom_argv = [
        prometheus_bin,
        f"--config.file={_prometheus_config(node_port, tmp_path)}",
        f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{prom_port}",
    ]
    with (
        _server("node_exporter", node_argv, node_port, tmp_path) as node,
        _server("prometheus", prom_argv, prom_port, tmp_path) as prometheus,
    ):
        servers = [node, prometheus]
        query = f'ssdlab_drive_wear_used_ratio{{serial="{serial}"}}'
        [wear] = _poll(f"{query} in Prometheus", lambda: _instant(prometheus, query), servers)
        # the value of the store's latest sample, through textfile, node_exporter and a scrape
        assert float(wear["value"][1]) == latest["wear_used_pct"]["value"] / 100
        assert wear["metric"]["model"] == latest["identity"]["model"]
        assert wear["metric"]["firmware"] == latest["identity"]["firmware"]
        assert wear["metric"]["job"] == "node"
        [host_written] = _instant(prometheus, "ssdlab_drive_host_written_bytes_total") or [{}]
        assert float(host_written["value"][1]) == latest["host_written_bytes"]["value"]

        # the stale-data rules select ssdlab.prom by node_exporter's file label
        mtime_query = 'node_textfile_mtime_seconds{file=~".*ssdlab\\\\.prom"}'
        assert _instant(prometheus, mtime_query) is not None

        # every shipped rule loaded, and evaluated by the server without error
        def evaluated_rules() -> list[dict[str, Any]] | None:
            doc = _api(prometheus, "rules")
            if doc.get("status") != "success":
                return None
            rules = [r for g in doc["data"]["groups"] for r in g["rules"]]
            done = rules and all(r["health"] != "unknown" for r in rules)
            return rules if done else None

        rules = _poll("evaluation of every shipped rule", evaluated_rules, servers)
        assert sorted(r["name"] for r in rules) == sorted(a["alert"] for a in alerts())
        assert [(r["name"], r.get("lastError")) for r in rules if r["health"] != "ok"] == []

        # a drive wearing a point an hour has days, not 180, left: its alert is on its way
        [days] = _instant(prometheus, f'ssdlab_drive_end_of_life_seconds{{serial="{serial}"}}') or [
            {}
        ]
        assert float(days["value"][1]) < 180 * 86400

        def end_of_life_alert() -> list[dict[str, Any]] | None:
            doc = _api(prometheus, "alerts")
            if doc.get("status") != "success":
                return None
            found = [
                a
                for a in doc["data"]["alerts"]
                if a["labels"]["alertname"] == "SsdlabDriveEndOfLifeSoon"
                and a["labels"].get("serial") == serial
            ]
            return found or None

        [alert] = _poll("SsdlabDriveEndOfLifeSoon alert", end_of_life_alert, servers)
        assert alert["state"] == "pending"  # for: 1h
        assert alert["labels"]["severity"] == "warning"

        # every query of the dashboard runs on the real server
        failures = []
        for q in dashboard_queries(load_dashboard()):
            doc = _api(prometheus, "query", query=q.expr)
            if doc.get("status") != "success":
                failures.append((q.panel_title, q.expr, doc.get("error")))
        assert failures == []
        [panel_wear] = _instant(
            prometheus, 'ssdlab_drive_wear_used_ratio{host=~".*", serial=~".*"}'
        ) or [{}]
        assert panel_wear["metric"]["serial"] == serial
