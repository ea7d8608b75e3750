"""parse/health_file.py and the field-log readers (attribute_log, smartd_attrlog,
attribute_csv): the logs people keep of a drive, in every accepted format.

Layouts are those the tools define: smartctl's attribute rows (ataprint.cpp), ``uniq -c``'s
count column, smartd's attribute log (smartd.cpp ``write_dev_attrlog``: ``YYYY-MM-DD
HH:MM:SS;`` then ``TAB ID;NORMALIZED;RAW;`` per attribute). The values are a Samsung 850 EVO
2TB's, as its smartd log and ``smartctl -A`` print them in the MDVL smart-monitoring page
(github m7a/lp-smart-monitoring): 9 Power_On_Hours 10736, 12 Power_Cycle_Count 1825,
241 Total_LBAs_Written 63173123890."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.health_file import ACCEPTED, read_health_text

MODEL = "Samsung SSD 850 EVO 2TB"
ROW_9 = "  9 Power_On_Hours          0x0032   097   097   000    Old_age   Always       -       {}"
ROW_241 = (
    "241 Total_LBAs_Written      0x0032   099   099   000    Old_age   Always       -       {}"
)
BRIEF_241 = "241 Total_LBAs_Written      -O--CK   099   099   000    -    {}"
END = 1_756_659_215.0  # the log's modification time, as the command passes it


def read(text: str, **options: float | str | None) -> list:  # type: ignore[type-arg]
    return read_health_text(text, name="smart.log", **options)  # type: ignore[arg-type]


def test_grepped_lines_without_times_are_spaced_by_the_interval() -> None:
    text = "".join(
        f"{ROW_9.format(h)}\n{ROW_241.format(w)}\n"
        for h, w in ((10736, 63173123890), (10737, 63173124890), (10738, 63173126890))
    )
    samples = read(text, model=MODEL, interval_s=300.0, end_s=END)
    assert [s.taken_at_s for s in samples] == [END - 600, END - 300, END]
    assert [s.power_on_hours.value for s in samples] == [10736, 10737, 10738]
    assert [s.host_written_bytes.value for s in samples] == [
        63173123890 * 512,
        63173124890 * 512,
        63173126890 * 512,
    ]


def test_grepped_lines_spread_over_elapsed() -> None:
    text = "".join(f"{BRIEF_241.format(w)}\n" for w in (1000, 2000, 3000, 4000, 5000))
    samples = read(text, model=MODEL, elapsed_s=4 * 3600.0, end_s=END)
    assert [END - s.taken_at_s for s in samples if s.taken_at_s] == [
        4 * 3600,
        3 * 3600,
        2 * 3600,
        3600,
        0,
    ]


def test_grepped_lines_without_times_or_interval_have_no_time() -> None:
    samples = read(f"{ROW_9.format(1)}\n{ROW_9.format(2)}\n")
    assert [s.taken_at_s for s in samples] == [None, None]
    assert [s.power_on_hours.value for s in samples] == [1, 2]  # a series times them by these


def test_times_before_the_lines_and_date_lines() -> None:
    prefixed = (
        f"2025-05-13T19:23:07+02:00 {ROW_9.format(10736)}\n"
        f"2025-05-13T19:23:07+02:00 {ROW_241.format(100)}\n"
        f"2025-05-13T19:53:07+02:00 {ROW_9.format(10736)}\n"
        f"2025-05-13T19:53:07+02:00 {ROW_241.format(200)}\n"
    )
    samples = read(prefixed, model=MODEL)
    assert len(samples) == 2
    assert samples[1].taken_at_s - samples[0].taken_at_s == 1800
    dated = f"1747157  \n{ROW_9.format(5)}\n"  # not a date: a plain number line is refused
    with pytest.raises(ParseError):
        read(dated)
    dated = f"Tue May 13 19:23:07 CEST 2025\n{ROW_9.format(5)}\n{ROW_241.format(7)}\n"
    (sample,) = read(dated, model=MODEL)
    assert sample.host_written_bytes.value == 7 * 512


def test_uniq_c_counts_stand_for_that_many_ticks() -> None:
    text = (
        f"     12 {ROW_241.format(1000)}\n"
        f"      3 {ROW_241.format(1200)}\n"
        f"      1 {ROW_241.format(1300)}\n"
    )
    samples = read(text, model=MODEL, interval_s=300.0, end_s=END)
    # 16 ticks; a run of equal readings is kept at its first and last tick
    ticks = [round((END - s.taken_at_s) / 300) for s in samples if s.taken_at_s]
    assert ticks == [15, 4, 3, 1, 0]
    assert [s.host_written_bytes.value / 512 for s in samples if s.host_written_bytes.value] == [
        1000,
        1000,
        1200,
        1200,
        1300,
    ]


def test_a_listing_with_a_header_per_attribute_is_one_reading() -> None:
    header = "ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE"
    hours = "  9 Power_On_Hours          -O--CK   097   097   000    -    10736"
    text = f"{header}\n{BRIEF_241.format(5)}\n\n{header}\n{hours}\n\n"
    (sample,) = read(text, model=MODEL)
    assert (sample.host_written_bytes.value, sample.power_on_hours.value) == (5 * 512, 10736)
    banner = "smartctl 7.4 2023-08-01 r5530 [x86_64-linux-6.1.0-38-amd64] (local build)\n\n"
    (sample,) = read(banner + text, model=MODEL)
    assert sample.power_on_hours.value == 10736


def test_smartd_attribute_log() -> None:
    text = (
        "2025-05-13 19:23:07;\t5;100;0;\t9;97;10736;\t12;98;1825;\t241;99;63173123890;\n"
        "2025-05-13 19:53:07;\t5;100;0;\t9;97;10736;\t12;98;1825;\t241;99;63173124890;\n"
    )
    samples = read(text, model=MODEL)
    assert [s.power_cycles.value for s in samples] == [1825, 1825]
    assert [s.host_written_bytes.value for s in samples] == [
        63173123890 * 512,
        63173124890 * 512,
    ]  # attribute 241 of a Samsung: ssdlab's vendor map (smartd logs no names)
    assert samples[1].taken_at_s - samples[0].taken_at_s == 1800
    assert samples[0].sources == ("smartd attribute log",)


def test_smartd_attribute_log_of_nvme_and_scsi() -> None:
    nvme = (
        "2025-05-13 19:23:07;\tcritical-warning;0;\ttemperature;44;\tavailable-spare;100;"
        "\tavailable-spare-threshold;10;\tpercentage-used;3;\tdata-units-read;215000;"
        "\tdata-units-written;33588329;\thost-reads;1;\thost-writes;2;"
        "\tcontroller-busy-time;3;\tpower-cycles;4;\tpower-on-hours;5;"
        "\tunsafe-shutdowns;6;\tmedia-errors;0;\tnum-err-log-entries;7;\n"
    )
    (sample,) = read(nvme)
    assert sample.host_written_bytes.value == 33588329 * 512_000
    assert (sample.wear_used_pct.value, sample.temperature_c.value) == (3, 44)
    scsi = "2025-05-13 19:23:07;\twrite-gb-processed;11472.811;\ttemperature;25;\n"
    (sample,) = read(scsi)
    assert sample.host_written_bytes.value == 11_472_811_000_000
    assert sample.identity.protocol == "SCSI"


@pytest.mark.parametrize("separator", [",", ";", "\t"])
def test_wide_csv(separator: str) -> None:
    rows = [
        ["time", "9 Power_On_Hours", "241"],
        ["2025-05-13T19:23:07Z", "10736", "63173123890"],
        ["2025-05-13T19:53:07Z", "10737", "63173124890"],
    ]
    text = "".join(separator.join(row) + "\n" for row in rows)
    samples = read(text, model=MODEL)
    assert [s.power_on_hours.value for s in samples] == [10736, 10737]
    assert samples[1].host_written_bytes.value == 63173124890 * 512
    assert samples[1].taken_at_s - samples[0].taken_at_s == 1800


def test_long_csv_without_times() -> None:
    text = (
        "id,name,value,raw\n9,Power_On_Hours,97,1\n241,Total_LBAs_Written,99,8\n"
        "9,Power_On_Hours,97,2\n"
    )
    samples = read(text, model=MODEL, interval_s=60.0, end_s=END)
    assert [s.power_on_hours.value for s in samples] == [1, 2]
    assert [s.taken_at_s for s in samples] == [END - 60, END]


def test_a_json_array_of_one_smartctl_document() -> None:
    doc = '{"smartctl": {"version": [7, 2]}, "device": {"protocol": "ATA"}, "model_name": "X"}'
    (sample,) = read(f"[{doc}]")
    assert sample.identity.model == "X"
    with pytest.raises(ParseError, match="JSON array of 2 items"):
        read(f"[{doc}, {doc}]")


@pytest.mark.parametrize(
    "text",
    [
        "nothing here\n",
        "Power_On_Hours: 10736\n",
        "",
    ],
)
def test_anything_else_is_refused_naming_the_formats(text: str) -> None:
    with pytest.raises(ParseError) as refused:
        read(text)
    message = str(refused.value)
    assert message.startswith("smart.log: no smartctl runs or attribute readings found")
    assert ACCEPTED in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "text",
    [
        f"{ROW_9.format(1)}\ngarbage in the middle\n",
        f"99999999999999 {ROW_9.format(1)}\n",
        f"yesterday {ROW_9.format(1)}\n",
        f"{ROW_9.format(1)}\n{BRIEF_241.format(2)}\n",  # the two layouts in one tick
        "2025-05-13 19:23:07;\t9;97;\n",
        "2025-05-13 19:23:07;\t9;97;1;\nnot smartd\n",
        "time,241\n2025-05-13,abc\n",
        "time,241\nnot a time,5\n",
    ],
)
def test_damaged_logs_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(ParseError) as refused:
        read(text, model=MODEL)
    assert "\n" not in str(refused.value)
