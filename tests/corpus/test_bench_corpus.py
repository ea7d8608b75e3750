"""Published CrystalDiskMark / KDiskMark / AS SSD texts, Iometer results files and fio outputs
(tests/corpus/bench/, see SOURCES.md) through the real command: `ssdlab import`, every export
format, `show` and both report formats. Nothing may end in a traceback; a file ssdlab cannot
read is refused in one clear line. The imported figures are checked against the file by a
small reader written here, independent of ssdlab's parsers.

Six files go through the real command, a new interpreter for every step: the first refused
text, CrystalDiskMark 8 text, KDiskMark text, fio JSON, AS SSD text and Iometer file. The
others go through ssdlab's entry point in this process (the same code without the interpreter
start-up, as the SMART corpus does), so the ~300 steps take seconds instead of minutes."""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ssdlab.parse.fio_json import parse_fio_json
from tests.abuse.probes import ssdlab_in_process
from tests.conftest import HANG_S
from tests.e2e.conftest import Result, run_ssdlab

BENCH = Path(__file__).parent / "bench"
FILES = sorted(p for p in BENCH.iterdir() if p.is_file())
# files that hold no importable result, and the words of their one-line refusal
REFUSED = {
    "cdm3.0.1_2012_unsupported.txt": "not in a known layout",
    "cdm7_two-column-storage-spaces_no-header.txt": "not in a known layout",
    "fio-plot_fio-3.33_party_fio_1m_run-1_write-64-1.json": "no job that did any I/O",
    "fio-plot_fio-unknown_benchmark_script_RAID5_7k2_SEQ_randread-1-1_shm-error.json": (
        "no result lines"
    ),
    "asssd2.0.7316_readme-two-views-of-one-run.md": "holds 2 AS SSD Benchmark results",
}
CDM_UNIT = 10**6  # CrystalDiskMark: MB/s = 10^6 B/s
Run = Callable[..., Result]
KDM_UNIT = 1024 * 1000  # KDiskMark: fio KiB/s ÷ 1000


def _ok(done: Result, what: str) -> None:
    assert "Traceback" not in done.stderr + done.stdout, f"{what}: {done.stderr}"
    assert done.code == 0, f"{what}: exit {done.code}: {done.stderr}"


def _no_none(text: str, what: str) -> None:
    # an HTML report's chart library (Vega's own code, with a None of its own) is not its text
    shown = re.sub(r"<script>.*?</script>", "", text, flags=re.DOTALL)
    assert not re.search(r"\bNone\b", shown), f"{what} shows None for an unknown:\n{shown}"


@dataclass(frozen=True)
class Printed:
    key: str
    mb_per_s: float
    iops: float | None
    block: int


_LINE = re.compile(
    r"(?P<kind>SEQ|RND|Sequential|Random)\b(?P<mid>[^(:]*)"
    r"\((?:\s*Q\s*=\s*(?P<q>\d+)\s*,)?\s*T\s*=\s*(?P<t>\d+)\s*\)\s*:\s*"
    r"(?P<mb>[\d.]+)\s*MB/s(?:\s*\[\s*(?P<iops>[\d.]+)\s*IOPS\s*\])?",
    re.IGNORECASE,
)


def _size_key(block: int) -> str:
    return f"{block // 2**20}m" if block % 2**20 == 0 else f"{block // 1024}k"


def read_benchmark_text(text: str) -> tuple[int, list[Printed]]:
    """(bytes per printed MB, printed results), read the simplest way that fits the corpus."""
    head = "\n".join(text.splitlines()[:3]).lower()
    unit = KDM_UNIT if "kdiskmark" in head and "ssdlab" not in head else CDM_UNIT
    direction = ""
    found = []
    for line in text.splitlines():
        block_head = re.search(r"\[(Read|Write|Mix)\]", line)
        if block_head:
            direction = block_head[1].lower()
            continue
        m = _LINE.search(line)
        if not m:
            continue
        mid = m["mid"]
        words = re.search(r"\b(Read|Write)\b", mid)
        line_dir = words[1].lower() if words else direction
        size = re.search(r"(\d+)\s*([KM])iB", mid)
        random = m["kind"].lower() in ("rnd", "random")
        if size:
            block = int(size[1]) * (2**20 if size[2] == "M" else 1024)
        else:  # v5/v6 sequential: 128 KiB at Q32 ("Seq Q32T1"), 1 MiB at Q1 (v5 "(T= 1)")
            block = 128 * 1024 if m["q"] else 2**20
        q = int(m["q"]) if m["q"] else 1
        key = f"{'rnd' if random else 'seq'}{_size_key(block)}-q{q}t{int(m['t'])}-{line_dir}"
        iops = float(m["iops"]) if m["iops"] else None
        found.append(Printed(key, float(m["mb"]), iops, block))
    return unit, found


def _fio_document(text: str) -> dict[str, object]:
    """The JSON object of a fio output, by json alone: from the first line whose first non-blank
    character is '{' and that decodes to an object."""
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("{"):
            try:
                document, _ = json.JSONDecoder().raw_decode(text[offset + line.index("{") :])
            except ValueError:
                document = None
            if isinstance(document, dict):
                return document
        offset += len(line)
    raise AssertionError("no JSON object in the fio output")


def _real_command(*args: str) -> Result:
    return run_ssdlab(*args, timeout=HANG_S)


def _in_process(*args: str) -> Result:
    return Result(*ssdlab_in_process(*args))


def _family(path: Path) -> str:
    found = re.match(r"cdm\d|kdiskmark|fio-plot|fio|asssd|iometer", path.name)
    assert found is not None, f"{path.name}: name it after its tool, as SOURCES.md says"
    return found.group()


# what the command line adds to the code (argv, exit codes, output streams) is the same for
# every file: one file of each kind of outcome and input goes through it
REAL_COMMAND = {
    min(p for p in FILES if _family(p) == f)
    for f in ("cdm3", "cdm8", "kdiskmark", "fio-plot", "asssd", "iometer")
}


def test_the_real_command_reads_a_refused_file_and_each_kind_of_input() -> None:
    assert len(REAL_COMMAND) == 6
    assert len([p for p in REAL_COMMAND if p.name in REFUSED]) == 1
    assert {_family(p) for p in REAL_COMMAND if p.name not in REFUSED} == {
        "cdm8",
        "kdiskmark",
        "fio-plot",
        "asssd",
        "iometer",
    }


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file_through_every_command(path: Path, tmp_path: Path) -> None:
    run = _real_command if path in REAL_COMMAND else _in_process
    db = str(tmp_path / "store.db")
    done = run("import", str(path), "--db", db)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    if path.name in REFUSED:
        assert done.code == 1, done.stdout
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, done.stderr
        assert REFUSED[path.name] in lines[0], done.stderr
        assert lines[0].count(str(path)) == 1, lines[0]  # the file is named once
        return
    _ok(done, "import")
    exports = {}
    for fmt in ("json", "csv", "md", "cdm"):
        done = run("export", "last", "--format", fmt, "--db", db)
        _ok(done, f"export {fmt}")
        if fmt != "json":
            _no_none(done.stdout, f"export {fmt}")
        exports[fmt] = done.stdout
    done = run("show", "last", "--db", db)
    _ok(done, "show")
    _no_none(done.stdout, "show")
    for name in ("x.html", "x.md"):
        out = tmp_path / name
        done = run("report", "last", "-o", str(out), "--db", db)
        _ok(done, f"report {name}")
        _no_none(out.read_text(encoding="utf-8"), f"report {name}")

    tests = {t["key"]: t for t in json.loads(exports["json"])["tests"]}
    text = path.read_text(encoding="utf-8-sig")
    if '"fio version"' in text:
        _check_fio(text, tests)
    elif _family(path) == "asssd":
        _check_asssd(text, tests)
    elif _family(path) == "iometer":
        _check_iometer(text, json.loads(exports["json"]))
    else:
        _check_text(text, tests, exports["cdm"], tmp_path, run)


def _check_text(
    text: str, tests: dict[str, dict[str, object]], cdm: str, tmp: Path, run: Run
) -> None:
    unit, printed = read_benchmark_text(text)
    assert printed, "the corpus reader found no results"
    assert sorted(tests) == sorted(p.key for p in printed)
    for p in printed:
        got = tests[p.key]
        assert got["best_bw_bytes_per_s"] == pytest.approx(p.mb_per_s * unit, rel=1e-9), p
        if p.iops is not None:
            assert got["best_iops"] == pytest.approx(p.iops, rel=1e-9), p
            # MB/s and IOPS printed to 3 and 1 decimals; KDiskMark's fio KiB/s is an integer
            slack = 0.0005 * unit + 0.05 * p.block + (1024 if unit == KDM_UNIT else 0)
            assert abs(p.mb_per_s * unit - p.iops * p.block) <= slack + 2e-3 * p.iops * p.block
    # the CDM export of the import keeps the printed figures (in MB/s = 10^6 B/s)
    _, again = read_benchmark_text(cdm)
    assert sorted(p.key for p in again) == sorted(tests)
    for p in again:
        assert p.mb_per_s * CDM_UNIT == pytest.approx(
            float(str(tests[p.key]["best_bw_bytes_per_s"])), abs=500
        )
    # ... and imports again with the same figures
    exported = tmp / "again.txt"
    exported.write_text(cdm, encoding="utf-8")
    db = str(tmp / "again.db")
    _ok(run("import", str(exported), "--db", db), "re-import of the cdm export")
    done = run("export", "last", "--format", "json", "--db", db)
    _ok(done, "export of the re-import")
    for t in json.loads(done.stdout)["tests"]:
        original = float(str(tests[t["key"]]["best_bw_bytes_per_s"]))
        assert t["best_bw_bytes_per_s"] == pytest.approx(original, abs=500)


def _sides(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [job[d] for d in ("read", "write", "mixed") if isinstance(job.get(d), dict)]


def _groups(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The jobs each stored step sums: fio's jobs by name; as a client, each 'All clients'
    entry on its own and each server's jobs by (server, name)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    if "jobs" in document:
        for job in document["jobs"]:
            groups.setdefault(job["jobname"], []).append(job)
        return groups
    for index, job in enumerate(document["client_stats"]):
        if job["jobname"] == "All clients":
            groups[f"all clients {index}"] = [job]
        else:
            server = f"{job['hostname']}:{job.get('port')}"
            groups.setdefault(f"{server} {job['jobname']}", []).append(job)
    return groups


def _check_fio(text: str, tests: dict[str, dict[str, object]]) -> None:
    document = _fio_document(text)
    bw: dict[str, float] = {}
    iops: dict[str, float] = {}
    for name, jobs in _groups(document).items():
        sides = [side for job in jobs for side in _sides(job)]
        if not sides or all(side["runtime"] == 0 for side in sides):
            continue  # no I/O, or none in a measured time: not a result
        # fio before 3.2 gives bw in KiB/s only
        bw[name] = sum(side.get("bw_bytes", side["bw"] * 1024) for side in sides)
        iops[name] = sum(side["iops"] for side in sides)
    expected_bw = sorted(v for v in bw.values() if v > 0)
    assert sorted(float(str(t["best_bw_bytes_per_s"])) for t in tests.values()) == (
        pytest.approx(expected_bw, rel=1e-9)
    )
    expected_iops = sorted(iops[n] for n, v in bw.items() if v > 0)
    assert sorted(float(str(t["best_iops"])) for t in tests.values()) == pytest.approx(
        expected_iops, rel=1e-9
    )
    if "jobs" not in document:
        return
    # runtime (ms in the file) is kept per job in seconds; io_bytes in bytes, which fio
    # before 2.21 printed in KiB (it added io_kbytes when it changed the unit)
    parsed = parse_fio_json(text)
    jobs = document["jobs"]
    assert isinstance(jobs, list)
    for job, mine in zip(parsed.jobs, jobs, strict=True):
        for d, side in (("read", job.read), ("write", job.write), ("mixed", job.mixed)):
            if side is not None and mine[d]["io_bytes"]:
                raw = mine[d]
                assert side.runtime_s == pytest.approx(raw["runtime"] / 1000)
                unit = 1 if "io_kbytes" in raw else 1024
                assert side.io_bytes == raw["io_bytes"] * unit


_ASSSD_BLOCK = {"16MB": 16 * 2**20, "4K": 4096, "4K-64Threads": 4096, "512B": 512}
_ASSSD_KEYS = {
    "Sequential": "seq",
    "16MB": "seq",
    "4K": "4k",
    "4K-64Threads": "4k-64thrd",
    "Access Times": "acc-time",
    "512B": "acc-time",
}


def _check_asssd(text: str, tests: dict[str, dict[str, object]]) -> None:
    """AS SSD's figures as printed: MB/s × 2^20, iops × the view's block, ms × 10^6 ns; a
    test printed 0.00 did not run."""
    expected: dict[str, tuple[str, float]] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        name = line.rstrip(":")
        if name in _ASSSD_KEYS:
            section = name
            continue
        m = re.match(r"^(Read|Write): ([\d.]+) (MB/s|iops|ms)$", line)
        if m is None or section is None or float(m[2]) == 0:
            continue
        key = f"asssd-{_ASSSD_KEYS[section]}-{m[1].lower()}"
        expected[key] = (m[3], float(m[2]))
    assert sorted(tests) == sorted(expected)
    for key, (unit, value) in expected.items():
        got = tests[key]
        if unit == "MB/s":
            assert got["best_bw_bytes_per_s"] == pytest.approx(value * 2**20, rel=1e-12)
        elif unit == "ms":
            assert got["best_lat_mean_ns"] == pytest.approx(value * 1e6, rel=1e-12)
        else:
            block = 16 * 2**20 if "-seq-" in key else 512 if "acc-time" in key else 4096
            assert got["best_iops"] == pytest.approx(value, rel=1e-12)
            assert got["best_bw_bytes_per_s"] == pytest.approx(value * block, rel=1e-12)


@dataclass(frozen=True)
class IometerTest:
    """One ALL row of an Iometer file, with the access specification in force for it."""

    cells: dict[str, str]
    spec: list[list[int]]  # size, % of size, % reads, % random, delay, burst, align, reply


def read_iometer(text: str) -> list[IometerTest]:
    """Every ALL row, the simplest way: a `'` line starts a section; the header is the line
    naming 'Target Type' (led by 'TimeStamp,' in the instantaneous file); each `'Access
    specifications` section replaces the specifications before it."""
    tests: list[IometerTest] = []
    specs: dict[str, list[list[int]]] = {}
    section = header = name = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if "'Target Type" in cells[:2]:
            header = [c.lstrip("'") for c in cells]
            continue
        if line.startswith("'"):
            section = line.strip().lower()
            if section == "'access specifications":
                specs = {}
            continue
        if section == "'access specification name,default assignment":
            name = cells[0]
            specs[name] = []
        elif section is not None and section.startswith("'size,") and name is not None:
            specs[name].append([int(c) for c in cells[:8]])
        elif header is not None and "ALL" in cells[:2]:
            row = dict(zip(header, cells, strict=False))
            tests.append(IometerTest(row, specs[row["Access Specification Name"]]))
    return tests


def _check_iometer(text: str, exported: dict[str, Any]) -> None:
    """Iometer's figures as written: IOps; MBps (Decimal) × 10^6, the same rate as MBps
    (Binary) × 2^20; Average Response Time in ms; transfer size, share of reads and random
    and alignment from the test's access specification. Tests are stored in file order."""
    expected = read_iometer(text)
    tests = exported["tests"]
    details = exported["run"]["settings"]["tool_details"]
    assert len(tests) == len(expected) == len(details["tests"])
    assert len(details["access_specifications"]) == len(expected)
    for got, want, spec in zip(tests, expected, details["access_specifications"], strict=True):
        row = want.cells
        decimal = float(row["MBps (Decimal)"]) * 10**6
        binary = float(row.get("MiBps (Binary)") or row["MBps (Binary)"]) * 2**20
        assert abs(decimal - binary) <= 1.0 + 1e-6 * decimal  # both printed to 6 decimals
        assert got["best_bw_bytes_per_s"] == pytest.approx(decimal, rel=1e-12)
        assert got["best_iops"] == pytest.approx(float(row["IOps"]), rel=1e-12)
        assert got["best_lat_mean_ns"] == pytest.approx(
            float(row["Average Response Time"]) * 10**6, rel=1e-12
        )
        assert spec["name"] == row["Access Specification Name"]
        assert [
            [x["size_bytes"], x["of_size_pct"], x["reads_pct"], x["random_pct"], x["align_bytes"]]
            for x in spec["lines"]
        ] == [[v[0], v[1], v[2], v[3], v[6]] for v in want.spec]
        ((size, share, reads, random, _delay, _burst, _align, _reply),) = want.spec
        direction = "read" if reads == 100 else "write" if reads == 0 else "mix"
        assert got["direction"] == direction
        workers, depth = int(row["# Workers"]), int(row["Queue Depth"])
        plain = share == 100 and random in (0, 100) and direction != "mix"
        plain = plain and row["# Managers"] == "1" and row["# Disks"] == row["# Workers"]
        if plain:  # keyed like ssdlab's quick tests; a repeated test gets -2, -3, ...
            block = f"{size}b" if size % 1024 else f"{size // 1024}k"
            base = f"{'rnd' if random == 100 else 'seq'}{block}-q{depth}t{workers}-{direction}"
            assert re.fullmatch(rf"{base}(-\d+)?", got["key"]), (got["key"], base)
        else:
            assert got["key"].startswith("iometer-"), got["key"]


def test_corpus_size() -> None:
    """What the corpus promises: 20+ CrystalDiskMark/KDiskMark texts, 6+ AS SSD Benchmark
    texts, 7+ Iometer files (a results file and instantaneous results files), 20+ fio outputs
    (fio 2.1 to 3.43, client/server among them)."""
    fio = [p for p in FILES if _family(p).startswith("fio")]
    asssd = [p for p in FILES if _family(p) == "asssd"]
    iometer = [p for p in FILES if _family(p) == "iometer"]
    texts = [p for p in FILES if p not in fio and p not in asssd and p not in iometer]
    assert len(texts) >= 20
    assert len(asssd) >= 6
    assert len(iometer) >= 7
    assert len(asssd) + len(iometer) >= 13
    assert len(fio) >= 20
    clients = [p for p in fio if '"client_stats"' in p.read_text(encoding="utf-8")]
    assert len(clients) >= 3
