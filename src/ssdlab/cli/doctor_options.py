"""The options of `ssdlab doctor` (handled by cli/doctor.py). Kept apart from the handler so
that building the parser imports no handler."""

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="tools found, what is missing, root, O_DIRECT, loop devices; --cleanup",
        parents=[json_output(), STORE],
    )
    doctor.add_argument("--directory", default=".", help="check O_DIRECT support here (default: .)")
    doctor.add_argument(
        "--cleanup", action="store_true", help="remove test files left by runs that died"
    )
