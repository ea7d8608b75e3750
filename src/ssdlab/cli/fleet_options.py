"""The options of `ssdlab fleet` and its actions (handled by cli/fleet.py, cli/fleet_deploy.py
and cli/fleet_load.py). Kept apart from the handlers so that building the parser imports none."""

import argparse
from collections.abc import Sequence

from ssdlab.cli.arg_types import start_at_arg
from ssdlab.cli.common_options import STORE, Commands, Parser, json_output

EPILOG = """\
The inventory is an Ansible inventory (INI or YAML). Per host, besides ansible_host,
ansible_port, ansible_user, ansible_ssh_private_key_file and ansible_ssh_common_args:
  ssdlab_targets       the node's targets (a list, or paths separated by commas)
  ssdlab_destroy_data  the targets a run may erase: a device is written only when named here too
  ssdlab_db            the node's own store (default: its ~/.local/share/ssdlab/ssdlab.db)
  ssdlab_command       how ssdlab starts there (default: ssdlab)
  ssdlab_venv          where fleet deploy installs ssdlab (default: ~/.local/share/ssdlab/venv)
  ssdlab_python        the Python fleet deploy makes that venv with (default: python3)

examples:
  ssdlab fleet doctor lab.ini                  versions, root, O_DIRECT, clock offset per host
  ssdlab fleet deploy lab.ini                  install this ssdlab on every node (no network there)
  ssdlab fleet run lab.ini quick -- --preset nvme    a quick run on every target, together
  ssdlab fleet run lab.ini endure --detach -- --for 72h   start a 3-day run and return
  ssdlab fleet status lab.ini                  where every node's long run stands
  ssdlab fleet collect lab.ini                 every node's runs into this machine's store
  ssdlab fleet merge node1.db --host node1      one node's export file into this store
  ssdlab fleet compare                         drives significantly slower than their siblings
  ssdlab fleet compare -o fleet.html           the same, with each model's merged latency charted
  ssdlab fleet wheels ./wheels                 the wheels deploy installs, for deploy.yml
  ssdlab fleet load lab.ini job.fio            one fio job on all nodes at once (combined load)
"""


def _fleet_parent() -> argparse.ArgumentParser:
    parent = Parser(add_help=False)
    parent.add_argument("inventory", metavar="INVENTORY", help="an Ansible inventory file")
    parent.add_argument(
        "--limit",
        metavar="PATTERN",
        help="only the hosts matching this Ansible host pattern (e.g. 'rack1:!node3')",
    )
    parent.add_argument(
        "--parallel",
        type=int,
        default=16,
        metavar="N",
        help="hosts worked on at once (default: 16)",
    )
    parent.add_argument(
        "--connect-timeout",
        type=int,
        default=10,
        metavar="S",
        help="give up on a host that does not answer within S seconds (default: 10)",
    )
    return parent


FLEET = _fleet_parent()


def split_profile_args(argv: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """`fleet run … -- OPTIONS`: the words before -- for the parser, and the profile's options
    after it (None when there is no --), which the nodes' own parsers take. argparse alone
    cannot tell them apart once PROFILE has been matched."""
    words = list(argv)
    if words[:2] != ["fleet", "run"] or "--" not in words:
        return words, None
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]


def add_commands(commands: Commands) -> None:
    fleet = commands.add_parser(
        "fleet",
        help="many hosts: doctor, deploy, run, status, collect, merge, compare, load",
        description="Run ssdlab on many hosts over your own OpenSSH, hosts listed in an Ansible "
        "inventory. Every node runs ssdlab itself, so every safety rule runs where the device "
        "is, and keeps its own store; collect brings the runs here.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    actions = fleet.add_subparsers(dest="fleet_command", metavar="ACTION", required=True)
    actions.add_parser(
        "doctor",
        help="per host: reachable, ssdlab/fio/smartctl versions, root, O_DIRECT, clock offset",
        parents=[FLEET, json_output()],
    )
    deploy = actions.add_parser(
        "deploy",
        help="install this ssdlab (wheels built here) on every node; name missing tools",
        parents=[FLEET, json_output()],
    )
    deploy.add_argument(
        "--wheels",
        metavar="DIR",
        help="take ssdlab's wheels and its dependencies' from DIR instead of building them here",
    )
    deploy.add_argument(
        "--force",
        action="store_true",
        help="install again on nodes that already have this ssdlab (default: left as they are)",
    )
    wheels = actions.add_parser(
        "wheels",
        help="copy the wheels 'fleet deploy' installs into a folder (for the deploy playbook)",
        description="Make (or take from the cache) the wheels 'ssdlab fleet deploy' installs: "
        "ssdlab's own and its dependencies', pinned to the versions installed here, and pip's; "
        "copy them into DIR with ssdlab-wheels.json naming their version and build. The "
        "collection's deploy playbook installs them on nodes without network access.",
        epilog="example:\n  ssdlab fleet wheels ./wheels\n"
        "  ansible-playbook -i lab.ini ssdlab.bench.deploy -e ssdlab_wheels=$PWD/wheels",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[json_output()],
    )
    wheels.add_argument("dir", metavar="DIR", help="a new or empty folder")
    _add_run(actions)
    actions.add_parser(
        "status",
        help="where every node's runs stand (endurance: WAF, days to end of life)",
        parents=[FLEET, json_output()],
    )
    actions.add_parser(
        "collect",
        help="copy every node's runs into this machine's store (each run once)",
        parents=[FLEET, json_output(), STORE],
    )
    merge = actions.add_parser(
        "merge",
        help="copy one node's export file (ssdlab node export) into this machine's store",
        description="Copy the runs of FILE, written on node HOST by 'ssdlab node export' and "
        "brought here by other means (Ansible's fetch, the ssdlab.bench collection's collect.yml), "
        "into this machine's store, as 'fleet collect' does: each run once, matched by its UUID "
        "and host; a run held here from another host, or holding what no run of ssdlab's would, "
        "is refused.",
        parents=[json_output(), STORE],
    )
    merge.add_argument("file", metavar="FILE", help="the node's export file")
    merge.add_argument(
        "--host",
        required=True,
        metavar="NAME",
        help="the node's inventory name (its runs are recorded as this host's)",
    )
    compare = actions.add_parser(
        "compare",
        help="group collected drives by model and firmware; name the significantly slower ones",
        parents=[json_output(), STORE],
    )
    compare.add_argument(
        "--kind",
        default="quick",
        metavar="PROFILE",
        help="compare the latest run of this profile per drive (default: quick)",
    )
    compare.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the fleet's report here, as its suffix says: .html (charts of each "
        "group's merged latency per second), .md or .json",
    )
    _add_load(actions)


def _add_run(actions: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    run = actions.add_parser(
        "run",
        help="run quick, a profile or endure on every target of every host, started together",
        parents=[FLEET, json_output(), STORE],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Options after -- go to the profile on every node, e.g.\n"
        "  ssdlab fleet run lab.ini quick -- --preset nvme --size 4GiB\n"
        "  ssdlab fleet run lab.ini cache -- --size 64GiB\n"
        "A device target is written only when the inventory names it in ssdlab_destroy_data.",
    )
    run.add_argument("profile", metavar="PROFILE", help="quick, endure, or a profile of 'run'")
    run.set_defaults(profile_args=[])  # what follows --: split off by split_profile_args
    start = run.add_mutually_exclusive_group()
    start.add_argument(
        "--start-at",
        type=start_at_arg,
        metavar="TIME",
        help="start every node at this time (Unix seconds, or ISO 8601 with a time zone)",
    )
    start.add_argument(
        "--start-in",
        type=float,
        default=None,
        metavar="S",
        help="start every node S seconds after the nodes were checked (default: as long as "
        "starting them all takes by the time each took to answer its check, twice, plus 5 s)",
    )
    run.add_argument(
        "--detach",
        action="store_true",
        help="start the runs and return; see them with fleet status, bring them with fleet collect",
    )
    run.add_argument(
        "--no-collect",
        action="store_true",
        help="leave the runs in the nodes' stores (fleet collect brings them later)",
    )
    run.add_argument(
        "--reconnect-for",
        type=float,
        default=60.0,
        metavar="S",
        help="keep trying to reach a node that dropped for S seconds, then leave its run to go "
        "on alone (default: 60)",
    )
    run.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="run although the hosts' ssdlab or fio versions differ (results may not compare)",
    )


def _add_load(actions: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    load = actions.add_parser(
        "load",
        help="one fio job on every host at once through fio's client/server, over SSH only",
        parents=[FLEET, json_output(), STORE],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Each node runs 'fio --server' on a unix socket for this one run, reached only\n"
        "through an SSH-forwarded socket: never a TCP port. The job's files must be the\n"
        "host's ssdlab_targets; a device is written only when named in ssdlab_destroy_data.",
    )
    load.add_argument("job", metavar="JOB", help="a fio job file")
    load.add_argument(
        "--server",
        metavar="sock:PATH",
        help="where each node's fio server listens: a unix socket path on the node (default: a "
        "new one in the node's temporary folder); TCP addresses are refused",
    )
