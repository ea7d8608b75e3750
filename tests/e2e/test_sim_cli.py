"""`ssdlab sim` end to end: small simulated drives stored, shown, reported and compared with a
real `cache` run; a sweep with plots; presets; impossible configurations refused before
anything runs (no store is even created)."""

import json
import shlex
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import run_ssdlab

SMALL = ["--capacity", "8MiB", "--pages-per-block", "16"]


def test_sim_stores_a_run_that_show_report_and_export_read(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    plots = tmp_path / "plots"
    done = run_ssdlab(
        "sim", *SMALL, "--spare", "7%", "--workload", "uniform", "--write", "48MiB",
        "--pe-cycles", "3000", "--daily-write", "8MiB", "--json", "--db", db,
        "--plots", str(plots),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["format"] == "ssdlab-sim-run"
    assert doc["run"]["kind"] == "sim"
    result = doc["result"]
    assert result["waf"] > 1.5
    assert result["steady_waf"] >= result["waf"]
    assert result["lifetime_days"] > 0
    assert result["projected_tbw_bytes"] > 0
    assert doc["settings"]["spare_logical_pct"] > 6
    assert doc["settings"]["spare_physical_pct"] > 5
    assert (plots / "sim-throughput.svg").read_text().startswith("<?xml")
    assert (plots / "sim-waf.png").stat().st_size > 0

    shown = run_ssdlab("show", "last", "--db", db)
    assert shown.code == 0, shown.stderr
    assert "simulated drive" in shown.stdout
    assert "% of logical (OP" in shown.stdout
    assert "lifetime at" in shown.stdout
    exported = run_ssdlab("export", "last", "--format", "json", "--db", db)
    assert json.loads(exported.stdout)["result"]["waf"] == pytest.approx(result["waf"])
    report = tmp_path / "r.md"
    written = run_ssdlab("report", "last", "-o", str(report), "--db", db)
    assert written.code == 0, written.stderr
    assert "Write amplification" in report.read_text()


def test_sweep_over_spare_with_plots(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    plots = tmp_path / "plots"
    done = run_ssdlab(
        "sim", "sweep", "--spare", "7,28", *SMALL, "--write", "48MiB", "--json",
        "--db", db, "--plots", str(plots),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["format"] == "ssdlab-sim-sweep"
    assert doc["parameter"] == "spare"
    low, high = doc["points"]
    assert low["steady_waf"] > high["steady_waf"]
    assert high["lifetime_days"] > low["lifetime_days"]
    assert (plots / "sim-sweep-lifetime.svg").read_text().startswith("<?xml")
    text = run_ssdlab("show", "last", "--db", db).stdout
    assert "WAF and projected lifetime against spare" in text


def test_presets_list_their_sources() -> None:
    done = run_ssdlab("sim", "presets", "--json")
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert "approximation" in doc["note"]
    names = {p["name"] for p in doc["presets"]}
    assert "intel-x25m-80gb" in names
    assert all(p["source"] for p in doc["presets"])


@needs_fio
def test_a_real_cache_run_beside_its_simulated_twin(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    real = run_ssdlab(
        "run", "cache", str(tmp_path), "--size", "32MiB", "--log-interval", "0.05",
        "--db", db, "--json",
    )  # fmt: skip
    assert real.code == 0, real.stderr
    sim = run_ssdlab("sim", *SMALL, "--workload", "seq", "--write", "32MiB", "--db", db)
    assert sim.code == 0, sim.stderr
    compared = run_ssdlab("compare", "1", "2", "--json", "--db", db)
    assert compared.code == 0, compared.stderr
    doc = json.loads(compared.stdout)
    assert [r["id"] for r in doc["runs"]] == [1, 2]
    assert any(c["metric"] == "write" for c in doc["comparisons"][0]["changes"])
    report = tmp_path / "both.html"
    assert run_ssdlab("report", "1", "2", "-o", str(report), "--db", db).code == 0
    html = report.read_text()
    assert "simulated drive" in html
    assert "sustained" in html


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--spare", "0"], "spare must be more than 0"),
        (["--spare=-5%"], "spare must be more than 0"),
        (["--spare", "7", "--spare-of", "physical", "--pages-per-block", "0"], "pages per block"),
        (["--slc-static", "1GiB"], "larger than the drive"),
        (["--preset", "no-such-drive"], "unknown preset"),
        (["--workload", "zipf"], "unknown workload"),
        (["--pe-cycles", "0"], "--pe-cycles must be positive"),
        (["--page-size", "1"], "page size must be a power of two from 512 B to 64 KiB"),
        (["--page-size", "3KiB"], "page size must be a power of two"),
        (["--page-size", "1MiB"], "page size must be a power of two"),
        (["--pages-per-block", "2"], "pages per block must be 4 to 16,384"),
        (["--capacity", "1000000"], "not a whole number of 4096 B pages; use 999424 B"),
        (["--capacity", "16TiB", "--page-size", "512"], "more than the simulator can number"),
    ],
)
def test_impossible_configurations_are_refused_before_anything_runs(
    tmp_path: Path, args: list[str], reason: str
) -> None:
    db = tmp_path / "db"
    done = run_ssdlab("sim", *SMALL, *args, "--db", str(db))
    assert done.code == 2, done.stderr
    assert reason in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("error:") == 1
    assert not db.exists()


@pytest.mark.parametrize("core", ["python", "auto"])
def test_a_drive_too_large_for_the_memory_limit_is_refused_with_the_estimate(
    tmp_path: Path, core: str
) -> None:
    db = tmp_path / "db"
    # the limit from the environment, so the refusal does not depend on this machine's memory
    done = run_ssdlab(
        "sim", "--capacity", "4TiB", "--core", core, "--db", str(db),
        env={"SSDLAB_SIM_MEMORY_LIMIT": "4GiB"},
    )  # fmt: skip
    assert done.code == 2, done.stderr
    (line,) = [ln for ln in done.stderr.splitlines() if "error:" in ln]
    assert "simulating a 4 TiB drive with 4 KiB pages needs about" in line
    assert "more than the limit of 4.0 GiB (SSDLAB_SIM_MEMORY_LIMIT=4GiB)" in line
    assert "Traceback" not in done.stderr
    assert not db.exists()
    # by default the limit is a share of MemAvailable; a tiny drive always fits
    ok = run_ssdlab("sim", *SMALL, "--write", "16MiB", "--db", str(db), "--core", core)
    assert ok.code == 0, ok.stderr


STORE_BOUND_BYTES = 6 * 10**6  # MAX_STORED_INTERVALS (1000) × ~4.3 kB, plus the run itself


def test_a_fine_interval_is_coarsened_so_the_store_stays_bounded(tmp_path: Path) -> None:
    db = tmp_path / "db"
    # 5 × 64 MiB in 4 KiB intervals would store 81,920 intervals (353 MB)
    done = run_ssdlab(
        "sim", "--capacity", "64MiB", "--pages-per-block", "64", "--interval", "1",
        "--json", "--db", str(db),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert "would store 81,920 intervals; coarsened to 335.9 kB" in done.stderr
    doc = json.loads(done.stdout)
    settings = doc["settings"]
    assert settings["interval_bytes"] == 335872
    assert settings["interval_requested_bytes"] == 4096
    assert "coarsened" in settings["interval_note"]
    size = sum(f.stat().st_size for f in tmp_path.iterdir() if f.name.startswith("db"))
    assert size < STORE_BOUND_BYTES
    with sqlite3.connect(db) as conn:
        samples = conn.execute("SELECT COUNT(*) FROM health_samples").fetchone()[0]
    assert samples <= 1001  # the fresh drive and one per interval
    # a sweep shares the bound among its points
    swept = run_ssdlab(
        "sim", "sweep", "--spare", "7,12,20,28", "--capacity", "8MiB", "--pages-per-block", "16",
        "--interval", "4KiB", "--json", "--db", str(tmp_path / "sweep"),
    )  # fmt: skip
    assert swept.code == 0, swept.stderr
    assert "per simulated drive (4 drives)" in swept.stderr
    with sqlite3.connect(tmp_path / "sweep") as conn:
        assert conn.execute("SELECT COUNT(*) FROM health_samples").fetchone()[0] <= 1004


def test_trace_addresses_beyond_capacity_are_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.blk"
    # blkparse: a write at sector 0, then one at 100 MB: beyond an 8 MiB drive
    trace.write_text(
        "8,16 1 1 0.000000001 1 D W 0 + 8 [x]\n8,16 1 2 0.000000002 1 D W 200000 + 8 [x]\n"
    )
    db = tmp_path / "db"
    done = run_ssdlab("sim", *SMALL, "--trace", str(trace), "--db", str(db))
    assert done.code == 2
    assert "beyond the drive's logical capacity" in done.stderr
    assert not db.exists()
    swept = run_ssdlab("sim", "sweep", "--spare", "7,0", *SMALL, "--db", str(db))
    assert swept.code == 2
    assert "spare must be more than 0" in swept.stderr
    assert not db.exists()


def _quoted_command(text: str, before: str) -> list[str]:
    """The command a message gives after `before`, as the words a shell makes of it."""
    hint = text.split(before, 1)[1].split(";", 1)[0].strip()
    return shlex.split(hint[1:-1])  # inside the quotes that set it off


def test_the_preset_hint_simulates_into_the_store_it_was_given(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    listed = run_ssdlab("sim", "--db", str(db), "presets")
    assert listed.code == 0, listed.stderr
    words = _quoted_command(listed.stdout, "use one with ")
    assert words == ["ssdlab", "sim", "--preset", "NAME", "--db", str(db)]
    words[words.index("NAME")] = "samsung-970-evo-500gb"
    done = run_ssdlab(*words[1:], "--capacity", "256MiB", "--write", "64MiB")
    assert done.code == 0, done.stderr
    assert f"stored as run 1 in {db}" in done.stdout


def test_a_list_of_spare_values_names_the_sweep_to_run(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    refused = run_ssdlab("sim", "--spare", "7,28", *SMALL, "--db", str(db))
    assert refused.code == 2
    assert not db.exists()
    words = _quoted_command(refused.stderr, "is a sweep: ")
    assert words == ["ssdlab", "sim", "sweep", "--spare", "7,28", "--db", str(db)]
    done = run_ssdlab(*words[1:], *SMALL, "--write", "48MiB", "--json")
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "ssdlab-sim-sweep"
