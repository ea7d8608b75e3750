"""A hostile node against `ssdlab fleet load`: its fio server orders the seat's fio client to
send it a file of the seat and to write a file where the node chooses (fio 3.33's SENDFILE and
IOLOG, which fio's client obeys unchecked). The seat runs its client confined
(system/sandbox.py), so the node gets "no such file" and the planted file stays in a tmpfs that
is gone with the client. The first test shows the same server wins against an unconfined
client: the attack is real, and the second test would fail without the confinement."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

from tests.abuse.hostile_fio_server import HostileServer
from tests.conftest import HANG_S, needs_fio
from tests.fleet.hosts import FleetLab

pytestmark = needs_fio

HOSTILE_NODE = Path(__file__).resolve().parents[1] / "abuse" / "hostile_node.py"
SECRET = "the seat's private key\n"
JOB = "[load]\nioengine=psync\nsize=1m\nrw=read\nfilename={file}\n"
ENOENT = 2
LOAD_ARGS = ("--json", "--db")


def test_the_attack_wins_against_an_unconfined_fio_client(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET, encoding="utf-8")
    folder, outside = tmp_path / "load", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "job.fio").write_text(JOB.format(file="/dev/null"), encoding="utf-8")
    with HostileServer(folder / "0.sock", str(secret), str(outside / "planted"), b"x\n") as server:
        subprocess.run(
            ["fio", "--output-format=json", "--client=sock:0.sock", "job.fio"],
            cwd=folder,
            capture_output=True,
            check=False,
            timeout=HANG_S,
        )
    assert server.loot.error == 0
    assert server.loot.data == SECRET.encode()  # the seat's file, sent to the node
    assert (outside / "planted.0.sock").read_bytes() == b"x\n"  # written where the node chose


def test_a_hostile_node_gets_nothing_from_fleet_load(fleet_lab: FleetLab, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    loot = tmp_path / "loot.json"
    target = tmp_path / "target"
    target.mkdir()
    words = [sys.executable, str(HOSTILE_NODE), str(secret), str(outside / "planted"), str(loot)]
    host_vars = {"node1": {"ssdlab_targets": str(target), "ssdlab_db": str(tmp_path / "n.db")}}
    inventory = fleet_lab.write_inventory_ini(
        tmp_path / "lab.ini",
        host_vars=host_vars,
        group_vars={"ssdlab_command": shlex.join(words)},
        hosts=[fleet_lab.host("node1")],
    )
    job = tmp_path / "load.fio"
    job.write_text(JOB.format(file=target / "load.dat"), encoding="utf-8")
    db = tmp_path / "central.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ssdlab",
            "fleet",
            "load",
            str(inventory),
            str(job),
            *LOAD_ARGS,
            str(db),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr
    assert loot.exists(), (done.returncode, done.stdout, done.stderr)
    taken = json.loads(loot.read_text(encoding="utf-8"))
    assert 21 in taken["opcodes"]  # the client did answer the SENDFILE...
    assert taken["error"] == ENOENT  # ...that the file does not exist, where it runs
    assert taken["data"] is None
    assert sorted(p.name for p in outside.iterdir()) == []  # nothing planted on the seat
    assert secret.read_text(encoding="utf-8") == SECRET
    document = json.loads(done.stdout)  # the run is kept, failed: the server sent no job
    assert done.returncode != 0
    assert document["status"] == "failed"
    assert document["ran_on"] == ["node1"]
    runs = subprocess.run(
        [sys.executable, "-m", "ssdlab", "runs", "--json", "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_S,
    )
    (run,) = json.loads(runs.stdout)["runs"]
    assert (run["kind"], run["status"]) == ("fleet-load", "failed")
