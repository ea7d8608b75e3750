"""Identify Controller read from nvme-cli's text (a real `nvme id-ctrl -H` of a Samsung PM1733,
tests/data/conformance/README.md) and JSON; the expected values are the ones nvme-cli decoded in
the same output."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.nvme_id_ctrl import read_id_ctrl_json, read_id_ctrl_text
from tests.conformance_evidence import OCP_ID_CTRL, PM1733_ID_CTRL


def test_the_pm1733s_human_readable_output() -> None:
    found = read_id_ctrl_text(PM1733_ID_CTRL.read_text(), "pm1733")
    assert found.firmware == "EPK9CR5Q"
    assert (found.mdts, found.oacs, found.lpa, found.oncs) == (8, 0x5F, 0xE, 0x7F)
    assert (found.fuses, found.fna, found.vwc, found.sanicap, found.ctratt) == (0, 4, 0, 3, 0)
    assert (found.wctemp_k, found.cctemp_k) == (345, 358)  # "72 °C (345 K)", "85 °C (358 K)"
    assert found.source == "pm1733"


def test_json_and_no_threshold() -> None:
    found = read_id_ctrl_json({**OCP_ID_CTRL, "cctemp": 0}, "composed")
    assert (found.wctemp_k, found.cctemp_k) == (0x15E, None)  # 0 K: no threshold reported
    assert found.model == "COMPOSED OCP VALUES"


def test_other_outputs_are_refused() -> None:
    with pytest.raises(ParseError, match="nvme id-ctrl JSON"):
        read_id_ctrl_json({"critical_warning": 0}, "x")
    with pytest.raises(ParseError, match="nvme id-ctrl text"):
        read_id_ctrl_text("vid : 0x144d\n", "x")
