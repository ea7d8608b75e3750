"""The options of `ssdlab sim`, `ssdlab sim sweep` and `ssdlab sim presets` (handled by
cli/sim.py). Kept apart from the handlers so that building the parser imports no handler (the
simulator among them)."""

import argparse

from ssdlab.cli.arg_types import size_arg
from ssdlab.cli.common_options import STORE, Commands, json_output


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


def add_commands(commands: Commands) -> None:
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
        parents=[json_output("print the result as JSON"), STORE],
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
        parents=[json_output("print the result as JSON"), STORE],
    )
    varied = sweep.add_argument_group("the parameter swept (exactly one)")
    varied.add_argument("--spare", help="spare values in %%, e.g. 7,12,20,28")
    varied.add_argument("--skew", help="hot/cold WRITES/SPACE pairs, e.g. 50/50,80/20,90/10")
    varied.add_argument("--trim", help="TRIM share of operations in %%, e.g. 0,10,20")
    varied.add_argument("--fill", help="%% of the LBAs in use, e.g. 100,90,80")
    _add_sim_options(sweep, sweep=True)
    sub.add_parser(
        "presets",
        help="the drive presets and their sources",
        epilog="examples:\n  ssdlab sim presets\n  ssdlab sim presets --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[json_output()],
    )
