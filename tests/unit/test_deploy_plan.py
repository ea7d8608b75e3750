"""fleet deploy's pure parts: the venv path, the remote command words, the node probe, which
wheels fit a node's Python and platform, and the tools a node's facts say it lacks; and the
wheel folder and tar stream of system/wheels.py."""

import io
import json
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from ssdlab.errors import FleetError
from ssdlab.fleet.deploy_plan import (
    DEFAULT_VENV,
    MARKER,
    PROBE,
    NodePython,
    command_advice,
    download_options,
    extract_words,
    facts_words,
    install_hint,
    install_words,
    is_up_to_date,
    marker_words,
    missing_tools,
    node_platforms,
    node_problem,
    parse_probe,
    platform_key,
    probe_words,
    unfit_wheels,
    venv_path,
    venv_words,
    version_words,
    wheel_tags,
)
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ssh import remote_command
from ssdlab.system.wheels import given_set, repack, tar_stream

NUMPY_311 = "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
FONTTOOLS_311 = "fonttools-4.68.0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
PURE = "rich-15.0.0-py3-none-any.whl"
TZDATA = "tzdata-2026.6-py2.py3-none-any.whl"
ABI3 = "cryptography-50.0.2-cp38-abi3-manylinux_2_28_x86_64.whl"


def node(
    version: tuple[int, int, int] = (3, 11, 2),
    glibc: tuple[int, int] | None = (2, 36),
    machine: str = "x86_64",
    **changes: object,
) -> NodePython:
    values: dict[str, object] = {
        "version": version,
        "implementation": "cpython",
        "machine": machine,
        "system": "Linux",
        "glibc": glibc,
        "venv_module": True,
        "venv": "/home/lab/.local/share/ssdlab/venv",
        "wheels": "/home/lab/.local/share/ssdlab/venv.wheels",
        "installed": None,
        "marker": None,
        "present": {},
    }
    values.update(changes)
    return NodePython(**values)  # type: ignore[arg-type]


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


# --- remote command words ----------------------------------------------------------------------


def test_probe_keeps_a_home_relative_venv_for_the_remote_shell() -> None:
    line = remote_command(probe_words(DEFAULT_VENV))
    assert line.startswith("python3 -c ")
    assert line.endswith(f"~/.local/share/ssdlab/venv .wheels {MARKER}")


def test_venv_is_made_without_pip() -> None:
    assert venv_words("/v") == ["python3", "-m", "venv", "--without-pip", "/v"]


def test_extract_reads_the_tar_from_stdin_into_the_folder() -> None:
    assert extract_words("/v.wheels") == ["tar", "-x", "-C", "/v.wheels", "-f", "-"]


def test_install_runs_pip_from_its_wheel_without_an_index() -> None:
    n = node()
    words = install_words(n, "pip-26.3-py3-none-any.whl", ["ssdlab-0.1.0-py3-none-any.whl", PURE])
    assert words[:3] == [
        f"{n.venv}/bin/python",
        f"{n.wheels}/pip-26.3-py3-none-any.whl/pip",
        "install",
    ]
    assert "--no-index" in words
    assert words[words.index("--find-links") + 1] == n.wheels
    assert words[-2:] == [f"{n.wheels}/ssdlab-0.1.0-py3-none-any.whl", f"{n.wheels}/{PURE}"]


def test_install_of_one_wheel_replaces_it_alone() -> None:
    n = node()
    words = install_words(n, "pip.whl", [PURE], only="ssdlab-0.1.0-py3-none-any.whl")
    assert words[-3:] == [
        "--force-reinstall",
        "--no-deps",
        f"{n.wheels}/ssdlab-0.1.0-py3-none-any.whl",
    ]


def test_check_and_facts_run_the_venvs_ssdlab() -> None:
    n = node()
    assert version_words(n) == [f"{n.venv}/bin/ssdlab", "--version"]
    assert facts_words(n) == [f"{n.venv}/bin/ssdlab", "node", "facts"]


def test_marker_names_version_and_build() -> None:
    words = marker_words(node(), "0.1.0", "tree-abc")
    assert words[-2] == f"{node().venv}/{MARKER}"
    assert json.loads(words[-1]) == {"version": "0.1.0", "build": "tree-abc"}


# --- the probe ---------------------------------------------------------------------------------


def test_probe_script_runs_and_parses(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (tmp_path / "venv.wheels").mkdir()
    (tmp_path / "venv.wheels" / PURE).write_bytes(b"12345")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(venv), ".wheels", MARKER],
        capture_output=True,
        text=True,
        check=True,
    )
    found = parse_probe("here", done.stdout)
    assert found.version == tuple(sys.version_info[:3])
    assert found.venv == str(venv)
    assert found.present == {PURE: 5}
    assert found.installed is None


def test_probe_reads_the_marker(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / MARKER).write_text('{"version": "0.1.0", "build": "tree-1"}\n')
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(venv), ".wheels", MARKER],
        capture_output=True,
        text=True,
        check=True,
    )
    assert parse_probe("here", done.stdout).marker == {"version": "0.1.0", "build": "tree-1"}


def test_probe_answer_that_is_not_json_is_refused() -> None:
    with pytest.raises(FleetError, match="answered the probe"):
        parse_probe("n1", "Python 2.7\n")


def test_old_python_is_refused_with_its_version() -> None:
    assert "3.9.2; ssdlab needs 3.11" in str(node_problem(node(version=(3, 9, 2)), (3, 11)))


def test_python_without_venv_module_is_refused() -> None:
    assert "python3-venv" in str(node_problem(node(venv_module=False), (3, 11)))


def test_a_usable_python_has_no_problem() -> None:
    assert node_problem(node(), (3, 11)) is None


def test_up_to_date_needs_marker_build_and_answer() -> None:
    marker = {"version": "0.1.0", "build": "tree-1"}
    assert is_up_to_date(node(marker=marker, installed="ssdlab 0.1.0"), "0.1.0", "tree-1")


def test_another_build_is_not_up_to_date() -> None:
    marker = {"version": "0.1.0", "build": "tree-1"}
    assert not is_up_to_date(node(marker=marker, installed="ssdlab 0.1.0"), "0.1.0", "tree-2")


def test_a_venv_that_no_longer_starts_is_not_up_to_date() -> None:
    marker = {"version": "0.1.0", "build": "tree-1"}
    assert not is_up_to_date(node(marker=marker, installed=None), "0.1.0", "tree-1")


# --- platforms and wheels ----------------------------------------------------------------------


def test_platforms_reach_down_from_the_nodes_glibc() -> None:
    found = node_platforms(node(glibc=(2, 28)))
    assert found[0] == "manylinux_2_28_x86_64"
    assert "manylinux2014_x86_64" in found
    assert "manylinux_2_29_x86_64" not in found
    assert found[-1] == "linux_x86_64"


def test_without_glibc_only_plain_linux_wheels_fit() -> None:
    assert node_platforms(node(glibc=None)) == ("linux_x86_64",)


def test_wheel_tags_expand_compressed_sets() -> None:
    assert wheel_tags(FONTTOOLS_311) == {
        ("cp311", "cp311", "manylinux2014_x86_64"),
        ("cp311", "cp311", "manylinux_2_17_x86_64"),
    }


def test_a_name_that_is_no_wheel_is_refused() -> None:
    with pytest.raises(FleetError, match="not a wheel"):
        wheel_tags("numpy-2.4.6.tar.gz")


def test_wheels_made_here_fit_the_same_python_and_platform() -> None:
    assert unfit_wheels([NUMPY_311, FONTTOOLS_311, PURE, TZDATA, ABI3], node()) == []


def test_another_python_version_needs_other_wheels() -> None:
    assert unfit_wheels([NUMPY_311, PURE, ABI3], node(version=(3, 12, 1))) == [NUMPY_311]


def test_an_older_glibc_needs_other_wheels() -> None:
    assert unfit_wheels([NUMPY_311, FONTTOOLS_311], node(glibc=(2, 17))) == [NUMPY_311]


def test_another_architecture_takes_only_pure_wheels() -> None:
    assert unfit_wheels([NUMPY_311, PURE], node(machine="aarch64")) == [NUMPY_311]


def test_legacy_manylinux_names_follow_the_glibc_they_stand_for() -> None:
    found = node_platforms(node(glibc=(2, 17)))
    assert found[:2] == ("manylinux_2_17_x86_64", "manylinux2014_x86_64")
    assert found[found.index("manylinux_2_12_x86_64") + 1] == "manylinux2010_x86_64"
    assert found[-3:] == ("manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64")


def test_an_arm_node_has_no_manylinux_tag_older_than_manylinux2014() -> None:
    found = node_platforms(node(glibc=(2, 28), machine="aarch64"))
    assert found[-3:] == ("manylinux_2_17_aarch64", "manylinux2014_aarch64", "linux_aarch64")
    assert "manylinux1_aarch64" not in found


@pytest.mark.parametrize(
    "wheel",
    [
        "foo-1.0-cp310-none-any.whl",  # pip takes cpXY-none-any for its own XY only
        "foo-1.0-cp38-abi3-any.whl",  # abi3 is for a platform, never for any
        "foo-1.0-cp311-cp311-any.whl",
    ],
)
def test_tags_pip_would_not_install_do_not_fit(wheel: str) -> None:
    assert unfit_wheels([wheel], node()) == [wheel]


def test_a_wheel_name_whose_version_is_no_version_is_refused() -> None:
    with pytest.raises(FleetError, match="not a wheel file name"):
        wheel_tags("foo-bar-1.0-py3-none-any.whl")


def test_download_options_name_the_nodes_python_and_platforms() -> None:
    options = download_options(node(version=(3, 12, 1), glibc=(2, 35)))
    assert options[:3] == ["--only-binary=:all:", "--python-version", "3.12"]
    assert options[options.index("--abi") : options.index("--abi") + 2] == ["--abi", "cp312"]
    assert "manylinux_2_35_x86_64" in options
    assert "manylinux_2_36_x86_64" not in options


def test_platform_key_names_the_kind_of_node() -> None:
    assert platform_key(node(version=(3, 12, 1), glibc=(2, 35))) == "cp312-manylinux_2_35_x86_64"


# --- facts -------------------------------------------------------------------------------------


def test_missing_tools_are_named_with_their_debian_package() -> None:
    facts = {"tools": {"fio": None, "smartctl": {"path": "/usr/sbin/smartctl", "version": "7.3"}}}
    missing = missing_tools(facts)
    assert [(m.tool, m.package) for m in missing] == [("fio", "fio"), ("nvme", "nvme-cli")]
    assert install_hint(missing) == "apt-get install fio nvme-cli"


def test_a_node_with_every_tool_lacks_nothing() -> None:
    tools = {
        tool: {"path": f"/usr/bin/{tool}", "version": "1"} for tool in ("fio", "smartctl", "nvme")
    }
    assert missing_tools({"tools": tools}) == []
    assert install_hint([]) is None


def test_facts_without_tools_are_refused() -> None:
    with pytest.raises(FleetError, match="no 'tools'"):
        missing_tools({"ssdlab_version": "0.1.0"})


# --- wheel folders and the stream --------------------------------------------------------------


def test_tar_stream_holds_each_wheel_under_its_name(tmp_path: Path) -> None:
    first = tmp_path / PURE
    first.write_bytes(b"rich")
    second = tmp_path / "sub" / TZDATA
    second.parent.mkdir()
    second.write_bytes(b"tz")
    with tarfile.open(fileobj=io.BytesIO(tar_stream([first, second]))) as archive:
        assert archive.getnames() == [PURE, TZDATA]
        member = archive.extractfile(TZDATA)
        assert member is not None
        assert member.read() == b"tz"


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
