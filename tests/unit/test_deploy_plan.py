"""fleet deploy's pure parts: the venv path, the inventory line to advise, pip's answer when
the wheels do not fit the node's Python, the tools the deploy playbook names as missing; and the
wheel folders of system/wheels.py and fleet/wheel_folder.py."""

import json
import os
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from ssdlab.errors import FleetError
from ssdlab.fleet.deploy_plan import (
    DEFAULT_VENV,
    command_advice,
    fit_problem,
    install_hint,
    missing_from,
    venv_path,
)
from ssdlab.fleet.wheel_folder import WHEELS_NOTE, link_wheels
from ssdlab.model.fleet import FleetHost
from ssdlab.system.wheels import given_set, repack

PURE = "rich-15.0.0-py3-none-any.whl"
# captured 2026-11-29: pip 26.3 (run from its wheel) in a venv of Python 3.12.1, `install
# --no-index --find-links DIR DIR/ssdlab-0.1.0-py3-none-any.whl`, DIR holding the cp311 wheels
# `ssdlab fleet wheels` made on this machine; its whole stderr
PIP_UNFIT = (
    "ERROR: Could not find a version that satisfies the requirement scipy>=1.11 (from ssdlab) "
    "(from versions: none)\n"
    "ERROR: No matching distribution found for scipy>=1.11 (from ssdlab)\n"
)


# --- paths and advice --------------------------------------------------------------------------


def test_venv_path_defaults_to_the_users_share_folder() -> None:
    assert venv_path(FleetHost("n1", "n1")) == DEFAULT_VENV


def test_venv_path_is_the_inventorys_without_a_trailing_slash() -> None:
    assert venv_path(FleetHost("n1", "n1", venv="/opt/ssdlab/venv/")) == "/opt/ssdlab/venv"


@pytest.mark.parametrize("bad", ["/", "~", "~/"])
def test_venv_path_refuses_a_root_or_home_folder(bad: str) -> None:
    with pytest.raises(FleetError, match="is not a folder for a venv"):
        venv_path(FleetHost("n1", "n1", venv=bad))


def test_default_command_gets_the_venvs_ssdlab_as_advice() -> None:
    advice = command_advice(FleetHost("n1", "n1"), DEFAULT_VENV, "/root/.local/share/ssdlab/venv")
    assert advice == "ssdlab_command=~/.local/share/ssdlab/venv/bin/ssdlab"


def test_command_that_starts_the_venv_needs_no_advice() -> None:
    host = FleetHost("n1", "n1", command=(f"{DEFAULT_VENV}/bin/ssdlab",))
    assert command_advice(host, DEFAULT_VENV, None) is None


def test_command_naming_the_resolved_venv_needs_no_advice() -> None:
    host = FleetHost("n1", "n1", command=("/root/.local/share/ssdlab/venv/bin/ssdlab",))
    assert command_advice(host, DEFAULT_VENV, "/root/.local/share/ssdlab/venv") is None


# --- pip's judgement, the facts ---------------------------------------------------------------


def test_pips_no_matching_wheel_is_the_wheels_not_fitting() -> None:
    problem = fit_problem(PIP_UNFIT)
    assert problem is not None
    assert problem.startswith("Could not find a version that satisfies the requirement scipy")


def test_another_pip_failure_is_not_about_fit() -> None:
    assert fit_problem("ERROR: Could not install packages due to an OSError: [Errno 28]") is None


def test_missing_tools_are_named_with_their_debian_package() -> None:
    missing = missing_from(["fio", "nvme"])
    assert [(m.tool, m.package) for m in missing] == [("fio", "fio"), ("nvme", "nvme-cli")]
    assert install_hint(missing) == "apt-get install fio nvme-cli"
    assert missing_from([]) == ()
    assert install_hint([]) is None


# --- wheel folders -----------------------------------------------------------------------------


def test_deploys_folder_links_the_wheels_and_names_their_build(tmp_path: Path) -> None:
    given = tmp_path / "given"
    given.mkdir()
    for name in ("ssdlab-0.2.0-py3-none-any.whl", "pip-26.3-py3-none-any.whl", PURE):
        (given / name).write_bytes(name.encode())
    wheels = given_set(given)
    folder = link_wheels(wheels, tmp_path / "play")
    assert sorted(p.name for p in folder.glob("*.whl")) == sorted(wheels.names)
    assert all(os.path.islink(p) for p in folder.glob("*.whl"))
    note = json.loads((folder / WHEELS_NOTE).read_text())
    assert note == {
        "version": "0.2.0",
        "build": wheels.build,
        "ssdlab": "ssdlab-0.2.0-py3-none-any.whl",
        "pip": "pip-26.3-py3-none-any.whl",
        "sizes": {name: len(name) for name in wheels.names},
    }


def test_given_wheels_need_ssdlabs_own(tmp_path: Path) -> None:
    (tmp_path / PURE).write_bytes(b"x")
    with pytest.raises(FleetError, match="no ssdlab wheel"):
        given_set(tmp_path)


def test_given_wheels_take_version_and_build_from_ssdlabs_wheel(tmp_path: Path) -> None:
    for name in ("ssdlab-0.2.0-py3-none-any.whl", "pip-26.3-py3-none-any.whl", PURE):
        (tmp_path / name).write_bytes(name.encode())
    found = given_set(tmp_path)
    assert found.version == "0.2.0"
    assert found.build.startswith("wheel-")
    assert found.pip.name == "pip-26.3-py3-none-any.whl"


def test_an_installed_distribution_is_packed_into_a_wheel(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "foo").mkdir(parents=True)
    (site / "foo" / "__init__.py").write_text("X = 1\n")
    info = site / "foo-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: foo\nVersion: 1.0\n")
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(
        "foo/__init__.py,,\nfoo-1.0.dist-info/METADATA,,\nfoo-1.0.dist-info/WHEEL,,\n"
        "foo-1.0.dist-info/INSTALLER,,\nfoo-1.0.dist-info/RECORD,,\n../../bin/foo,,\n"
    )
    wheel = repack(metadata.PathDistribution(info), tmp_path)
    assert wheel.name == "foo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert sorted(archive.namelist()) == [
            "foo-1.0.dist-info/METADATA",
            "foo-1.0.dist-info/RECORD",
            "foo-1.0.dist-info/WHEEL",
            "foo/__init__.py",
        ]
        record = archive.read("foo-1.0.dist-info/RECORD").decode()
    assert "foo/__init__.py,sha256=" in record
