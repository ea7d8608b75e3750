"""fio's client JSON (a real capture of one client and two servers on unix sockets) -> each
server's jobs and fio's "All clients" sums, and the step results `fleet load` stores from it."""

import json
from typing import Any

import pytest

from ssdlab.errors import ParseError
from ssdlab.fleet.load import ALL_HOSTS, load_steps, target_problem
from ssdlab.model.fleet import FleetHost
from ssdlab.parse.fio_client_json import ALL_CLIENTS, parse_fio_client_json
from tests.conftest import ROOT

CAPTURE = ROOT / "tests" / "data" / "fio" / "client-sock-2servers.stdout"
SERVER1 = "/tmp/ssdlab-fio-captures/sockets/server1.sock"
SERVER2 = "/tmp/ssdlab-fio-captures/sockets/server2.sock"


def entries() -> dict[tuple[str, str], dict[str, Any]]:
    """The capture's client_stats entries by (jobname, hostname), read with json alone."""
    text = CAPTURE.read_text(encoding="utf-8")
    document, _end = json.JSONDecoder().raw_decode(text, text.index("\n{") + 1)
    return {(e["jobname"], e["hostname"]): e for e in document["client_stats"]}


def test_each_server_and_the_sum_are_read_with_the_files_numbers() -> None:
    output = parse_fio_client_json(CAPTURE.read_text(encoding="utf-8"))
    raw = entries()
    assert output.fio_version == "fio-3.33"
    assert [address for address, _ in output.servers] == [SERVER2, SERVER1]
    for address, result in output.servers:
        (job,) = result.jobs
        entry = raw[("load", address)]
        for direction in ("read", "write"):
            parsed = getattr(job, direction)
            assert parsed.io_bytes == entry[direction]["io_bytes"]
            assert parsed.total_ios == entry[direction]["total_ios"]
            assert parsed.bw_bytes_per_s == entry[direction]["bw_bytes"]
            assert parsed.iops == entry[direction]["iops"]
            assert parsed.runtime_s == entry[direction]["runtime"] / 1000
            assert parsed.lat_mean_ns == entry[direction]["lat_ns"]["mean"]
            p99 = entry[direction]["clat_ns"]["percentile"]["99.000000"]
            assert dict(parsed.clat_percentiles_ns)[99.0] == p99
    (total,) = output.all_clients
    assert total.name == ALL_CLIENTS
    entry = raw[(ALL_CLIENTS, SERVER1)]
    assert total.read is not None
    assert total.read.iops == entry["read"]["iops"] == 30919.080919
    assert total.read.bw_bytes_per_s == entry["read"]["bw_bytes"] == 126644555
    assert total.read.clat_percentiles_ns == ()  # fio gives the sum no percentiles


def test_all_clients_is_the_servers_io_over_the_longest_runtime() -> None:
    output = parse_fio_client_json(CAPTURE.read_text(encoding="utf-8"))
    jobs = [result.jobs[0] for _, result in output.servers]
    (total,) = output.all_clients
    for direction in ("read", "write"):
        parts = [getattr(job, direction) for job in jobs]
        summed = getattr(total, direction)
        assert summed.io_bytes == sum(p.io_bytes for p in parts)
        assert summed.total_ios == sum(p.total_ios for p in parts)
        longest = max(p.runtime_s for p in parts)
        assert summed.iops == pytest.approx(summed.total_ios / longest, rel=1e-9)


def test_fleet_load_stores_a_step_per_host_and_one_for_all() -> None:
    stdout = CAPTURE.read_text(encoding="utf-8")
    steps = load_steps(stdout, {SERVER1: "lab1", SERVER2: "lab2"})
    assert [s.step_key for s in steps] == ["lab1", "lab2", ALL_HOSTS]
    raw = entries()
    lab1, _lab2, total = steps
    entry = raw[("load", SERVER1)]
    assert lab1.direction == "mix"
    assert lab1.iops == entry["read"]["iops"] + entry["write"]["iops"]
    assert lab1.bw_bytes_per_s == entry["read"]["bw_bytes"] + entry["write"]["bw_bytes"]
    summed = raw[(ALL_CLIENTS, SERVER1)]
    assert total.iops == summed["read"]["iops"] + summed["write"]["iops"]
    assert total.read is not None
    assert total.read.io_bytes == summed["read"]["io_bytes"]


def test_a_server_the_load_did_not_start_is_refused() -> None:
    with pytest.raises(ParseError, match="did not start"):
        load_steps(CAPTURE.read_text(encoding="utf-8"), {SERVER1: "lab1"})


def test_output_without_a_client_document_is_refused() -> None:
    with pytest.raises(ParseError, match="client_stats"):
        parse_fio_client_json('{"jobs": []}\n')
    # a document cut down to its "All clients" entry (as people quote it) reads with no
    # server; a fleet load, which needs each of its servers, still refuses it
    only_sum = '{"client_stats": [{"jobname": "All clients", "error": 0}]}\n'
    output = parse_fio_client_json(only_sum)
    assert output.servers == ()
    assert [j.name for j in output.all_clients] == [ALL_CLIENTS]
    with pytest.raises(ParseError, match="no host that did any I/O"):
        load_steps(only_sum, {SERVER1: "lab1"})


def test_a_job_file_must_be_a_target_or_under_one() -> None:
    host = FleetHost(name="lab1", address="lab1", targets=("/dev/sdb", "/mnt/ssd/"))
    assert target_problem(host, "/dev/sdb") is None
    assert target_problem(host, "/mnt/ssd/load.dat") is None
    assert "not one of its ssdlab_targets" in str(target_problem(host, "/dev/sdc"))
    assert target_problem(host, "/mnt/ssdx/load.dat") is not None
