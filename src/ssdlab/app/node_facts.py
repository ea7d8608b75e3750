"""`ssdlab node facts`: this node as a fleet's central machine needs to know it (fleet/doctor.py
reads it): versions, tools, root, boot id, its store, O_DIRECT in the folders asked about, the
targets asked about, and its clock, read last. The JSON document is the contract between the
central machine and its nodes."""

import os
import platform
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from ssdlab import __version__
from ssdlab.system import detached
from ssdlab.system.environment import read_boot_id

FACTS_FORMAT = "ssdlab-node-facts"
TOOLS = ("fio", "smartctl", "nvme")


@dataclass(frozen=True, slots=True)
class NodeFactsRequest:
    db: Path  # the node's store
    directories: tuple[str, ...] = ()  # say whether O_DIRECT works in each
    targets: tuple[str, ...] = ()  # describe each: file or block device, size, model


def node_facts(request: NodeFactsRequest) -> dict[str, object]:
    document: dict[str, object] = {
        "format": FACTS_FORMAT,
        "format_version": 1,
        "ssdlab_version": __version__,
        "python": platform.python_version(),
        "hostname": socket.gethostname(),
        "is_root": os.geteuid() == 0,
        "boot_id": read_boot_id(),
        "db": str(request.db),
        "tools": {tool: detached.tool_facts(tool) for tool in TOOLS},
        "direct_io": {d: detached.direct_io_problem(d) for d in request.directories},
        "targets": {t: detached.target_summary(t) for t in request.targets},
    }
    return {**document, "time_s": time.time()}  # last: the central side measures the offset
