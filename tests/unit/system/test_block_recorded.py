"""system/block.py against the recorded sysfs trees in tests/data/sysfs (see its README)."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from ssdlab.errors import TargetError
from ssdlab.model.target import DeviceIdentity
from ssdlab.system.block import (
    block_device_of_path,
    holders_of,
    is_partition,
    majmin_of,
    name_of_majmin,
    partitions_of,
    read_device_identity,
    resolve_block_device,
    slaves_of,
    whole_disk_of,
)

TREES = Path(__file__).resolve().parents[2] / "data" / "sysfs"


def sys_of(case: str) -> Path:
    return TREES / case / "sys"


SSD_QUEUE = {
    "scheduler": "mq-deadline",
    "nr_requests": "64",
    "read_ahead_kb": "128",
    "max_sectors_kb": "1280",
    "write_cache": "write back",
    "rq_affinity": "1",
    "nomerges": "0",
    "rotational": "0",
}

IDENTITIES = {
    ("sata_root", "sda"): DeviceIdentity(
        name="sda",
        path="/dev/sda",
        model="Samsung SSD 860",
        vendor="ATA",
        serial="S3Z1NB0K000000X",  # from the raw VPD page 0x80
        firmware="4B6Q",
        capacity_bytes=976773168 * 512,
        logical_block_bytes=512,
        physical_block_bytes=512,
        rotational=False,
        discard_granularity_bytes=512,
        discard_max_bytes=2147450880,
        transport="sata",
        backing_file=None,
        queue=SSD_QUEUE,
    ),
    ("nvme_lvm", "nvme0n1"): DeviceIdentity(
        name="nvme0n1",
        path="/dev/nvme0n1",
        model="Samsung SSD 970 EVO Plus 1TB",
        vendor=None,  # NVMe controllers have no vendor string in sysfs
        serial="S4EWNX0N000000A",
        firmware="2B2QEXM7",
        capacity_bytes=1953525168 * 512,
        logical_block_bytes=512,
        physical_block_bytes=512,
        rotational=False,
        discard_granularity_bytes=512,
        discard_max_bytes=2199023255040,
        transport="nvme",
        queue={**SSD_QUEUE, "scheduler": "none", "nr_requests": "1023", "max_sectors_kb": "128"},
    ),
    ("md_member", "sdb"): DeviceIdentity(
        name="sdb",
        path="/dev/sdb",
        model="ST4000NM0023",
        vendor="SEAGATE",
        serial="Z1Z0000000000000A000",
        firmware="0004",
        capacity_bytes=7814037168 * 512,
        logical_block_bytes=512,
        physical_block_bytes=4096,
        rotational=True,
        discard_granularity_bytes=0,  # sysfs says 0: known, no discard
        discard_max_bytes=0,
        transport="sas",
        queue={**SSD_QUEUE, "nr_requests": "256", "max_sectors_kb": "1024", "rotational": "1"},
    ),
    ("clean", "sdc"): DeviceIdentity(
        name="sdc",
        path="/dev/sdc",
        model="CT1000MX500SSD1",
        vendor="ATA",
        serial="2000E0000000",
        firmware="M3CR",
        capacity_bytes=1953525168 * 512,
        logical_block_bytes=512,
        physical_block_bytes=512,
        rotational=False,
        discard_granularity_bytes=512,
        discard_max_bytes=2147450880,
        transport="sata",
        queue=SSD_QUEUE,
    ),
    ("usb", "sdd"): DeviceIdentity(
        name="sdd",
        path="/dev/sdd",
        model="PSSD T7 Shield",
        vendor="Samsung",
        serial="S6XFNS0T000000Z",
        firmware="0",
        capacity_bytes=1953525168 * 512,
        logical_block_bytes=512,
        physical_block_bytes=512,
        rotational=False,
        discard_granularity_bytes=512,
        discard_max_bytes=4294966784,
        transport="usb",
        queue={**SSD_QUEUE, "max_sectors_kb": "512"},
    ),
}


@pytest.mark.parametrize(("case", "name"), list(IDENTITIES), ids=lambda value: str(value))
def test_identity_of_each_recorded_disk(case: str, name: str) -> None:
    assert read_device_identity(name, sys_of(case)) == IDENTITIES[case, name]


def test_a_partition_has_its_own_size_and_its_disks_hardware() -> None:
    sda1 = read_device_identity("sda1", sys_of("sata_root"))
    assert sda1.path == "/dev/sda1"
    assert sda1.capacity_bytes == 959993856 * 512
    assert (sda1.model, sda1.serial, sda1.transport) == (
        "Samsung SSD 860",
        "S3Z1NB0K000000X",
        "sata",
    )
    assert sda1.logical_block_bytes == 512
    assert sda1.queue["scheduler"] == "mq-deadline"


@pytest.mark.parametrize(("case", "name"), [("nvme_lvm", "dm-0"), ("md_member", "md0")])
def test_a_stacked_device_has_none_for_everything_sysfs_does_not_say(case: str, name: str) -> None:
    identity = read_device_identity(name, sys_of(case))
    assert identity.model is None
    assert identity.vendor is None
    assert identity.serial is None
    assert identity.firmware is None
    assert identity.transport is None
    assert identity.discard_granularity_bytes is None  # file missing: None, never 0
    assert identity.discard_max_bytes is None
    assert identity.capacity_bytes is not None
    assert "write_cache" not in identity.queue


def test_partitions_holders_and_slaves() -> None:
    nvme = sys_of("nvme_lvm")
    assert partitions_of("nvme0n1", nvme) == ("nvme0n1p1",)
    assert partitions_of("nvme0n1p1", nvme) == ()
    assert holders_of("nvme0n1p1", nvme) == ("dm-0",)
    assert holders_of("nvme0n1", nvme) == ()
    assert slaves_of("dm-0", nvme) == ("nvme0n1p1",)
    md = sys_of("md_member")
    assert partitions_of("sdb", md) == ("sdb1", "sdb2")
    assert holders_of("sdb1", md) == ("md0",)
    assert holders_of("sdb2", md) == ()
    assert slaves_of("md0", md) == ("sdb1",)


def test_whole_disk_of_a_partition_and_of_a_disk() -> None:
    assert whole_disk_of("sda2", sys_of("sata_root")) == "sda"
    assert whole_disk_of("sda", sys_of("sata_root")) == "sda"
    assert whole_disk_of("nvme0n1p1", sys_of("nvme_lvm")) == "nvme0n1"
    assert whole_disk_of("dm-0", sys_of("nvme_lvm")) == "dm-0"
    assert is_partition("sda2", sys_of("sata_root"))
    assert not is_partition("sda", sys_of("sata_root"))


def test_device_numbers_both_ways() -> None:
    nvme = sys_of("nvme_lvm")
    assert majmin_of("nvme0n1p1", nvme) == (259, 1)
    assert majmin_of("dm-0", nvme) == (253, 0)
    assert name_of_majmin(259, 1, nvme) == "nvme0n1p1"
    assert name_of_majmin(253, 0, nvme) == "dm-0"
    assert name_of_majmin(8, 0, nvme) is None


def test_partitions_are_in_partition_number_order(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    disk = root / "devices" / "virtual" / "block" / "vdb"
    for number in (10, 2, 1):
        part = disk / f"vdb{number}"
        part.mkdir(parents=True)
        (part / "partition").write_text(f"{number}\n")
    (disk / "queue").mkdir()
    (root / "class" / "block").mkdir(parents=True)
    (root / "class" / "block" / "vdb").symlink_to(disk)
    assert partitions_of("vdb", root) == ("vdb1", "vdb2", "vdb10")


@pytest.mark.parametrize("name", ["sdz", "../sda", "", "a/b", ".."])
def test_an_unknown_or_bad_name_is_a_target_error(name: str) -> None:
    with pytest.raises(TargetError):
        read_device_identity(name, sys_of("sata_root"))


def make_disk(root: Path, name: str, files: dict[str, str], device: Path | None = None) -> Path:
    """A minimal disk directory in a fake sysfs under ``root``."""
    disk = root / "devices" / "virtual" / "block" / name
    for relative, text in files.items():
        (disk / relative).parent.mkdir(parents=True, exist_ok=True)
        (disk / relative).write_text(text)
    if device is not None:
        device.mkdir(parents=True, exist_ok=True)
        (disk / "device").symlink_to(device)
    (root / "class" / "block").mkdir(parents=True, exist_ok=True)
    (root / "class" / "block" / name).symlink_to(disk)
    return disk


@pytest.mark.parametrize(
    ("name", "device_path", "transport"),
    [
        ("vdb", None, "virtio"),
        ("mmcblk0", None, "mmc"),
        ("loop7", None, "loop"),
        ("nvme1n1", None, "nvme"),
        ("sde", "devices/pci0000:00/0000:00:03.0/virtio2/host0/target0:0:0/0:0:0:0", "scsi"),
        ("sdf", "devices/platform/some-controller/disk", None),
        ("sdg", None, None),  # no device link: unknown
        ("xvda", None, None),
    ],
)
def test_transport_from_name_and_device_path(
    tmp_path: Path, name: str, device_path: str | None, transport: str | None
) -> None:
    root = tmp_path / "sys"
    device = root / device_path if device_path else None
    make_disk(root, name, {"dev": "8:64\n", "size": "8\n"}, device)
    assert read_device_identity(name, root).transport == transport


def test_loop_backing_file_and_an_unbracketed_scheduler(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    make_disk(
        root,
        "loop7",
        {
            "dev": "7:7\n",
            "size": "131072\n",
            "loop/backing_file": "/tmp/my image.img\n",
            "queue/scheduler": "none\n",
            "queue/logical_block_size": "4096\n",
        },
    )
    identity = read_device_identity("loop7", root)
    assert identity.backing_file == "/tmp/my image.img"
    assert identity.capacity_bytes == 64 * 2**20
    assert identity.logical_block_bytes == 4096
    assert identity.physical_block_bytes is None
    assert identity.rotational is None
    assert identity.queue == {"scheduler": "none"}


def test_mmc_serial_name_and_fwrev(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    device = root / "devices" / "platform" / "mmc0" / "mmc0:0001"
    make_disk(root, "mmcblk0", {"dev": "179:0\n", "size": "8\n"}, device)
    (device / "name").write_text("DG4016\n")
    (device / "serial").write_text("0x00000000\n")
    (device / "fwrev").write_text("0x2\n")
    identity = read_device_identity("mmcblk0", root)
    assert (identity.model, identity.serial, identity.firmware) == ("DG4016", "0x00000000", "0x2")


def test_a_malformed_vpd_page_falls_back_to_the_wwid(tmp_path: Path) -> None:
    root = tmp_path / "sys"
    device = root / "devices" / "x" / "0:0:0:0"
    make_disk(root, "sdh", {"dev": "8:112\n", "size": "8\n"}, device)
    (device / "vpd_pg80").write_bytes(b"\x00\x83\x00")
    (device / "wwid").write_text("naa.5000000000000001\n")
    (device / "model").write_text("   \n")  # blank: unknown, not ""
    identity = read_device_identity("sdh", root)
    assert identity.serial == "naa.5000000000000001"
    assert identity.model is None


def test_resolve_refuses_a_regular_file(tmp_path: Path) -> None:
    image = tmp_path / "disk.img"
    image.write_bytes(b"")
    with pytest.raises(TargetError, match="is a regular file, not a block device"):
        resolve_block_device(str(image))


def test_resolve_names_the_symlink_target_when_refusing(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(TargetError, match=r"link \(-> .*\) is a directory, not a block device"):
        resolve_block_device(str(link))


def test_resolve_refuses_a_character_device() -> None:
    with pytest.raises(TargetError, match="is a character device"):
        resolve_block_device(os.devnull)


def test_resolve_refuses_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="does not exist"):
        resolve_block_device(str(tmp_path / "nothing"))


def test_a_path_on_an_anonymous_device_has_no_block_device() -> None:
    assert block_device_of_path("/proc") is None  # procfs: st_dev major 0


def test_the_trees_can_be_rebuilt_identically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """build_trees.py is the recipe: rebuilding it elsewhere gives exactly the recorded files."""
    spec = importlib.util.spec_from_file_location("build_trees", TREES / "build_trees.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "build_trees", module)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()

    def listing(base: Path) -> dict[str, str]:
        found = {}
        for directory, dirs, files in os.walk(base):  # does not follow symlinked dirs
            for entry in [*dirs, *files]:
                path = Path(directory) / entry
                key = str(path.relative_to(base))
                if path.is_symlink():
                    found[key] = "-> " + str(path.readlink())
                elif path.is_file():
                    found[key] = path.read_bytes().hex()
        return found

    for case in ("sata_root", "nvme_lvm", "md_member", "clean", "usb"):
        assert listing(tmp_path / case) == listing(TREES / case), case
