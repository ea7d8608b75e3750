"""The options of `ssdlab node` (handled by cli/node.py): what `ssdlab fleet` calls on each lab
node over SSH. Kept apart from the handler so that building the parser imports no handler."""

import argparse

from ssdlab.cli.arg_types import size_arg
from ssdlab.cli.common_options import STORE, Commands, add_destroy_data, add_option
from ssdlab.profiles.quick import SPEC

JOBS_DIR_HELP = "where jobs are kept (default: fleet-jobs beside the run store)"


def _add_jobs_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs-dir", metavar="DIR", help=JOBS_DIR_HELP)


def _add_facts(sub: Commands) -> None:
    facts = sub.add_parser(
        "facts",
        help="this node as JSON: versions, tools, root, boot id, clock, O_DIRECT, targets",
        parents=[STORE],
    )
    facts.add_argument(
        "--directory",
        action="append",
        default=[],
        metavar="DIR",
        help="also say whether O_DIRECT works in DIR (repeatable)",
    )
    facts.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="PATH",
        help="also describe the target PATH: file or block device, size, model (repeatable)",
    )


def _add_jobs(sub: Commands) -> None:
    start = sub.add_parser(
        "start",
        help="start 'ssdlab ARGV…' detached (it outlives the SSH connection); print its job id",
        description="Start 'ssdlab ARGV…' detached, in a session of its own, and print its job "
        "id, folder and pid as JSON. With --batch, read a JSON list of command lines on stdin "
        "instead, start one job for each at once, and print a JSON list: per command line, in "
        "order, its job or the problem that kept it from starting.",
        parents=[STORE],
    )
    _add_jobs_dir(start)
    start.add_argument(
        "--batch",
        action="store_true",
        help='read the command lines on stdin as JSON, e.g. [["quick", "/mnt/a", "--json"]]',
    )
    start.add_argument(
        "argv", nargs=argparse.REMAINDER, metavar="-- ARGV", help="the ssdlab command line"
    )
    follow = sub.add_parser(
        "follow",
        help="jobs' stderr and stdout as JSON lines as they grow, then each one's exit code",
        description="Follow the jobs named until every one has ended: their outputs as JSON "
        "lines, each naming its job and the byte offset its text starts at, then each job's "
        "exit code (or why it was lost). JOB:STDOUT:STDERR starts that job's outputs at those "
        "bytes (to go on after a reconnect).",
        parents=[STORE],
    )
    follow.add_argument(
        "jobs",
        nargs="+",
        metavar="JOB[:STDOUT:STDERR]",
        help="a job id 'node start' printed, with the bytes of its outputs already read",
    )
    _add_jobs_dir(follow)
    jobs = sub.add_parser(
        "jobs", help="every job as JSON: running, exited (with its code) or lost", parents=[STORE]
    )
    _add_jobs_dir(jobs)
    supervise = sub.add_parser("supervise")  # no help: started by 'node start' only
    supervise.add_argument("dir")


def _add_check(sub: Commands) -> None:
    check = sub.add_parser(
        "check",
        help="the checks a run on TARGET makes before it writes, as JSON {ok, reason}",
        parents=[STORE],
    )
    check.add_argument("target", help="directory, file path or block device")
    add_option(check.add_argument_group("as for 'ssdlab quick'"), SPEC.option("mode"))
    check.add_argument("--size", type=size_arg, help="test size, e.g. 1GiB")
    check.add_argument("--buffered", action="store_true", help="without O_DIRECT (file targets)")
    add_destroy_data(check)


def _add_fio_server(sub: Commands) -> None:
    server = sub.add_parser(
        "fio-server",
        help="fio --server on a unix socket in a new 0700 folder, until the connection ends",
        description="Start 'fio --server=sock:PATH' for one 'ssdlab fleet load' (the socket's "
        "folder is created new, mode 0700), print one JSON line once the socket exists, and stop "
        "fio and remove the folder when stdin closes, the connection ends or a signal comes. "
        "fio's server is never started on a TCP port.",
    )
    server.add_argument(
        "--socket",
        required=True,
        metavar="PATH",
        help="the socket's path; its folder must not exist yet",
    )


def _add_store(sub: Commands) -> None:
    export = sub.add_parser(
        "export",
        help="the store's runs but the finished ones named on stdin, as a store file on stdout",
        description="Read a JSON list of run UUIDs on stdin (the runs 'ssdlab fleet collect' "
        "holds finished already) and write every other run of the store, as one SQLite store "
        "file, to stdout (or to --to). The store is only read.",
        parents=[STORE],
    )
    export.add_argument(
        "--to",
        metavar="FILE",
        help="write the store file here instead (replaced whole once written, mode 0600)",
    )
    status = sub.add_parser(
        "status",
        help="the store's running and recent runs (endurance: WAF, days to end of life) and jobs",
        parents=[STORE],
    )
    _add_jobs_dir(status)


def add_commands(commands: Commands) -> None:
    node = commands.add_parser(
        "node",
        help="what 'ssdlab fleet' calls on each node over SSH (JSON output)",
        description="The commands 'ssdlab fleet' runs on each lab node over SSH; each prints\n"
        "JSON for a program to read. A started job runs on in a session of its own when the\n"
        "connection drops, and every safety check runs here, on the node.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab node facts --directory /mnt/ssd --target /dev/nvme0n1\n"
        "  ssdlab node start -- quick /mnt/ssd --json\n"
        '  echo \'[["quick", "/mnt/a"], ["quick", "/mnt/b"]]\' | ssdlab node start --batch\n'
        "  ssdlab node follow 20261126T120000.123Z-1a2b3c4d:0:4096 20261126T120000.140Z-5e6f7a8b\n"
        "  ssdlab node jobs\n  ssdlab node check /dev/sdb --destroy-data /dev/sdb\n",
    )
    sub = node.add_subparsers(dest="node_command", metavar="SUBCOMMAND", required=True)
    _add_facts(sub)
    _add_jobs(sub)
    _add_check(sub)
    _add_fio_server(sub)
    _add_store(sub)
