"""The tidy CSV tables of report/csv_tables.py, from hand-made model objects."""

import csv
import dataclasses
import io

import pytest

from ssdlab.analysis.steady_state import detect_steady_state
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.step import StepResult
from ssdlab.report.csv_tables import (
    COMPARE_COLUMNS,
    HEALTH_COLUMNS,
    SERIES_COLUMNS,
    STEP_COLUMNS,
    WINDOW_COLUMNS,
    StepShape,
    compare_csv,
    health_csv,
    series_csv,
    steps_csv,
    windows_csv,
    write_table,
)


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def header_of(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text, newline="")))


WRITE = DirectionMetrics(
    io_bytes=8_388_608,
    total_ios=2048,
    runtime_s=0.5,
    bw_bytes_per_s=16_777_216.0,
    iops=4096.0,
    lat_mean_ns=None,
    lat_min_ns=None,
    lat_max_ns=None,
    lat_stddev_ns=None,
    clat_mean_ns=None,
)


def step(key: str = "randwrite-q4t2", **changes: object) -> StepResult:
    made = StepResult(
        step_key=key,
        step_label='writes, "4k", T2 Q4',
        direction="write",
        round_index=1,
        discarded=False,
        bw_bytes_per_s=16_777_216.0,
        iops=4096.0,
        lat_mean_ns=None,
        read=None,
        write=WRITE,
        series=(
            SeriesPoint(0.5, "write", 100e6, 24414.0, 1500.5),
            SeriesPoint(1.0, "write", 50e6, None, None),
            SeriesPoint(1.5, "write", None, None, None),
            SeriesPoint(2.0, "write", 10e6, None, None),
        ),
    )
    return dataclasses.replace(made, **changes)  # type: ignore[arg-type]


def test_every_table_has_a_header_and_units_in_its_names() -> None:
    for columns in (STEP_COLUMNS, SERIES_COLUMNS, HEALTH_COLUMNS, WINDOW_COLUMNS):
        assert len(set(columns)) == len(columns)
    assert {"queue_depth", "threads", "bw_bytes_per_s", "iops", "lat_mean_ns"} <= set(STEP_COLUMNS)
    assert {"elapsed_s", "written_bytes", "bw_bytes_per_s"} <= set(SERIES_COLUMNS)
    assert {"host_written_bytes", "nand_written_bytes", "waf", "taken_at_s"} <= set(HEALTH_COLUMNS)
    assert header_of(steps_csv(3, [])) == list(STEP_COLUMNS)
    assert header_of(windows_csv(3, {})) == list(WINDOW_COLUMNS)


def test_steps_one_row_per_step_unknown_empty_and_quoted() -> None:
    shapes = {"randwrite-q4t2": StepShape(queue_depth=4, threads=2, block_size_bytes=None)}
    text = steps_csv(7, [step(), step("other")], shapes)
    assert text.endswith("\r\n")
    assert '"writes, ""4k"", T2 Q4"' in text  # RFC 4180 quoting of commas and quotes
    rows = rows_of(text)
    assert len(rows) == 2
    first = rows[0]
    assert first["run_id"] == "7"
    assert first["step_label"] == 'writes, "4k", T2 Q4'
    assert (first["queue_depth"], first["threads"], first["block_size_bytes"]) == ("4", "2", "")
    assert first["bw_bytes_per_s"] == "16777216"  # a whole number without ".0"
    assert first["lat_mean_ns"] == ""  # unknown: empty, never 0
    assert first["read_bw_bytes_per_s"] == ""
    assert first["write_io_bytes"] == "8388608"
    assert first["discarded"] == "0"
    assert first["runtime_s"] == "0.5"
    assert rows[1]["queue_depth"] == ""  # no shape for this step


def test_series_one_row_per_point_with_the_bytes_written_so_far() -> None:
    rows = rows_of(series_csv(2, [step()]))
    assert [r["elapsed_s"] for r in rows] == ["0.5", "1", "1.5", "2"]
    assert rows[0]["written_bytes"] == "50000000"  # 100 MB/s for 0.5 s
    assert rows[1]["written_bytes"] == "75000000"
    assert rows[1]["iops"] == ""
    assert rows[1]["lat_mean_ns"] == ""
    # a point without bandwidth makes the running total unknown from there on
    assert rows[2]["written_bytes"] == ""
    assert rows[3]["written_bytes"] == ""


def test_a_read_log_has_no_written_bytes() -> None:
    read = step(series=(SeriesPoint(1.0, "read", 5e6, 10.0, 100.0),), direction="read")
    assert rows_of(series_csv(2, [read]))[0]["written_bytes"] == ""


def sample(at: float | None, host: float | None, nand: float | None) -> HealthSample:
    return HealthSample(
        taken_at_s=at,
        identity=DriveIdentity("NVMe", "Drive, X", "S1", "F1", 500_107_862_016),
        host_written_bytes=HealthValue(host),
        nand_written_bytes=HealthValue(nand),
        temperature_c=HealthValue(41.0),
    )


def test_health_one_row_per_sample_with_waf_since_the_one_before() -> None:
    samples = [
        ("before", sample(100.0, 1e9, 2e9)),
        ("during", sample(200.0, 2e9, 4.5e9)),
        ("during", sample(None, 3e9, None)),
        ("after", sample(400.0, 4e9, 8e9)),
    ]
    rows = rows_of(health_csv(5, samples))
    assert [r["phase"] for r in rows] == ["before", "during", "during", "after"]
    assert rows[0]["model"] == "Drive, X"
    assert rows[0]["temperature_c"] == "41"
    assert rows[0]["waf"] == ""  # nothing before the first sample
    assert float(rows[1]["waf"]) == pytest.approx(2.5)
    assert rows[2]["waf"] == ""
    assert rows[2]["taken_at_s"] == ""
    assert rows[3]["waf"] == ""  # the sample before is unknown
    assert rows[0]["power_on_hours"] == ""


def test_windows_one_row_per_window_and_variable() -> None:
    verdict = detect_steady_state(
        {"iops": [100.0, 101.0, 99.0, 100.0, 100.5], "lat_mean_ns": [9.0, 9.1, 9.0, 8.9, 9.0]}
    )
    findings = {
        "pts-steady-state-4k": {"loop": "4k", **dataclasses.asdict(verdict)},
        "target-facts": {"size": 1},
    }
    rows = rows_of(windows_csv(9, findings))
    assert [r["variable"] for r in rows] == ["iops", "lat_mean_ns"]
    assert rows[0]["loop"] == "4k"
    assert rows[0]["steady"] == "1"
    assert (rows[0]["first_round"], rows[0]["last_round"]) == ("1", "5")
    assert float(rows[0]["average"]) == pytest.approx(100.1)


def test_compare_one_row_per_run_and_metric() -> None:
    data = {
        "baseline_run": 1,
        "comparisons": [
            {
                "run": 2,
                "threshold_pct": 5.0,
                "alpha": 0.05,
                "changes": [
                    {
                        "metric": "rnd4k-q1t1-read",
                        "label": "RND4K Q1T1 read",
                        "higher_is_better": True,
                        "basis": "mean",
                        "baseline": {"mean": 10.0, "unit": "iops", "values": [9.0, 11.0]},
                        "other": None,
                        "ratio": None,
                        "change_pct": None,
                        "p_value": None,
                        "verdict": "missing",
                    }
                ],
            }
        ],
    }
    text = compare_csv(data)
    assert header_of(text) == list(COMPARE_COLUMNS)
    (row,) = rows_of(text)
    assert (row["baseline_run_id"], row["run_id"], row["unit"]) == ("1", "2", "iops")
    assert (row["baseline_mean"], row["baseline_passes"]) == ("10", "2")
    assert row["mean"] == ""
    assert row["ratio"] == ""
    assert row["higher_is_better"] == "1"


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="2 cells under 1 columns"):
        write_table(("a",), [(1, 2)])
