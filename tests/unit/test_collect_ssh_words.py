"""The ssh command lines Ansible builds for `fleet collect`: the inventory's own ssh arguments
come before Ansible's ConnectTimeout, Port and User, so they win as they do in ssdlab's own
ssh commands (ssh takes the first value it is given). Ansible runs for real; only `ssh` is a
stand-in that records its arguments and answers as an unreachable host does."""

import itertools
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from ssdlab.fleet.collect import fetch_exports
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ssh import SshSettings

pytest.importorskip("ansible")

RECORDER = """#!{python}
import json, sys
with open({log!r}, "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
sys.stderr.write("ssh: connect to host 192.0.2.1 port 22: Connection timed out\\r\\n")
sys.exit(255)
"""


def first_option(argv: list[str], name: str) -> str | None:
    """The value ssh would take for `-o name=…`: the first one on its command line."""
    for word, following in itertools.pairwise(argv):
        if word == "-o" and following.lower().startswith(name.lower() + "="):
            return following.split("=", 1)[1]
    return None


def test_the_inventorys_connect_timeout_wins_over_ssdlabs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ssh.log"
    fake = bin_dir / "ssh"
    fake.write_text(RECORDER.format(python=sys.executable, log=str(log)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    hosts = [
        FleetHost(
            "node1",
            "192.0.2.1",
            port=2222,
            user="lab",
            ssh_args=("-o", "ConnectTimeout=3", "-o", "Port=2200"),
        ),
        FleetHost("node2", "192.0.2.2"),
    ]
    folder = tmp_path / "exports"
    folder.mkdir()
    settings = SshSettings(connect_timeout_s=17)

    fetched = fetch_exports(hosts, {"node1": [], "node2": []}, folder, settings)

    assert all(path is None for path, _ in fetched.values())
    assert "ssh failed" in (fetched["node1"][1].problem or "")
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    node1 = next(argv for argv in calls if "192.0.2.1" in argv)
    node2 = next(argv for argv in calls if "192.0.2.2" in argv)
    assert first_option(node1, "ConnectTimeout") == "3"
    assert first_option(node1, "Port") == "2200"
    assert first_option(node1, "BatchMode") == "yes"
    assert first_option(node2, "ConnectTimeout") == "17"
    assert not (tmp_path / "home").exists()
