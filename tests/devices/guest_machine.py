"""The device tier's guest on the host side: QEMU's command line, its disks, and its start.

One guest has every drive the tier tests, each on a sparse image file in a temporary folder
that the guest alone writes:

- ``nvme0``: an NVMe controller with one namespace (its drive), serial SSDLABNVME0;
- ``nvme1``: an NVMe controller in the subsystem ``subsys1`` with two namespaces, serial
  SSDLABNVME1 (a format of one would erase both: the shared-controller refusals);
- ``sata0``: a SATA disk on an AHCI controller, serial SSDLABSATA0;
- ``scsi0``: a SCSI disk on virtio-SCSI, serial SSDLABSCSI0.

The guest boots Debian's kernel (tests/devices/guest_image.py) with the host's root filesystem
read-only: nothing on the host is written by it, and it writes only its own disk images. It runs
under QEMU's TCG emulator, which needs nothing from the host's CPU (``SSDLAB_DEVICE_ACCEL=kvm``
asks for KVM instead where it works).
"""

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.devices.guest_client import BOOT_LIMIT_S, Guest, GuestError
from tests.devices.guest_image import GuestImage

QEMU = "qemu-system-x86_64"
AGENT = Path(__file__).resolve().with_name("guest_agent.py")
MiB = 1 << 20


@dataclass(frozen=True)
class Disk:
    id: str  # QEMU's drive id
    size_bytes: int


# small, so that a purge, a TRIM of the whole disk or a fill costs an emulated CPU little
DISKS = (
    Disk("nvme0", 192 * MiB),
    Disk("ns1", 128 * MiB),
    Disk("ns2", 128 * MiB),
    Disk("sata0", 64 * MiB),
    Disk("scsi0", 64 * MiB),
)


class QemuDidNotStart(GuestError):
    """QEMU itself could not start (not installed, or it exits before the guest boots)."""


def qemu_argv(
    image: GuestImage, folder: Path, agent_socket: Path, qmp_socket: Path, accel: str
) -> list[str]:
    def drive(disk_id: str) -> list[str]:
        path = folder / f"{disk_id}.img"
        spec = f"if=none,id={disk_id},file={path},format=raw,discard=unmap,cache=unsafe"
        return ["-drive", spec]

    append = " ".join(
        [
            "console=ttyS0",
            "quiet",
            "loglevel=4",
            "panic=-1",
            "rdinit=/init",
            "tsc=reliable",
            "no_timer_check",
            "i8042.noaux",
            "i8042.nokbd",
            f"ssdlab_python={sys.executable}",
            f"ssdlab_agent={AGENT}",
        ]
    )
    return [
        QEMU,
        "-machine",
        f"q35,accel={accel}",
        "-cpu",
        "host" if accel == "kvm" else "max",
        "-smp",
        "2",
        "-m",
        "1536",
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-no-reboot",
        "-kernel",
        str(image.kernel),
        "-initrd",
        str(image.initramfs),
        "-append",
        append,
        "-serial",
        f"file:{folder / 'console.log'}",
        "-chardev",
        f"socket,id=qmp,path={qmp_socket},server=off",
        "-mon",
        "chardev=qmp,mode=control",
        "-fsdev",
        "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
        "-device",
        "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
        "-device",
        "virtio-serial-pci",
        "-chardev",
        f"socket,id=agent,path={agent_socket},server=off",
        "-device",
        "virtserialport,chardev=agent,name=ssdlab.agent",
        # nvme0: one controller, one namespace
        *drive("nvme0"),
        "-device",
        "nvme,id=nvme0,serial=SSDLABNVME0,drive=nvme0",
        # nvme1: a controller in a subsystem, with two namespaces
        "-device",
        "nvme-subsys,id=subsys1,nqn=ssdlab-subsys1",
        "-device",
        "nvme,id=nvme1,serial=SSDLABNVME1,subsys=subsys1",
        *drive("ns1"),
        "-device",
        "nvme-ns,drive=ns1,bus=nvme1,nsid=1",
        *drive("ns2"),
        "-device",
        "nvme-ns,drive=ns2,bus=nvme1,nsid=2",
        # SATA on AHCI
        "-device",
        "ahci,id=ahci",
        *drive("sata0"),
        "-device",
        "ide-hd,drive=sata0,bus=ahci.0,serial=SSDLABSATA0,model=ssdlab SATA disk,rotation_rate=1",
        # SCSI on virtio-SCSI
        "-device",
        "virtio-scsi-pci,id=scsi",
        *drive("scsi0"),
        "-device",
        "scsi-hd,drive=scsi0,bus=scsi.0,serial=SSDLABSCSI0,rotation_rate=1",
    ]


def _listener(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(1.0)
    return server


def _accept(server: socket.socket, process: "subprocess.Popen[bytes]", what: str) -> socket.socket:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise QemuDidNotStart(f"QEMU exited ({process.returncode}) before connecting {what}")
        try:
            connection, _ = server.accept()
        except TimeoutError:
            continue
        connection.settimeout(None)
        return connection
    raise QemuDidNotStart(f"QEMU did not connect {what}")


def _die_with_parent() -> None:
    """In QEMU's child before exec: the kernel kills it when the test process dies, so a
    killed test run leaves no guest behind (PR_SET_PDEATHSIG)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def make_disks(folder: Path) -> None:
    for disk in DISKS:
        with open(folder / f"{disk.id}.img", "wb") as image:
            image.truncate(disk.size_bytes)  # sparse


@contextmanager
def running_guest(image: GuestImage, folder: Path) -> Iterator[Guest]:
    """Boot the guest and wait for its agent; stopped (QEMU quit) on leaving."""
    if shutil.which(QEMU) is None:
        raise QemuDidNotStart(f"{QEMU} is not installed (apt-get install qemu-system-x86)")
    make_disks(folder)
    # unix socket paths are limited to 108 bytes: keep them short
    sockets = Path(f"/tmp/ssdlab-guest-{os.getpid()}")
    sockets.mkdir(exist_ok=True)
    agent_path, qmp_path = sockets / "agent", sockets / "qmp"
    for path in (agent_path, qmp_path):
        path.unlink(missing_ok=True)
    agent_server, qmp_server = _listener(agent_path), _listener(qmp_path)
    accel = os.environ.get("SSDLAB_DEVICE_ACCEL", "tcg")
    argv = qemu_argv(image, folder, agent_path, qmp_path, accel)
    (folder / "qemu-argv.json").write_text(json.dumps(argv, indent=1))
    started = time.monotonic()
    log = open(folder / "qemu.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=_die_with_parent
    )
    try:
        qmp = _accept(qmp_server, process, "its QMP monitor")
        agent = _accept(agent_server, process, "the agent's channel")
    except QemuDidNotStart as error:
        agent_server.close()
        qmp_server.close()
        shutil.rmtree(sockets, ignore_errors=True)
        log.close()
        text = (folder / "qemu.log").read_text(errors="replace").strip()
        process.kill()
        process.wait()
        raise QemuDidNotStart(f"{error}: {text}") from None
    agent_server.close()
    qmp_server.close()
    guest = Guest(folder, process, agent, qmp, accel)
    guest._qmp_file = qmp.makefile("r")
    guest._qmp_file.readline()  # the greeting
    guest.qmp("qmp_capabilities")
    threading.Thread(target=guest._reader, daemon=True).start()
    try:
        ready = guest._wait_reply(0, BOOT_LIMIT_S)
        guest.boot_seconds = time.monotonic() - started
        if not ready.get("ready"):
            raise GuestError(f"the guest's agent did not start: {ready}")
        yield guest
    finally:
        guest.stop()
        log.close()
        shutil.rmtree(sockets, ignore_errors=True)
