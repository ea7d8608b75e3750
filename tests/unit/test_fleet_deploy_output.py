"""fleet deploy's table, notes and JSON document, from a made-up report."""

import json
from pathlib import Path

from rich.console import Console

from ssdlab.cli.fleet_deploy import print_report
from ssdlab.fleet.deploy import FAILED, INSTALLED, UP_TO_DATE, DeployReport, HostDeploy
from ssdlab.fleet.deploy_document import deploy_document
from ssdlab.fleet.deploy_plan import MissingTool
from ssdlab.system.wheels import WheelSet

VENV = "/root/.local/share/ssdlab/venv"


def _report(tmp_path: Path) -> DeployReport:
    own = tmp_path / "ssdlab-0.1.0-py3-none-any.whl"
    pip = tmp_path / "pip-26.3-py3-none-any.whl"
    for path in (own, pip):
        path.write_bytes(b"x" * 1024)
    wheels = WheelSet((own, pip), own, pip, "0.1.0", "tree-abc", cached=True, seconds=0.02)
    hosts = (
        HostDeploy(
            "node1",
            INSTALLED,
            VENV,
            version="0.1.0",
            missing=(MissingTool("fio", "fio"), MissingTool("nvme", "nvme-cli")),
            is_root=True,
            ssdlab_command="ssdlab_command=~/.local/share/ssdlab/venv/bin/ssdlab",
            copied_bytes=2048,
            seconds={"probe": 0.4, "install": 10.0},
        ),
        HostDeploy("node2", UP_TO_DATE, VENV, version="0.1.0", is_root=False),
        HostDeploy("node3", FAILED, None, reason="unreachable: ssh failed: timed out"),
    )
    return DeployReport("0.1.0", "tree-abc", wheels, hosts)


def test_table_and_notes_name_state_tools_and_command(tmp_path: Path) -> None:
    console = Console(record=True, width=200)
    print_report(console, _report(tmp_path))
    text = console.export_text()
    assert "│ node1 │ installed  │ 0.1.0  │ fio, nvme     │ yes  │" in text
    assert "│ node2 │ up to date │ 0.1.0  │ none          │ no   │" in text
    assert "node1: lacks fio, nvme: apt-get install fio nvme-cli" in text
    assert (
        "node1: in the inventory, set ssdlab_command=~/.local/share/ssdlab/venv/bin/ssdlab" in text
    )
    assert "node3: failed: unreachable: ssh failed: timed out" in text
    assert "wheels: 2 files, 0.0 MiB (from the cache" in text


def test_document_gives_each_host_as_the_table_does(tmp_path: Path) -> None:
    document = json.loads(json.dumps(deploy_document(_report(tmp_path))))
    assert document["format"] == "ssdlab-fleet-deploy"
    node1, node2, node3 = document["hosts"]
    assert node1["missing_tools"] == [
        {"tool": "fio", "package": "fio"},
        {"tool": "nvme", "package": "nvme-cli"},
    ]
    assert node1["install_tools"] == "apt-get install fio nvme-cli"
    assert node2["state"] == "up to date"
    assert node3["reason"] == "unreachable: ssh failed: timed out"
    assert document["wheels"]["files"] == [
        "ssdlab-0.1.0-py3-none-any.whl",
        "pip-26.3-py3-none-any.whl",
    ]
