"""Fuzzing the OCP log page decoders: the real C0h outputs and the raw pages of
tests/data/nvme-ocp, the composed C3h page and its JSON (tests/ocp_pages.py), mutated. Only a
result or a clean ParseError is allowed; a page with the right GUID and a known version always
decodes."""

import json
from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.parse.nvme_json import parse_ocp_c0_hex_dump, parse_ocp_smart_add_log
from ssdlab.parse.ocp_latency import decode_latency_monitor_page, read_latency_monitor_json
from ssdlab.parse.ocp_smart import decode_ocp_smart_page, read_ocp_smart_json
from tests.fuzz.harness import (
    FUZZ,
    HALF,
    Samples,
    mutated_json_doc,
    mutated_text,
    outcome,
    texts,
)
from tests.ocp_pages import C0_OUTPUTS, C0_PAGES, OCP, c3_json, compose_c3_page

C0_JSON = texts(list(C0_OUTPUTS))
C3_JSON = Samples({"c3": json.dumps(c3_json(compose_c3_page()))})
HEX_DUMPS = texts([OCP / "qemu-ocp-c0-composed.hexdump.txt", OCP / "autoval-get-log-c0-299.txt"])
PAGES = [p.read_bytes() for p in C0_PAGES] + [compose_c3_page()]


def test_seeds_decode() -> None:
    for text in C0_JSON:
        assert outcome(read_ocp_smart_json, json.loads(text))
        assert outcome(parse_ocp_smart_add_log, json.loads(text))
    assert outcome(read_latency_monitor_json, json.loads(C3_JSON[0]))
    assert all(outcome(decode_ocp_smart_page, page) for page in PAGES[:2])
    assert outcome(decode_latency_monitor_page, PAGES[2])


@FUZZ
@given(st.data())
def test_c0_json_mutated(data: st.DataObject) -> None:
    doc = data.draw(mutated_json_doc(C0_JSON))
    if isinstance(doc, Mapping):
        outcome(read_ocp_smart_json, doc)
        outcome(parse_ocp_smart_add_log, doc)


@FUZZ
@given(st.data())
def test_c3_json_mutated(data: st.DataObject) -> None:
    doc = data.draw(mutated_json_doc(C3_JSON))
    if isinstance(doc, Mapping):
        outcome(read_latency_monitor_json, doc)


@st.composite
def mutated_page(draw: st.DrawFn) -> bytes:
    """A page with 1-40 bytes overwritten, now and then cut or lengthened."""
    page = bytearray(draw(st.sampled_from(PAGES)))
    for _ in range(draw(st.integers(1, 40))):
        page[draw(st.integers(0, len(page) - 1))] = draw(st.integers(0, 255))
    if draw(st.integers(0, 9)) == 0:
        page = page[: draw(st.integers(0, 600))]
    return bytes(page)


@FUZZ
@given(mutated_page())
def test_raw_pages_mutated(page: bytes) -> None:
    outcome(decode_ocp_smart_page, page)
    outcome(decode_latency_monitor_page, page)


@HALF
@given(st.binary(min_size=494, max_size=494), st.integers(1, 6), st.integers(1, 4))
def test_any_body_with_the_guid_and_a_known_version_decodes(
    body: bytes, c0_version: int, c3_version: int
) -> None:
    c0 = PAGES[0][496:]
    c3 = PAGES[2][496:]
    assert decode_ocp_smart_page(body + c0_version.to_bytes(2, "little") + c0)
    assert decode_latency_monitor_page(body + c3_version.to_bytes(2, "little") + c3)


@FUZZ
@given(mutated_text(HEX_DUMPS))
def test_hex_dumps_mutated(text: str) -> None:
    outcome(parse_ocp_c0_hex_dump, text)
