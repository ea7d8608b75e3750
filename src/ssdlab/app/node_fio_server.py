"""`ssdlab node fio-server --socket PATH`: fio's server for one `fleet load`, on a unix socket
in a new private folder, for as long as the SSH connection that started it lasts
(system/fio_server.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ToolError
from ssdlab.plan.load_job import socket_path as checked_socket_path
from ssdlab.system.fio import find_fio
from ssdlab.system.fio_server import serve
from ssdlab.system.process import ProcessRunner


@dataclass(frozen=True, slots=True)
class FioServerRequest:
    socket: str  # the socket's path; its folder must not exist yet


def serve_fio(request: FioServerRequest, ready: Callable[[dict[str, object]], None]) -> None:
    """Serve until the connection ends; `ready` is told the socket and fio's version once the
    socket exists. ToolError when fio's server ends on its own first."""
    socket_path = checked_socket_path(request.socket, f"--socket {request.socket!r}")
    fio = find_fio(ProcessRunner())

    def say_ready(_folder: Path) -> None:
        ready({"socket": socket_path, "fio_version": fio.version_text})

    end = serve(socket_path, fio.path, say_ready)
    if end.reason == "fio exited":
        raise ToolError(
            f"fio --server ended on its own (exit {end.fio_exit}) before the load was over; "
            "see the node's fio, then run fleet load again"
        )
