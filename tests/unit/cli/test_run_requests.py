"""The requests of the commands that start, plan and resume runs, made from their options
(cli/profile_setup.py): one typed request a command, and every example a profile documents
accepted by the command line it names."""

import shlex

import pytest

from ssdlab.analysis.baseline import BaselineAction
from ssdlab.app.run_target import TargetRequest
from ssdlab.cli.main import build_parser
from ssdlab.cli.profile_setup import plan_request, resume_request, start_request
from ssdlab.model.latency_monitor import LatencyMonitorRequest, MonitorSetting
from ssdlab.registry import profile_records


def parse(line: str) -> object:
    return build_parser().parse_args(shlex.split(line))


def test_quick_gives_the_options_it_was_given_and_leaves_the_rest_to_the_table() -> None:
    args = parse("quick /mnt/ssd --preset nvme --count 3 --keep --baseline nightly")
    request = start_request(args, "quick")  # type: ignore[arg-type]
    assert request.profile == "quick"
    assert request.target == TargetRequest("/mnt/ssd")
    assert dict(request.given) == {"preset": "nvme", "count": 3}
    assert request.keep
    assert request.baseline is not None
    assert (request.baseline.name, request.baseline.action) == ("nightly", BaselineAction.JUDGE)
    assert request.rated is None


def test_run_endurance_carries_its_device_and_the_rating_given() -> None:
    args = parse("run endurance /dev/sdb --destroy-data /dev/sdb --for 72h --tbw 600TB")
    request = start_request(args, "endurance")  # type: ignore[arg-type]
    assert request.target == TargetRequest("/dev/sdb", destroy_data="/dev/sdb")
    assert dict(request.given) == {"for_time": 72 * 3600.0}
    assert request.rated is not None
    assert request.rated.tbw_bytes == 600 * 10**12
    assert request.baseline is None


def test_the_latency_monitor_options_are_one_path_for_run_and_quick() -> None:
    def monitor(line: str, profile: str) -> object:
        return start_request(parse(line), profile).latency_monitor  # type: ignore[arg-type]

    nvme = "/dev/nvme0n1 --destroy-data /dev/nvme0n1"
    assert monitor(f"run qos {nvme}", "qos") is None
    assert monitor(f"run qos {nvme} --latency-monitor", "qos") == LatencyMonitorRequest()
    assert monitor(f"quick {nvme} --latency-monitor", "quick") == LatencyMonitorRequest()
    assert monitor(f"run qos {nvme} --latency-monitor-enable", "qos") == LatencyMonitorRequest(
        MonitorSetting((5, 10, 20, 50))
    )
    assert monitor(
        f"run qos {nvme} --latency-monitor-enable=10,20,40,80", "qos"
    ) == LatencyMonitorRequest(MonitorSetting((10, 20, 40, 80)))
    with pytest.raises(SystemExit):
        parse(f"run qos {nvme} --latency-monitor-enable=5,7,20,50")
    with pytest.raises(SystemExit):
        parse(f"run endurance {nvme} --latency-monitor")  # its passes are fills: not offered


def test_a_resume_carries_new_stop_conditions_and_the_device() -> None:
    args = parse("resume 12 --for 96h --destroy-data /dev/sdb --keep")
    request = resume_request(args, "12")  # type: ignore[arg-type]
    assert request.run == "12"
    assert request.destroy_data == "/dev/sdb"
    assert request.stop_conditions == (("for_time", 96 * 3600.0),)
    assert request.keep


def test_plan_takes_destroy_data_as_run_does() -> None:
    args = parse("plan sweep /dev/sdb --destroy-data /dev/sdb --threads 1,4 --check")
    request = plan_request(args)  # type: ignore[arg-type]
    assert request.target == TargetRequest("/dev/sdb", destroy_data="/dev/sdb")
    assert dict(request.given) == {"threads": (1, 4)}
    assert request.check


@pytest.mark.parametrize(
    "example",
    [example for record in profile_records().values() for example in record.spec.examples],
)
def test_every_documented_example_is_accepted(example: str) -> None:
    words = shlex.split(example)
    assert words[0] == "ssdlab"
    command = words[1 : words.index(">") if ">" in words else None]  # the shell's part aside
    build_parser().parse_args(command)  # a rejected option exits 2
