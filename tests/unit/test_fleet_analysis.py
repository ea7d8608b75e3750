"""A fleet judged as a whole: version mismatches, clocks, and drives slower than siblings."""

from ssdlab.analysis.compare import MetricSamples, Verdict
from ssdlab.analysis.fleet import FleetDrive, clock_verdict, compare_siblings, mismatches
from ssdlab.fleet.launch import node_words, profile_words, set_by_fleet
from ssdlab.fleet.run import _without_targets
from ssdlab.model.fleet import FleetHost, HostCheck
from ssdlab.report.fleet import build_doctor_document

VERSION = "0.1.0"


def _check(host: str, **facts: object) -> HostCheck:
    given: dict[str, object] = {"ssdlab_version": VERSION, "fio_version": "fio-3.33"}
    given.update(facts)
    return HostCheck(host, reachable=True, **given)  # type: ignore[arg-type]


def test_identical_nodes_have_no_mismatch() -> None:
    assert mismatches([_check("a"), _check("b")], VERSION) == []


def test_a_different_fio_changes_results_and_names_the_hosts() -> None:
    found = mismatches([_check("a"), _check("b", fio_version="fio-3.35")], VERSION)
    assert [(m.what, m.changes_results) for m in found] == [("fio", True)]
    assert "fio-3.35 on b" in found[0].detail


def test_a_different_ssdlab_than_this_one_changes_results() -> None:
    found = mismatches([_check("a", ssdlab_version="0.0.9")], VERSION)
    assert [(m.what, m.changes_results) for m in found] == [("ssdlab", True)]


def test_smartctl_and_clocks_are_warnings_only() -> None:
    checks = [
        _check("a", smartctl_version="7.3", clock_offset_s=0.0, clock_uncertainty_s=0.001),
        _check("b", smartctl_version="7.4", clock_offset_s=0.4, clock_uncertainty_s=0.001),
    ]
    found = mismatches(checks, VERSION)
    assert [(m.what, m.changes_results) for m in found] == [
        ("smartctl", False),
        ("clock", False),
    ]
    assert "b +0.400 s" in found[1].detail


def test_a_clock_is_judged_only_as_far_as_its_reading_allows() -> None:
    def verdict(offset_s: float | None, uncertainty_s: float) -> str | None:
        found = _check("a", clock_offset_s=offset_s, clock_uncertainty_s=uncertainty_s)
        return clock_verdict(found)

    assert verdict(0.010, 0.005) == "agrees"
    assert verdict(-0.040, 0.010) == "agrees"  # within 50 ms even at the far end
    assert verdict(0.200, 0.010) == "differs"
    assert verdict(-0.200, 0.140) == "differs"  # off by 60 ms at least
    # Ansible's round trip too long to tell: never "agrees", whatever the offset read
    assert verdict(0.0, 0.060) == "inconclusive"
    assert verdict(0.129, 0.134) == "inconclusive"
    assert verdict(None, 0.005) is None


def test_an_inconclusive_clock_is_said_in_its_row_and_the_verdict() -> None:
    slow = _check("b", clock_offset_s=0.129, clock_uncertainty_s=0.134)
    fine = _check("a", clock_offset_s=0.002, clock_uncertainty_s=0.004)
    document = build_doctor_document([fine, slow], mismatches([fine, slow], VERSION), VERSION)
    rows = {row[0]: row for row in document.sections[0].tables[0].rows}
    assert rows["a"][7] == "+2 ms ±4 ms"
    assert rows["b"][7] == "+129 ms ±134 ms (inconclusive)"
    assert "clocks not judged to 50 ms" in " ".join(document.verdict)
    assert "b (±134 ms)" in " ".join(document.verdict)
    hosts = {row["host"]: row for row in document.data["hosts"]}
    assert (hosts["a"]["clock_verdict"], hosts["b"]["clock_verdict"]) == ("agrees", "inconclusive")


def test_unusable_hosts_are_left_out_of_the_judgement() -> None:
    down = HostCheck("c", reachable=False, problem="ssh failed")
    assert mismatches([_check("a"), down], VERSION) == []


def _drive(
    host: str, values: tuple[float, ...], model: str = "M1", firmware: str = "F1"
) -> FleetDrive:
    metric = MetricSamples("seq1m-q8t1-read", "SEQ1M read", "bytes_per_s", True, values)
    return FleetDrive(1, host, "/dev/sdb", model, firmware, f"S-{host}", (metric,))


def test_a_drive_clearly_slower_than_its_siblings_is_named() -> None:
    drives = [
        _drive("a", (1000.0, 1002.0, 998.0)),
        _drive("b", (1001.0, 999.0, 1000.0)),
        _drive("c", (700.0, 702.0, 698.0)),
    ]
    (group,) = compare_siblings(drives)
    assert [c.drive.host for c in group.slower] == ["c"]
    assert group.slower[0].change.verdict is Verdict.WORSE


def test_noise_within_the_threshold_names_nobody() -> None:
    drives = [_drive("a", (1000.0, 1010.0, 990.0)), _drive("b", (995.0, 1005.0, 1000.0))]
    (group,) = compare_siblings(drives)
    assert group.slower == ()


def test_drives_are_compared_within_their_model_and_firmware_only() -> None:
    drives = [
        _drive("a", (1000.0, 1001.0)),
        _drive("b", (500.0, 501.0), firmware="F2"),
    ]
    groups = compare_siblings(drives)
    assert [(g.firmware, len(g.drives)) for g in groups] == [("F1", 1), ("F2", 1)]
    assert all(g.changes == () for g in groups)


def test_node_words_name_a_target_twice_only_when_the_inventory_does() -> None:
    host = FleetHost(
        "n", "n", targets=("/dev/sdb", "/mnt/a"), destroy_data=("/dev/sdb",), db="/s.db"
    )
    erase = node_words(host, "/dev/sdb", "quick", ["--size", "1GiB"], 100.0)
    keep = node_words(host, "/mnt/a", "cache", [], 100.0)
    assert erase == (
        "quick", "/dev/sdb", "--size", "1GiB", "--json", "--db", "/s.db",
        "--start-at", "100.000", "--destroy-data", "/dev/sdb",
    )  # fmt: skip
    assert "--destroy-data" not in keep
    assert keep[:3] == ("run", "cache", "/mnt/a")


def test_profile_words_and_options_the_fleet_sets_itself() -> None:
    assert profile_words("endure") == ("endure",)
    assert set_by_fleet(["--size", "1GiB", "--db=/x", "--destroy-data", "/dev/sdb"]) == [
        "--db=/x",
        "--destroy-data",
    ]


def test_a_host_without_targets_gets_a_job_that_says_so() -> None:
    job = _without_targets(FleetHost("n", "n"))
    assert job.problem == "the inventory gives it no ssdlab_targets"
