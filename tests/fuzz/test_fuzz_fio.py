"""Fuzzing fio's JSON, fio's interval logs and users' fio job files: mutated real captures from
tests/data/fio and generated inputs. Only a result or a clean ParseError is allowed."""

import dataclasses
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.parse.fio_hist_log import is_hist_log
from ssdlab.parse.fio_json import parse_fio_job_options, parse_fio_json, parse_fio_version
from ssdlab.parse.fio_log import parse_interval_logs
from ssdlab.plan.user_job import parse_fio_jobfile
from tests.fuzz.harness import (
    DATA,
    FUZZ,
    GENERATED,
    HALF,
    HOSTILE_TEXT,
    JSON_VALUES,
    Samples,
    files,
    mutated_json,
    mutated_text,
    outcome,
    texts,
)

FIO = DATA / "fio"
FIO_JSON = texts(files(FIO, "**/*.json"))
# users' own job files (ssdlab endure --job-file): the captured jobs and the golden plans
JOB_FILES = texts(files(FIO, "**/*.fio") + files(DATA.parent / "golden" / "plan", "*.fio"))
LOG_DIRS = [d for d in sorted(FIO.iterdir()) if d.is_dir() and any(d.glob("*.log"))]
# the interval logs of each capture, as runner/profile.py hands them to parse_interval_logs (a
# histogram log beside them is read by parse/fio_hist_log.py)
LOG_SETS = [
    {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(d.glob("*.log"))
        if not is_hist_log(p.name)
    }
    for d in LOG_DIRS
]


def assert_no_nan(value: Any, where: str = "result") -> None:
    """Unknown is None, never NaN: no parsed number may be NaN or infinite."""
    if isinstance(value, float):
        assert math.isfinite(value), f"{where} is {value}"
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            assert_no_nan(getattr(value, item.name), f"{where}.{item.name}")
    elif isinstance(value, tuple | list):
        for index, item in enumerate(value):
            assert_no_nan(item, f"{where}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            assert_no_nan(item, f"{where}[{key!r}]")


def test_captures_parse_unmutated() -> None:
    """The seeds themselves parse (fio's error-exit capture may be refused cleanly)."""
    parsed = [outcome(parse_fio_json, text) for text in FIO_JSON]
    assert sum(result is not None for result in parsed) >= len(FIO_JSON) - 1
    assert all(outcome(parse_interval_logs, logs, None) for logs in LOG_SETS)
    assert len(LOG_SETS) >= 2


@FUZZ
@given(mutated_json(FIO_JSON))
def test_fio_json_mutated(text: str) -> None:
    result = outcome(parse_fio_json, text)
    if result is not None:
        assert result.jobs
        assert_no_nan(result)
    outcome(parse_fio_job_options, text)


@HALF
@given(mutated_text(FIO_JSON))
def test_fio_json_text_mutated(text: str) -> None:
    result = outcome(parse_fio_json, text)
    if result is not None:
        assert_no_nan(result)
    outcome(parse_fio_job_options, text)


@GENERATED
@given(JSON_VALUES, st.text(max_size=40))
def test_fio_json_generated(value: Any, noise: str) -> None:
    import json

    document = json.dumps({"fio version": "fio-3.33", "jobs": value})
    for text in (document, noise + "\n" + document, json.dumps(value), noise):
        result = outcome(parse_fio_json, text)
        if result is not None:
            assert_no_nan(result)
        outcome(parse_fio_job_options, text)


@GENERATED
@given(st.text(max_size=60))
def test_fio_version_generated(text: str) -> None:
    version = parse_fio_version(text)
    assert version is None or all(part >= 0 for part in version)


@st.composite
def mutated_logs(draw: st.DrawFn) -> tuple[dict[str, str], int | None]:
    logs = dict(draw(st.sampled_from(LOG_SETS)))
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(logs)))
        action = draw(st.sampled_from(("text", "text", "rename", "drop", "copy")))
        if action == "text":
            logs[name] = draw(mutated_text(Samples({name: logs[name]})))
        elif action == "rename":
            logs[draw(mutated_text(Samples({"name": name})))] = logs.pop(name)
        elif action == "drop" and len(logs) > 1:
            del logs[name]
        else:
            logs[name.replace(".1.", ".7.")] = logs[name]
    interval = draw(st.sampled_from([None, 1, 100, 1000, 2**31]))
    return logs, interval


@FUZZ
@given(mutated_logs())
def test_fio_logs_mutated(case: tuple[dict[str, str], int | None]) -> None:
    logs, interval = case
    points = outcome(parse_interval_logs, logs, interval)
    if points is not None:
        assert_no_nan(points)
        assert all(p.elapsed_s >= 0 for p in points)


LOG_LINE = st.tuples(
    st.integers(-5, 2**40),
    st.one_of(st.integers(-5, 2**70), st.floats(allow_nan=True), HOSTILE_TEXT),
    st.integers(-1, 4),
    st.integers(-1, 2**20),
).map(lambda r: ", ".join(str(x) for x in r) + "\n")


@GENERATED
@given(
    st.dictionaries(
        st.sampled_from(["j_bw.1.log", "j_iops.1.log", "j_lat.1.log", "j_bw.log", "j_clat.2.log"]),
        st.lists(LOG_LINE, max_size=8).map("".join),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([None, 1, 1000]),
)
def test_fio_logs_generated(logs: dict[str, str], interval: int | None) -> None:
    points = outcome(parse_interval_logs, logs, interval)
    if points is not None:
        assert_no_nan(points)


@HALF
@given(mutated_text(JOB_FILES))
def test_user_job_file_mutated(text: str) -> None:
    job = outcome(parse_fio_jobfile, text)
    if job is not None:
        assert job.sections
        options = [*job.global_options, *(o for _n, opts in job.sections for o in opts)]
        assert not {name for name, _value in options} & {"exec_prerun", "exec_postrun"}
