"""ssdlab's entry point: parse arguments, run one command, turn errors into exit codes.

quick            cli/quick.py    target → plan → fio → store → result table
run / plan       cli/run.py      profiles (characterisation, SNIA PTS): plan → fio → verdicts
resume           cli/run.py      an interrupted profile run, from the round it stopped in
endure/status    cli/endure.py   days-long write loops with health sampling; where they stand
runs             cli/runs.py     stored runs listed, a page at a time (indexed columns only)
show/export      cli/inspect.py  stored runs read back and exported
store compact    cli/store_compact.py  raw text of older stores compressed, then VACUUM
report/compare   cli/report.py   runs as HTML/Markdown; runs side by side with significance
card             cli/card.py     a quick or imported run as one PNG/SVG result card to post
import           cli/imports.py  CrystalDiskMark/KDiskMark text and fio JSON become runs
latency          cli/latency.py  fio latency logs -> percentiles, histogram, per-second series
spec             cli/specs.py    vendor spec sheets, shipped and added
doctor           cli/doctor.py   tools, privileges, O_DIRECT, loop devices, cleanup
health/wear/watch cli/health.py SMART / NVMe health, wear between samples, sampling over days
conformance      cli/conformance.py  OCP Datacenter NVMe SSD requirements checked by ID
sim              cli/sim.py      simulated drives (FTL, GC, spare, SLC cache) stored as runs
model            cli/model.py    the simulator fitted to a drive's runs; predictions, verified
fleet            cli/fleet.py    many hosts over OpenSSH, hosts from an Ansible inventory
node             cli/node.py     what 'ssdlab fleet' calls on each node over SSH (JSON)

Each handler module's options are declared beside it in cli/<module>_options.py, which imports
no handler, so building the parser stays fast (a command line that names its command first
builds only the parser of that command's options module: `ssdlab metrics` imports no other
command's options, nor numpy through them); argument types shared by several commands are in
cli/arg_types.py, options shared by several (--db, --json, a profile's option table) in
cli/common_options.py.
"""

import argparse
import importlib
import os
import signal
import sqlite3
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ssdlab import __version__
from ssdlab.cli import common_options, fleet_options
from ssdlab.cli.console_on_use import console_on_use
from ssdlab.errors import SsdlabError, StoreError, UsageError
from ssdlab.system.write_gate import check_outputs

if TYPE_CHECKING:
    from rich.console import Console

EPILOG = """\
examples:
  ssdlab quick                          CrystalDiskMark-style run on a 1 GiB file here
  ssdlab quick /mnt/ssd --preset nvme   the NVMe SSD preset on a file under /mnt/ssd
  ssdlab quick /dev/sdb --mode read     read-only tests on a whole device
  ssdlab quick /dev/sdb --destroy-data /dev/sdb   read and write tests on the device (erases it)
  ssdlab plan quick /mnt/ssd            print the fio job files, run nothing
  ssdlab run cache /dev/sdb --destroy-data /dev/sdb   where the write cache runs out
  ssdlab run align /mnt/ssd             misaligned and sub-4K writes against aligned ones
  ssdlab runs                           every stored run
  ssdlab export 3 --format cdm          run 3 as CrystalDiskMark text
  ssdlab report 3 7 -o report.html      two runs in one self-contained HTML report
  ssdlab compare 3 7 --fail-if rnd4k-q1t1-read:-5%   exit 4 on a real regression
  ssdlab import CDM-result.txt          a CrystalDiskMark/KDiskMark text export as a run
  ssdlab doctor --directory /mnt/ssd    what is installed, and whether O_DIRECT works there
  ssdlab fleet run lab.ini quick        a quick run on every host of an Ansible inventory
"""


# the options modules under ssdlab.cli, in the order `ssdlab --help` lists their commands
OPTIONS_MODULES = (
    "quick_options",  # quick
    "run_options",  # plan, run, resume
    "endure_options",  # endure, status
    "runs_options",  # runs
    "inspect_options",  # show, export
    "report_options",  # report, compare
    "imports_options",  # import
    "latency_options",  # latency (fio latency logs, no store)
    "specs_options",  # spec
    "health_options",  # health, wear, watch
    "conformance_options",  # conformance
    "sim_options",  # sim
    "model_options",  # model fit
    "doctor_options",  # doctor
    "fleet_options",  # fleet (many hosts)
    "node_options",  # node (what 'ssdlab fleet' calls on each node)
    "metrics_options",  # metrics (Prometheus)
    "store_compact_options",  # store compact
    "card_options",  # card (a run as one image to post)
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's options, each declared beside its handler (cli/<handler>_options.py);
    with `command`, only those of its options module (the commands declared with it): what
    parsing a command line that names it needs, without importing the other modules."""
    parser = common_options.Parser(
        prog="ssdlab",
        description="SSD test bench for Linux: fio does the I/O, every run is stored.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"ssdlab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = OPTIONS_MODULES if command is None else (f"{COMMANDS[command][0]}_options",)
    for module in modules:
        importlib.import_module(f"ssdlab.cli.{module}").add_commands(commands)
    common_options.add_width(parser)
    return parser


def named_command(words: Sequence[str]) -> str | None:
    """The command a command line names first, after --width N at most (None when it names
    none so, or something else comes first — -h, --version, a mistyped option: those are
    parsed with every command's options)."""
    at = 0
    while at < len(words) and (words[at] == "--width" or words[at].startswith("--width=")):
        at += 2 if words[at] == "--width" else 1
    return words[at] if at < len(words) and words[at] in COMMANDS else None


Command = Callable[[argparse.Namespace, "Console"], int]
# command -> (module under ssdlab.cli, function); imported only when used, to start fast
COMMANDS: dict[str, tuple[str, str]] = {
    "quick": ("quick", "cmd_quick"),
    "plan": ("run", "cmd_plan"),
    "run": ("run", "cmd_run"),
    "resume": ("run", "cmd_resume"),
    "endure": ("endure", "cmd_endure"),
    "status": ("endure", "cmd_status"),
    "runs": ("runs", "cmd_runs"),
    "show": ("inspect", "cmd_show"),
    "export": ("inspect", "cmd_export"),
    "report": ("report", "cmd_report"),
    "compare": ("report", "cmd_compare"),
    "import": ("imports", "cmd_import"),
    "latency": ("latency", "cmd_latency"),
    "spec": ("specs", "cmd_spec"),
    "doctor": ("doctor", "cmd_doctor"),
    "health": ("health", "cmd_health"),
    "wear": ("health", "cmd_wear"),
    "watch": ("health", "cmd_watch"),
    "conformance": ("conformance", "cmd_conformance"),
    "sim": ("sim", "cmd_sim"),
    "model": ("model", "cmd_model"),
    "fleet": ("fleet", "cmd_fleet"),
    "node": ("node", "cmd_node"),
    "metrics": ("metrics", "cmd_metrics"),
    "store": ("store_compact", "cmd_store"),
    "card": ("card", "cmd_card"),
}


def load_command(name: str) -> Command:
    module, function = COMMANDS[name]
    command: Command = getattr(importlib.import_module(f"ssdlab.cli.{module}"), function)
    return command


def main(argv: Sequence[str] | None = None, on_ready: Callable[[], None] | None = None) -> int:
    """Parse the command line and run its command; its exit status. `on_ready` is called once
    the arguments are parsed and the command's module is loaded, right before it runs, where a
    KeyboardInterrupt is caught (the entry point, `ssdlab/__main__.py`, ends at once on Ctrl-C
    until then)."""
    words, profile_args = fleet_options.split_profile_args(sys.argv[1:] if argv is None else argv)
    parser = build_parser(named_command(words))
    args = parser.parse_args(words)
    if profile_args is not None:
        args.profile_args = profile_args
    out = console_on_use(getattr(args, "width", None))  # rich is imported by its first use
    try:
        command = load_command(args.command)  # its modules load while Ctrl-C still ends at once
        if on_ready is not None:
            on_ready()
        check_outputs(getattr(args, "output", None), getattr(args, "plots", None))
        return command(args, out)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"ssdlab: error: {error}", file=sys.stderr)
        return error.exit_code
    except StoreError as error:
        print(f"ssdlab: error: {_store_message(args, error)}", file=sys.stderr)
        return error.exit_code
    except SsdlabError as error:
        print(f"ssdlab: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        if on_ready is not None:  # the entry point's process: a second Ctrl-C, the line once
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("ssdlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except sqlite3.Error as error:  # the store failed where no command expected it to
        print(f"ssdlab: error: {_store_failure(args, error)}", file=sys.stderr)
        return 1
    except OSError as error:  # a path no command checked: too long, a loop of links, …
        print(f"ssdlab: error: {_os_message(error)}", file=sys.stderr)
        return 1


def _store_failure(args: argparse.Namespace, error: sqlite3.Error) -> StoreError:
    from ssdlab.cli.store_open import db_path
    from ssdlab.store.db import store_failure

    return store_failure(db_path(args), error)


def _store_message(args: argparse.Namespace, error: StoreError) -> str:
    """A store error; one caused by a damaged file says so, whatever was being done, and one
    caused by a full (or read-only) file system names the store."""
    from ssdlab.cli.store_open import db_path
    from ssdlab.store.db import cannot_write, is_damage

    cause = error.__cause__
    if isinstance(cause, sqlite3.Error) and is_damage(cause):
        return str(_store_failure(args, cause))
    path = str(db_path(args))
    if cannot_write(error) and path not in str(error):
        return f"{error} (the run store: {path})"
    return str(error)


def _os_message(error: OSError) -> str:
    what = error.strerror or str(error)
    name = error.filename
    if name is None:
        return what
    shown = os.fsdecode(name) if isinstance(name, str | bytes) else str(name)
    return f"cannot use {shown}: {what}; check the path and try again"
