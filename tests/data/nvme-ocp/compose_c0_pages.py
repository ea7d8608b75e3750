"""Compose the raw C0h test pages (*.bin here) from the values two real nvme-cli JSON outputs
state, following nvme-cli's ``struct ocp_smart_extended_log`` (plugins/ocp/
ocp-smart-extended-log.h, linux-nvme/nvme-cli commit e117ee68059fe1f44e2486dd03fd62aa3f96a9dc).

The offsets below are copied from that header, not from ssdlab, so a wrong offset in ssdlab's
decoder shows as a disagreement between the binary and the JSON reading of the same output.
A field the JSON does not print stays zero in the page. Run from the repository root:

    python tests/data/nvme-ocp/compose_c0_pages.py
"""

import json
from pathlib import Path

HERE = Path(__file__).parent
GUID = bytes.fromhex("C5AF1028EABFF2A49C4F6F7CC914D5AF")  # scao_guid, ocp-smart-extended-log.c

# nvme-cli JSON key (output format version 1) -> (offset, size) in the 512-byte page
LAYOUT: dict[str, tuple[int, int]] = {
    "Physical media units written": (0, 16),
    "Physical media units read": (16, 16),
    "Bad user nand blocks - Raw": (32, 6),
    "Bad user nand blocks - Normalized": (38, 2),
    "Bad system nand blocks - Raw": (40, 6),
    "Bad system nand blocks - Normalized": (46, 2),
    "XOR recovery count": (48, 8),
    "Uncorrectable read error count": (56, 8),
    "Soft ecc error count": (64, 8),
    "End to end detected errors": (72, 4),
    "End to end corrected errors": (76, 4),
    "System data percent used": (80, 1),
    "Refresh counts": (81, 7),
    "Max User data erase counts": (88, 4),
    "Min User data erase counts": (92, 4),
    "Number of Thermal throttling events": (96, 1),
    "Current throttling status": (97, 1),
    "Errata Version Field": (98, 1),
    "Point Version Field": (99, 2),
    "Minor Version Field": (101, 2),
    "Major Version Field": (103, 1),
    "PCIe correctable error count": (104, 8),
    "Incomplete shutdowns": (112, 4),
    "Percent free blocks": (120, 1),
    "Capacitor health": (128, 2),
    "NVMe Base Errata Version": (130, 1),
    "NVMe Command Set Errata Version": (131, 1),
    "NVMe Over Pcie Errata Version": (132, 1),
    "NVMe Mi Errata Version": (133, 1),
    "Unaligned I/O": (136, 8),
    "Security Version Number": (144, 8),
    "NUSE - Namespace utilization": (152, 8),
    "PLP start count": (160, 16),
    "Endurance estimate": (176, 16),
    "PCIe Link Retraining Count": (192, 8),
    "Power State Change Count": (200, 8),
    "Lowest Permitted Firmware Revision": (208, 8),
    "Total media dies": (216, 2),
    "Total die failure tolerance": (218, 2),
    "Media dies offline": (220, 2),
    "Max temperature recorded": (222, 1),
    "Nand avg erase count": (224, 8),
    "Command timeouts": (232, 4),
    "Log page version": (494, 2),
}

HEX_DUMP = "qemu-ocp-c0-composed.hexdump.txt"  # the QEMU page as nvme get-log prints it

PAGES = {
    "autoval-c0-v1-keys.json": "autoval-c0-composed.bin",
    "qemu-ocp-c0-nvme-cli-2.16.json": "qemu-ocp-c0-composed.bin",
}


def compose(doc: dict[str, object]) -> bytes:
    page = bytearray(512)
    for key, (offset, size) in LAYOUT.items():
        value = doc.get(key)
        if isinstance(value, dict):
            value = value["hi"] * 2**64 + value["lo"]
        if isinstance(value, int):
            page[offset : offset + size] = value.to_bytes(size, "little")
    page[496:512] = GUID
    return bytes(page)


def hex_dump(page: bytes, device: str = "nvme0") -> str:
    """The page as `nvme get-log DEV --log-id=0xc0 --log-len=512` prints it without -b:
    nvme-cli's d() (src/nvme-print.c at the commit above) with width 16, group 1."""
    lines = [f"Device:{device} log-id:192 namespace-id:0xffffffff"]
    lines.append("     " + "".join(f"{i:3x}" for i in range(16)))
    for at in range(0, len(page), 16):
        row = page[at : at + 16]
        text = "".join(chr(b) if 0x21 <= b <= 0x7E else "." for b in row)
        lines.append(f"{at:04x}:" + "".join(f" {b:02x}" for b in row) + f' "{text}"')
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    for source, target in PAGES.items():
        doc = json.loads((HERE / source).read_text(encoding="utf-8"))
        (HERE / target).write_bytes(compose(doc))
        print(f"{source} -> {target}")
    qemu = (HERE / PAGES["qemu-ocp-c0-nvme-cli-2.16.json"]).read_bytes()
    (HERE / HEX_DUMP).write_text(hex_dump(qemu), encoding="utf-8")
    print(f"-> {HEX_DUMP}")
