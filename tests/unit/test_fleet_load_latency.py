"""`fleet load`'s latency over time for all hosts, where it needs no host: the logs fio's
client leaves in the load's folder read by host, merged into the document's section (real
fio 3.33 logs of two servers, tests/data/fio/client-hist-2servers), the tables' rows, and no
section but a reason when a host's logs are missing or are not fio's."""

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ssdlab.fleet.load import ALL_HOSTS, LoadOutcome
from ssdlab.fleet.load_document import load_document, load_rows
from ssdlab.fleet.load_latency import latency_section, read_histogram_logs
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunStatus
from ssdlab.model.step import StepResult
from ssdlab.report.merged_latency_rows import LATENCY_COLUMNS, NOT_SUPPORTED, merged_latency_rows
from tests.hist_logs import FOLDER, HOSTS, hist_text

BY_SOCKET = {"0.sock": "lab1", "1.sock": "lab2"}
FILES = {f"lab{int(h) + 1}/ssdlab-hist_clat_hist.1.log": hist_text(h) for h in HOSTS}
FIO_IOS = {"read": 8395, "write": 3599}  # client.stdout's All clients


def _section(files: dict[str, str] | None = None, problems: dict[str, str] | None = None) -> Any:
    return latency_section(files or FILES, problems or {}, ("lab1", "lab2"), FIO_IOS)


def test_the_logs_in_the_load_folder_are_read_by_host(tmp_path: Path) -> None:
    for log in FOLDER.glob("*.sock"):
        shutil.copyfile(log, tmp_path / log.name)
    (tmp_path / "ssdlab-hist_clat_hist.1.log.7.sock").write_text("not ours")  # no such server
    (tmp_path / "job.fio").write_text("[load]\n")
    files, problems = read_histogram_logs(tmp_path, BY_SOCKET)
    assert files == FILES
    assert problems == {}


def test_the_section_gives_each_direction_over_the_run_and_per_second() -> None:
    section = _section()
    assert section["unavailable"] is None
    assert section["needs_ios"] == {"99": 368, "99.9": 3688}
    read, write = section["directions"]["read"], section["directions"]["write"]
    assert (read["ios"], read["fio_total_ios"]) == (7001, 8395)
    assert (write["ios"], write["fio_total_ios"]) == (2406, 3599)
    assert [s["second"] for s in read["seconds"]] == [1, 2, 3]
    assert [s["ios"] for s in read["seconds"]] == [2809, 2800, 1392]
    assert all(s["percentiles_ns"]["99.9"] is None for s in read["seconds"])  # < 3,688 a second
    assert read["tails"]["99.9"]["estimable"]
    assert not write["tails"]["99.9"]["estimable"]
    assert write["percentiles_ns"]["99.9"] is None


@pytest.mark.parametrize(
    ("files", "problems", "said"),
    [
        ({k: v for k, v in FILES.items() if k.startswith("lab1")}, {}, "lab2: fio's client"),
        ({**FILES, "lab2/x.log": "1, 0, 4096, 5\n"}, {}, "lab2/x.log: line 1"),
        (FILES, {"lab1": "its log is too large"}, "lab1: its log is too large"),
        (dict.fromkeys(FILES, ""), {}, "hold no second"),
    ],
)
def test_no_merge_leaves_a_host_out(
    files: dict[str, str], problems: dict[str, str], said: str
) -> None:
    section = _section(files, problems)
    assert said in section["unavailable"]
    assert section["directions"] == {}


def _metrics(ios: int) -> DirectionMetrics:
    return DirectionMetrics(
        io_bytes=ios * 4096,
        total_ios=ios,
        runtime_s=3.0,
        bw_bytes_per_s=ios * 4096 / 3,
        iops=ios / 3,
        lat_mean_ns=50_000.0,
        lat_min_ns=None,
        lat_max_ns=None,
        lat_stddev_ns=None,
        clat_mean_ns=None,
    )


def _outcome(latency: Any) -> LoadOutcome:
    total = StepResult(
        ALL_HOSTS, ALL_HOSTS, "mix", 1, False, 0.0, 0.0, None, _metrics(8395), _metrics(3599)
    )
    return LoadOutcome(
        3, RunStatus.COMPLETE, None, "fio-3.33", ("lab1", "lab2"), {}, {}, (total,), latency
    )


def test_all_hosts_p99_in_the_table_is_the_merged_histograms() -> None:
    section = _section()
    outcome = _outcome(section)
    rows = load_rows(outcome)
    p99 = section["directions"]["read"]["percentiles_ns"]["99"]
    assert rows[0][0][:2] == ("all hosts", "read")
    assert rows[0][0][-1] == f"{p99 / 1000:.2f}"
    assert load_document(outcome)["all_hosts_latency"] == section
    assert load_rows(replace(outcome, latency=None))[0][0][-1] == "n/a"


def test_latency_rows_give_each_second_then_the_whole_run() -> None:
    rows = merged_latency_rows(_section()["directions"])
    assert all(len(cells) == len(LATENCY_COLUMNS) for cells, _ in rows)
    firsts = [(cells[0], cells[1], last) for cells, last in rows]
    assert firsts == [
        ("1", "read", False),
        ("1", "write", True),
        ("2", "read", False),
        ("2", "write", True),
        ("3", "read", True),
        ("whole run", "read", False),
        ("whole run", "write", True),
    ]
    assert rows[0][0][-1] == NOT_SUPPORTED  # 2,809 I/Os cannot support p99.9
    assert rows[0][0][4] != NOT_SUPPORTED
    assert rows[-1][0][-1] == "needs ≥ 3,688 I/Os"  # 2,406 writes over the run
    assert rows[-2][0][-1].endswith("ms")
