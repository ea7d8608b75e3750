"""Iometer's results file, written here in the layout Iometer's own source writes it
(iometer-org/iometer `PageSetup.cpp`, `AccessSpecList.cpp`, `ManagerList.cpp`, `Manager.cpp`,
`Worker.cpp` SaveResults; column names copied from them), for what the published files
(Quarch's Iometer 1.1.0 runs, tests/corpus/bench/, checked by the corpus test) do not show:
older columns, mixes, several lines. The figures below are made consistent the way Iometer
computes them (MBps = bytes ÷ run time ÷ 2^20 or 10^6, IOps = I/Os ÷ run time)."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.iometer_csv import is_iometer_results, parse_iometer_csv

# ManagerList::SaveResults, Iometer 1.1.0 (6add65c): binary and decimal MBps
COLUMNS_110 = (
    "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,"
    "Read IOps,Write IOps,MBps (Binary),Read MBps (Binary),Write MBps (Binary),MBps (Decimal),"
    "Read MBps (Decimal),Write MBps (Decimal),Transactions per Second,Connections per Second,"
    "Average Response Time,Average Read Response Time,Average Write Response Time,"
    "Average Transaction Time,Average Connection Time,Maximum Response Time,"
    "Maximum Read Response Time,Maximum Write Response Time,Maximum Transaction Time,"
    "Maximum Connection Time,Errors,Read Errors,Write Errors,Bytes Read,Bytes Written,Read I/Os,"
    "Write I/Os,Connections,Transactions per Connection,Total Raw Read Response Time,"
    "Total Raw Write Response Time,Total Raw Transaction Time,Total Raw Connection Time,"
    "Maximum Raw Read Response Time,Maximum Raw Write Response Time,Maximum Raw Transaction Time,"
    "Maximum Raw Connection Time,Total Raw Run Time,Starting Sector,Maximum Size,Queue Depth,"
    "% CPU Utilization,% User Time,% Privileged Time,% DPC Time,% Interrupt Time,"
    "Processor Speed,Interrupts per Second,CPU Effectiveness,Packets/Second,Packet Errors,"
    "Segments Retransmitted/Second"
)
# Iometer 2006.07.27 (d98865c's ManagerList.cpp): one MBps column, bytes ÷ 1,048,576
COLUMNS_2006 = COLUMNS_110.replace(
    "MBps (Binary),Read MBps (Binary),Write MBps (Binary),MBps (Decimal),"
    "Read MBps (Decimal),Write MBps (Decimal)",
    "MBps,Read MBps,Write MBps",
)


def row(
    kind: str,
    name: str,
    spec: str,
    managers: str,
    workers: str,
    disks: str,
    figures: dict[str, str],
    columns: str,
) -> str:
    """One result row in the column order of the header."""
    names = columns[1:].split(",")
    given = {"Target Type": kind, "Target Name": name, "Access Specification Name": spec,
             "# Managers": managers, "# Workers": workers, "# Disks": disks, **figures}  # fmt: skip
    return ",".join(given.get(n, "0") for n in names)


# 4 KiB random reads at 32 outstanding I/Os: 600,000 I/Os in 60 s
READ = {
    "IOps": "10000.000000", "Read IOps": "10000.000000", "Write IOps": "0.000000",
    "MBps (Binary)": "39.062500", "Read MBps (Binary)": "39.062500",
    "Write MBps (Binary)": "0.000000", "MBps (Decimal)": "40.960000",
    "Read MBps (Decimal)": "40.960000", "Write MBps (Decimal)": "0.000000",
    "MBps": "39.062500", "Read MBps": "39.062500", "Write MBps": "0.000000",
    "Average Response Time": "3.200000", "Average Read Response Time": "3.200000",
    "Maximum Response Time": "41.500000", "Bytes Read": "2457600000", "Read I/Os": "600000",
    "Queue Depth": "32",
}  # fmt: skip


def results_file(columns: str = COLUMNS_110, spec_line: str = "4096,100,100,100,0,1,4096,0,",
                 figures: dict[str, str] | None = None, version: str = "1.1.0") -> str:  # fmt: skip
    figures = READ if figures is None else figures
    return "\n".join(
        [
            "'Test Type,Test Description", "0,lab1 4k random read", "'Version", version,
            "'Time Stamp", "2020-05-01 10:11:12:345", "'Access specifications",
            "'Access specification name,default assignment", "4K random read,NONE",
            "'size,% of size,% reads,% random,delay,burst,align,reply", spec_line,
            "'End access specifications", "'Results", columns,
            row("ALL", "All", "4K random read", "1", "1", "1", figures, columns),
            row("MANAGER", "lab1", "4K random read", "", "1", "1", figures, columns),
            row("WORKER", "Worker 1", "4K random read", "", "", "1", figures, columns),
            row("DISK", "PHYSICALDRIVE:1", "", "", "", "", figures, columns),
            "'Time Stamp", "2020-05-01 10:12:13:001", "'End Test", "",
        ]
    )  # fmt: skip


def test_an_access_spec_of_one_shape_is_keyed_like_a_quick_test() -> None:
    text = results_file()
    assert is_iometer_results(text)
    bench = parse_iometer_csv(text)
    (test,) = bench.tests
    assert test.key == "rnd4k-q32t1-read"
    assert (test.direction, test.block_bytes, test.queue_depth, test.threads) == (
        "read",
        4096,
        32,
        1,
    )
    assert test.bw_bytes_per_s == 40.96 * 10**6  # 'MBps (Decimal)'
    assert test.iops == 10000.0
    assert test.lat_mean_ns == 3.2 * 10**6  # ms
    assert bench.tool_version == "1.1.0"
    assert bench.date == "2020-05-01 10:11:12:345"
    assert bench.comment == "lab1 4k random read"


def test_binary_megabytes_are_mebibytes() -> None:
    """Before 1.1.0 Iometer wrote only 'MBps', bytes ÷ 1,048,576 (MEGABYTE in IOCommon.h)."""
    (test,) = parse_iometer_csv(results_file(COLUMNS_2006, version="2006.07.27")).tests
    assert test.bw_bytes_per_s == 39.0625 * 2**20 == 40.96 * 10**6
    newer = COLUMNS_110.replace("MBps (Binary)", "MiBps (Binary)")  # Iometer 1.1.0 from 2014
    decimal_gone = newer.replace("MBps (Decimal)", "MBps (Dec)")
    (test,) = parse_iometer_csv(results_file(decimal_gone, figures={
        **READ, "MiBps (Binary)": "39.062500"})).tests  # fmt: skip
    assert test.bw_bytes_per_s == 40.96 * 10**6


@pytest.mark.parametrize(
    ("spec_line", "key"),
    [
        ("4096,100,70,100,0,1,4096,0,", "iometer-4k-random-read-q32-mix"),  # a 70/30 mix
        ("4096,100,100,50,0,1,4096,0,", "iometer-4k-random-read-q32-read"),  # half random
        (
            "4096,50,100,100,0,1,4096,0,\n65536,50,100,100,0,1,4096,0,",
            "iometer-4k-random-read-q32-mix",
        ),
    ],
)
def test_other_access_specs_keep_their_own_name(spec_line: str, key: str) -> None:
    (test,) = parse_iometer_csv(results_file(spec_line=spec_line)).tests
    assert test.key == key
    assert test.label == "4K random read Q32"


def test_workers_with_different_depths_are_not_a_quick_test() -> None:
    (test,) = parse_iometer_csv(results_file(figures={**READ, "Queue Depth": "-1"})).tests
    assert test.key == "iometer-4k-random-read-read"
    assert test.queue_depth is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("'Test Type,Test Description\n0,x\n", "no 'Results' section"),
        (results_file().replace("40.960000", "4O.96", 1), "is not a number"),
        (results_file(spec_line="0,100,100,100,0,1,0,0,"), "transfer size of 0"),
        (results_file(spec_line="4096,100"), "has 2 fields"),
        (results_file(spec_line="4096,100,150,100,0,1,0,0,"), "outside 0-100"),
    ],
)
def test_malformed_files_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as refused:
        parse_iometer_csv(text)
    assert "\n" not in str(refused.value)


def test_the_instantaneous_file_is_read_by_its_whole_test_row() -> None:
    """Iometer's file of instantaneous results ("inst" + the results file's name) leads every
    row and the header with a time stamp (`GalileoView.cpp` `PrepareInstantaneousFile`,
    `ManagerList::SaveResultsInstantaneous`); its ALL row is the whole test's. It was refused
    as having no 'Results' section with an ALL row."""
    stamp = "2023-03-27 13:14:32:804"
    lines = results_file().split("\n")
    at = lines.index(COLUMNS_110)
    lines[at] = "TimeStamp," + COLUMNS_110
    lines[at + 1 : at + 5] = [
        f"{stamp},{row('WORKER', 'Worker 1', '', '', '', '1', READ, COLUMNS_110)}",
        f"{stamp},{row('ALL', 'All', '4K random read', '1', '1', '1', READ, COLUMNS_110)}",
    ]
    (test,) = parse_iometer_csv("\r\n".join(lines)).tests
    assert test.key == "rnd4k-q32t1-read"
    assert (test.iops, test.bw_bytes_per_s, test.lat_mean_ns) == (10000.0, 40.96e6, 3.2e6)


def test_tests_of_one_spec_name_keep_their_own_specification() -> None:
    """Iometer run again with the same results file appends a test each time, each with its
    own description and access specification, often under one name. The details gave the last
    definition of the name for every test, and the comment the last description only."""
    first = results_file(spec_line="512,100,100,100,0,1,512,0,")
    second = results_file(spec_line="32768,100,100,0,0,1,0,0,").replace(
        "lab1 4k random read", "32K Sequential Read"
    )
    bench = parse_iometer_csv(first + second)
    assert [t.key for t in bench.tests] == ["rnd512b-q32t1-read", "seq32k-q32t1-read"]
    specs = bench.details["access_specifications"]
    assert isinstance(specs, list)
    shapes = [(s["name"], s["lines"][0]["size_bytes"], s["lines"][0]["align_bytes"]) for s in specs]
    assert shapes == [("4K random read", 512, 512), ("4K random read", 32768, 0)]
    assert bench.comment == "lab1 4k random read; 32K Sequential Read"
