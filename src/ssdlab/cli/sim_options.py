"""The options of `ssdlab sim`, `ssdlab sim sweep` and `ssdlab sim presets` (handled by
cli/sim.py). Kept apart from the handlers so that building the parser imports no handler (the
simulator among them)."""

import argparse

from ssdlab.cli.arg_types import size_arg
from ssdlab.cli.common_options import STORE, Commands, json_output


def _add_drive_options(parser: argparse.ArgumentParser, *, sweep: bool) -> None:
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


def _add_seed(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--seed", type=int, help="random seed (default 1)")


def _add_serve_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    serve = sub.add_parser(
        "serve",
        help="serve a simulated drive as a file through FUSE: fio measures it, health reads it",
        description="Serve a simulated drive as MOUNTPOINT/drive through FUSE (direct I/O, no "
        "page cache) until Ctrl-C or SIGTERM: its reads, writes and discards go through the "
        "FTL, each completes when the model says (times --time-scale), and MOUNTPOINT/"
        "health.json is its health log, which 'ssdlab health', 'watch' and 'endure' read as a "
        "drive's. A loop device over the drive file (losetup --direct-io=on) is a block device "
        "that fio can also discard on, read the same way. Needs /dev/fuse, libfuse 3 (apt-get "
        "install fuse3) and mfusepy (pip install 'ssdlab[sim-drive]'). A served drive is 1 GiB "
        "unless --capacity says otherwise.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples (MOUNTPOINT an empty directory; the drive is MOUNTPOINT/drive):\n"
        "  ssdlab sim serve MOUNTPOINT --capacity 1GiB --spare 12% --slc-dynamic\n"
        "  ssdlab sim serve MOUNTPOINT --preset samsung-970-evo-500gb --capacity 512MiB\n"
        "  ssdlab sim serve MOUNTPOINT --random-config 42 --secret SECRET.json\n"
        "  ssdlab sim serve MOUNTPOINT --capacity 256MiB --initial steady --idle-gc 200\n",
        parents=[json_output("print the drive's counters as JSON when it stops")],
    )
    serve.add_argument("mountpoint", help="an empty directory to mount the drive on")
    _add_drive_options(serve, sweep=False)
    _add_seed(serve.add_argument_group("randomness"))
    served = serve.add_argument_group("serving")
    served.add_argument(
        "--random-config",
        type=int,
        metavar="SEED",
        help="draw the whole drive (spare, cache, GC policy, NAND times) from SEED and keep it "
        "hidden: only its SHA-256 shows; needs --secret (only --capacity is taken)",
    )
    served.add_argument(
        "--secret", metavar="FILE", help="where a drawn configuration is written, for scoring"
    )
    served.add_argument(
        "--time-scale",
        type=float,
        help="wall seconds per second of model time (default 10: a small drive "
        "fills in seconds while the model's times stay above FUSE's own cost; 0: no waits)",
    )
    served.add_argument(
        "--backing",
        metavar="DIR",
        help="where the drive's data is kept, in an unlinked sparse file (default: the "
        "temporary directory)",
    )
    served.add_argument(
        "--idle-gc",
        type=float,
        metavar="MB/S",
        help="clean blocks while the host is idle (idle GC; default off), e.g. --idle-gc 200: "
        "after 0.1 ms of model time without a request the drive reclaims blocks as its GC "
        "does, at most MB/S megabytes of blocks per second of model time and never faster "
        "than its NAND, until every block its spare allows is free; the moves count in its "
        "NAND writes, never in a request's time",
    )
    served.add_argument(
        "--no-c0",
        action="store_true",
        help="serve it without the OCP C0h log: its health has host writes but no NAND "
        "writes or erase counts, as most consumer drives (WAF cannot be measured on it)",
    )


def _add_sim_options(parser: argparse.ArgumentParser, *, sweep: bool) -> None:
    _add_drive_options(parser, sweep=sweep)
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
    _add_seed(work)
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
    sub = sim.add_subparsers(dest="sim_command", metavar="{sweep,presets,serve}")
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
    _add_serve_parser(sub)
