"""`ssdlab fleet load INVENTORY JOB`: one fio job on every host at once, through fio's
client/server over SSH-forwarded unix sockets only (fleet/load.py), stored as one run."""

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.cli.fleet import fleet_hosts, ssh_settings
from ssdlab.cli.store_open import open_db
from ssdlab.errors import Interrupted, ParseError, UsageError
from ssdlab.fleet.load import (
    ALL_HOSTS,
    ClientStop,
    LoadOutcome,
    LoadRequest,
    VersionMismatch,
    check_hosts,
    run_load,
)
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_cdm_iops, format_cdm_latency_us, format_cdm_mb_per_s
from ssdlab.plan.load_job import LoadJob, check_load_job, server_socket_path
from ssdlab.system.fio import find_fio
from ssdlab.system.process import ProcessRunner
from ssdlab.system.signals import SignalGuard
from ssdlab.system.ssh import multiplexed
from ssdlab.system.user_files import read_user_file

MAX_JOB_BYTES = 1 << 20
FORMAT = "ssdlab-fleet-load"


def _job(path: str) -> LoadJob:
    data = read_user_file(path, MAX_JOB_BYTES, "the job file")
    try:
        return check_load_job(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ParseError(f"{path}: not a UTF-8 text file; give a fio job file") from None
    except ParseError as error:
        raise ParseError(f"{path}: {error}") from None


def _p99(metrics: DirectionMetrics) -> float | None:
    return dict(metrics.clat_percentiles_ns).get(99.0)


def _direction_json(metrics: DirectionMetrics | None) -> dict[str, object] | None:
    if metrics is None:
        return None
    return {
        "bw_bytes_per_s": metrics.bw_bytes_per_s,
        "iops": metrics.iops,
        "io_bytes": metrics.io_bytes,
        "total_ios": metrics.total_ios,
        "runtime_s": metrics.runtime_s,
        "lat_mean_ns": metrics.lat_mean_ns,
        "clat_p99_ns": _p99(metrics),
    }


def _step_json(step: StepResult) -> dict[str, object]:
    return {
        "host": step.step_key,
        "direction": step.direction,
        "bw_bytes_per_s": step.bw_bytes_per_s,
        "iops": step.iops,
        "lat_mean_ns": step.lat_mean_ns,
        "read": _direction_json(step.read),
        "write": _direction_json(step.write),
    }


def load_document(outcome: LoadOutcome) -> dict[str, object]:
    hosts = [s for s in outcome.steps if s.step_key != ALL_HOSTS]
    total = [s for s in outcome.steps if s.step_key == ALL_HOSTS]
    return {
        "format": FORMAT,
        "format_version": 1,
        "run_id": outcome.run_id,
        "status": outcome.status.value,
        "status_reason": outcome.reason,
        "fio_version": outcome.local_fio,
        "fio_versions": outcome.versions,
        "ran_on": list(outcome.ran),
        "hosts": [_step_json(s) for s in hosts],
        "all_hosts": _step_json(total[0]) if total else None,
        "left_out": [{"host": h, "reason": why} for h, why in outcome.left_out.items()],
    }


def _table(outcome: LoadOutcome) -> Table:
    table = Table(title=f"fleet load, run {outcome.run_id}")
    for column in ("host", "direction", "MB/s", "IOPS", "mean µs", "p99 µs (clat)"):
        table.add_column(
            column,
            justify="left" if column in ("host", "direction") else "right",
            no_wrap=column == "host",
        )
    for step in outcome.steps:
        name = "all hosts" if step.step_key == ALL_HOSTS else step.step_key
        for direction, metrics in (("read", step.read), ("write", step.write)):
            if metrics is None:
                continue
            table.add_row(
                escape(name),
                direction,
                format_cdm_mb_per_s(metrics.bw_bytes_per_s),
                format_cdm_iops(metrics.iops),
                format_cdm_latency_us(metrics.lat_mean_ns),
                format_cdm_latency_us(_p99(metrics)),
                end_section=direction == "write" or step.write is None,
            )
    return table


def _print_versions(out: Console, error: VersionMismatch) -> None:
    table = Table(title="fio versions")
    table.add_column("host", no_wrap=True)
    table.add_column("fio", no_wrap=True)
    table.add_row("this machine", escape(error.local))
    for name, version in error.versions.items():
        table.add_row(escape(name), escape(version or "unknown"))
    out.print(table)


def _print(out: Console, outcome: LoadOutcome) -> None:
    if outcome.steps:
        out.print(_table(outcome))
    for host, why in outcome.left_out.items():
        out.print(f"left out: {host}: {why}", highlight=False, markup=False)
    if outcome.status is not RunStatus.COMPLETE:
        out.print(
            f"the load {outcome.status.value}: {outcome.reason}", highlight=False, markup=False
        )
    out.print(
        f"stored as run {outcome.run_id} (ssdlab show {outcome.run_id})",
        highlight=False,
        markup=False,
    )


def cmd_fleet_load(args: argparse.Namespace, out: Console) -> int:
    job = _job(args.job)  # refused before any host is contacted
    server = server_socket_path(args.server) if args.server is not None else None
    hosts = fleet_hosts(args)
    if any(host.name == ALL_HOSTS for host in hosts):
        raise UsageError(f"a host named {ALL_HOSTS} would hide the sum of all hosts; rename it")
    local = find_fio(ProcessRunner())
    settings = ssh_settings(args)
    inventory = str(Path(args.inventory).expanduser().absolute())
    stop = ClientStop(ProcessRunner())  # Ctrl-C, SIGTERM, SIGHUP: see ClientStop
    guard = SignalGuard(on_first=stop.first_signal, on_second=stop.second_signal)
    with guard, multiplexed(settings) as ssh:
        try:
            states = check_hosts(hosts, job, ssh, local)
        except VersionMismatch as error:
            if not args.json:
                _print_versions(out, error)
            raise
        request = LoadRequest(inventory, str(Path(args.job).absolute()), job, server, ssh)
        outcome = run_load(open_db(args), request, states, local, stop)
    if args.json:
        sys.stdout.write(json.dumps(load_document(outcome), indent=2) + "\n")
    else:
        _print(out, outcome)
    if outcome.status is RunStatus.INTERRUPTED:
        return Interrupted.exit_code
    return 0 if outcome.status is RunStatus.COMPLETE else 1
