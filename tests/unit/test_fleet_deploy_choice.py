"""fleet deploy's choices that need no host: why a probe failed, which node needs an install,
and which wheel set a node gets (or why none)."""

from pathlib import Path

from ssdlab.fleet.deploy import (
    FAILED,
    DeployOptions,
    HostDeploy,
    _needs_install,
    _probe_failure,
    _Sets,
)
from ssdlab.fleet.deploy_plan import NodePython
from ssdlab.model.fleet import RemoteResult
from ssdlab.system.ssh import SshSettings
from ssdlab.system.wheels import WheelSet

NUMPY_311 = "numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"


def _node(version: tuple[int, int, int] = (3, 11, 2), **changes: object) -> NodePython:
    values: dict[str, object] = {
        "version": version,
        "implementation": "cpython",
        "machine": "x86_64",
        "system": "Linux",
        "glibc": (2, 36),
        "venv_module": True,
        "venv": "/v",
        "wheels": "/v.wheels",
        "installed": None,
        "marker": None,
        "present": {},
    }
    values.update(changes)
    return NodePython(**values)  # type: ignore[arg-type]


def _result(code: int | None, stderr: str = "", error: str | None = None) -> RemoteResult:
    return RemoteResult("n1", ("python3",), code, b"", stderr, 0.0, 1.0, error=error)


def _wheels(folder: Path) -> WheelSet:
    files = []
    for name in ("ssdlab-0.1.0-py3-none-any.whl", "pip-26.3-py3-none-any.whl", NUMPY_311):
        (folder / name).write_bytes(b"x")
        files.append(folder / name)
    return WheelSet(tuple(files), files[0], files[1], "0.1.0", "wheel-1", True, 0.0, given=True)


def test_a_node_without_python3_is_told_to_install_it() -> None:
    assert _probe_failure(_result(127, "bash: python3: command not found")).startswith(
        "no python3 on the node"
    )


def test_sshs_own_failure_is_unreachable() -> None:
    reason = _probe_failure(_result(255, "ssh: connect to host n1 port 22: No route to host"))
    assert reason == "unreachable: ssh failed: ssh: connect to host n1 port 22: No route to host"


def test_a_hung_probe_says_so() -> None:
    assert _probe_failure(_result(None, error="no answer within 130 s")) == "no answer within 130 s"


def test_a_failed_probe_needs_no_install() -> None:
    assert not _needs_install(HostDeploy("n1", FAILED, None), False, "0.1.0", "b")


def test_this_build_needs_no_install_unless_forced() -> None:
    node = _node(marker={"version": "0.1.0", "build": "b"}, installed="ssdlab 0.1.0")
    assert not _needs_install(node, False, "0.1.0", "b")
    assert _needs_install(node, True, "0.1.0", "b")


def test_given_wheels_that_do_not_fit_a_node_are_refused_with_the_reason(tmp_path: Path) -> None:
    options = DeployOptions(SshSettings(), wheels=tmp_path)
    sets = _Sets(options, _wheels(tmp_path), None, lambda _host, _text: None)
    chosen = sets._for_node(_node((3, 12, 1)), _wheels(tmp_path))
    assert isinstance(chosen, str)
    assert chosen.startswith(f"the wheels in {tmp_path} do not fit the node's Python 3.12")
    assert NUMPY_311 in chosen


def test_given_wheels_that_fit_are_used(tmp_path: Path) -> None:
    options = DeployOptions(SshSettings(), wheels=tmp_path)
    given = _wheels(tmp_path)
    sets = _Sets(options, given, None, lambda _host, _text: None)
    assert sets._for_node(_node(), given) is given
