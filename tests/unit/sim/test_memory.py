"""The memory a simulation needs, estimated from the geometry before anything is allocated, and
the MemAvailable reader the CLI's default limit comes from."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.sim import SimConfig, parse_workload
from ssdlab.sim.memory import MemoryLimit, check_memory, estimate_memory
from ssdlab.system.meminfo import mem_available_bytes
from tests.unit.sim.conftest import needs_rust

GiB = 2**30
TiB = 2**40
UNIFORM = parse_workload("uniform")


def test_the_estimate_follows_the_mapping_tables() -> None:
    four = SimConfig.from_spare(4 * TiB, 0.07, "logical")
    # 2^30 logical pages and 1.07 × 2^30 physical ones at 4 bytes each, plus the blocks
    rust = estimate_memory(four, UNIFORM, "rust", 100)
    assert 8.4 * GiB < rust < 8.6 * GiB
    # the Python core: a reference and an int object per mapping entry, ~10× the Rust core
    assert 9 < estimate_memory(four, UNIFORM, "python", 100) / rust < 10
    # TRIM tracks the live LBAs; a steady start shuffles them; both cost more
    small = SimConfig.from_spare(GiB, 0.07, "logical", initial_state="steady")
    plain = estimate_memory(SimConfig.from_spare(GiB, 0.07, "logical"), UNIFORM, "rust", 100)
    trim = estimate_memory(small, parse_workload("uniform,trim=5%"), "rust", 100)
    assert trim > 2 * plain
    # larger pages: fewer entries
    big_pages = SimConfig.from_spare(4 * TiB, 0.07, "logical", page_bytes=16384)
    assert estimate_memory(big_pages, UNIFORM, "rust", 100) < rust / 3.9


def test_over_the_limit_is_one_line_with_the_estimate_and_the_limit() -> None:
    config = SimConfig.from_spare(4 * TiB, 0.07, "logical")
    limit = MemoryLimit(4 * GiB, "80 % of MemAvailable")
    with pytest.raises(UsageError) as refused:
        check_memory(config, UNIFORM, "rust", 100, limit)
    message = str(refused.value)
    assert "\n" not in message
    assert "needs about 8.5 GiB of memory (rust core)" in message
    assert "limit of 4.0 GiB (80 % of MemAvailable)" in message
    assert check_memory(config, UNIFORM, "rust", 100, MemoryLimit(16 * GiB, "x")) < 16 * GiB


MEASURE = """
import json, sys
from ssdlab.sim import SimConfig, parse_workload, simulate
from ssdlab.sim.memory import estimate_memory
def status(name):
    with open("/proc/self/status") as lines:
        return next(int(l.split()[1]) * 1024 for l in lines if l.startswith(name + ":"))
capacity, core, workload, initial = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
config = SimConfig.from_spare(capacity, 0.07, "logical", initial_state=initial)
w = parse_workload(workload)
before = status("VmRSS")
simulate(config, w, host_bytes=2 * capacity, interval_bytes=capacity // 50, core=core)
print(json.dumps([estimate_memory(config, w, core, 100), status("VmHWM") - before]))
"""


@pytest.mark.parametrize(
    ("capacity", "core", "workload", "initial"),
    [
        pytest.param(16 * GiB, "rust", "uniform", "empty", marks=needs_rust),
        pytest.param(4 * GiB, "rust", "uniform,trim=5%", "steady", marks=needs_rust),
        (256 * 2**20, "python", "uniform", "full"),
    ],
)
def test_the_estimate_covers_the_measured_peak(
    capacity: int, core: str, workload: str, initial: str
) -> None:
    # the peak resident memory a real run adds to a fresh interpreter (Linux /proc)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(capacity), core, workload, initial],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    estimate, measured = json.loads(done.stdout)
    assert 0.95 * measured <= estimate <= 1.5 * measured


def test_mem_available_is_read_in_bytes(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32768 kB\nMemFree:  1 kB\nMemAvailable:   24070556 kB\n")
    assert mem_available_bytes(meminfo) == 24070556 * 1024
    meminfo.write_text("MemTotal:       32768 kB\n")  # kernels before 3.14
    assert mem_available_bytes(meminfo) is None
    meminfo.write_text("MemAvailable: lots\n")
    assert mem_available_bytes(meminfo) is None
    assert mem_available_bytes(tmp_path / "missing") is None
