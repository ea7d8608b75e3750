"""Fuzzing the health parsers: smartctl JSON (tests/data/smart and the real third-party captures
in ../shared/testdata/smart, read in place), smartctl text and snapshot logs, nvme-cli JSON, the
NAND-write vendor logs, nvme id-ns and the --vendor-map TOML. Only a result or a clean
ParseError is allowed."""

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.model.health import HealthValue
from ssdlab.parse.health_file import read_health_text
from ssdlab.parse.nvme_idns import parse_lba_formats
from ssdlab.parse.nvme_json import (
    parse_endurance_log,
    parse_intel_smart_log_add,
    parse_nvme_smart_log,
    parse_ocp_smart_add_log,
    parse_vendor_nand_text,
)
from ssdlab.parse.smart_vendors import load_vendor_map
from ssdlab.parse.smartctl_json import normalise_smartctl, parse_smartctl_json
from ssdlab.parse.smartctl_log import split_snapshot_log
from ssdlab.parse.smartctl_text import smartctl_text_to_json
from tests.fuzz.harness import (
    DATA,
    FUZZ,
    GENERATED,
    HALF,
    JSON_VALUES,
    ROOT,
    Samples,
    files,
    mutated_json,
    mutated_json_doc,
    mutated_text,
    outcome,
    shared_smart,
    texts,
)
from tests.fuzz.test_fuzz_fio import assert_no_nan

SMART = DATA / "smart"
TEXT = DATA / "smart-text"
SMARTCTL_JSON = texts(
    [p for p in files(SMART, "**/*.json") if "nvme-cli" not in p.name and "nand-logs" not in str(p)]
)
NVME_CLI = texts(files(SMART, "nvme-cli-*.json"))
SMARTCTL_TEXT = texts(files(TEXT, "*.txt"))
SNAPSHOT_LOGS = texts(files(TEXT, "*.log"))
VENDOR_MAPS = texts([SMART / "user-vendor-map.toml", ROOT / "src/ssdlab/parse/smart_vendors.toml"])
NAND = SMART / "nand-logs"
NAND_JSON: dict[str, Callable[[Mapping[str, Any]], HealthValue]] = {
    "ocp-c0-v1.json": parse_ocp_smart_add_log,
    "ocp-c0-v2.json": parse_ocp_smart_add_log,
    "intel-smart-log-add.json": parse_intel_smart_log_add,
    "solidigm-smart-log-add.json": parse_intel_smart_log_add,
    "endurance-log.json": parse_endurance_log,
}
NAND_TEXT = {p.name.split("-")[0]: p.read_text(encoding="utf-8") for p in files(NAND, "*.txt")}

# nvme-cli 2.x `nvme id-ns /dev/nvme0n1 -o json`, the fields parse_lba_formats reads, in the
# shape nvme-cli prints them (a Samsung PM9A1 offering 512 B and 4 KiB formats).
ID_NS = json.dumps({
    "nsze": 2000409264, "ncap": 2000409264, "nuse": 163516064, "nsfeat": 0, "nlbaf": 1,
    "flbas": 0, "mc": 0, "dpc": 0, "dps": 0, "nmic": 0, "nguid": "00000000000000000000000000000000",
    "eui64": "002538b211b1b0ad",
    "lbafs": [{"ms": 0, "ds": 9, "rp": 0}, {"ms": 0, "ds": 12, "rp": 0}],
})  # fmt: skip


def test_seeds_parse() -> None:
    """The unmutated captures give results, so the mutations start from working inputs."""
    results = [outcome(parse_smartctl_json, t) for t in SMARTCTL_JSON]
    assert sum(r is not None for r in results) >= len(SMARTCTL_JSON) // 2
    assert all(outcome(parse_nvme_smart_log, t) for t in NVME_CLI)
    assert all(outcome(split_snapshot_log, t) for t in SNAPSHOT_LOGS)
    assert outcome(parse_lba_formats, ID_NS) == (
        [
            {"index": 0, "data_bytes": 512, "metadata_bytes": 0, "relative_performance": 0},
            {"index": 1, "data_bytes": 4096, "metadata_bytes": 0, "relative_performance": 0},
        ],
        0,
    )
    for name, parse in NAND_JSON.items():
        assert outcome(parse, json.loads((NAND / name).read_text(encoding="utf-8")))
    for vendor, text in NAND_TEXT.items():
        assert outcome(parse_vendor_nand_text, text, vendor), vendor


@FUZZ
@given(mutated_json(SMARTCTL_JSON))
def test_smartctl_json_mutated(text: str) -> None:
    sample = outcome(parse_smartctl_json, text)
    if sample is not None:
        assert_no_nan(sample)


@pytest.fixture(scope="module")
def shared_json() -> Samples:
    return texts(shared_smart("*.json"))


@HALF
@given(data=st.data())
def test_smartctl_json_shared_captures_mutated(shared_json: Samples, data: st.DataObject) -> None:
    text = data.draw(st.one_of(mutated_json(shared_json), mutated_text(shared_json)))
    sample = outcome(parse_smartctl_json, text)
    if sample is not None:
        assert_no_nan(sample)


@GENERATED
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "smartctl",
                "device",
                "model_name",
                "ata_smart_attributes",
                "nvme_smart_health_information_log",
                "ata_device_statistics",
                "scsi_error_counter_log",
                "power_on_time",
                "temperature",
                "user_capacity",
                "logical_block_size",
                "endurance_used",
                "model_family",
                "smart_status",
            ]
        ),
        JSON_VALUES,
        min_size=1,
    )
)
def test_smartctl_json_generated(doc: dict[str, Any]) -> None:
    outcome(normalise_smartctl, doc)
    outcome(parse_smartctl_json, json.dumps(doc))


def _text_to_sample(text: str) -> object:
    return normalise_smartctl(smartctl_text_to_json(text))


@FUZZ
@given(mutated_text(SMARTCTL_TEXT))
def test_smartctl_text_mutated(text: str) -> None:
    sample = outcome(_text_to_sample, text)
    if sample is not None:
        assert_no_nan(sample)


@FUZZ
@given(mutated_text(SNAPSHOT_LOGS))
def test_smartctl_log_mutated(text: str) -> None:
    snapshots = outcome(split_snapshot_log, text)
    if snapshots:  # the last run: it inherits identity from the ones before
        outcome(normalise_smartctl, snapshots[-1].doc)


@GENERATED
@given(
    st.lists(
        st.sampled_from(
            SMARTCTL_TEXT[0].splitlines()
            + SMARTCTL_TEXT[1].splitlines()
            + ["Thu Mar  7 10:00:00 UTC 2024", "", "=== START OF READ SMART DATA SECTION ==="]
        ),
        max_size=40,
    )
)
def test_smartctl_text_lines_shuffled(lines: list[str]) -> None:
    text = "\n".join(lines)
    outcome(_text_to_sample, text)
    outcome(split_snapshot_log, text)


@FUZZ
@given(mutated_json(NVME_CLI))
def test_nvme_smart_log_mutated(text: str) -> None:
    sample = outcome(parse_nvme_smart_log, text)
    if sample is not None:
        assert_no_nan(sample)


@HALF
@given(st.sampled_from(sorted(NAND_JSON)), st.data())
def test_nand_json_logs_mutated(name: str, data: st.DataObject) -> None:
    seed = Samples({name: (NAND / name).read_text(encoding="utf-8")})
    doc = data.draw(mutated_json_doc(seed))
    value = outcome(NAND_JSON[name], doc) if isinstance(doc, Mapping) else None
    if value is not None:
        assert_no_nan(value)


@HALF
@given(st.sampled_from(sorted(NAND_TEXT)), st.data())
def test_nand_text_logs_mutated(vendor: str, data: st.DataObject) -> None:
    text = data.draw(mutated_text(Samples({vendor: NAND_TEXT[vendor]})))
    value = outcome(parse_vendor_nand_text, text, vendor)
    if value is not None:
        assert_no_nan(value)


@FUZZ
@given(mutated_json(Samples({"id-ns": ID_NS})))
def test_nvme_idns_mutated(text: str) -> None:
    result = outcome(parse_lba_formats, text)
    if result is not None:
        formats, _in_use = result
        assert all(f["data_bytes"] >= 512 for f in formats)


@GENERATED
@given(JSON_VALUES)
def test_nvme_json_generated(value: Any) -> None:
    text = json.dumps(value)
    outcome(parse_lba_formats, text)
    outcome(parse_nvme_smart_log, text)
    if isinstance(value, dict):
        for parse in set(NAND_JSON.values()):
            outcome(parse, value)


@FUZZ
@given(mutated_text(VENDOR_MAPS))
def test_vendor_map_mutated(text: str) -> None:
    vendors = outcome(load_vendor_map, text)
    if vendors is not None:
        for text_sample in SMARTCTL_JSON[:1]:
            outcome(parse_smartctl_json, text_sample, vendor_map=vendors)


# Field logs in each layout parse.health_file accepts (smartctl's attribute rows, uniq -c's
# count, smartd's attribute log, CSV), with a Samsung 850 EVO's figures; and the corpus's SCSI
# and old-smartctl reports.
_ROW_9 = "  9 Power_On_Hours          0x0032   097   097   000    Old_age   Always       -       {}"
_ROW_241 = "241 Total_LBAs_Written      -O--CK   099   099   000    -    {}"
FIELD_LOGS = Samples(
    {
        "grep": "".join(f"{_ROW_9.format(10736 + n)}\n" for n in range(4)),
        "grep-dated": "".join(
            f"2025-05-13T19:{23 + n}:07Z {_ROW_241.format(631731 + n)}\n" for n in range(4)
        ),
        "uniq": f"     12 {_ROW_241.format(1000)}\n      3 {_ROW_241.format(1200)}\n",
        "smartd": "2025-05-13 19:23:07;\t5;100;0;\t9;97;10736;\t241;99;63173123890;\n"
        "2025-05-13 19:53:07;\t5;100;0;\t9;97;10737;\t241;99;63173124890;\n",
        "smartd-nvme": "2025-05-13 19:23:07;\tcritical-warning;0;\ttemperature;44;"
        "\tpercentage-used;3;\tdata-units-written;33588329;\n",
        "csv": "time,9 Power_On_Hours,241\n2025-05-13T19:23:07Z,10736,63173123890\n",
        "csv-long": "id,name,value,raw\n9,Power_On_Hours,97,1\n241,Total_LBAs_Written,99,8\n",
    }
)
CORPUS_REPORTS = texts(
    [
        ROOT / "tests/corpus/smart" / name
        for name in (
            "samsung-mzilt7t6hala-007-sas-1.txt",
            "hp-eg0146fawhu-sas-hdd-1.txt",
            "seagate-st3146356ss-sas-hdd-1.txt",
            "samsung-ssd-840-series-500gb-1.txt",
            "liteon-cv1-8b128-1.txt",
        )
    ]
)


def _read(text: str) -> list[Any]:
    return read_health_text(text, name="log", interval_s=300.0, end_s=1.7e9)


@FUZZ
@given(mutated_text(FIELD_LOGS))
def test_field_logs_mutated(text: str) -> None:
    samples = outcome(_read, text)
    for sample in samples or []:
        assert_no_nan(sample)


@HALF
@given(mutated_text(CORPUS_REPORTS))
def test_scsi_and_old_reports_mutated(text: str) -> None:
    samples = outcome(_read, text)
    for sample in samples or []:
        assert_no_nan(sample)


@GENERATED
@given(
    st.lists(
        st.sampled_from(
            [line for log in FIELD_LOGS for line in log.splitlines()]
            + ["", "ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE"]
            + [f"{n} {_ROW_9.format(1)}" for n in (0, 1, 10**12, 10**30)]
        ),
        max_size=30,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_field_log_lines_shuffled(lines: list[str], end: str) -> None:
    outcome(_read, end.join(lines) + end)
