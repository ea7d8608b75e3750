"""The write gate as a property: whatever the path is, only regular files and new names are
written as outputs or stores, and only the file ssdlab created is a test file.

The device nodes made here name a device number no driver serves (major 240, reserved for
local use), so even a gate that wrongly opened one could not reach a disk.
"""

import os
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.errors import SafetyRefusal, TargetError
from ssdlab.model.target import FileIdentity
from ssdlab.system.write_gate import (
    Removal,
    check_output_folder,
    check_output_path,
    check_store_path,
    create_test_file,
    ownership_problem,
    remove_test_file,
    write_output,
)

UNSERVED = os.makedev(240, 77)
KINDS = (
    "regular",
    "new",
    "block",
    "char",
    "fifo",
    "socket",
    "dir",
    "link-regular",
    "link-block",
    "link-dangling",
    "hardlink",
    "devtmpfs-new",
)
WRITABLE_OUTPUTS = {"regular", "new", "link-regular", "hardlink"}


def make(kind: str, folder: Path) -> Path:
    """A path of the given kind inside `folder` (root is needed for device nodes)."""
    path = folder / f"p-{kind}"
    regular = folder / "user-file"
    if not regular.exists():
        regular.write_bytes(b"the user's data")
    if kind == "devtmpfs-new":
        return Path("/dev/ssdlab-gate-property-new")
    if kind.startswith("link-") or kind == "hardlink":
        _make_link(kind, path, regular)
    else:
        _make_node(kind, path)
    return path


def _make_node(kind: str, path: Path) -> None:
    if kind == "regular":
        path.write_bytes(b"an old output")
    elif kind == "block":
        os.mknod(path, 0o600 | stat.S_IFBLK, UNSERVED)
    elif kind == "char":
        os.mknod(path, 0o600 | stat.S_IFCHR, UNSERVED)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        os.mknod(path, 0o600 | stat.S_IFSOCK)
    elif kind == "dir":
        path.mkdir()


def _make_link(kind: str, path: Path, regular: Path) -> None:
    folder = path.parent
    if kind == "link-regular":
        path.symlink_to(regular)
    elif kind == "link-block":
        node = folder / "node"
        if not node.exists():
            os.mknod(node, 0o600 | stat.S_IFBLK, UNSERVED)
        path.symlink_to(node)
    elif kind == "link-dangling":
        path.symlink_to(folder / "nowhere")
    elif kind == "hardlink":
        os.link(regular, path)


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="device nodes need root")


def _refused(call: Callable[[], object]) -> bool:
    try:
        call()
    except (SafetyRefusal, TargetError):
        return True
    return False


@needs_root
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(KINDS), what=st.sampled_from(("output", "write", "store", "folder")))
def test_only_regular_files_and_new_names_are_written(
    tmp_path_factory: pytest.TempPathFactory, kind: str, what: str
) -> None:
    folder = tmp_path_factory.mktemp("gate")
    path = make(kind, folder)
    user_before = (folder / "user-file").read_bytes()
    calls: dict[str, Callable[[], object]] = {
        "output": lambda: check_output_path(str(path), "-o"),
        "write": lambda: write_output(str(path), "report", "-o"),
        "store": lambda: check_store_path(path),
        "folder": lambda: check_output_folder(str(path), "--plots"),
    }
    refused = _refused(calls[what])
    if what == "folder":
        assert refused == (kind not in {"new", "dir"})
    elif what == "store":
        assert refused == (kind not in {"regular", "new", "link-regular", "hardlink"})
    else:
        assert refused == (kind not in WRITABLE_OUTPUTS)
    if refused or kind not in {"link-regular", "hardlink"}:
        assert (folder / "user-file").read_bytes() == user_before
    assert not Path("/dev/ssdlab-gate-property-new").exists()


@needs_root
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(KINDS))
def test_a_test_file_is_created_only_where_nothing_is(
    tmp_path_factory: pytest.TempPathFactory, kind: str
) -> None:
    folder = tmp_path_factory.mktemp("create")
    path = make(kind, folder)
    user_before = (folder / "user-file").read_bytes()
    if kind == "devtmpfs-new":
        return  # file targets on /dev are refused before this (system/filetarget.py)
    created = not _refused(lambda: create_test_file(str(path), 4096))
    assert created == (kind == "new")
    assert (folder / "user-file").read_bytes() == user_before
    assert not (folder / "nowhere").exists()


def test_only_the_created_file_is_ssdlabs(tmp_path: Path) -> None:
    path = tmp_path / "ssdlab-0123456789ab.tmp"
    identity = create_test_file(str(path), 1 << 20)
    assert path.stat().st_size == 1 << 20  # allocated now: fio finds nothing to lay out
    assert ownership_problem(str(path), identity) is None
    other = tmp_path / "other"
    os.link(path, other)
    assert "hard links" in (ownership_problem(str(path), identity) or "")
    assert remove_test_file(str(path), identity) is Removal.NOT_OURS
    other.unlink()
    path.unlink()
    path.write_bytes(b"someone's file, perhaps on the same inode number")
    assert "another file" in (ownership_problem(str(path), identity) or "")
    assert remove_test_file(str(path), identity) is Removal.NOT_OURS
    assert path.exists()
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    assert "symbolic link" in (ownership_problem(str(path), identity) or "")
    assert remove_test_file(str(path), identity) is Removal.NOT_OURS
    path.unlink()
    assert remove_test_file(str(path), identity) is Removal.GONE


def test_without_xattrs_the_inode_decides(tmp_path: Path) -> None:
    path = tmp_path / "ssdlab-aaaaaaaaaaaa.tmp"
    made = create_test_file(str(path), 0)
    plain = FileIdentity(made.device, made.inode, None)
    assert ownership_problem(str(path), plain) is None
    assert remove_test_file(str(path), plain) is Removal.REMOVED


@needs_root
def test_a_test_file_attached_as_a_loop_device_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "ssdlab-bbbbbbbbbbbb.tmp"
    identity = create_test_file(str(path), 8 << 20)
    attached = subprocess.run(
        ["losetup", "-f", "--show", str(path)], capture_output=True, text=True, check=False
    )
    if attached.returncode != 0:
        pytest.skip(f"no loop device: {attached.stderr.strip()}")
    loop = attached.stdout.strip()
    try:
        problem = ownership_problem(str(path), identity) or ""
        assert f"backing file of {loop}" in problem
        assert "losetup -d" in problem
        assert remove_test_file(str(path), identity) is Removal.NOT_OURS
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
    assert ownership_problem(str(path), identity) is None
