"""`ssdlab node fio-server --socket PATH`: fio's server for one `fleet load`, on a unix socket
in a new private folder, for as long as the SSH connection that started it lasts."""

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from ssdlab.errors import ToolError
from ssdlab.plan.load_job import socket_path as checked_socket_path
from ssdlab.system.fio import find_fio
from ssdlab.system.fio_server import serve
from ssdlab.system.process import ProcessRunner


def cmd_node_fio_server(args: argparse.Namespace, _out: Console) -> int:
    socket_path = checked_socket_path(args.socket, f"--socket {args.socket!r}")
    fio = find_fio(ProcessRunner())

    def ready(_folder: Path) -> None:
        line = {"socket": socket_path, "fio_version": fio.version_text}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()

    end = serve(socket_path, fio.path, ready)
    if end.reason == "fio exited":
        raise ToolError(
            f"fio --server ended on its own (exit {end.fio_exit}) before the load was over; "
            "see the node's fio, then run fleet load again"
        )
    return 0
