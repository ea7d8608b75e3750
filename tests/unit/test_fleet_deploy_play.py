"""`fleet deploy` goes through the collection's deploy playbook: what it hands to Ansible (the
play, each host's variables, the wheels' folder with its note) is checked here without a
host, the play itself replaced by a recorder."""

import json
from pathlib import Path

import pytest

from ssdlab.fleet import deploy, play_hosts
from ssdlab.fleet.deploy_steps import StepClock
from ssdlab.fleet.reach import FleetReach
from ssdlab.system.ansible_play import Play, PlayEvent, PlayOutcome

pytest.importorskip("ansible")


def test_deploy_runs_the_deploy_playbook_with_the_wheels_and_each_hosts_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("ssdlab-0.2.0-py3-none-any.whl", "pip-26.3-py3-none-any.whl"):
        (wheels / name).write_bytes(name.encode())
    inventory = tmp_path / "lab.ini"
    inventory.write_text(
        "[lab]\nnode1 ansible_host=10.0.0.1 ssdlab_venv=/opt/v ssdlab_python=python3.12\n"
        "node2 ansible_host=10.0.0.2\n",
        encoding="utf-8",
    )
    seen: list[tuple[Play, dict[str, object]]] = []

    def recorder(
        private: Path, play: Play, on_event: object, *, keep_masters: bool = False
    ) -> PlayOutcome:
        # Ansible's folder is the one the inventory names, and progress comes as events come
        assert not keep_masters  # deploy's one play closes its ssh masters itself
        assert {str(v["ssdlab_seat_tmp"]) for v in play.inventory.values()} == {str(private)}
        assert callable(on_event)
        folder = Path(str(play.inventory["node1"]["ssdlab_wheels"]))
        seen.append((play, json.loads((folder / "ssdlab-wheels.json").read_text())))
        assert sorted(p.name for p in folder.glob("*.whl")) == sorted(
            p.name for p in wheels.glob("*.whl")
        )
        return PlayOutcome(2, None, (), "ERROR! the play stopped\n")

    # the play every fleet command runs through (fleet/play_hosts.py)
    monkeypatch.setattr(play_hosts, "run_play", recorder)
    request = deploy.DeployRequest(FleetReach(inventory, None, 8, 5), wheels=wheels, force=True)
    report = deploy.deploy_fleet(request, lambda _host, _text: None)

    ((play, note),) = seen
    assert play.playbook == "deploy.yml"
    assert play.forks == 2
    assert play.task_timeout_s == deploy.INSTALL_TIMEOUT_S
    assert play.skip_tags == ()
    assert note["version"] == "0.2.0"
    assert note["build"] == report.build
    node1, node2 = play.inventory["node1"], play.inventory["node2"]
    assert node1["ssdlab_venv"] == "/opt/v"
    assert node1["ssdlab_python"] == "python3.12"
    assert node1["ssdlab_force"] is True
    assert node2["ssdlab_venv"] == "~/.local/share/ssdlab/venv"
    assert "ssdlab_python" not in node2
    assert [host.state for host in report.hosts] == ["failed", "failed"]
    assert report.hosts[0].reason == "ansible-playbook exit 2: ERROR! the play stopped"


def test_a_steps_seconds_run_from_the_hosts_previous_result_and_skips_are_left_out() -> None:
    events = [
        PlayEvent(
            "ok", "n1", "ansible.builtin.command", 11.0, "Probe the node's Python and the venv"
        ),
        PlayEvent("ok", "n1", "ansible.builtin.debug", 11.5, "Say what the node's Python is"),
        PlayEvent("skipped", "n1", "ansible.builtin.command", 11.6, "Make the venv, without pip"),
        PlayEvent("ok", "n1", "ssdlab.bench.ssdlab_facts", 13.6, "Read the node's facts"),
    ]
    assert StepClock.seconds(events, 10.0) == {"probe": 1.0, "facts": 2.0}
