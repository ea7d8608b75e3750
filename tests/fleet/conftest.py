"""Fixtures for the fleet tests: lab nodes (network namespaces with a real sshd each) shared
by every fleet test of the session, since making them costs a little time."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.hosts import (
    FleetLab,
    NamespaceUnavailable,
    make_fake_fio,
    missing_requirements,
    start_hosts,
)

FLEET_HOSTS = 3
FAKE_FIO_VERSION = "fio-3.35"


@pytest.fixture(scope="session")
def fleet_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FleetLab]:
    """Three nodes, node1..node3, reachable with `ssh -F <fleet_lab.ssh_config> nodeN`.

    Shared by the whole session: a test that cuts a node restores it before it ends (use
    `with fleet_lab.partitioned(host):`), and a test leaves nothing running on a node.
    Skips when not root, when ip, ssh, ssh-keygen or /usr/sbin/sshd is missing, or when this
    machine does not let the tests make network namespaces."""
    reason = missing_requirements()
    if reason is not None:
        pytest.skip(reason)
    workdir = tmp_path_factory.mktemp("fleet-lab")
    try:
        lab = start_hosts(FLEET_HOSTS, workdir)
    except NamespaceUnavailable as error:
        pytest.skip(f"fleet test hosts need network namespaces: {error}")
    try:
        yield lab
    finally:
        lab.close()


@pytest.fixture
def fake_fio_dir(tmp_path: Path) -> Path:
    """A folder holding a `fio` that reports version FAKE_FIO_VERSION (fio-3.35) and
    otherwise runs the real fio (tests.fleet.hosts.make_fake_fio): put it first on the PATH
    of one node's ssdlab command to give that node another fio version."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    directory = tmp_path / "fake-fio"
    make_fake_fio(directory, version=FAKE_FIO_VERSION)
    return directory
