"""parse/mountinfo.py: /proc/self/mountinfo and /proc/swaps texts."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.parse.mountinfo import (
    MountEntry,
    decode_octal_escapes,
    mount_containing,
    parse_mountinfo,
    parse_swaps,
)

# This machine's own mountinfo (a VM), trimmed, plus lines in the shapes other systems show.
MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
36 27 8:1 / /boot rw,relatime shared:7 master:2 - ext4 /dev/sda1 rw,errors=remount-ro
52 27 0:45 /@home /home rw,relatime shared:300 - btrfs /dev/sdd1 rw,ssd,subvolid=257,subvol=/@home
60 27 8:49 / /media/user/T7\\040Shield rw,nosuid - exfat /dev/sdd1 rw,fmask=0022
61 27 0:50 / /mnt/a\\134b\\011c rw,relatime - tmpfs  rw,size=1024k

"""


def entry(mount_point: str, major: int, minor: int, mount_id: int = 1) -> MountEntry:
    return MountEntry(
        mount_id=mount_id,
        parent_id=0,
        major=major,
        minor=minor,
        root="/",
        mount_point=mount_point,
        mount_options="rw",
        fs_type="ext4",
        source="/dev/x",
        super_options="rw",
    )


def test_parses_every_field_of_a_plain_line() -> None:
    entries = parse_mountinfo(MOUNTINFO)
    assert len(entries) == 6
    assert entries[1] == MountEntry(
        mount_id=27,
        parent_id=1,
        major=254,
        minor=0,
        root="/",
        mount_point="/",
        mount_options="rw,relatime",
        fs_type="ext4",
        source="/dev/vda",
        super_options="rw,discard,resv_strict,resuid=65534,resgid=65534",
    )


def test_optional_fields_before_the_separator_are_kept_apart() -> None:
    boot = parse_mountinfo(MOUNTINFO)[2]
    assert boot.optional_fields == ("shared:7", "master:2")
    assert (boot.fs_type, boot.source, boot.mount_point) == ("ext4", "/dev/sda1", "/boot")


def test_root_inside_the_filesystem_is_reported() -> None:
    home = parse_mountinfo(MOUNTINFO)[3]
    assert home.root == "/@home"
    assert (home.major, home.minor) == (0, 45)


def test_a_namespace_bound_by_ip_netns_has_a_root_outside_any_tree() -> None:
    # read on a Debian 12 machine (kernel 6.1) after `ip netns add ssdlab-t31325-1`
    line = "65 42 0:4 net:[4026532177] /run/netns/ssdlab-t31325-1 rw shared:2 - nsfs nsfs rw"
    (entry,) = parse_mountinfo(line + "\n")
    assert entry.root == "net:[4026532177]"
    assert (entry.fs_type, entry.mount_point) == ("nsfs", "/run/netns/ssdlab-t31325-1")


def test_octal_escapes_in_paths_are_decoded() -> None:
    entries = parse_mountinfo(MOUNTINFO)
    assert entries[4].mount_point == "/media/user/T7 Shield"
    assert entries[5].mount_point == "/mnt/a\\b\tc"


def test_an_empty_source_field_is_kept_empty() -> None:
    tmpfs = parse_mountinfo(MOUNTINFO)[5]
    assert tmpfs.source == ""
    assert tmpfs.super_options == "rw,size=1024k"


def test_blank_text_has_no_mounts() -> None:
    assert parse_mountinfo("") == ()
    assert parse_mountinfo("\n\n") == ()


@pytest.mark.parametrize(
    "line",
    [
        "27 1 254:0 / / rw,relatime ext4 /dev/vda rw",  # no separator
        "27 1 254:0 / / rw,relatime - ext4",  # ends after the separator
        "x 1 254:0 / / rw - ext4 /dev/vda rw",  # bad mount id
        "27 1 254 / / rw - ext4 /dev/vda rw",  # bad major:minor
        "27 1 254:0:1 / / rw - ext4 /dev/vda rw",
        "27 1 254:0 / mnt rw - ext4 /dev/vda rw",  # a mount point that is no absolute path
    ],
)
def test_a_malformed_line_is_an_error_not_a_silently_missing_mount(line: str) -> None:
    with pytest.raises(ParseError, match="mountinfo line 1"):
        parse_mountinfo(line)


def _kernel_escape(path: str) -> str:
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in path)


@given(st.text(alphabet=st.characters(blacklist_characters="\x00", codec="utf-8"), min_size=1))
def test_any_escaped_mount_point_decodes_back(name: str) -> None:
    path = "/" + name
    line = f"40 1 8:1 / {_kernel_escape(path)} rw - ext4 /dev/sda1 rw"
    (parsed,) = parse_mountinfo(line)
    assert parsed.mount_point == path


def test_decode_leaves_non_octal_backslashes_alone() -> None:
    assert decode_octal_escapes("a\\x\\0400b") == "a\\x 0b"


# /proc/swaps as the kernel prints it: header, tab-padded columns.
SWAPS = (
    "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
    "/dev/sda2                               partition\t8388604\t\t0\t\t-2\n"
    "/swap\\040file                          file\t\t2097148\t\t0\t\t-3\n"
    "/dev/dm-1                               partition\t1000\t\t0\t\t-4\n"
)


def test_swaps_lists_decoded_file_names_without_the_header() -> None:
    assert parse_swaps(SWAPS) == ("/dev/sda2", "/swap file", "/dev/dm-1")


def test_no_swap_is_an_empty_tuple() -> None:
    assert parse_swaps("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n") == ()
    assert parse_swaps("") == ()


def test_mount_containing_prefers_the_longest_prefix_with_the_same_device() -> None:
    entries = (entry("/", 254, 0), entry("/data", 8, 1), entry("/data/sub", 8, 2))
    assert mount_containing("/data/file", 8, 1, entries) == entries[1]
    assert mount_containing("/data/sub/file", 8, 2, entries) == entries[2]
    assert mount_containing("/etc/passwd", 254, 0, entries) == entries[0]


def test_mount_containing_skips_a_longer_prefix_of_another_device() -> None:
    # st_dev says the path is on 8:1 although /data/sub is mounted (the path may be under a
    # bind mount of the lower filesystem, seen before the overmount): trust st_dev.
    entries = (entry("/", 254, 0), entry("/data", 8, 1), entry("/data/sub", 8, 2))
    assert mount_containing("/data/sub/file", 8, 1, entries) == entries[1]


def test_mount_containing_falls_back_to_the_longest_prefix() -> None:
    entries = (entry("/", 254, 0), entry("/home", 0, 45))
    assert mount_containing("/home/user/file", 0, 52, entries) == entries[1]


def test_mount_containing_matches_whole_path_components() -> None:
    entries = (entry("/", 254, 0), entry("/mnt/x", 8, 1))
    assert mount_containing("/mnt/xy/file", 8, 1, entries) == entries[0]
    assert mount_containing("/mnt/x", 8, 1, entries) == entries[1]


def test_mount_containing_takes_the_upper_of_stacked_mounts() -> None:
    lower, upper = entry("/mnt", 8, 1, mount_id=5), entry("/mnt", 8, 1, mount_id=9)
    assert mount_containing("/mnt/f", 8, 1, (entry("/", 254, 0), lower, upper)) == upper


def test_mount_containing_normalizes_the_path() -> None:
    entries = (entry("/", 254, 0), entry("/mnt/x", 8, 1))
    assert mount_containing("/mnt//x/./f", 8, 1, entries) == entries[1]


def test_mount_containing_with_no_mounts_is_none() -> None:
    assert mount_containing("/a", 8, 1, ()) is None
