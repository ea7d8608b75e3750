"""Reading an Ansible inventory writes nothing under $HOME (ansible-core made ~/.ansible/tmp,
and the missing parents of HOME, at import) and works with a HOME that is missing or a file;
Ansible's settings do not outlive the read (issue #32). Run in a fresh Python each: ansible-core
reads its settings once, when first imported."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.system.inventory import read_inventory
from tests.conftest import ROOT

pytest.importorskip("ansible")

INVENTORY = "[rack1]\nnode1 ansible_host=10.0.0.2 ssdlab_targets=/dev/sdb\n"
READ = (
    "import sys; from pathlib import Path; from ssdlab.system.inventory import read_inventory;"
    "print(*(h.address for h in read_inventory(Path(sys.argv[1]))))"
)


def _inventory(tmp_path: Path) -> Path:
    path = tmp_path / "lab.ini"
    path.write_text(INVENTORY)
    return path


def _python(home: Path, *argv: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """`python argv…` with HOME at `home` and none of the caller's Ansible settings (only
    `settings`)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("ANSIBLE_")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT / "src"), **settings)
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, timeout=120
    )


def _homes(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "empty").mkdir()
    (tmp_path / "a-file").write_text("")
    return {
        "empty": tmp_path / "empty",
        "missing": tmp_path / "missing" / "home",
        "a file": tmp_path / "a-file",
    }


@pytest.mark.parametrize("kind", ["empty", "missing", "a file"])
def test_reading_an_inventory_writes_nothing_under_home(tmp_path: Path, kind: str) -> None:
    home = _homes(tmp_path)[kind]
    done = _python(home, "-c", READ, str(_inventory(tmp_path)))
    assert (done.returncode, done.stdout.strip()) == (0, "10.0.0.2"), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["lab.ini", "empty", "a-file"]
    )  # no missing/ made
    assert list((tmp_path / "empty").iterdir()) == []
    assert (tmp_path / "a-file").read_text() == ""


@pytest.mark.parametrize("kind", ["empty", "missing", "a file"])
def test_fleet_reads_the_inventory_whatever_home_is_without_a_traceback(
    tmp_path: Path, kind: str
) -> None:
    home = _homes(tmp_path)[kind]
    inventory = _inventory(tmp_path)
    done = _python(home, "-m", "ssdlab", "fleet", "status", str(inventory), "--limit", "nomatch")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"ssdlab: error: the inventory {inventory} lists no host matching 'nomatch'"
    assert not (tmp_path / "missing").exists()
    assert list((tmp_path / "empty").iterdir()) == []


def test_broken_ansible_settings_are_one_line_not_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "ansible.cfg"
    config.write_text("not a section\n")
    inventory = _inventory(tmp_path)
    argv = ["-m", "ssdlab", "fleet", "status", str(inventory)]
    done = _python(_homes(tmp_path)["empty"], *argv, ANSIBLE_CONFIG=str(config))
    assert done.returncode == 1
    assert done.stderr.startswith("ssdlab: error: Ansible cannot start"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_ansible_settings_do_not_outlive_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ssh and ssdlab processes started after the read see the user's environment."""
    for name in [n for n in os.environ if n.startswith("ANSIBLE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ANSIBLE_INVENTORY_ENABLED", "ini,yaml")
    read_inventory(_inventory(tmp_path))
    ansible = {name: value for name, value in os.environ.items() if name.startswith("ANSIBLE_")}
    assert ansible == {"ANSIBLE_INVENTORY_ENABLED": "ini,yaml"}
