"""read_user_file: regular files only (symlinks followed), never more than the limit, whatever
stat claims; a FIFO is refused without being opened."""

import os
import threading
from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.system.user_files import read_user_file, read_user_text


def test_a_regular_file_up_to_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"x" * 100)
    assert read_user_file(path, 100, "the input") == b"x" * 100
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    assert read_user_file(link, 100, "the input") == b"x" * 100
    (tmp_path / "empty").write_bytes(b"")
    assert read_user_file(tmp_path / "empty", 0, "the input") == b""


def test_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(UsageError, match=r"the input .*in\.txt is larger than 100 bytes"):
        read_user_file(path, 100, "the input")


def test_the_limit_holds_where_stat_says_zero_bytes() -> None:
    # /proc files are regular files of size 0 with content: only reading tells
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(UsageError, match="larger than 10 bytes"):
        read_user_file("/proc/self/status", 10, "the input")
    assert b"Name:" in read_user_file("/proc/self/status", 2**20, "the input")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/dev/zero", "a character device"),
        ("/dev/urandom", "a character device"),
        ("/", "a directory"),
    ],
)
def test_what_is_not_a_regular_file_is_named(path: str, kind: str) -> None:
    with pytest.raises(UsageError, match=f"the input {path} is {kind}; the input must be a"):
        read_user_file(path, 2**20, "the input")


def test_a_link_says_where_it_leads(tmp_path: Path) -> None:
    link = tmp_path / "results.txt"
    link.symlink_to("/dev/zero")
    with pytest.raises(UsageError, match="is a link to /dev/zero, a character device"):
        read_user_file(link, 2**20, "the input")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_user_file(fifo, 2**20, "the input")
        except BaseException as error:  # handed to the test thread
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if reader.is_alive():  # unblock the stuck open so the thread ends, then fail
        Path(fifo).write_bytes(b"")  # opening the write end lets the stuck open return
        pytest.fail("read_user_file waited on a FIFO")
    assert len(outcome) == 1
    assert isinstance(outcome[0], UsageError)
    assert "named pipe (FIFO)" in str(outcome[0])


def test_a_missing_file_or_a_name_too_long_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot read the input .*No such file"):
        read_user_file(tmp_path / "nope", 10, "the input")
    with pytest.raises(UsageError, match="File name too long"):
        read_user_file(tmp_path / ("n" * 256), 10, "the input")


def test_text_is_read_as_utf8_or_refused_naming_the_file(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.toml"
    sheet.write_text('model = "Ä"\n', encoding="utf-8")
    assert read_user_text(sheet, 100, "the spec sheet") == 'model = "Ä"\n'
    sheet.write_bytes(b'model = "\xc4"\n')
    with pytest.raises(
        UsageError, match=r"^the spec sheet .*sheet\.toml is not UTF-8 text \(byte 10"
    ):
        read_user_text(sheet, 100, "the spec sheet")
