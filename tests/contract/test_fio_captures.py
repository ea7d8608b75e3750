"""Every real fio capture under tests/data/fio parses: adding a capture adds a test."""

from pathlib import Path

import pytest

from ssdlab.parse.fio_hist_log import is_hist_log
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.parse.fio_log import parse_interval_logs
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "fio"
JSON_CAPTURES = sorted(DATA.rglob("*.json"))
# per-I/O logs (log_avg_msec=0) are not interval logs: tests/unit/parse/test_fio_lat_log.py
PER_IO = DATA / "logs" / "per-io"
LOG_DIRS = sorted({path.parent for path in DATA.rglob("*.log")} - {PER_IO})


def test_captures_exist() -> None:
    assert JSON_CAPTURES
    assert LOG_DIRS


@pytest.mark.parametrize("path", JSON_CAPTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_json_capture_parses(path: Path) -> None:
    result = parse_fio_json(path.read_text(encoding="utf-8"))
    assert result.jobs
    assert all(job.read is not None or job.write is not None for job in result.jobs)


@pytest.mark.parametrize("directory", LOG_DIRS, ids=lambda p: str(p.relative_to(DATA)))
def test_log_capture_parses(directory: Path) -> None:
    # a histogram log beside the interval logs is read by parse/fio_hist_log.py
    logs = {
        path.name: path.read_text(encoding="utf-8")
        for path in directory.glob("*.log")
        if not is_hist_log(path.name)
    }
    points = parse_interval_logs(logs)
    assert points
    assert list(points) == sorted(points, key=lambda p: (p.elapsed_s, p.direction))
