"""`ssdlab node …`: what `ssdlab fleet` calls on each lab node over SSH; every answer is JSON.
The processes, job folders and node facts are system/detached.py's; this is their command
line, and the target checks a local run makes (`RunSession.check_target`)."""

import argparse
import json
import os
import platform
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from ssdlab import __version__
from ssdlab.cli.node_fio_server import cmd_node_fio_server
from ssdlab.cli.node_store import cmd_node_export, cmd_node_status, jobs_dir_of
from ssdlab.cli.profile_setup import is_device_target
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.plan import Direction
from ssdlab.model.target import TargetKind
from ssdlab.plan.quick_settings import parse_mode
from ssdlab.profiles.quick import SPEC
from ssdlab.system import detached
from ssdlab.system.devicetarget import resolve_device_target, with_loop_warnings
from ssdlab.system.environment import read_boot_id
from ssdlab.system.filetarget import resolve_file_target


def _emit(document: Any) -> None:
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


def _facts(args: argparse.Namespace) -> int:
    document = {
        "format": "ssdlab-node-facts",
        "format_version": 1,
        "ssdlab_version": __version__,
        "python": platform.python_version(),
        "hostname": socket.gethostname(),
        "is_root": os.geteuid() == 0,
        "boot_id": read_boot_id(),
        "db": str(db_path(args)),
        "tools": {tool: detached.tool_facts(tool) for tool in ("fio", "smartctl", "nvme")},
        "direct_io": {d: detached.direct_io_problem(d) for d in args.directory},
        "targets": {t: detached.target_summary(t) for t in args.target},
    }
    _emit({**document, "time_s": time.time()})  # last: the central side measures the offset
    return 0


def _start(args: argparse.Namespace) -> int:
    argv = list(args.argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        raise UsageError("give the ssdlab command line after --, e.g. -- quick /mnt/ssd --json")
    started = detached.start_job(jobs_dir_of(args), argv)
    _emit({"job": started.job, "dir": started.dir, "pid": started.pid})
    return 0


def _follow(args: argparse.Namespace) -> int:
    """A dropped connection (SIGPIPE, a hangup, a closed stdout) ends this reader quietly; the
    job runs on in its own session."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    path = detached.job_dir(jobs_dir_of(args), args.job)
    offsets = {"stdout": args.offset_stdout, "stderr": args.offset_stderr}
    try:
        for record in detached.follow_job(path, offsets):
            _emit(record)
    except (BrokenPipeError, ConnectionError):
        os._exit(0)  # nothing more can be said; flushing at exit would fail again
    return 0


def _jobs(args: argparse.Namespace) -> int:
    _emit(detached.list_jobs(jobs_dir_of(args)))
    return 0


def _check_target(args: argparse.Namespace, writes: bool) -> None:
    """What `ssdlab quick TARGET` checks before it opens anything for writing."""
    size = args.size or SPEC.default_file_size_bytes
    if is_device_target(args):
        target = resolve_device_target(args.target, size)
    else:
        target = with_loop_warnings(
            resolve_file_target(args.target, size, direct_io=not args.buffered, writes=writes)
        )
    session_for(args).check_target(
        target,
        destructive=writes and target.kind is TargetKind.DEVICE,
        destroy_data=args.destroy_data,
        ioengine=str(SPEC.option("ioengine").default),
    )


def _check(args: argparse.Namespace) -> int:
    mode = str(args.mode or SPEC.option("mode").default)
    writes = any(d is not Direction.READ for d in parse_mode(mode))  # a bad --mode: exit 2
    try:
        _check_target(args, writes)
    except SsdlabError as error:
        _emit({"ok": False, "reason": str(error)})
        return 0
    _emit({"ok": True})
    return 0


def _supervise(args: argparse.Namespace) -> int:
    return detached.supervise(Path(args.dir))


def _fio_server(args: argparse.Namespace) -> int:
    return cmd_node_fio_server(args, Console(stderr=True))


def _export(args: argparse.Namespace) -> int:
    return cmd_node_export(args, Console(stderr=True))


def _status(args: argparse.Namespace) -> int:
    return cmd_node_status(args, Console(stderr=True))


HANDLERS = {
    "facts": _facts,
    "start": _start,
    "follow": _follow,
    "jobs": _jobs,
    "check": _check,
    "supervise": _supervise,
    "fio-server": _fio_server,
    "export": _export,
    "status": _status,
}


def cmd_node(args: argparse.Namespace, _out: Console) -> int:
    return HANDLERS[args.node_command](args)
