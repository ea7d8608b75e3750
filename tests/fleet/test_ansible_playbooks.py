"""The collection's deploy and metrics playbooks end to end with ansible-playbook on a
namespaced host (its own sshd; it shares this machine's filesystem, so its venv, textfile
folder and unit folder are folders of the test's own).

deploy.yml installs ssdlab from the wheels `ssdlab fleet wheels` put in a folder, answers
with the wheels' version, marks the venv as `fleet deploy` does (which then finds it up to
date), and changes nothing the second time. metrics.yml makes node_exporter's textfile
folder, writes ssdlab.prom, and installs the watch unit the node's ssdlab prints for a drive
(systemd is not started here: the hosts share this machine's /etc)."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab import __version__
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab
from tests.fleet.hosts import FleetLab
from tests.fleet.test_ansible_collection import installed, playbook, recap
from tests.fleet.test_fleet_run import make_nodes

pytest.importorskip("ansible")

__all__ = ["installed"]  # the module's fixture: the collection built and installed

DEPLOY_TIMEOUT_S = 900


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[LoopLab]:
    made = LoopLab(tmp_path / "images")
    made.folder.mkdir()
    try:
        yield made
    finally:
        made.undo()


def _node1(fleet_lab: FleetLab, folder: Path, **extra: str) -> Path:
    node = make_nodes(fleet_lab, folder)["node1"]
    node["ansible_python_interpreter"] = sys.executable
    return fleet_lab.write_inventory_ini(
        folder / "lab.ini", {"node1": {**node, **extra}}, hosts=[fleet_lab.host("node1")]
    )


@pytest.mark.slow
def test_deploy_yml_installs_the_seats_wheels_once_and_fleet_deploy_agrees(
    fleet_lab: FleetLab, installed: dict[str, str], tmp_path: Path
) -> None:
    made = run_ssdlab("fleet", "wheels", str(tmp_path / "wheels"), "--json", timeout=600)
    assert made.code == 0, made.stderr
    wheels = json.loads(made.stdout)
    assert wheels["version"] == __version__
    assert any(name.startswith("ssdlab-") for name in wheels["files"])
    assert any(name.startswith("pip-") for name in wheels["files"])
    refused = run_ssdlab("fleet", "wheels", str(tmp_path / "wheels"))
    assert refused.code != 0
    assert "not empty" in refused.stderr

    venv = tmp_path / "node1-venv"
    inventory = _node1(fleet_lab, tmp_path, ssdlab_venv=str(venv))
    extra = {"ssdlab_wheels": wheels["folder"]}
    first = playbook(installed, inventory, "deploy", extra, tmp_path)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    assert recap(first.stdout)["node1"]["changed"] >= 3
    answered = subprocess.run(
        [str(venv / "bin" / "ssdlab"), "--version"], capture_output=True, text=True, check=True
    )
    assert answered.stdout.split()[-1] == __version__
    marker = json.loads((venv / "ssdlab-deploy.json").read_text())
    assert marker == {"build": wheels["build"], "version": __version__}
    copied = sorted(path.name for path in Path(f"{venv}.wheels").glob("*.whl"))
    assert copied == sorted(wheels["files"])
    assert f"ssdlab_command={venv}/bin/ssdlab" in first.stdout

    again = playbook(installed, inventory, "deploy", extra, tmp_path)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert recap(again.stdout)["node1"]["changed"] == 0, again.stdout[-4000:]
    assert "(up to date)" in again.stdout

    checked = run_ssdlab(
        "fleet", "deploy", str(inventory), "--json", "--connect-timeout", "5",
        timeout=DEPLOY_TIMEOUT_S,
    )  # fmt: skip
    assert checked.code == 0, checked.stderr
    document = json.loads(checked.stdout)
    if document["build"] != wheels["build"]:
        pytest.fail("ssdlab's source tree changed during the test (a new build)")
    (host,) = document["hosts"]
    assert host["state"] == "up to date", host


def test_deploy_yml_refuses_a_folder_without_ssdlabs_wheel(
    fleet_lab: FleetLab, installed: dict[str, str], tmp_path: Path
) -> None:
    empty = tmp_path / "wheels"
    empty.mkdir()
    inventory = _node1(fleet_lab, tmp_path, ssdlab_venv=str(tmp_path / "venv"))
    done = playbook(installed, inventory, "deploy", {"ssdlab_wheels": str(empty)}, tmp_path)
    assert done.returncode != 0
    assert "ssdlab fleet wheels DIR" in done.stdout
    assert not (tmp_path / "venv").exists()


@needs_loop
def test_metrics_yml_makes_the_textfile_and_installs_each_drives_watch_once(
    fleet_lab: FleetLab, installed: dict[str, str], loops: LoopLab, tmp_path: Path
) -> None:
    drive = loops.loop().path
    inventory = _node1(fleet_lab, tmp_path)
    extra = {
        "ssdlab_watch": drive,
        "ssdlab_textfile_dir": str(tmp_path / "textfile"),
        "ssdlab_systemd_dir": str(tmp_path / "units"),
        "ssdlab_watch_every": "10m",
        "ssdlab_start_units": False,
    }
    (tmp_path / "units").mkdir()
    first = playbook(installed, inventory, "metrics", extra, tmp_path)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    assert recap(first.stdout)["node1"]["changed"] == 3  # folder, unit, ssdlab.prom
    prom = (tmp_path / "textfile" / "ssdlab.prom").read_text()
    assert "# TYPE ssdlab_drive_info gauge" in prom
    unit = (tmp_path / "units" / f"ssdlab-watch-{Path(drive).name}.service").read_text()
    (exec_start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    db = str(tmp_path / "node1" / "ssdlab.db")
    assert exec_start.endswith(
        f"-m ssdlab watch {drive} --every 10m --textfile {tmp_path / 'textfile'} --db {db}"
    )
    assert "WorkingDirectory=/\n" in unit

    again = playbook(installed, inventory, "metrics", extra, tmp_path)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert recap(again.stdout)["node1"]["changed"] == 0, again.stdout[-4000:]
