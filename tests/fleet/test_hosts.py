"""The fleet tests' lab nodes themselves: real sshds in their own network namespaces, real host
key checking, a partition that cuts one node only, an Ansible inventory Ansible reads, nothing
left behind, and a node with another fio version."""

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S
from tests.fleet.hosts import (
    CONNECT_TIMEOUT_S,
    FleetLab,
    TestHost,
    make_fake_fio,
    start_hosts,
    sweep_stale,
)

# a bound on an ssh that must fail by its ConnectTimeout, generous for a loaded machine
SSH_FAILS_WITHIN_S = CONNECT_TIMEOUT_S + 600
NODE_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def _net_namespace_of_ssh(lab: FleetLab, host: TestHost) -> str:
    done = lab.ssh(host, ["readlink", "/proc/self/ns/net"])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_three_nodes_with_their_own_names_and_addresses(fleet_lab: FleetLab) -> None:
    assert [host.name for host in fleet_lab.hosts] == ["node1", "node2", "node3"]
    assert len({host.address for host in fleet_lab.hosts}) == 3
    assert len({host.namespace for host in fleet_lab.hosts}) == 3


@pytest.mark.parametrize("index", [0, 1, 2])
def test_ssh_runs_the_command_inside_the_nodes_namespace(fleet_lab: FleetLab, index: int) -> None:
    host = fleet_lab.hosts[index]
    inside = fleet_lab.run_in(host, ["readlink", "/proc/self/ns/net"])
    assert inside.returncode == 0, inside.stderr
    assert _net_namespace_of_ssh(fleet_lab, host) == inside.stdout.strip()


@pytest.mark.parametrize("index", [0, 1, 2])
def test_ssh_lands_on_a_machine_with_the_nodes_address(fleet_lab: FleetLab, index: int) -> None:
    host = fleet_lab.hosts[index]
    done = fleet_lab.ssh(host, ["ip", "-o", "-4", "addr", "show"])
    assert done.returncode == 0, done.stderr
    assert f"inet {host.address}/30" in done.stdout
    others = [other.address for other in fleet_lab.hosts if other is not host]
    assert not any(f"inet {address}/" in done.stdout for address in others)


def test_the_namespace_is_not_this_machines_own(fleet_lab: FleetLab) -> None:
    own = os.readlink("/proc/self/ns/net")
    assert _net_namespace_of_ssh(fleet_lab, fleet_lab.hosts[0]) != own


def test_a_node_cannot_reach_the_outside(fleet_lab: FleetLab) -> None:
    done = fleet_lab.run_in(fleet_lab.hosts[0], ["ip", "-4", "route", "show"])
    assert "default" not in done.stdout


def _wrong_known_hosts(lab: FleetLab, tmp_path: Path) -> Path:
    key = tmp_path / "other_key"
    argv = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)]
    subprocess.run(argv, check=True, capture_output=True)
    public = Path(f"{key}.pub").read_text(encoding="utf-8").split()
    path = tmp_path / "wrong_known_hosts"
    path.write_text(
        "".join(f"{host.address} {public[0]} {public[1]}\n" for host in lab.hosts),
        encoding="utf-8",
    )
    return path


def _ssh_with_known_hosts(lab: FleetLab, known_hosts: Path) -> "subprocess.CompletedProcess[str]":
    argv = ["ssh", "-F", str(lab.ssh_config), "-o", f"UserKnownHostsFile={known_hosts}"]
    return subprocess.run(
        [*argv, "--", lab.hosts[0].name, "true"],
        capture_output=True,
        text=True,
        check=False,
        timeout=SSH_FAILS_WITHIN_S,
        stdin=subprocess.DEVNULL,
    )


def test_a_wrong_host_key_is_refused(fleet_lab: FleetLab, tmp_path: Path) -> None:
    done = _ssh_with_known_hosts(fleet_lab, _wrong_known_hosts(fleet_lab, tmp_path))
    assert done.returncode == 255
    assert "Host key verification failed" in done.stderr


def test_an_unknown_host_key_is_refused(fleet_lab: FleetLab, tmp_path: Path) -> None:
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("", encoding="utf-8")
    done = _ssh_with_known_hosts(fleet_lab, empty)
    assert done.returncode == 255
    assert "Host key verification failed" in done.stderr
    assert empty.read_text(encoding="utf-8") == ""  # nothing learnt on first use


def test_the_lab_known_hosts_holds_each_nodes_own_key(fleet_lab: FleetLab) -> None:
    lines = fleet_lab.known_hosts.read_text(encoding="utf-8").splitlines()
    keys = {line.split()[0]: line.split()[2] for line in lines}
    assert sorted(keys) == sorted(host.address for host in fleet_lab.hosts)
    assert len(set(keys.values())) == 3


@pytest.mark.slow
def test_a_cut_node_is_unreachable_and_the_others_are_not(fleet_lab: FleetLab) -> None:
    cut = fleet_lab.hosts[1]
    with fleet_lab.partitioned(cut):
        refused = fleet_lab.ssh(cut, ["true"], timeout_s=SSH_FAILS_WITHIN_S)
        assert refused.returncode == 255
        assert "timed out" in refused.stderr
        for host in (fleet_lab.hosts[0], fleet_lab.hosts[2]):
            done = fleet_lab.ssh(host, ["true"])
            assert done.returncode == 0, f"{host.name}: {done.stderr}"
        # the packets stay on the lab's link: they are dropped, never routed elsewhere
        route = subprocess.run(["ip", "route", "get", cut.address], capture_output=True, text=True)
        assert f"dev {cut.host_veth} " in route.stdout
    done = fleet_lab.ssh(cut, ["true"])
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_cut_node_keeps_running_what_it_runs(fleet_lab: FleetLab, tmp_path: Path) -> None:
    host = fleet_lab.hosts[2]
    marker = tmp_path / "written-while-cut"
    with fleet_lab.partitioned(host):
        wrote = fleet_lab.run_in(host, ["touch", str(marker)])
        assert wrote.returncode == 0, wrote.stderr
        refused = fleet_lab.ssh(host, ["true"], timeout_s=SSH_FAILS_WITHIN_S)
        assert refused.returncode == 255
    assert marker.exists()


def test_close_leaves_no_namespace_veth_route_or_sshd(tmp_path: Path) -> None:
    lab = start_hosts(2, tmp_path / "lab")
    pids = [lab.sshd_pid(host) for host in lab.hosts]
    names = [host.namespace for host in lab.hosts]
    veths = [host.host_veth for host in lab.hosts]
    subnet = f"10.237.{lab.subnet}."
    lab.close()
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    routes = subprocess.run(["ip", "-4", "route", "show"], capture_output=True, text=True).stdout
    assert not [name for name in names if name in namespaces.split()]
    assert not [veth for veth in veths if f" {veth}@" in links or f" {veth}:" in links]
    assert subnet not in routes
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def test_close_twice_is_harmless(tmp_path: Path) -> None:
    lab = start_hosts(1, tmp_path / "lab")
    lab.close()
    lab.close()
    assert lab.closed


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_sweep_removes_what_a_dead_test_process_left() -> None:
    dead = _dead_pid()
    namespace = f"ssdlab-t{dead}-1"
    veth = f"ssdt{dead}h1"
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    subprocess.run(
        ["ip", "link", "add", veth, "type", "veth", "peer", "name", f"ssdt{dead}n1"],
        check=True,
    )
    subprocess.run(["ip", "link", "set", f"ssdt{dead}n1", "netns", namespace], check=True)
    left = subprocess.Popen(["ip", "netns", "exec", namespace, "sleep", "600"])
    try:
        removed = sweep_stale()
        assert left.wait(timeout=HANG_S) == -9
    finally:
        left.kill()
        left.wait()
        subprocess.run(["ip", "link", "del", veth], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
    assert namespace in removed
    assert veth in removed
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    assert f" {veth}@" not in links


def test_sweep_leaves_what_a_live_process_made() -> None:
    alive = subprocess.Popen(["sleep", "600"])
    namespace = f"ssdlab-t{alive.pid}-1"
    try:
        subprocess.run(["ip", "netns", "add", namespace], check=True)
        removed = sweep_stale()
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
        alive.kill()
        alive.wait()
    assert namespace not in removed
    assert namespace in listed.split()


def test_sweep_leaves_other_namespaces_alone() -> None:
    namespace = f"other-{os.getpid()}"
    try:
        subprocess.run(["ip", "netns", "add", namespace], check=True)
        sweep_stale()
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
    assert namespace in listed.split()


# --- the inventory, read by Ansible itself -----------------------------------------------------

NODE_VARS = {
    "node1": {"ssdlab_targets": "/dev/loop7,/srv/ssd/file", "ssdlab_db": "/var/lib/x y.db"},
    "node2": {"ssdlab_command": "env PATH=/opt/fake:/usr/bin ssdlab"},
}
GROUP_VARS = {"ssdlab_venv": "/opt/ssdlab venv", "ssdlab_note": "it's plain"}


def _ansible_inventory_program() -> str:
    """ansible-inventory of this virtualenv (ansible-core), else one on PATH."""
    beside = Path(sys.executable).parent / "ansible-inventory"
    found = str(beside) if beside.is_file() else shutil.which("ansible-inventory")
    if found is None:
        pytest.skip("ansible-core is not installed (no ansible-inventory)")
    return found


def _ansible_inventory(path: Path, tmp_path: Path) -> dict[str, Any]:
    """The inventory at `path` as Ansible reads it (ansible-inventory --list)."""
    env = {**os.environ, "ANSIBLE_HOME": str(tmp_path / "ansible"), "ANSIBLE_NOCOLOR": "1"}
    env["ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED"] = "1"
    done = subprocess.run(
        [_ansible_inventory_program(), "-i", str(path), "--list"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    listed: dict[str, Any] = json.loads(done.stdout)
    return listed


WRITERS = ["write_inventory_ini", "write_inventory_yaml"]


def _write(lab: FleetLab, writer: str, tmp_path: Path) -> Path:
    suffix = ".ini" if writer.endswith("ini") else ".yml"
    write = getattr(lab, writer)
    path: Path = write(tmp_path / f"inventory{suffix}", host_vars=NODE_VARS, group_vars=GROUP_VARS)
    return path


@pytest.mark.parametrize("writer", WRITERS)
def test_ansible_reads_the_lab_inventory(fleet_lab: FleetLab, tmp_path: Path, writer: str) -> None:
    listed = _ansible_inventory(_write(fleet_lab, writer, tmp_path), tmp_path)
    assert listed["ssdlab_nodes"]["hosts"] == ["node1", "node2", "node3"]


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_ansible_reads_the_connection_vars(
    fleet_lab: FleetLab, tmp_path: Path, writer: str, index: int
) -> None:
    host = fleet_lab.hosts[index]
    listed = _ansible_inventory(_write(fleet_lab, writer, tmp_path), tmp_path)
    found = listed["_meta"]["hostvars"][host.name]
    expected = {
        "ansible_host": host.address,
        "ansible_port": 22,
        "ansible_user": "root",
        "ansible_ssh_common_args": f"-F {fleet_lab.ssh_config}",
        **NODE_VARS.get(host.name, {}),
        **GROUP_VARS,
    }
    assert found == expected


@pytest.mark.parametrize("writer", WRITERS)
def test_ssh_as_the_inventory_says_reaches_each_node(
    fleet_lab: FleetLab, tmp_path: Path, writer: str
) -> None:
    listed = _ansible_inventory(_write(fleet_lab, writer, tmp_path), tmp_path)
    hostvars = listed["_meta"]["hostvars"]
    reached = {}
    for name, found in hostvars.items():
        argv = ["ssh", *shlex.split(found["ansible_ssh_common_args"])]
        argv += ["-p", str(found["ansible_port"]), "-l", found["ansible_user"]]
        argv += ["--", found["ansible_host"], "ip -o -4 addr show"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_S, check=False)
        reached[name] = f"inet {found['ansible_host']}/30" in done.stdout
    assert reached == {"node1": True, "node2": True, "node3": True}


def test_the_inventory_lists_only_the_hosts_asked_for(fleet_lab: FleetLab, tmp_path: Path) -> None:
    path = fleet_lab.write_inventory_ini(tmp_path / "one.ini", hosts=fleet_lab.hosts[:1])
    listed = _ansible_inventory(path, tmp_path)
    assert listed["ssdlab_nodes"] == {"hosts": ["node1"]}


def test_host_vars_for_a_host_not_in_the_lab_are_refused(
    fleet_lab: FleetLab, tmp_path: Path
) -> None:
    with pytest.raises(KeyError, match="node9"):
        fleet_lab.write_inventory_yaml(tmp_path / "x.yml", host_vars={"node9": {"a": "b"}})


# --- a node with another fio -------------------------------------------------------------------


def _real_fio_version() -> str:
    done = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("with_fake", "expected"), [(True, "fio-3.35"), (False, "real")], ids=["fake", "real"]
)
def test_fio_version_through_ssh(
    fleet_lab: FleetLab, fake_fio_dir: Path, with_fake: bool, expected: str
) -> None:
    path = f"{fake_fio_dir}:{NODE_PATH}" if with_fake else NODE_PATH
    done = fleet_lab.ssh(fleet_lab.hosts[0], ["env", f"PATH={path}", "fio", "--version"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (_real_fio_version() if expected == "real" else expected)


def test_the_fake_fio_runs_the_real_fio(
    fleet_lab: FleetLab, fake_fio_dir: Path, tmp_path: Path
) -> None:
    job = ["fio", "--name=probe", f"--filename={tmp_path / 'probe'}", "--size=64k"]
    job += ["--rw=read", "--ioengine=psync", "--output-format=json"]
    done = fleet_lab.ssh(fleet_lab.hosts[0], ["env", f"PATH={fake_fio_dir}:{NODE_PATH}", *job])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fio version"] == _real_fio_version()


def test_the_fake_fio_is_a_python_program(tmp_path: Path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    path = make_fake_fio(tmp_path, version="fio-9.99")
    assert path.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3\n")
