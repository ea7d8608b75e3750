"""Temperature limits and thermal counters read from real smartctl and nvme-cli captures."""

import pytest

from ssdlab.parse.thermal_facts import (
    counters_from_nvme_smart_log,
    counters_from_smartctl,
    limits_from_id_ctrl,
    limits_from_smartctl,
)
from tests.conftest import ROOT, load_json_object, shared_smart_sample

DATA = ROOT / "tests" / "data"


@pytest.mark.parametrize(
    ("name", "hours"),
    [
        ("crucial-p2-CT250P2SSD8-nvme.json", 10147),
        ("intel-p4510-SSDPE2KX020T8-nvme.json", 36959),
        ("samsung-970evo-500GB-nvme-x.json", 12798),
        ("samsung-pm9a1-MZVL21T0HCLR-nvme.json", 10423),
    ],
)
def test_real_smartctl_nvme_captures(name: str, hours: int) -> None:
    doc = load_json_object(shared_smart_sample(name))
    counters = counters_from_smartctl(doc)
    assert counters.warning_temp_time_min == 0
    assert counters.critical_comp_time_min == 0
    assert counters.power_on_hours == hours
    # smartctl 7.x prints no thermal management counters, and these captures no thresholds
    assert counters.thm_temp1_trans_count is None
    limits = limits_from_smartctl(doc)
    assert (limits.wctemp_k, limits.cctemp_k) == (None, None)


def test_qemu_smartctl_capture_has_no_power_on_hours() -> None:
    doc = load_json_object(DATA / "devices" / "smartctl-x-j-nvme0n1.json")
    counters = counters_from_smartctl(doc)
    assert counters.power_on_hours == 0
    assert counters.warning_temp_time_min == 0


def test_nvme_cli_smart_log_thermal_management_counters() -> None:
    doc = load_json_object(DATA / "smart" / "nvme-cli-2.x-smart-log.json")
    counters = counters_from_nvme_smart_log(doc)
    assert counters.thm_temp1_trans_count == 0
    assert counters.thm_temp2_total_time_s == 0
    assert counters.power_on_hours == 6031
    assert counters.source == "nvme smart-log"


def test_identify_thresholds_in_kelvin_and_celsius() -> None:
    limits = limits_from_id_ctrl({"wctemp": 350, "cctemp": 358})
    assert (limits.wctemp_k, limits.cctemp_k) == (0x15E, 0x166)
    assert limits.wctemp_c == 77.0
    assert limits.cctemp_c == 85.0
    assert limits_from_id_ctrl({"wctemp": 0, "cctemp": 0}).wctemp_k is None
    # smartctl gives °C (Kelvin − 273): back to the controller's Kelvin
    smartctl = limits_from_smartctl({"temperature": {"op_limit_max": 77, "critical_limit_max": 85}})
    assert (smartctl.wctemp_k, smartctl.cctemp_k) == (350, 358)


def test_ocp_throttling_count_joins_the_counters() -> None:
    from ssdlab.model.ocp_logs import OcpSmartLog
    from ssdlab.parse.thermal_facts import with_ocp_throttling

    log = OcpSmartLog(5, "afd514c97c6f4f9ca4f2bfea2810afc5", thermal_throttling_events=7)
    counters = with_ocp_throttling(counters_from_nvme_smart_log({"warning_temp_time": 2}), log)
    assert counters.ocp_throttling_events == 7
    assert counters.warning_temp_time_min == 2
