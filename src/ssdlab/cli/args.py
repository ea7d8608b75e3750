"""The argument parser: every command, option and example in one declarative place."""

import argparse
from collections.abc import Callable
from typing import Any

from ssdlab import __version__
from ssdlab.cli.profiles import PROFILES, spec_of
from ssdlab.model.profile import OptionKind, ProfileSpec
from ssdlab.model.units import format_size, parse_duration_s, parse_size_bytes

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
"""


def size_arg(text: str) -> int:
    try:
        return parse_size_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or more seconds")
    return value


def positive_int_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def pct_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole percentage") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be from 0 to 100")
    return value


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", metavar="PATH", help="the run store (default: $XDG_DATA_HOME/ssdlab/ssdlab.db)"
    )


def _add_quick_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("test settings (named after CrystalDiskMark's)")
    group.add_argument(
        "--preset",
        help="default (CDM 8/9), nvme, peak, real, cdm7, cdm6, flash (1 s measure, 30 s "
        "interval); default: default",
    )
    group.add_argument("--size", type=size_arg, help="test size, e.g. 256MiB, 1GiB (default 1GiB)")
    group.add_argument(
        "--count", type=positive_int_arg, help="measured passes per test (default 5)"
    )
    group.add_argument(
        "--measure", type=seconds_arg, metavar="SECONDS", help="seconds per pass (default 5)"
    )
    group.add_argument(
        "--interval",
        type=seconds_arg,
        metavar="SECONDS",
        help="pause between tests (default 5)",
    )
    group.add_argument(
        "--mode",
        default="all",
        help="all (read, write and mix), read, write, mix, or a list such as read,write",
    )
    group.add_argument(
        "--mix", type=pct_arg, metavar="READ_PCT", help="read share of mix tests (default 70)"
    )
    group.add_argument(
        "--data",
        choices=("random", "zero"),
        default="random",
        help="write random (incompressible) data or zeros",
    )
    group.add_argument(
        "--zero-fill",
        action="store_true",
        help="fill the test file with zeros (same as --data zero)",
    )
    group.add_argument(
        "--buffered",
        action="store_true",
        help="go through the page cache (for filesystems without O_DIRECT; numbers then "
        "include caching)",
    )
    group.add_argument(
        "--ioengine",
        default="libaio",
        help="fio ioengine (default libaio; 'null' measures ssdlab and fio themselves)",
    )
    target = parser.add_argument_group("target")
    target.add_argument(
        "--destroy-data",
        metavar="DEV",
        help="allow writing to block device DEV (must name the target device again)",
    )


def duration_arg(text: str) -> float:
    try:
        return parse_duration_s(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_rating(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "rated endurance (default: the drive's spec sheet, when one matches; ssdlab spec list)"
    )
    group.add_argument("--tbw", type=size_arg, help="rated terabytes written, e.g. 600TB")
    group.add_argument("--dwpd", type=float, help="rated drive writes per day")
    group.add_argument("--warranty-years", type=float, help="warranty length in years")


def _add_health_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    health = commands.add_parser(
        "health",
        help="SMART / NVMe health, normalised, with WAF and wear where computable",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab health /dev/nvme0n1\n"
        "  ssdlab health saved-smartctl-x.json --json\n"
        "  ssdlab health --import smart-cron.log --model 'CT500MX500SSD1'\n",
    )
    health.add_argument(
        "target", nargs="?", help="block device, or a saved smartctl JSON/text or nvme-cli JSON"
    )
    health.add_argument(
        "--import",
        dest="import_log",
        metavar="LOG",
        help="a file of timestamped smartctl snapshots (e.g. appended by cron)",
    )
    health.add_argument("--model", help="model name for logs that lack identity lines")
    health.add_argument(
        "--step-metric",
        default="erase_count_avg",
        help="counter whose steps are timed in a series (default erase_count_avg)",
    )
    health.add_argument("--vendor-map", metavar="TOML", help="extra or overriding attribute map")
    health.add_argument(
        "--elapsed",
        type=duration_arg,
        metavar="DURATION",
        help="time between the first and last samples, e.g. 97h or 4d; overrides their "
        "timestamps and Power_On_Hours (used when the samples carry no time)",
    )
    _add_rating(health)
    health.add_argument("--json", action="store_true", help="print as JSON")
    _add_db(health)

    wear = commands.add_parser(
        "wear",
        help="what happened between two health samples: writes, WAF, wear rate, days to EOL",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="A and B are stored sample ids, saved smartctl/nvme-cli files, or a device "
        "(sampled now).\nexamples:\n  ssdlab wear 12 /dev/sdb --tbw 600TB\n"
        "  ssdlab wear before.json after.json --json\n",
    )
    wear.add_argument("before", help="sample id, file, or device")
    wear.add_argument("after", help="sample id, file, or device")
    wear.add_argument(
        "--raw-nand-capacity", type=size_arg, help="raw NAND capacity for erase-count WAF"
    )
    wear.add_argument("--slc-cached", action="store_true", help="the drive has an SLC cache")
    wear.add_argument("--vendor-map", metavar="TOML", help="extra or overriding attribute map")
    wear.add_argument("--model", help="model name for files that lack identity lines")
    wear.add_argument(
        "--elapsed",
        type=duration_arg,
        metavar="DURATION",
        help="time between the two samples, e.g. 97h or 4d; overrides their "
        "timestamps and Power_On_Hours (used when the samples carry no time)",
    )
    _add_rating(wear)
    wear.add_argument("--json", action="store_true", help="print as JSON")
    _add_db(wear)

    watch = commands.add_parser(
        "watch",
        help="sample health into the store until stopped (continues the device's series)",
        epilog="example: ssdlab watch /dev/nvme0n1 --every 5m --for 72h",
    )
    watch.add_argument("device", help="block device")
    watch.add_argument(
        "--every", type=duration_arg, default=300.0, help="interval, e.g. 30s, 5m (default 5m)"
    )
    watch.add_argument("--for", dest="duration", type=duration_arg, help="stop after, e.g. 72h")
    watch.add_argument("--count", type=positive_int_arg, help="stop after this many samples")
    watch.add_argument("--new", action="store_true", help="start a new series")
    watch.add_argument("--vendor-map", metavar="TOML", help="extra or overriding attribute map")
    _add_db(watch)


def _list_arg(convert: Callable[[str], Any]) -> Callable[[str], tuple[Any, ...]]:
    def parse(text: str) -> tuple[Any, ...]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError("give at least one value, e.g. 1,2,4")
        return tuple(convert(part) for part in parts)

    return parse


def int_arg(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def float_arg(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


_OPTION_TYPES: dict[OptionKind, Callable[[str], Any]] = {
    OptionKind.SIZE: size_arg,
    OptionKind.SIZES: _list_arg(size_arg),
    OptionKind.INT: int_arg,
    OptionKind.INTS: _list_arg(int_arg),
    OptionKind.PCT: pct_arg,
    OptionKind.PCTS: _list_arg(pct_arg),
    OptionKind.SECONDS: duration_arg,
    OptionKind.FLOAT: float_arg,
    OptionKind.TEXT: str,
}


def _literal(text: str) -> str:
    """Help text taken as it is: argparse would read '90 % full' as a format directive."""
    return text.replace("%", "%%")


def _add_profile_options(parser: argparse.ArgumentParser, spec: ProfileSpec) -> None:
    """The target, the common options, and the profile's own option table."""
    parser.add_argument(
        "target",
        nargs="?",
        default=".",
        help="directory (a test file is made and removed there), file path, or block device; "
        "default: the current directory",
    )
    common = parser.add_argument_group("target")
    whole = " (default: the whole device)" if spec.whole_device_by_default else ""
    common.add_argument(
        "--size",
        type=size_arg,
        help=f"test region: on a file {format_size(spec.default_file_size_bytes)} by default"
        f"{whole}",
    )
    common.add_argument(
        "--buffered",
        action="store_true",
        help="go through the page cache (file targets on filesystems without O_DIRECT)",
    )
    group = parser.add_argument_group(f"{spec.name} settings")
    for option in spec.options:
        flags = (option.flag, *option.aliases)
        if option.kind is OptionKind.FLAG:
            group.add_argument(
                *flags, dest=option.name, action="store_true", help=_literal(option.help)
            )
        elif option.kind is OptionKind.CHOICE:
            group.add_argument(
                *flags, dest=option.name, choices=option.choices, help=_literal(option.help)
            )
        else:
            group.add_argument(
                *flags,
                dest=option.name,
                type=_OPTION_TYPES[option.kind],
                help=_literal(option.help),
            )


def _add_profile_parser(
    commands: "argparse._SubParsersAction[argparse.ArgumentParser]",
    name: str,
    spec: ProfileSpec,
    help_text: str,
) -> argparse.ArgumentParser:
    """A command that runs a profile: its options, examples and --destroy-data."""
    parser = commands.add_parser(
        name,
        help=help_text,
        description=spec.description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "".join(f"  {line}\n" for line in spec.examples),
    )
    _add_profile_options(parser, spec)
    parser.add_argument(
        "--destroy-data",
        metavar="DEV",
        help="allow writing to block device DEV (must name the target device again)",
    )
    return parser


def _add_plan_outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check", action="store_true", help="also run 'fio --parse-only' on every job file"
    )
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")


def _float_in(text: str, low: float, high: float, example: str) -> float:
    """A number typed by a user, within low ≤ x < high (a trailing % is allowed)."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number such as {example}") from None
    if not low <= value < high:
        raise argparse.ArgumentTypeError(f"{text!r} must be from {low:g} to below {high:g}")
    return value


def threshold_arg(text: str) -> float:
    return _float_in(text, 0, 1000, "5%")


def alpha_arg(text: str) -> float:
    value = _float_in(text, 0, 1, "0.05")
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def _add_significance(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=threshold_arg,
        default=5.0,
        metavar="PCT",
        help="smallest change called a difference (default 5%%)",
    )
    parser.add_argument(
        "--alpha",
        type=alpha_arg,
        default=0.05,
        help="significance level of Welch's t-test on the passes (default 0.05)",
    )


def _add_report_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    report = commands.add_parser(
        "report",
        help="runs as one self-contained HTML (or Markdown) report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab report last -o report.html       the last run, plots inline, nothing fetched\n"
        "  ssdlab report 3 7 -o drives.html        two runs, compared up front when same profile\n"
        "  ssdlab report 3 -o result.md            Markdown with charts in result-charts/\n",
    )
    report.add_argument("runs", nargs="+", metavar="RUN", help="run ids, or 'last'")
    report.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    report.add_argument(
        "--format", choices=("html", "md"), help="default: from the file name, else html"
    )
    report.add_argument("--title", help="the report's title")
    _add_significance(report)
    _add_db(report)

    compare = commands.add_parser(
        "compare",
        help="runs of one profile side by side: ratios, and real differences told from noise",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compare runs against the first. A change is marked better (+) or worse "
        "(-) only when it is larger than --threshold and Welch's t-test on the passes gives "
        "p < --alpha; otherwise ~ (not significant) or ? (one pass a side: the ratio "
        "stands, no significance test is possible).",
        epilog="examples:\n"
        "  ssdlab compare 3 7                       run 7 against run 3\n"
        "  ssdlab compare 3 7 9 --format md         three runs, as a Markdown table\n"
        "  ssdlab compare 3 7 --fail-if rnd4k-q1t1-read:-5%   exit 4 on a significant fall\n"
        "  ssdlab compare 3 7 --fail-if '*-lat:+10%'          any latency up more than 10%\n",
    )
    compare.add_argument("runs", nargs="+", metavar="RUN", help="run ids, or 'last'")
    compare.add_argument(
        "--format", choices=("term", "md", "html", "json"), default="term", help="default term"
    )
    compare.add_argument("--json", action="store_true", help="print as JSON (= --format json)")
    compare.add_argument("-o", "--output", metavar="FILE", help="write here (md, html, json)")
    compare.add_argument(
        "--fail-if",
        action="append",
        metavar="RULE",
        help="METRIC:-5%% or METRIC:+10%% (wildcards allowed); exit 4 when a run breaks it",
    )
    _add_significance(compare)
    _add_db(compare)

    imported = commands.add_parser(
        "import",
        help="store a CrystalDiskMark/KDiskMark text export or fio JSON as a run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab import CDM8-result.txt           CrystalDiskMark 6-9 'Save text' / copy\n"
        "  ssdlab import KDM_20260101120000.txt    KDiskMark's saved report\n"
        "  ssdlab import by-hand.json              fio --output-format=json output\n",
    )
    imported.add_argument("file", help="the exported text or fio JSON")
    imported.add_argument("--json", action="store_true", help="print the stored run as JSON")
    _add_db(imported)

    spec = commands.add_parser(
        "spec",
        help="vendor spec sheets: what a drive was promised to do",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab spec list                        shipped and added sheets\n"
        "  ssdlab spec show samsung-970-evo-500gb  one sheet as TOML\n"
        "  ssdlab spec add my-drive.toml           add a sheet (schema: ssdlab/specs/README.md)\n",
    )
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add (or replace) a spec sheet from a TOML file")
    add.add_argument("file")
    _add_db(add)
    show = actions.add_parser("show", help="print one spec sheet")
    show.add_argument("key")
    show.add_argument("--json", action="store_true", help="print as JSON")
    _add_db(show)
    listed = actions.add_parser("list", help="every known spec sheet")
    listed.add_argument("--json", action="store_true", help="print as JSON")
    _add_db(listed)


def _add_endure_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    spec = spec_of("endurance")
    endure = _add_profile_parser(
        commands,
        "endure",
        spec,
        "endurance run: days of writes in bounded iterations, health sampled while fio runs, "
        "WAF, wear rate and days to end of life; crash-safe",
    )
    endure.add_argument(
        "--resume", metavar="RUN", help="continue a stopped endurance run (an id, or 'last')"
    )
    endure.add_argument(
        "--continue",
        dest="continue_run",
        action="store_true",
        help="resume the unfinished run with these settings on this target, or start it "
        "(what the systemd unit runs)",
    )
    endure.add_argument(
        "--print-systemd-unit",
        action="store_true",
        help="print a systemd unit that runs this endurance run and resumes it after a reboot",
    )
    endure.add_argument(
        "--keep", action="store_true", help="keep the test file after a complete run"
    )
    endure.add_argument(
        "--plots", metavar="DIR", help="also write the report's charts here as SVG and PNG"
    )
    endure.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_rating(endure)
    _add_db(endure)

    status = commands.add_parser(
        "status",
        help="where an endurance run stands (while it runs, or after)",
        description="Host vs NAND writes, WAF so far and over the last hours, the wear rate, "
        "the projected days and TBW to end of life with how sure they are, iteration times "
        "and the progress towards each stop condition, read from the store.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab status last\n  ssdlab status 12 --json\n"
        "  ssdlab status 12 --tbw 600TB --plots plots/\n",
    )
    status.add_argument("run", nargs="?", default="last", help="run id, or 'last' (default)")
    status.add_argument(
        "--plots", metavar="DIR", help="also write the status charts here as SVG and PNG"
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    _add_rating(status)
    _add_db(status)


def _add_sim_options(parser: argparse.ArgumentParser, *, sweep: bool) -> None:
    drive = parser.add_argument_group("simulated drive (options override --preset)")
    drive.add_argument(
        "--preset", help="a real drive approximated from published data ('ssdlab sim presets')"
    )
    drive.add_argument(
        "--capacity",
        type=size_arg,
        help="logical (user) capacity, e.g. 16GiB (default 4GiB; with --preset: scales the "
        "preset's raw flash and static SLC alike)",
    )
    if not sweep:
        drive.add_argument(
            "--spare", help="spare (over-provisioning) in %%, e.g. 7%% (default 7%%)"
        )
    drive.add_argument(
        "--spare-of",
        choices=("logical", "physical"),
        default="logical",
        help="what --spare is a share of: logical = physical/logical − 1 ('7%% OP'), physical "
        "= (physical − logical)/physical (MQSim); default logical",
    )
    drive.add_argument("--page-size", type=size_arg, help="NAND page (default 4KiB)")
    drive.add_argument("--pages-per-block", type=int, help="pages per erase block (default 256)")
    drive.add_argument(
        "--gc",
        choices=("greedy", "cost-benefit", "fifo", "random", "d-choices"),
        help="garbage-collection victim policy (default greedy)",
    )
    drive.add_argument("--slc-static", type=size_arg, help="static pseudo-SLC cache, e.g. 8GiB")
    drive.add_argument(
        "--slc-dynamic",
        action=argparse.BooleanOptionalAction,
        help="dynamic pseudo-SLC cache from free space (÷ bits per cell)",
    )
    drive.add_argument("--bits-per-cell", type=int, help="1 SLC, 2 MLC, 3 TLC (default), 4 QLC")
    drive.add_argument(
        "--pe-cycles",
        type=float,
        help="rated P/E cycles for wear %% and lifetime (default: the preset's, else typical "
        "for the cell type: 50000/5000/3000/1000)",
    )
    drive.add_argument(
        "--initial",
        choices=("empty", "full", "steady"),
        help="start empty (default), sequentially full, or in an analytic steady state",
    )
    work = parser.add_argument_group("workload")
    work.add_argument(
        "--workload",
        default="uniform",
        help="uniform, seq, hotcold:80/20, jesd219, with options: "
        "'uniform,read=30%%,trim=5%%,span=80%%,pages=2' (default uniform)",
    )
    work.add_argument("--trace", metavar="FILE", help="replay a block trace instead")
    work.add_argument(
        "--trace-format",
        choices=("auto", "blkparse", "msr", "iolog"),
        default="auto",
        help="blkparse text, MSR Cambridge CSV, fio iolog v2/v3 (default: guessed)",
    )
    work.add_argument(
        "--write", type=size_arg, help="host bytes to write, e.g. 4TB (default 5 × capacity)"
    )
    work.add_argument(
        "--interval", type=size_arg, help="host bytes per interval (default --write ÷ 100)"
    )
    work.add_argument(
        "--daily-write",
        type=size_arg,
        help="host writes per day for the lifetime projection (default: one drive write)",
    )
    work.add_argument("--seed", type=int, help="random seed (default 1)")
    work.add_argument(
        "--core",
        choices=("auto", "python", "rust"),
        default="auto",
        help="simulator core (default auto: the compiled one when built)",
    )
    parser.add_argument("--plots", metavar="DIR", help="also write the charts as SVG and PNG")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_db(parser)


def _add_sim_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    sim = commands.add_parser(
        "sim",
        help="simulate an SSD (page-mapped FTL, GC, spare, TRIM, SLC cache): WAF, cliff, "
        "projected lifetime; stored as a run",
        description="Simulate a drive writing a workload and store it like a measured run: "
        "per-interval throughput (cache cliff, steady state) and SMART-like samples (WAF, "
        "wear, lifetime). Impossible configurations are refused before anything runs. "
        "Options go after 'sweep'.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab sim --capacity 16GiB --spare 7% --workload uniform\n"
        "  ssdlab sim --capacity 256GiB --spare 28% --workload hotcold:80/20 --write 4TB\n"
        "  ssdlab sim --preset samsung-970-evo-500gb --capacity 8GiB --workload seq\n"
        "  ssdlab sim --trace trace.blk --trace-format blkparse --capacity 64GiB\n"
        "  ssdlab sim sweep --spare 7,12,20,28 --capacity 4GiB --plots plots/\n"
        "  ssdlab sim sweep --fill 100,90,80 --preset intel-x25m-80gb --capacity 2GiB\n"
        "  ssdlab sim presets\n",
    )
    _add_sim_options(sim, sweep=False)
    sub = sim.add_subparsers(dest="sim_command", metavar="{sweep,presets}")
    sweep = sub.add_parser(
        "sweep",
        help="one parameter over a list: WAF and projected lifetime per point, with plots",
        description="Simulate the same drive and workload once per value of one parameter "
        "and store the points as one run: WAF and projected lifetime against spare, "
        "hot/cold skew, TRIM share or fill level.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab sim sweep --spare 7,12,20,28 --capacity 4GiB\n"
        "  ssdlab sim sweep --skew 50/50,80/20,90/10 --spare-of physical\n"
        "  ssdlab sim sweep --trim 0,10,20,30 --plots plots/\n"
        "  ssdlab sim sweep --fill 100,90,80 --preset intel-x25m-80gb --capacity 2GiB\n",
    )
    varied = sweep.add_argument_group("the parameter swept (exactly one)")
    varied.add_argument("--spare", help="spare values in %%, e.g. 7,12,20,28")
    varied.add_argument("--skew", help="hot/cold WRITES/SPACE pairs, e.g. 50/50,80/20,90/10")
    varied.add_argument("--trim", help="TRIM share of operations in %%, e.g. 0,10,20")
    varied.add_argument("--fill", help="%% of the LBAs in use, e.g. 100,90,80")
    _add_sim_options(sweep, sweep=True)
    presets = sub.add_parser(
        "presets",
        help="the drive presets and their sources",
        epilog="examples:\n  ssdlab sim presets\n  ssdlab sim presets --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    presets.add_argument("--json", action="store_true", help="print as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ssdlab",
        description="SSD test bench for Linux: fio does the I/O, every run is stored.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"ssdlab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    quick = commands.add_parser(
        "quick",
        help="CrystalDiskMark-style suite on a file or device",
        description="CrystalDiskMark-class quick suite: one discarded warm-up pass, then COUNT "
        "time-based passes per test; the headline is the best pass (as CrystalDiskMark "
        "shows it) and the spread of the passes is shown beside it. MB/s = 10^6 bytes/s.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab quick\n  ssdlab quick /mnt/ssd --preset nvme --count 3\n"
        "  ssdlab quick --size 256MiB --measure 2 --count 1 --interval 0\n"
        "  ssdlab quick /dev/sdb --destroy-data /dev/sdb --json > result.json\n",
    )
    quick.add_argument(
        "target",
        nargs="?",
        default=".",
        help="directory (a test file is made and removed there), file path, or block device; "
        "default: the current directory",
    )
    _add_quick_options(quick)
    quick.add_argument("--keep", action="store_true", help="keep the test file afterwards")
    quick.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_db(quick)

    plan = commands.add_parser(
        "plan",
        help="print the fio job files of a profile, run nothing",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab plan quick /mnt/ssd --preset nvme\n"
        "  ssdlab plan quick /dev/nvme0n1 --mode read --check\n"
        "  ssdlab plan cache /dev/sdb --size 100GiB\n",
    )
    planned = plan.add_subparsers(dest="profile", metavar="PROFILE", required=True)
    plan_quick = planned.add_parser("quick", help="the CrystalDiskMark-style suite")
    plan_quick.add_argument("target", nargs="?", default=".", help="as for 'ssdlab quick'")
    _add_quick_options(plan_quick)
    _add_plan_outputs(plan_quick)
    for name in PROFILES:
        spec = spec_of(name)
        sub = planned.add_parser(name, help=_literal(spec.summary), description=spec.description)
        _add_profile_options(sub, spec)
        _add_plan_outputs(sub)
        _add_db(sub)  # options that name a stored run (cachefit --from-run) read it here

    run = commands.add_parser(
        "run",
        help="run a profile: characterisation (cache, align, sweep, cachefit, trim, fill) or "
        "SNIA PTS (pts-iops, pts-tp, pts-lat, pts-wsat, pts-hir, pts-xsr)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab run cache /dev/sdb --destroy-data /dev/sdb\n"
        "  ssdlab run align /mnt/ssd\n  ssdlab run sweep /mnt/ssd --plots plots/\n",
    )
    profiles = run.add_subparsers(dest="profile", metavar="PROFILE", required=True)
    for name in PROFILES:
        spec = spec_of(name)
        sub = _add_profile_parser(profiles, name, spec, _literal(spec.summary))
        sub.add_argument("--keep", action="store_true", help="keep the test file afterwards")
        sub.add_argument(
            "--plots", metavar="DIR", help="also write the report's charts here as SVG and PNG"
        )
        sub.add_argument("--json", action="store_true", help="print the result as JSON")
        _add_db(sub)

    resume = commands.add_parser(
        "resume",
        help="continue an interrupted profile run (a cut-short round runs again)",
        description="Continue a profile run that was interrupted or failed: finished steps and "
        "rounds are kept, a round that was cut short runs again from its start, and the "
        "resumption is recorded. Refuses a run planned by another profile version, a device "
        "with another serial number, or a test file that is gone.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab resume last --destroy-data /dev/nvme0n1\n"
        "  ssdlab resume 42 --plots plots/\n",
    )
    resume.add_argument("run", help="run id, or 'last'")
    resume.add_argument(
        "--destroy-data", metavar="DEV", help="allow writing to the run's block device DEV again"
    )
    resume.add_argument(
        "--plots", metavar="DIR", help="also write the report's charts here as SVG and PNG"
    )
    resume.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_db(resume)

    _add_endure_commands(commands)

    runs = commands.add_parser(
        "runs",
        help="list stored runs: profile, target, date, status",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab runs --profile quick              quick runs (any preset)\n"
        "  ssdlab runs --profile pts-iops --since 2026-01-01\n"
        "  ssdlab runs --target /dev/nvme0n1        runs on one device (or a folder's files)\n",
    )
    runs.add_argument("--limit", type=positive_int_arg, default=50, help="how many (default 50)")
    runs.add_argument("--json", action="store_true", help="print as JSON")
    runs.add_argument(
        "--profile",
        metavar="NAME",
        help="only runs of this kind or profile: quick, pts-iops, cache, endurance, sim, "
        "import, health, ...",
    )
    runs.add_argument(
        "--since",
        metavar="DATE",
        help="only runs started on or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM, local time)",
    )
    runs.add_argument(
        "--target",
        metavar="PATH",
        help="only runs on this device or file, or on test files in this folder",
    )
    _add_db(runs)

    show = commands.add_parser("show", help="show one stored run")
    show.add_argument("run", help="run id, or 'last'")
    show.add_argument("--json", action="store_true", help="print as JSON")
    show.add_argument("--jobs", action="store_true", help="also print the fio job files")
    _add_db(show)

    export = commands.add_parser(
        "export",
        help="export a run as json, csv, md or cdm (CrystalDiskMark text)",
        epilog="example: ssdlab export last --format md -o result.md",
    )
    export.add_argument("run", help="run id, or 'last'")
    export.add_argument(
        "--format", choices=("json", "csv", "md", "cdm"), default="json", help="default json"
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    _add_db(export)

    _add_report_commands(commands)
    _add_health_commands(commands)
    _add_sim_commands(commands)

    doctor = commands.add_parser(
        "doctor",
        help="tools found, what is missing, root, O_DIRECT, loop devices; --cleanup",
    )
    doctor.add_argument("--directory", default=".", help="check O_DIRECT support here (default: .)")
    doctor.add_argument(
        "--cleanup", action="store_true", help="remove test files left by runs that died"
    )
    doctor.add_argument("--json", action="store_true", help="print as JSON")
    _add_db(doctor)
    return parser
