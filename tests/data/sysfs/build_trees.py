"""Build the recorded sysfs/procfs trees in this directory (see README.md).

Run from anywhere: ``python tests/data/sysfs/build_trees.py``. It deletes and rewrites only the
case directories named in CASES. The trees follow the layout of a real /sys (class/block
symlinks into devices/, dev/block/MAJ:MIN symlinks, holders/ and slaves/ symlinks, queue/
attributes) on machines this test machine cannot be turned into. Every serial number, WWID
and UUID below is invented.
"""

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

SSD_QUEUE = {
    "scheduler": "[mq-deadline] kyber bfq none",
    "nr_requests": "64",
    "read_ahead_kb": "128",
    "max_sectors_kb": "1280",
    "max_hw_sectors_kb": "32767",
    "write_cache": "write back",
    "rq_affinity": "1",
    "nomerges": "0",
    "rotational": "0",
    "logical_block_size": "512",
    "physical_block_size": "512",
    "hw_sector_size": "512",
    "minimum_io_size": "512",
    "optimal_io_size": "0",
    "discard_granularity": "512",
    "discard_max_bytes": "2147450880",
    "discard_max_hw_bytes": "2147450880",
    "discard_zeroes_data": "0",
    "zoned": "none",
}
NVME_QUEUE = {
    **SSD_QUEUE,
    "scheduler": "[none] mq-deadline kyber bfq",
    "nr_requests": "1023",
    "max_sectors_kb": "128",
    "max_hw_sectors_kb": "128",
    "discard_max_bytes": "2199023255040",
    "discard_max_hw_bytes": "2199023255040",
}
HDD_QUEUE = {
    **SSD_QUEUE,
    "scheduler": "none [mq-deadline] kyber bfq",
    "nr_requests": "256",
    "max_sectors_kb": "1024",
    "rotational": "1",
    "physical_block_size": "4096",
    "minimum_io_size": "4096",
    "discard_granularity": "0",
    "discard_max_bytes": "0",
    "discard_max_hw_bytes": "0",
}
DM_QUEUE = {
    "scheduler": "none",
    "nr_requests": "128",
    "read_ahead_kb": "128",
    "max_sectors_kb": "128",
    "rotational": "0",
    "logical_block_size": "512",
    "physical_block_size": "512",
}

PROC_HEAD = (
    "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "23 1 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "24 1 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev "
    "rw,size=8066776k,nr_inodes=2016694,mode=755,inode64\n"
    "25 24 0:24 / /dev/pts rw,nosuid,noexec,relatime shared:3 - devpts devpts "
    "rw,gid=5,mode=620,ptmxmode=000\n"
    "26 1 0:25 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs "
    "rw,size=1620040k,mode=755,inode64\n"
    "27 24 0:26 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64\n"
)
SWAPS_HEAD = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"


def swap_line(name: str, kind: str, size_kib: int) -> str:
    return f"{name:<40}{kind}\t{size_kib}\t\t0\t\t-2\n"


@dataclass
class Tree:
    root: Path
    links: list[tuple[Path, Path]] = field(default_factory=list)

    @property
    def sys(self) -> Path:
        return self.root / "sys"

    def write(self, path: Path, content: str | bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    def link(self, link: Path, target: Path) -> None:
        """A relative symlink, as sysfs makes them."""
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(target, link.parent))

    def attributes(self, directory: Path, values: dict[str, str | bytes]) -> None:
        for name, value in values.items():
            self.write(directory / name, value if isinstance(value, bytes) else value + "\n")

    def block(
        self,
        parent: Path,
        name: str,
        majmin: tuple[int, int],
        sectors: int,
        *,
        queue: dict[str, str] | None = None,
        device: Path | None = None,
        partition: tuple[int, int] | None = None,
        whole_disk: bool = True,
        extra: dict[str, str] | None = None,
    ) -> Path:
        """A block device directory under ``parent`` with its class/block and dev/block links.

        ``partition`` is (number, start sector) for a partition.
        """
        directory = parent / name
        major, minor = majmin
        devtype = "partition" if partition else "disk"
        uevent = f"MAJOR={major}\nMINOR={minor}\nDEVNAME={name}\nDEVTYPE={devtype}\n"
        values: dict[str, str | bytes] = {
            "dev": f"{major}:{minor}",
            "size": str(sectors),
            "ro": "0",
            "alignment_offset": "0",
            "discard_alignment": "0",
        }
        if partition:
            number, start = partition
            values |= {"partition": str(number), "start": str(start)}
            uevent += f"PARTN={number}\n"
        else:
            values |= {"removable": "0", "ext_range": "256", "range": "16", "capability": "0"}
        values |= extra or {}
        self.attributes(directory, values)
        self.write(directory / "uevent", uevent)
        for sub in ("holders", "slaves"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        if queue is not None:
            self.attributes(directory / "queue", dict(queue))
        if device is not None:
            self.link(directory / "device", device)
        self.link(self.sys / "class" / "block" / name, directory)
        self.link(self.sys / "dev" / "block" / f"{major}:{minor}", directory)
        if whole_disk and not partition:
            self.link(self.sys / "block" / name, directory)
        return directory

    def stack(self, lower: Path, upper: Path) -> None:
        """``upper`` (dm-0, md0) is built on ``lower`` (a partition)."""
        self.link(lower / "holders" / upper.name, upper)
        self.link(upper / "slaves" / lower.name, lower)

    def proc(self, mountinfo: str, swaps: str) -> None:
        self.write(self.root / "proc" / "self" / "mountinfo", mountinfo)
        self.write(self.root / "proc" / "swaps", swaps)

    def dev_link(self, name: str, target: str) -> None:
        """A udev symlink under dev/ (the device nodes themselves are not recorded)."""
        self.link(self.root / "dev" / name, self.root / "dev" / target)


def vpd_pg80(serial: str) -> bytes:
    """A SCSI unit serial number VPD page as the kernel exposes it (raw, 4-byte header)."""
    body = serial.encode("ascii")
    return bytes([0, 0x80]) + len(body).to_bytes(2, "big") + body


def scsi_device(tree: Tree, path: Path, vendor: str, model: str, rev: str, serial: str) -> Path:
    """A SCSI device directory (H:C:T:L) with the fixed-width INQUIRY strings sysfs shows."""
    tree.attributes(
        path,
        {
            "vendor": f"{vendor:<8}",
            "model": f"{model:<16}",
            "rev": f"{rev:<4}",
            "scsi_level": "6",
            "type": "0",
            "state": "running",
            "queue_depth": "32",
            "vpd_pg80": vpd_pg80(serial),
            "wwid": f"t10.{vendor:<8}{model:<16}{serial}",
        },
    )
    return path


def case_sata_root(tree: Tree) -> None:
    """(a) SATA SSD sda: sda1 is mounted at / (ext4), sda2 is active swap."""
    scsi = scsi_device(
        tree,
        tree.sys / "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0",
        "ATA",
        "Samsung SSD 860",
        "4B6Q",
        "S3Z1NB0K000000X",
    )
    sda = tree.block(scsi / "block", "sda", (8, 0), 976773168, queue=SSD_QUEUE, device=scsi)
    tree.block(sda, "sda1", (8, 1), 959993856, partition=(1, 2048))
    tree.block(sda, "sda2", (8, 2), 16777216, partition=(2, 959995904))
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n" + PROC_HEAD,
        SWAPS_HEAD + swap_line("/dev/sda2", "partition", 8388604),
    )
    tree.dev_link("disk/by-id/ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K000000X", "sda")
    tree.dev_link("disk/by-id/ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K000000X-part1", "sda1")


def case_nvme_lvm(tree: Tree) -> None:
    """(b) NVMe nvme0n1: nvme0n1p1 is an LVM PV under dm-0 (vg0-home), mounted at /home,
    where the ssdlab database lives. / is on another disk (sda1, not recorded)."""
    controller = tree.sys / "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"
    tree.attributes(
        controller,
        {
            "model": f"{'Samsung SSD 970 EVO Plus 1TB':<40}",
            "serial": f"{'S4EWNX0N000000A':<20}",
            "firmware_rev": f"{'2B2QEXM7':<8}",
            "transport": "pcie",
            "cntlid": "4",
            "state": "live",
            "subsysnqn": "nqn.2014.08.org.nvmexpress:144d144dS4EWNX0N000000A",
        },
    )
    nvme0n1 = tree.block(
        controller,
        "nvme0n1",
        (259, 0),
        1953525168,
        queue=NVME_QUEUE,
        device=controller,
        extra={"wwid": "eui.0025388b00000000", "nsid": "1"},
    )
    p1 = tree.block(nvme0n1, "nvme0n1p1", (259, 1), 1953521664, partition=(1, 2048))
    dm0 = tree.block(
        tree.sys / "devices/virtual/block",
        "dm-0",
        (253, 0),
        1953513472,
        queue=DM_QUEUE,
        extra={"removable": "0"},
    )
    tree.attributes(
        dm0 / "dm",
        {
            "name": "vg0-home",
            "uuid": "LVM-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
            "suspended": "0",
        },
    )
    tree.stack(p1, dm0)
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
        + PROC_HEAD
        + "31 21 253:0 / /home rw,relatime shared:20 - ext4 /dev/mapper/vg0-home rw\n",
        SWAPS_HEAD + swap_line("/swap.img", "file", 2097148),
    )
    tree.dev_link("mapper/vg0-home", "dm-0")
    tree.dev_link("vg0/home", "dm-0")
    tree.dev_link("disk/by-id/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0N000000A", "nvme0n1")


def case_md_member(tree: Tree) -> None:
    """(c) SAS HDD sdb: sdb1 is a member of md0 (RAID1, not mounted); sdb2 is unused."""
    host = tree.sys / "devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0"
    tree.attributes(host / "sas_host" / "host0", {"uevent": ""})
    end_device = host / "port-0:1" / "end_device-0:1"
    tree.attributes(
        end_device / "sas_device" / "end_device-0:1",
        {"sas_address": "0x5000c50000000001", "device_type": "end device"},
    )
    scsi = scsi_device(
        tree,
        end_device / "target0:0:1" / "0:0:1:0",
        "SEAGATE",
        "ST4000NM0023",
        "0004",
        "Z1Z0000000000000A000",
    )
    sdb = tree.block(scsi / "block", "sdb", (8, 16), 7814037168, queue=HDD_QUEUE, device=scsi)
    sdb1 = tree.block(sdb, "sdb1", (8, 17), 7814033408, partition=(1, 2048))
    tree.block(sdb, "sdb2", (8, 18), 1024, partition=(2, 7814035456))
    md0 = tree.block(tree.sys / "devices/virtual/block", "md0", (9, 0), 7813771264, queue=DM_QUEUE)
    tree.attributes(md0 / "md", {"level": "raid1", "metadata_version": "1.2", "raid_disks": "2"})
    tree.stack(sdb1, md0)
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n" + PROC_HEAD,
        SWAPS_HEAD,
    )


def case_clean(tree: Tree) -> None:
    """(d) SATA SSD sdc with one unused partition; the rest of the machine is busy elsewhere
    (/ on sda1, swap on sda2 and a swap file, a snap squashfs on loop0)."""
    scsi = scsi_device(
        tree,
        tree.sys / "devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0",
        "ATA",
        "CT1000MX500SSD1",
        "M3CR",
        "2000E0000000",
    )
    sdc = tree.block(scsi / "block", "sdc", (8, 32), 1953525168, queue=SSD_QUEUE, device=scsi)
    tree.block(sdc, "sdc1", (8, 33), 1953521664, partition=(1, 2048))
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
        + PROC_HEAD
        + "40 21 7:0 / /snap/core22/1380 ro,nodev,relatime shared:22 - squashfs /dev/loop0 ro\n",
        SWAPS_HEAD
        + swap_line("/dev/sda2", "partition", 8388604)
        + swap_line("/swapfile", "file", 2097148),
    )


def case_usb(tree: Tree) -> None:
    """(e) USB SSD sdd (UAS bridge): sdd1 is btrfs mounted at "/media/user/T7 Shield"; btrfs
    reports an anonymous device number (0:45), so only the mount source names sdd1."""
    scsi = scsi_device(
        tree,
        tree.sys / "devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0",
        "Samsung",
        "PSSD T7 Shield",
        "0",
        "S6XFNS0T000000Z",
    )
    sdd = tree.block(
        scsi / "block",
        "sdd",
        (8, 48),
        1953525168,
        queue={**SSD_QUEUE, "max_sectors_kb": "512", "discard_max_bytes": "4294966784"},
        device=scsi,
        extra={"removable": "0"},
    )
    tree.block(sdd, "sdd1", (8, 49), 1953521664, partition=(1, 2048))
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
        + PROC_HEAD
        + "52 21 0:45 / /media/user/T7\\040Shield rw,nosuid,nodev,relatime shared:300 - "
        "btrfs /dev/sdd1 rw,ssd,space_cache=v2,subvolid=5,subvol=/\n",
        SWAPS_HEAD,
    )


LOOP_QUEUE = {**SSD_QUEUE, "scheduler": "[none] mq-deadline kyber bfq", "nr_requests": "128"}
SECTORS_1G = 2097152


def loop_device(
    tree: Tree, minor: int, backing_file: str, *, offset: int = 0, sizelimit: int = 0
) -> Path:
    """loopN in devices/virtual/block with its loop/ attributes (offset and sizelimit in
    bytes, as the kernel shows them)."""
    directory = tree.block(
        tree.sys / "devices/virtual/block",
        f"loop{minor}",
        (7, minor),
        sizelimit // 512 if sizelimit else SECTORS_1G,
        queue=LOOP_QUEUE,
        extra={"removable": "0"},
    )
    tree.attributes(
        directory / "loop",
        {
            "backing_file": backing_file,
            "offset": str(offset),
            "sizelimit": str(sizelimit),
            "autoclear": "0",
            "partscan": "0",
            "dio": "0",
        },
    )
    return directory


def case_loop_stack(tree: Tree) -> None:
    """(f) NVMe nvme0n1 with three 1 GiB partitions and loop devices stacked on it, which
    register no holder: loop7 on nvme0n1p1, loop8 on loop7, loop9 on loop8 (ext4 mounted at
    /mnt/inner); loop10 on the whole nvme0n1 at nvme0n1p2's offset and size (losetup -o
    --sizelimit); nvme0n1p3 mounted at /data with loop11 on it; loop12 and loop13 attached to
    the same image file; loop14 detached."""
    controller = tree.sys / "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"
    tree.attributes(
        controller,
        {
            "model": f"{'WD_BLACK SN770 1TB':<40}",
            "serial": f"{'22000000000A':<20}",
            "firmware_rev": f"{'731100WD':<8}",
            "transport": "pcie",
            "state": "live",
        },
    )
    nvme0n1 = tree.block(
        controller, "nvme0n1", (259, 0), 1953525168, queue=NVME_QUEUE, device=controller
    )
    for number in (1, 2, 3):
        start = 2048 + (number - 1) * SECTORS_1G
        tree.block(
            nvme0n1, f"nvme0n1p{number}", (259, number), SECTORS_1G, partition=(number, start)
        )
    loop_device(tree, 7, "/dev/nvme0n1p1")
    loop_device(tree, 8, "/dev/loop7")
    loop_device(tree, 9, "/dev/loop8")
    p2 = (2048 + SECTORS_1G) * 512
    loop_device(tree, 10, "/dev/nvme0n1", offset=p2, sizelimit=SECTORS_1G * 512)
    loop_device(tree, 11, "/dev/nvme0n1p3")
    loop_device(tree, 12, "/srv/images/disk.img")
    loop_device(tree, 13, "/srv/images/disk.img")
    tree.block(tree.sys / "devices/virtual/block", "loop14", (7, 14), 0, queue=LOOP_QUEUE)
    tree.proc(
        "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
        + PROC_HEAD
        + "60 21 259:3 / /data rw,relatime shared:30 - ext4 /dev/nvme0n1p3 rw\n"
        + "61 21 7:9 / /mnt/inner rw,relatime shared:31 - ext4 /dev/loop9 rw\n",
        SWAPS_HEAD,
    )


CASES = {
    "sata_root": case_sata_root,
    "nvme_lvm": case_nvme_lvm,
    "md_member": case_md_member,
    "clean": case_clean,
    "usb": case_usb,
    "loop_stack": case_loop_stack,
}


def main() -> None:
    for name, build in CASES.items():
        root = HERE / name
        if root.exists():
            shutil.rmtree(root)
        build(Tree(root))


if __name__ == "__main__":
    main()
