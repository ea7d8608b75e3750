"""`ssdlab node …`: what `ssdlab fleet` calls on each lab node over SSH; every answer is JSON
(the contract with the central machine). What each does is app/node_*.py's: facts, check,
jobs (start, follow, supervise), store (export, status) and fio-server; here the options become
a request and the answer goes to stdout."""

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab.app import node_jobs, node_store
from ssdlab.app.node_check import NodeCheckRequest, check_node_target
from ssdlab.app.node_facts import NodeFactsRequest, node_facts
from ssdlab.app.node_fio_server import FioServerRequest, serve_fio
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.errors import SsdlabError, UsageError

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def _emit(document: Any) -> None:
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


def _jobs_dir(args: argparse.Namespace) -> Path:
    return node_jobs.jobs_folder(args.jobs_dir, db_path(args))


def _facts(args: argparse.Namespace) -> int:
    request = NodeFactsRequest(db_path(args), tuple(args.directory), tuple(args.target))
    _emit(node_facts(request))
    return 0


def _start(args: argparse.Namespace) -> int:
    """One job (`-- ARGV`: its job, or an error) or many (`--batch`: a list on stdin)."""
    argv = tuple(args.argv[1:] if args.argv[:1] == ["--"] else args.argv)
    if args.batch and argv:
        raise UsageError("node start takes the command lines on stdin (--batch) or after --")
    argvs = node_jobs.batch_argvs(sys.stdin.read()) if args.batch else (argv,)
    started = node_jobs.start_node_jobs(node_jobs.StartRequest(_jobs_dir(args), argvs))
    if args.batch:
        _emit(started)
        return 0
    (one,) = started
    if "problem" in one:
        raise SsdlabError(str(one["problem"]))
    _emit(one)
    return 0


def _follow(args: argparse.Namespace) -> int:
    """A dropped connection (SIGPIPE, a hangup, a closed stdout) ends this reader quietly; the
    jobs run on in their own sessions."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    points = tuple(node_jobs.follow_point(word) for word in args.jobs)
    request = node_jobs.FollowRequest(_jobs_dir(args), points)
    try:
        for record in node_jobs.follow_node_jobs(request):
            _emit(record)
    except (BrokenPipeError, ConnectionError):
        os._exit(0)  # nothing more can be said; flushing at exit would fail again
    return 0


def _jobs(args: argparse.Namespace) -> int:
    _emit(node_jobs.list_node_jobs(node_jobs.JobsRequest(_jobs_dir(args))))
    return 0


def _check(args: argparse.Namespace) -> int:
    request = NodeCheckRequest(
        args.target, args.mode, args.size, args.buffered, getattr(args, "destroy_data", None)
    )
    _emit(check_node_target(session_for(args), request))
    return 0


def _supervise(args: argparse.Namespace) -> int:
    return node_jobs.supervise_node_job(node_jobs.SuperviseRequest(Path(args.dir)))


def _fio_server(args: argparse.Namespace) -> int:
    serve_fio(FioServerRequest(args.socket), _emit)
    return 0


def _export(args: argparse.Namespace) -> int:
    """The store's runs but the finished ones named on stdin, as one store file on stdout."""
    finished = node_store.finished_uuids(sys.stdin.read())
    request = node_store.NodeExportRequest(db_path(args), finished)
    if args.to is not None:
        node_store.export_node_runs_to(request, Path(args.to))
        return 0
    node_store.export_node_runs(request, sys.stdout.buffer)
    sys.stdout.buffer.flush()
    return 0


def _status(args: argparse.Namespace) -> int:
    conn = open_db(args) if db_path(args).exists() else None
    _emit(node_store.node_status(conn, node_store.NodeStatusRequest(_jobs_dir(args))))
    return 0


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


def cmd_node(args: argparse.Namespace, _out: "Console") -> int:
    return HANDLERS[args.node_command](args)
