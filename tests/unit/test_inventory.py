"""Ansible inventories (INI, YAML, group_vars/) read by ansible-core into fleet hosts."""

from pathlib import Path

import pytest

from ssdlab.errors import FleetError
from ssdlab.model.fleet import FleetHost
from ssdlab.system.inventory import read_inventory

pytest.importorskip("ansible")

INI = """\
[rack1]
node1 ansible_host=10.0.0.2 ansible_port=2222 ssdlab_destroy_data=/dev/sdb
node2 ansible_host=10.0.0.3 ansible_ssh_common_args='-F /etc/lab/ssh_config -o ProxyJump=bastion'

[rack1:vars]
ansible_user=root
ssdlab_targets=/dev/sdb,/mnt/scratch
ssdlab_db=/var/lib/ssdlab/lab.db

[rack2]
node3 ssdlab_command='/opt/ssdlab/bin/ssdlab --quiet' ansible_ssh_private_key_file=/k/id
"""

YAML = """\
all:
  children:
    rack1:
      hosts:
        node1:
          ansible_host: 10.0.0.2
          ansible_port: 2222
          ssdlab_targets: [/dev/sdb, /mnt/scratch]
          ssdlab_destroy_data: [/dev/sdb]
      vars:
        ansible_user: root
"""


def _hosts(tmp_path: Path, name: str, text: str, limit: str | None = None) -> dict[str, FleetHost]:
    path = tmp_path / name
    path.write_text(text)
    return {host.name: host for host in read_inventory(path, limit)}


def test_ini_hosts_carry_connection_and_ssdlab_vars(tmp_path: Path) -> None:
    hosts = _hosts(tmp_path, "lab.ini", INI)
    assert hosts["node1"] == FleetHost(
        name="node1",
        address="10.0.0.2",
        port=2222,
        user="root",
        groups=("rack1",),
        targets=("/dev/sdb", "/mnt/scratch"),
        destroy_data=("/dev/sdb",),
        db="/var/lib/ssdlab/lab.db",
    )


def test_ini_common_args_and_command_are_split_into_words(tmp_path: Path) -> None:
    hosts = _hosts(tmp_path, "lab.ini", INI)
    assert hosts["node2"].ssh_args == ("-F", "/etc/lab/ssh_config", "-o", "ProxyJump=bastion")
    assert hosts["node3"].command == ("/opt/ssdlab/bin/ssdlab", "--quiet")
    assert hosts["node3"].address == "node3"
    assert hosts["node3"].key_file == "/k/id"


def test_limit_is_an_ansible_host_pattern(tmp_path: Path) -> None:
    assert list(_hosts(tmp_path, "lab.ini", INI, "rack1:!node2")) == ["node1"]


def test_yaml_inventory_with_lists(tmp_path: Path) -> None:
    node1 = _hosts(tmp_path, "lab.yml", YAML)["node1"]
    assert node1.targets == ("/dev/sdb", "/mnt/scratch")
    assert node1.destroy_data == ("/dev/sdb",)
    assert node1.user == "root"


def test_group_vars_folder_beside_the_inventory(tmp_path: Path) -> None:
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "rack2.yml").write_text("ssdlab_db: /srv/ssdlab.db\n")
    assert _hosts(tmp_path, "lab.ini", INI)["node3"].db == "/srv/ssdlab.db"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[lab]\nnode1 ssdlab_destroy_data=true\n", "must name the targets"),
        ("[lab]\nnode1 ssdlab_targets=dev/sdb\n", "give absolute paths"),
        ("[lab]\nnode1 ansible_port=abc\n", "ansible_port must be a port number"),
        ("[lab]\nnode1 ssdlab_db='{{ store }}'\n", "does not render templates"),
        ("[lab\nnode1 x=\n", "cannot read the inventory"),
    ],
)
def test_bad_inventories_are_refused_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.ini"
    path.write_text(text)
    with pytest.raises(FleetError, match=message):
        read_inventory(path)


def test_missing_inventory_and_empty_selection(tmp_path: Path) -> None:
    with pytest.raises(FleetError, match="no inventory at"):
        read_inventory(tmp_path / "nope.ini")
    with pytest.raises(FleetError, match="lists no host matching"):
        _hosts(tmp_path, "lab.ini", INI, "rack9")
