"""Inputs of the conformance tests: the real outputs of tests/data (see
tests/data/conformance/README.md), pages changed in one field from the composed QEMU C0h page,
a C3h page as tests/ocp_pages.py composes it, and qos verdicts judged by analysis/profiles/qos.py
from real fio json+ histograms. Every changed or composed input says so in its source name."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ssdlab.analysis.profiles.qos import QosItem, QosVerdict, judge_change, judge_count
from ssdlab.app.conformance import gather_evidence
from ssdlab.model.conformance import DriveEvidence
from ssdlab.model.qos_targets import qos_workload
from ssdlab.parse.drive_outputs import DriveOutput, read_drive_output, read_json_output
from ssdlab.parse.fio_histogram import clat_by_direction
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data"
OCP = DATA / "nvme-ocp"
QEMU_C0_PAGE = OCP / "qemu-ocp-c0-composed.bin"
QEMU_C0_HEXDUMP = OCP / "qemu-ocp-c0-composed.hexdump.txt"
AUTOVAL_C0_JSON = OCP / "autoval-c0-v1-keys.json"
QEMU_C0_JSON = OCP / "qemu-ocp-c0-nvme-cli-2.16.json"
QEMU_SMARTCTL = DATA / "devices" / "smartctl-x-j-nvme0n1.json"
NVME_SMART_LOG = DATA / "smart" / "nvme-cli-2.x-smart-log.json"
PM1733_ID_CTRL = DATA / "conformance" / "samsung-pm1733-id-ctrl-H.txt"
QOS_TARGETS = ROOT / "src" / "ssdlab" / "profiles" / "qos_targets.toml"
FIO = DATA / "fio"

# the values the OCP requirements ask of Identify Controller, composed (README.md there)
OCP_ID_CTRL: dict[str, Any] = {
    "mn": "COMPOSED OCP VALUES", "sn": "COMPOSED", "fr": "1.0", "mdts": 6,
    "oacs": 0x5E, "lpa": 0x1E, "oncs": 0x5F, "fuses": 1, "fna": 4, "vwc": 0,
    "sanicap": 3, "ctratt": 0x200, "wctemp": 0x15E, "cctemp": 0x166,
}  # fmt: skip


def read(path: Path) -> DriveOutput:
    return read_drive_output(path.read_bytes(), path.name)


def changed_c0(
    what: str, change: Callable[[bytearray], None], base: Path = QEMU_C0_PAGE
) -> DriveOutput:
    """The composed QEMU C0h page with one change, named in the source."""
    page = bytearray(base.read_bytes())
    change(page)
    return read_drive_output(bytes(page), f"{base.name}, changed: {what}")


def set_bytes(at: int, value: int, size: int) -> Callable[[bytearray], None]:
    def change(page: bytearray) -> None:
        page[at : at + size] = value.to_bytes(size, "little")

    return change


def changed_json(path: Path, what: str, **values: Any) -> DriveOutput:
    doc = json.loads(path.read_text())
    for key, value in values.items():
        target = doc
        *parents, last = key.split("__")
        for parent in parents:
            target = target[parent]
        target[last] = value
    return read_json_output(doc, f"{path.name}, changed: {what}")


def id_ctrl(what: str = "", **values: Any) -> DriveOutput:
    name = "nvme id-ctrl -o json composed with the OCP values" + (f", {what}" if what else "")
    return read_json_output({**OCP_ID_CTRL, **values}, name)


def evidence(*outputs: DriveOutput) -> DriveEvidence:
    return gather_evidence(outputs)


def _clat(name: str) -> Any:
    return clat_by_direction((FIO / name).read_text())


def qos_verdict(workload: str, items: tuple[QosItem, ...]) -> QosVerdict:
    failed = sum(i.outcome == "fail" for i in items)
    passed = sum(i.outcome == "pass" for i in items)
    outcome = "fail" if failed else "pass" if passed == len(items) else "inconclusive"
    return QosVerdict(workload, 1.0, 30.0, items, outcome, f"{outcome}: {passed} of {len(items)}")


def cto3_verdict() -> QosVerdict:
    """CTO-3's two targets on a 30 s QD32 random-read capture: no I/O over 8 s (pass); the
    count over 2 s in an hour cannot be judged from 30 s (inconclusive)."""
    workload = qos_workload(QOS_TARGETS.read_text(), str(QOS_TARGETS), "CTO-3")
    reads = _clat("randread-4k-qd32.json")["read"]
    items = tuple(judge_count(t, reads[0], reads[1], 30.0) for t in workload.targets)
    return qos_verdict("CTO-3", items)


def trim_verdict(slower_phase: bool) -> QosVerdict:
    """TRIM-6/7's targets with the 70/30 mix's reads as the baseline and the QD32 reads as the
    phase (slower: every change fails), or the other way round (faster: every change passes)."""
    workload = qos_workload(QOS_TARGETS.read_text(), str(QOS_TARGETS), "TRIM-6-7")
    mixed, qd32 = _clat("randrw-70-30.json"), _clat("randread-4k-qd32.json")
    baseline, phase = (mixed, qd32) if slower_phase else (qd32, mixed)
    items = tuple(judge_change(t, baseline, phase) for t in workload.targets)
    return qos_verdict("TRIM-6-7", items)
