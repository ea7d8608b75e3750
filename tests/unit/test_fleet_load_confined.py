"""`fleet load` runs fio's client confined (system/sandbox.py); without bubblewrap it stops
with what to install before any host is contacted."""

import shutil
from pathlib import Path

import pytest

from ssdlab.errors import ToolError
from ssdlab.fleet import load_request
from ssdlab.fleet.load_request import FleetLoadRequest, load_fleet
from ssdlab.fleet.reach import FleetReach
from ssdlab.system import sandbox

JOB = "[load]\nfilename=/srv/ssd/load.bin\nrw=randread\nsize=16MiB\nruntime=2\n"


def test_without_bubblewrap_the_load_stops_before_any_host_is_contacted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if shutil.which("fio") is None:
        pytest.skip("needs fio")
    real_which = shutil.which
    monkeypatch.setattr(
        sandbox.shutil, "which", lambda name: None if name == "bwrap" else real_which(name)
    )
    contacted: list[object] = []

    def check_hosts(*args: object) -> None:
        contacted.append(args)

    monkeypatch.setattr(load_request, "check_hosts", check_hosts)
    inventory = tmp_path / "lab.ini"
    inventory.write_text("[lab]\nnode1 ansible_host=127.0.0.1\n", encoding="utf-8")
    job = tmp_path / "load.fio"
    job.write_text(JOB, encoding="utf-8")
    request = FleetLoadRequest(
        FleetReach(inventory, None, 16, 10), str(job), None, tmp_path / "ssdlab.db"
    )
    with pytest.raises(ToolError) as raised:
        load_fleet(request)
    assert "apt-get install bubblewrap" in str(raised.value)
    assert "fio's client" in str(raised.value)
    assert contacted == []
    assert not (tmp_path / "ssdlab.db").exists()
