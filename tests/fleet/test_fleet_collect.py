"""`ssdlab fleet collect` through Ansible (the collection's collect playbook) on the namespaced
hosts: a host that is down is reported in its row while the others are collected, a host
that sends runs of another host is refused, a host named `../x` writes nothing outside
collect's folder, and nothing of Ansible's is left in the seat's home or temporary folder."""

import json
import shlex
import shutil
import tempfile
from pathlib import Path

import pytest

from ssdlab.store.db import open_store
from tests.e2e.conftest import run_ssdlab
from tests.fleet.hosts import FleetLab
from tests.fleet.test_fleet_run import central_runs, node_command

pytest.importorskip("ansible")

OLD_STORE = Path(__file__).resolve().parents[1] / "data" / "store" / "main-98b38bc.sqlite"
RUNS = 14  # the runs the old store holds


def _node_store(path: Path, like: Path | None = None) -> Path:
    """A node's store holding the old store's runs, migrated (which gives them UUIDs of their
    own); with `like`, a copy of that node's store (its runs under the same UUIDs)."""
    path.parent.mkdir(parents=True)
    shutil.copyfile(like or OLD_STORE, path)
    open_store(path).close()
    return path


def _inventory(fleet_lab: FleetLab, folder: Path, names: dict[str, int]) -> Path:
    """A YAML inventory of the hosts `names` (inventory name → which lab node it is), each
    with its own store of the old store's runs; the third's runs are the first's."""
    lines = ["all:", "  hosts:"]
    stores: list[Path] = []
    for name, index in names.items():
        like = stores[0] if index == 2 else None
        stores.append(_node_store(folder / f"node{index}" / "ssdlab.db", like))
        host = fleet_lab.hosts[index]
        values = {
            "ansible_host": host.address,
            "ansible_port": host.port,
            "ansible_user": "root",
            "ansible_ssh_common_args": shlex.join(["-F", str(fleet_lab.ssh_config)]),
            "ssdlab_db": str(stores[-1]),
            "ssdlab_command": node_command(),
        }
        lines.append(f"    {json.dumps(name)}:")
        lines += [f"      {key}: {json.dumps(value)}" for key, value in values.items()]
    path = folder / "lab.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_host_that_is_down_is_reported_while_the_others_are_collected(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    inventory = _inventory(fleet_lab, tmp_path, {"node1": 0, "node2": 1, "../x": 2})
    central = tmp_path / "central.db"
    home = tmp_path / "no-home"
    # short: ssh's control sockets go below it, and a unix socket's path has 108 bytes
    scratch = Path(tempfile.mkdtemp(prefix="ssdlab-t-"))
    listing = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    with fleet_lab.partitioned(fleet_lab.hosts[1]):
        done = run_ssdlab(
            "fleet", "collect", str(inventory), "--db", str(central), "--json",
            "--connect-timeout", "2",
            env={"HOME": str(home), "TMPDIR": str(scratch)},
            timeout=300,
        )  # fmt: skip
    assert done.code == 1, done.stderr  # node2 is down, ../x sent node1's runs
    hosts = {row["host"]: row for row in json.loads(done.stdout)["hosts"]}
    assert list(hosts) == ["node1", "node2", "../x"]
    assert len(hosts["node1"]["added"]) == RUNS, hosts
    assert hosts["node1"]["problem"] is None
    assert hosts["node2"]["added"] == []
    assert "ssh failed" in hosts["node2"]["problem"]
    # the same UUIDs from another host: refused, node1's runs left as they were
    assert hosts["../x"]["added"] == []
    assert len(hosts["../x"]["refused"]) == RUNS
    assert sorted({run["host"] for run in central_runs(central)}) == ["node1"]
    # the exports arrived inside collect's own folder, removed afterwards; Ansible wrote
    # nothing in the seat's home and left nothing in its temporary folder
    assert not home.exists()
    assert list(scratch.iterdir()) == []
    scratch.rmdir()
    created = {p for p in tmp_path.rglob("*") if p.is_file()} - set(listing)
    assert all(p.parent.name.startswith("node") or p.name.startswith("central") for p in created)
    assert not (tmp_path.parent / "x").exists()

    again = run_ssdlab(
        "fleet", "collect", str(inventory), "--db", str(central), "--json", "--limit", "node*"
    )
    assert again.code == 0, again.stderr
    rows = {row["host"]: row for row in json.loads(again.stdout)["hosts"]}
    assert rows["node1"]["added"] == []
    assert len(rows["node2"]["added"]) == RUNS
