"""The options of `ssdlab plan`, `ssdlab run` and `ssdlab resume` (handled by cli/run.py),
built from each profile's option table. Kept apart from the handlers so that building the
parser imports no handler."""

import argparse

from ssdlab.cli import quick_options
from ssdlab.cli.common_options import (
    START_AT,
    STORE,
    Commands,
    add_destroy_data,
    add_option,
    add_profile_options,
    add_profile_parser,
    add_rating,
    json_output,
    literal,
)
from ssdlab.cli.latency_monitor_options import add_latency_monitor_options
from ssdlab.registry import profile_record, run_profiles

PLOTS_HELP = "also write the report's charts here as SVG and PNG"


def _add_plan(commands: Commands) -> None:
    plan = commands.add_parser(
        "plan",
        help="print the fio job files of a profile, run nothing",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab plan quick /mnt/ssd --preset nvme\n"
        "  ssdlab plan quick /dev/nvme0n1 --mode read --check\n"
        "  ssdlab plan cache /dev/sdb --size 100GiB\n",
    )
    planned = plan.add_subparsers(dest="profile", metavar="PROFILE", required=True)
    quick_options.add_plan_command(planned)
    for name, record in run_profiles().items():
        spec = record.spec
        # --db: options that name a stored run (cachefit --from-run) read it there
        sub = planned.add_parser(
            name,
            help=literal(spec.summary),
            description=spec.description,
            parents=[json_output("print the plan as JSON"), STORE],
        )
        add_profile_options(sub, spec)
        add_destroy_data(sub)  # as `run` takes it: a run's command line plans as it is
        sub.add_argument(
            "--check", action="store_true", help="also run 'fio --parse-only' on every job file"
        )


def _add_run(commands: Commands) -> None:
    run = commands.add_parser(
        "run",
        help="run a profile: characterisation (cache, align, sweep, cachefit, trim, fill), "
        "SNIA PTS (pts-iops, pts-tp, pts-lat, pts-wsat, pts-hir, pts-xsr) or endurance",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab run cache /dev/sdb --destroy-data /dev/sdb\n"
        "  ssdlab run align /mnt/ssd\n  ssdlab run sweep /mnt/ssd --plots plots/\n"
        "  ssdlab run endurance /dev/sdb --destroy-data /dev/sdb --for 72h\n",
    )
    profiles = run.add_subparsers(dest="profile", metavar="PROFILE", required=True)
    for name, record in run_profiles().items():
        spec = record.spec
        sub = add_profile_parser(
            profiles,
            name,
            spec,
            literal(spec.summary),
            parents=[json_output("print the result as JSON"), STORE, START_AT],
        )
        sub.add_argument("--keep", action="store_true", help="keep the test file afterwards")
        sub.add_argument("--plots", metavar="DIR", help=PLOTS_HELP)
        if name == "endurance":  # judged by its own wear findings, against a rating
            add_endurance_controls(sub)
        else:
            quick_options.add_baseline_options(sub)
            add_latency_monitor_options(sub)


def add_endurance_controls(parser: argparse.ArgumentParser) -> None:
    """What `run endurance` has beyond a profile's options: a run that outlives reboots."""
    parser.add_argument(
        "--continue",
        dest="continue_run",
        action="store_true",
        help="resume the unfinished run with these settings on this target, or start it "
        "(what the systemd unit runs)",
    )
    parser.add_argument(
        "--print-systemd-unit",
        action="store_true",
        help="print a systemd unit that runs this endurance run and resumes it after a reboot",
    )
    add_rating(parser)


def _add_resume(commands: Commands) -> None:
    resume = commands.add_parser(
        "resume",
        help="continue an interrupted quick, profile or endurance run (a cut-short round runs "
        "again)",
        description="Continue a quick, profile or endurance run that was interrupted or "
        "failed: finished steps and rounds are kept, a round (or a quick test, or an "
        "endurance iteration) that was cut short runs again from its start, and the "
        "resumption is recorded. Refuses a run planned by another profile version, a device "
        "with another serial number, or a test file that is gone (a run on a file ssdlab made "
        "resumes only when it was started with --keep; an endurance run always keeps it).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab resume last --destroy-data /dev/nvme0n1\n"
        "  ssdlab resume 42 --plots plots/\n"
        "  ssdlab resume 12 --for 96h           an endurance run, with a new stop condition\n",
        parents=[json_output("print the result as JSON"), STORE],
    )
    resume.add_argument("run", help="run id, or 'last'")
    resume.add_argument(
        "--destroy-data", metavar="DEV", help="allow writing to the run's block device DEV again"
    )
    resume.add_argument("--plots", metavar="DIR", help=PLOTS_HELP)
    endurance = resume.add_argument_group(
        "endurance runs", "a stopped endurance run may go on with other stop conditions"
    )
    spec = profile_record("endurance").spec
    for name in ("for_time", "until_written", "until_wear"):
        add_option(endurance, spec.option(name))
    endurance.add_argument(
        "--keep", action="store_true", help="keep the test file once the run completes"
    )
    add_rating(resume)


def add_commands(commands: Commands) -> None:
    _add_plan(commands)
    _add_run(commands)
    _add_resume(commands)
