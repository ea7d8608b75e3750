"""`ssdlab fleet load` end to end on the lab nodes: one fio job on every node at once through
fio's client/server, each server on a unix socket reached only through ssh's forwarding; the
refusals made before any node is contacted; a node whose target is not its own left out; and
nothing left running or lying on a node afterwards."""

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ssdlab.analysis.merged_latency import merged_latency
from ssdlab.parse.fio_hist_log import parse_hist_log
from ssdlab.store.raw import unpack_raw
from tests.conftest import HANG_S
from tests.fleet.hosts import FleetLab

SSDLAB = (sys.executable, "-m", "ssdlab")
JOB = """\
[global]
ioengine=psync
bs=4k
size=4m
runtime=1
time_based=1

[load]
filename={file}
rw=randrw
rwmixread=70
"""


def _fleet_load(*args: str, timeout_s: float = HANG_S) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [*SSDLAB, "fleet", "load", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )


def _ssdlab(*args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [*SSDLAB, *args], capture_output=True, text=True, check=False, timeout=HANG_S
    )


def _inventory(
    lab: FleetLab,
    folder: Path,
    targets: dict[str, str],
    command: str | None = None,
    extra: dict[str, dict[str, str]] | None = None,
) -> Path:
    """Every node with its own store under `folder`, ssdlab started as this interpreter's
    (or `command`), `targets` as its ssdlab_targets, and its `extra` host variables."""
    host_vars = {
        host.name: {
            "ssdlab_targets": targets[host.name],
            "ssdlab_db": str(folder / f"{host.name}.db"),
            **(extra or {}).get(host.name, {}),
        }
        for host in lab.hosts
    }
    return lab.write_inventory_ini(
        folder / "lab.ini",
        host_vars=host_vars,
        group_vars={"ssdlab_command": command or shlex.join(SSDLAB)},
    )


def _job(folder: Path, file: Path, extra: str = "", runtime_s: int = 1) -> Path:
    path = folder / "load.fio"
    text = JOB.format(file=file).replace("runtime=1", f"runtime={runtime_s}")
    path.write_text(text + extra, encoding="utf-8")
    return path


def _stored_histograms(db: Path, run_id: int) -> dict[str, str]:
    """The histogram logs stored as files of the load's capture, by name."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT f.name, f.content FROM capture_files f JOIN captures c"
            " ON c.id = f.capture_id WHERE c.run_id = ?",
            (run_id,),
        ).fetchall()
        return {str(name): unpack_raw(conn, content) for name, content in rows}
    finally:
        conn.close()


def _check_all_hosts_latency(document: dict[str, Any], db: Path) -> None:
    """All hosts' latency over time: from the histogram logs kept in the store, merged; a
    tail per second only where the second's I/Os support it."""
    latency = document["all_hosts_latency"]
    assert latency["unavailable"] is None
    logs = _stored_histograms(db, document["run_id"])
    assert sorted(logs) == [f"node{n}/ssdlab-hist_clat_hist.1.log" for n in (1, 2, 3)]
    assert latency["files"] == sorted(logs)
    hosts = {name.split("/")[0]: parse_hist_log(text, relayed=True) for name, text in logs.items()}
    merged = merged_latency(hosts)
    assert sorted(latency["directions"]) == ["read", "write"]
    for direction, data in latency["directions"].items():
        fio_ios = document["all_hosts"][direction]["total_ios"]
        assert data["fio_total_ios"] == fio_ios
        assert 0 < data["ios"] <= fio_ios  # fio logs no histogram for the last part-second
        assert data["ios"] == merged[direction].ios
        assert data["percentiles_ns"] == {f"{p:g}": v for p, v in merged[direction].percentiles_ns}
        assert len(data["seconds"]) >= 2
        assert sum(second["ios"] for second in data["seconds"]) == data["ios"]
        for second in data["seconds"]:
            values = second["percentiles_ns"]
            assert values["50"] is not None
            assert (values["99"] is None) == (second["ios"] < latency["needs_ios"]["99"])
            assert (values["99.9"] is None) == (second["ios"] < latency["needs_ios"]["99.9"])


def _servers_running_a_job() -> int:
    """How many fio servers of fleet load have a job under way (a process forked below them,
    which a server forks for each job it is sent)."""
    servers, parents = set(), {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        if b"--server=sock:/tmp/ssdlab-fio-" in argv:
            servers.add(int(entry.name))
    top = {pid for pid in servers if parents.get(pid) not in servers}
    return len({parents[pid] for pid in servers - top if parents.get(pid) in top})


def _fio_servers_running(lab: FleetLab) -> list[str]:
    """Command lines of fio servers started by fleet load on this lab's nodes (processes in
    its namespaces: another suite's loads on the same machine are not this test's)."""
    found = []
    for host in lab.hosts:
        listed = subprocess.run(
            ["ip", "netns", "pids", host.namespace], capture_output=True, text=True, check=False
        )
        for pid in listed.stdout.split():
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            words = [word.decode("utf-8", "replace") for word in argv if word]
            if any(word.startswith("--server=sock:/tmp/ssdlab-fio-") for word in words):
                found.append(" ".join(words))
    return found


def _stored(db: Path, run_id: int) -> tuple[dict[str, Any], list[str], list[str]]:
    """(the hosts finding, step keys, capture argvs) of a stored run."""
    conn = sqlite3.connect(db)
    try:
        body = conn.execute(
            "SELECT body_json FROM findings WHERE run_id = ? AND name = 'fleet-load-hosts'",
            (run_id,),
        ).fetchone()[0]
        keys = [
            str(row[0])
            for row in conn.execute(
                "SELECT step_key FROM step_results WHERE run_id = ? ORDER BY id", (run_id,)
            )
        ]
        argvs = [
            str(row[0])
            for row in conn.execute("SELECT argv_json FROM captures WHERE run_id = ?", (run_id,))
        ]
    finally:
        conn.close()
    return json.loads(body), keys, argvs


def _assert_nothing_left(lab: FleetLab, finding: dict[str, Any], argvs: list[str]) -> None:
    assert _fio_servers_running(lab) == []
    (argv,) = [json.loads(text) for text in argvs]
    folder = Path(argv[-1]).parent  # the client's job file is in the load's private folder
    assert folder.name.startswith("ssdlab-load-")
    assert not folder.exists()
    sockets = finding["server_sockets"]
    assert sockets
    for remote in sockets.values():
        assert remote.startswith("/tmp/ssdlab-fio-")
        assert not os.path.lexists(os.path.dirname(remote))


def test_load_runs_on_every_node_through_forwarded_sockets(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    inventory = _inventory(
        fleet_lab, tmp_path, dict.fromkeys(("node1", "node2", "node3"), str(target))
    )
    db = tmp_path / "central.db"
    job = _job(tmp_path, target / "load.dat", runtime_s=3)
    done = _fleet_load(str(inventory), str(job), "--json", "--db", str(db))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["status"] == "complete"
    assert document["ran_on"] == ["node1", "node2", "node3"]
    assert document["left_out"] == []
    assert [host["host"] for host in document["hosts"]] == ["node1", "node2", "node3"]
    for host in document["hosts"]:
        assert host["direction"] == "mix"
        assert host["read"]["iops"] > 0
        assert host["write"]["iops"] > 0
    total = document["all_hosts"]
    assert total["host"] == "all-hosts"
    for direction in ("read", "write"):  # fio's sums: all I/O over the longest runtime
        parts = [host[direction] for host in document["hosts"]]
        assert total[direction]["io_bytes"] == sum(part["io_bytes"] for part in parts)
        ios = sum(part["total_ios"] for part in parts)
        longest = max(part["runtime_s"] for part in parts)
        assert total[direction]["iops"] == pytest.approx(ios / longest, rel=1e-6)

    finding, keys, argvs = _stored(db, document["run_id"])
    assert keys == ["node1", "node2", "node3", "all-hosts"]
    (argv,) = [json.loads(text) for text in argvs]
    clients = [word for word in argv if word.startswith("--client=")]
    # relative to the client's folder, where it writes the logs the servers send
    assert clients == [f"--client=sock:{n}.sock" for n in range(3)]
    assert set(finding["fio_versions"].values()) == {document["fio_version"]}
    _assert_nothing_left(fleet_lab, finding, argvs)
    _check_all_hosts_latency(document, db)

    run = str(document["run_id"])
    listed = _ssdlab("runs", "--json", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["runs"][0]["kind"] == "fleet-load"
    for command in (
        ("show", run),
        ("show", run, "--json"),
        ("export", run, "--format", "json"),
    ):
        shown = _ssdlab(*command, "--db", str(db))
        assert shown.returncode == 0, (command, shown.stderr)
        assert "node1" in shown.stdout


def test_a_node_whose_target_is_not_its_own_is_left_out(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    elsewhere = tmp_path / "elsewhere"
    target.mkdir()
    elsewhere.mkdir()
    targets = {"node1": str(target), "node2": str(target), "node3": str(elsewhere)}
    inventory = _inventory(fleet_lab, tmp_path, targets)
    db = tmp_path / "central.db"
    done = _fleet_load(
        str(inventory), str(_job(tmp_path, target / "load.dat")), "--json", "--db", str(db)
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["ran_on"] == ["node1", "node2"]
    (left,) = document["left_out"]
    assert left["host"] == "node3"
    assert "ssdlab_targets" in left["reason"]
    finding, keys, argvs = _stored(db, document["run_id"])
    assert keys == ["node1", "node2", "all-hosts"]
    assert "node3" in finding["left_out"]
    _assert_nothing_left(fleet_lab, finding, argvs)


def test_a_node_with_another_fio_version_refuses_the_load(
    fleet_lab: FleetLab, tmp_path: Path, fake_fio_dir: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    path = f"{fake_fio_dir}:/usr/sbin:/usr/bin:/sbin:/bin"
    other = {"node2": {"ssdlab_command": shlex.join(["env", f"PATH={path}", *SSDLAB])}}
    inventory = _inventory(
        fleet_lab, tmp_path, dict.fromkeys(("node1", "node2", "node3"), str(target)), extra=other
    )
    db = tmp_path / "central.db"
    done = _fleet_load(str(inventory), str(_job(tmp_path, target / "load.dat")), "--db", str(db))
    assert done.returncode != 0
    assert "fio versions differ" in done.stderr
    assert "node2 fio-3.35" in done.stderr
    assert "fio-3.35" in done.stdout  # the table of versions
    assert not db.exists()
    assert _fio_servers_running(fleet_lab) == []


def test_a_server_that_cannot_start_fails_the_load_and_leaves_nothing(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    planted = tmp_path / "planted"
    planted.mkdir()
    inventory = _inventory(
        fleet_lab, tmp_path, dict.fromkeys(("node1", "node2", "node3"), str(target))
    )
    db = tmp_path / "central.db"
    job = _job(tmp_path, target / "load.dat")
    server = f"sock:{planted}/fio.sock"
    done = _fleet_load(
        str(inventory), str(job), "--limit", "node1", "--server", server, "--db", str(db)
    )
    assert done.returncode == 1
    assert "exists already" in done.stderr
    conn = sqlite3.connect(db)
    try:
        (status, reason) = conn.execute("SELECT status, status_reason FROM runs").fetchone()
    finally:
        conn.close()
    assert status == "failed"
    assert "no fio server started" in reason
    assert list(planted.iterdir()) == []
    assert not (target / "load.dat").exists()
    assert _fio_servers_running(fleet_lab) == []


def _marker_command(marker: Path) -> str:
    """An ssdlab_command that only leaves a mark: it shows whether a node was contacted."""
    code = f"import pathlib; pathlib.Path({str(marker)!r}).touch()"
    return shlex.join([sys.executable, "-c", code])


def test_a_job_with_exec_prerun_is_refused_before_any_node_is_contacted(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    marker = tmp_path / "contacted"
    target = tmp_path / "target"
    inventory = _inventory(
        fleet_lab,
        tmp_path,
        dict.fromkeys(("node1", "node2", "node3"), str(target)),
        _marker_command(marker),
    )
    job = _job(tmp_path, target / "load.dat", "exec_prerun=/bin/touch /tmp/pwned\n")
    db = tmp_path / "central.db"
    done = _fleet_load(str(inventory), str(job), "--db", str(db))
    assert done.returncode != 0
    assert "line 12" in done.stderr
    assert "exec_prerun" in done.stderr
    assert not marker.exists()
    assert not db.exists()


@pytest.mark.parametrize(
    "server", ["tcp:127.0.0.1,8765", "ip:0.0.0.0,8765", "10.0.0.1,8765", ",8765"]
)
def test_a_tcp_server_is_refused(fleet_lab: FleetLab, tmp_path: Path, server: str) -> None:
    marker = tmp_path / "contacted"
    target = tmp_path / "target"
    inventory = _inventory(
        fleet_lab,
        tmp_path,
        dict.fromkeys(("node1", "node2", "node3"), str(target)),
        _marker_command(marker),
    )
    done = _fleet_load(str(inventory), str(_job(tmp_path, target / "load.dat")), "--server", server)
    assert done.returncode == 2
    assert "never exposed on a network port" in done.stderr
    assert not marker.exists()


def _fio_server_on(socket: Path) -> "subprocess.Popen[str]":
    return subprocess.Popen(
        [*SSDLAB, "node", "fio-server", "--socket", str(socket)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_node_fio_server_lives_as_long_as_its_stdin(tmp_path: Path) -> None:
    socket = tmp_path / "new" / "fio.sock"
    with _fio_server_on(socket) as server:
        assert server.stdout is not None
        line = json.loads(server.stdout.readline())
        assert line["socket"] == str(socket)
        assert line["fio_version"].startswith("fio-")
        assert socket.is_socket()
        assert (socket.parent.stat().st_mode & 0o777) == 0o700
        _rest, stderr = server.communicate(timeout=HANG_S)  # stdin closed: the end
    assert server.returncode == 0, stderr
    assert not socket.parent.exists()


def test_node_fio_server_refuses_a_folder_that_exists(tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "fio.sock").symlink_to("/etc/passwd")
    done = subprocess.run(
        [*SSDLAB, "node", "fio-server", "--socket", str(planted / "fio.sock")],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "exists already" in done.stderr
    assert (planted / "fio.sock").is_symlink()


def test_ctrl_c_stops_every_server_and_keeps_the_run(fleet_lab: FleetLab, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    inventory = _inventory(
        fleet_lab, tmp_path, dict.fromkeys(("node1", "node2", "node3"), str(target))
    )
    job = tmp_path / "long.fio"
    job.write_text(JOB.format(file=target / "load.dat").replace("runtime=1", "runtime=120"))
    db = tmp_path / "central.db"
    load = subprocess.Popen(
        [*SSDLAB, "fleet", "load", str(inventory), str(job), "--db", str(db)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while _servers_running_a_job() < 3 or not (target / "load.dat").exists():
            assert load.poll() is None, load.communicate()  # every node runs the job
            time.sleep(0.2)
    finally:
        load.send_signal(signal.SIGINT)
    _stdout, stderr = load.communicate(timeout=HANG_S)
    assert load.returncode == 130, stderr
    conn = sqlite3.connect(db)
    try:
        (status,) = conn.execute("SELECT status FROM runs").fetchone()
    finally:
        conn.close()
    assert status == "interrupted"
    finding, keys, argvs = _stored(db, 1)
    assert keys == []  # cut short: not counted…
    assert len(argvs) == 1  # …but fio's output is kept
    _assert_nothing_left(fleet_lab, finding, argvs)
