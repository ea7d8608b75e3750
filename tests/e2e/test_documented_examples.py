"""Every documented `ssdlab …` example runs (tests/e2e/documented_examples.py finds them: code
blocks and command lines of README.md and docs/*.md, and the examples of every --help text).

Each example is first parsed by ssdlab's own parser exactly as documented (the words after a
fleet's `--` by the command they go to), then run through the real command, in this process,
in a workspace laid out for the examples:

- the current directory holds the files the examples name, each a real fixture under the
  documented name (CDM-result.txt is a CrystalDiskMark 8 text, job.json fio's output with its
  logs beside it, lab.ini the inventory README.md shows, …);
- the default store ($XDG_DATA_HOME) is a copy of the store an earlier ssdlab wrote
  (tests/data/store/main-98b38bc.sqlite: quick, profile, import, sim, health and endurance
  runs), and a run an example names is one of its runs of the kind the example needs;
- a device path is a loop device the test makes (as root; without root those examples skip);
  for health, wear and watch, which read SMART that a loop device has not, it is a saved
  smartctl report of a real drive; absolute directories and files are folders and files of the
  workspace, and a `> FILE` redirection writes there.

Long runs are made short or not run, and each case says which:

- a measuring run (`quick`, `run PROFILE`, `endure`) goes through `ssdlab plan` with the same
  target and options (run-only options such as `--plots` are parsed, not planned): at their
  own settings they take minutes to days, and even at the smallest scale the quick suite takes
  about 20 s on two busy cores;
- `sim` runs with `--write` and `--interval` made small when the example does not set them;
- commands that need other hosts (`fleet` but `fleet compare`) or a run stopped on a device
  (`resume`, `endure --resume`) are parsed only: tests/fleet, test_quick_resume.py and the
  PTS resume tests run those.

An example fails when the parser rejects it or when it exits non-zero (`compare --fail-if`
may exit 4, as documented).
"""

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ssdlab.cli import fleet_options
from tests.abuse.probes import ssdlab_in_process
from tests.e2e.conftest import ROOT, LoopLab, _can_loop, run_ssdlab
from tests.e2e.documented_examples import Example, every_example
from tests.ocp_pages import c3_json, compose_c3_counts, compose_c3_page

EXAMPLES = every_example()
DATA = ROOT / "tests" / "data"
STORE = DATA / "store" / "main-98b38bc.sqlite"
SMART_JSON = DATA / "smart" / "ata-crucial-mx500-devstat-wrap.json"  # sample 103 of STORE
NVME_JSON = DATA / "devices" / "smartctl-x-j-nvme0n1.json"
OCP = DATA / "nvme-ocp"
PER_IO = DATA / "fio" / "logs" / "per-io"
CDM8 = ROOT / "tests" / "corpus" / "bench" / "cdm8.0.0-uwp_2020-12-13_ct240bx200.txt"
CORPUS = ROOT / "tests" / "corpus" / "bench"

DEVICE = re.compile(r"^/dev/(sd[a-zX]|nvme\d+(n\d+)?|loop\d+|disk/.+)$")
MOUNTED = re.compile(r"^/mnt/[^/]+")
# a device path given to these is read as the drive's SMART report instead
HEALTH_COMMANDS = frozenset({"health", "wear"})
# sparse: big enough for every size the examples name (plan refuses a test larger than its target)
DEVICE_BYTES = 512 * 2**30
FILE_SYSTEM_BYTES = 256 * 2**30
MEASURING = {"quick": ("quick",), "run": (), "endure": ("endurance",)}
# options of a measuring command that are not part of its plan: parsed, not planned
RUN_ONLY = {
    "--plots": 1,
    "--baseline": 1,
    "--keep": 0,
    "--json": 0,
    "--start-at": 1,
    "--destroy-data": 1,  # a plan writes nothing
    "--latency-monitor": 0,  # reads the drive around the passes; the plan is the same
    "--latency-monitor-enable": 0,  # documented with its thresholds after "="
}
PARSED_ONLY = {
    "fleet": "needs the fleet's hosts (tests/fleet runs every fleet command on network "
    "namespaces with their own sshd)",
    "resume": "needs a run stopped on that device (test_quick_resume.py and the PTS resume "
    "tests resume runs)",
    "node": "",  # run, except what starts or follows a job (below)
}
# exit codes the documentation gives an example besides 0
DOCUMENTED_EXITS = {"--fail-if": {4}, "--fail-on-regression": {4}, "conformance": {4}}
# a run an example names, as a run of the kind it needs in STORE (1, 2: quick; 3: a quick run
# that was stopped; 9: an import; 11: a simulated drive, stored as a cache run with its cliff;
# 7: a cache run; 12: health; 14: endurance)
RUN_OF = {
    "card": {"last": "1", "12": "1", "3": "1"},
    "export": {"last": "1", "3": "1", "12": "12", "14": "14"},
    "report": {"last": "1", "3": "1", "7": "2"},
    "compare": {"3": "1", "7": "2", "9": "9"},
    "status": {"last": "14", "12": "14"},
    "run": {"12": "11"},  # cachefit --from-run: a run with a cache cliff (the sim)
    "show": {},
    # a cache run kept without its log (7) and the endurance run (14): what each lacks
    "model": {"12": "7", "13": "14", "14": "14", "15": "14"},
    "wear": {"12": "103"},  # a stored health sample of the drive SMART_JSON read
}


@dataclass
class Workspace:
    folder: Path
    device: str | None  # a loop device over a sparse image
    mounted: Path | None  # an ext4 file system on another one

    def path(self, word: str, command: str) -> str:
        """A documented path as this workspace has it."""
        if DEVICE.match(word):
            if command in HEALTH_COMMANDS:
                return str(self.folder / "device-report.json")
            if self.device is None:
                pytest.skip(f"needs a loop device for {word}: {_can_loop()}")
            return self.device
        mount = MOUNTED.match(word)
        if mount:
            if self.mounted is None:
                pytest.skip(f"needs a file system as large as {word} is meant to be: {_can_loop()}")
            return str(self.mounted / word[mount.end() :].lstrip("/"))
        if word.startswith("/") and not word.startswith(str(self.folder)):
            mapped = self.folder / "root" / word.lstrip("/")
            if word.endswith("/") or "." not in Path(word).name:
                mapped.mkdir(parents=True, exist_ok=True)
            else:
                mapped.parent.mkdir(parents=True, exist_ok=True)
            return str(mapped)
        if word.endswith("/") and not word.startswith("-"):
            (self.folder / word).mkdir(parents=True, exist_ok=True)
        return word


def _inventory() -> str:
    """The inventory README.md shows (its ini block starting '# lab.ini')."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("# lab.ini\n")
    return text[start : text.index("```", start)]


def _lay_out(folder: Path) -> None:
    copies = {
        "CDM-result.txt": CDM8,
        "CDM8-result.txt": CDM8,
        "cdm.txt": CDM8,
        "KDM_20260101120000.txt": CORPUS / "kdiskmark3.2.0_fio-3.39_target.txt",
        "AS-SSD-result.txt": CORPUS / "asssd2.0.7316_samsung-970-evo-plus-250gb.txt",
        "by-hand.json": DATA / "fio" / "randread-4k-json.json",
        "job_lat.1.log.fz": PER_IO / "fz_lat.1.log.fz",
        "saved-report.txt": DATA / "smart-text" / "samsung-970evo-nvme-a.txt",
        "saved-smartctl-x.json": NVME_JSON,
        "device-report.json": SMART_JSON,
        "smart.log": DATA / "smart-text" / "cron-mx500-date-A.log",
        "before.json": SMART_JSON,
        "after.json": SMART_JSON,
        "after.txt": DATA / "smart-text" / "mx500-A.txt",
        "my-drive.toml": ROOT / "src" / "ssdlab" / "specs" / "crucial-p2-250gb.toml",
        "my-targets.toml": ROOT / "src" / "ssdlab" / "profiles" / "qos_targets.toml",
        "shared.fio": DATA / "fio" / "randread-4k-json.fio",
        "job.fio": DATA / "fio" / "randread-4k-json.fio",
        # conformance's saved outputs: an OCP C0h as nvme-cli 2.16 prints it and as the raw
        # page's hex dump, a real drive's Identify Controller, smartctl of an NVMe drive
        "smart-add-log.json": OCP / "qemu-ocp-c0-nvme-cli-2.16.json",
        "c0-page.txt": OCP / "qemu-ocp-c0-composed.hexdump.txt",
        "id-ctrl.txt": DATA / "conformance" / "samsung-pm1733-id-ctrl-H.txt",
        "smartctl-x.json": NVME_JSON,
    }
    for name, source in copies.items():
        shutil.copyfile(source, folder / name)
    (folder / "c3-page.bin").write_bytes(compose_c3_page())  # no real C3h page was found
    # a C3h pair around the job's run, as nvme-cli prints it: two reads the drive counted >= A
    (folder / "c3-before.json").write_text(json.dumps(c3_json(compose_c3_counts())))
    after = compose_c3_counts({(0, "read"): 2}, timer=13)
    (folder / "c3-after.json").write_text(json.dumps(c3_json(after)))
    for log in ("job.json", *(p.name for p in PER_IO.glob("job_*.log"))):
        shutil.copyfile(PER_IO / log, folder / log)
        shutil.copyfile(PER_IO / log, folder / log.replace("job", "randread", 1))
    (folder / "randread.json").write_text(_renamed_job(), encoding="utf-8")
    (folder / "lab.ini").write_text(_inventory(), encoding="utf-8")
    (folder / "results.csv").write_text(_iometer_results(), encoding="utf-8")
    (folder / "writes.log").write_text(_grepped_attribute_lines(), encoding="utf-8")
    (folder / "trace.blk").write_text(_blkparse_trace(), encoding="utf-8")
    # the default store, and the one `--db /srv/ssdlab.db` names
    for store in (folder / "data" / "ssdlab" / "ssdlab.db", folder / "root" / "srv" / "ssdlab.db"):
        store.parent.mkdir(parents=True)
        shutil.copyfile(STORE, store)
        _add_model(store)


def _add_model(store: Path) -> None:
    """A fitted model in the store (`model fit 7 14`: what a cache run kept without its log
    and a replayed endurance run give), for `model predict last` and `model verify last`
    whatever examples ran before them."""
    from ssdlab.app.model_fit import FitRequest, fit_runs
    from ssdlab.app.run_store import open_run_store

    conn = open_run_store(store)
    try:
        fit_runs(conn, FitRequest(("7", "14")))
    finally:
        conn.close()


def _renamed_job() -> str:
    """job.json as fio writes it for the same job named randread (README.md's lat.fio names
    its job and logs so): the job's name and its log prefix."""
    document = json.loads((PER_IO / "job.json").read_text(encoding="utf-8"))
    for job in document["jobs"]:
        job["jobname"] = "randread"
        job["job options"].update(name="randread", write_lat_log="randread")
    return json.dumps(document, indent=2)


def _iometer_results() -> str:
    from tests.unit.parse.test_iometer_csv import results_file

    return results_file()


def _grepped_attribute_lines() -> str:
    """`smartctl -A | grep 241 >> writes.log` from cron: no times (the example gives
    --interval)."""
    row = "241 Total_LBAs_Written      0x0032   099   099   000    Old_age   Always       -  {}"
    return "".join(row.format(1000 + 2**21 * n) + "\n" for n in range(6))


def _blkparse_trace() -> str:
    """blkparse text: writes of 8 sectors at the start of the drive."""
    line = "  8,0    1  {n:>5}  {t:.9f}  4242  Q  WS {sector} + 8 [fio]\n"
    return "".join(line.format(n=n + 1, t=n / 1000, sector=n * 8) for n in range(64))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    folder = tmp_path_factory.mktemp("examples")
    _lay_out(folder)
    lab = LoopLab(folder)
    device, mounted = None, None
    try:
        if _can_loop() is None:
            device = lab.loop(DEVICE_BYTES).path
            mounted = lab.mount_new_ext4(lab.loop(FILE_SYSTEM_BYTES).path)
        yield Workspace(folder, device, mounted)
    finally:
        lab.undo()


def _documented_parse(words: tuple[str, ...]) -> tuple[int, str]:
    """What ssdlab's parser makes of the words as documented: (exit code, stderr)."""
    from ssdlab.cli.main import build_parser

    main_words, profile = fleet_options.split_profile_args(list(words))
    checks = [main_words]
    if profile is not None and main_words[:2] == ["fleet", "run"]:
        command = main_words[3]
        checks.append([command, *profile] if command in ("quick", "endure") else
                      ["run", command, *profile])  # fmt: skip
    for argv in checks:
        try:
            build_parser().parse_args(argv)
        except SystemExit as stop:
            return int(stop.code or 0), f"{' '.join(argv)}: rejected"
    return 0, ""


def _without_run_only(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip = 0
    for word in words:
        if skip:
            skip -= 1
            continue
        name = word.split("=", 1)[0]
        if name in RUN_ONLY:
            skip = 0 if "=" in word else RUN_ONLY[name]
            continue
        kept.append(word)
    return kept


def _planned(words: list[str]) -> list[str] | None:
    """The `ssdlab plan` command of a measuring example, or None when it is not one."""
    command = words[0]
    if command not in MEASURING or "--print-systemd-unit" in words:
        return None
    return ["plan", *MEASURING[command], *_without_run_only(words[1:])]


def _small_scale(words: list[str]) -> list[str]:
    """A long-running command made short by options the example does not set: a simulation
    writes 256 MiB, a watch takes one sample."""
    given = {w.split("=", 1)[0] for w in words}
    if words[0] == "sim" and words[1:2] != ["presets"] and "--write" not in given:
        return [*words, "--write", "256MiB"]
    if words[0] == "watch" and not given & {"--count", "--print-systemd-unit"}:
        return [*words, "--count", "1"]
    return words


def _mapped(example: Example, space: Workspace) -> list[str]:
    """The example's words with paths and runs as the workspace has them."""
    command = example.words[0]
    runs = RUN_OF.get(command, {})
    words = [space.path(w, command) for w in example.words]
    for i in range(1, len(words)):
        if not words[i - 1].startswith("-") or words[i - 1] == "--from-run":
            words[i] = runs.get(words[i], words[i])
    return words


def _parsed_only(example: Example) -> str | None:
    words = example.words
    if words[0] == "fleet" and words[1] != "compare":
        return PARSED_ONLY["fleet"]
    if words[0] == "resume" or "--resume" in words:
        return PARSED_ONLY["resume"]
    if words[:2] in (("node", "start"), ("node", "follow")):
        return "starts or follows a detached job (test_node_cli.py runs them)"
    if words[0] == "conformance" and "--run" in words:
        return "needs stored `run qos` runs of the drive (test_conformance_loop.py runs one)"
    if words[0] == "sim" and "4TB" in words:
        return "simulates 4 TB of writes on a 256 GiB drive, minutes of work (test_sim_cli.py)"
    return None


# what a command printed, by the words it ran with: an example documented twice runs once
RESULTS: dict[tuple[str, ...], tuple[int, str, str]] = {}


def _run(argv: list[str]) -> tuple[int, str, str]:
    if tuple(argv) not in RESULTS:
        if "-" in argv:  # output on stdout as bytes: through the real command
            done = run_ssdlab(*argv)
            RESULTS[tuple(argv)] = (done.code, done.stdout, done.stderr)
        else:
            RESULTS[tuple(argv)] = ssdlab_in_process(*argv)
    return RESULTS[tuple(argv)]


# examples ssdlab does not run yet, each with why (none today)
KNOWN_BROKEN: dict[str, str] = {}


def _case(example: Example) -> object:
    broken = KNOWN_BROKEN.get(example.text)
    marks = [] if broken is None else [pytest.mark.xfail(reason=broken, strict=True)]
    return pytest.param(example, id=f"{example.where} {example.text}", marks=marks)


@pytest.mark.parametrize("example", [_case(e) for e in EXAMPLES])
def test_documented_example_runs(
    example: Example, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, why = _documented_parse(example.words)
    assert code == 0, f"{example.where}: argparse rejects `{example.text}` ({why})"
    if _parsed_only(example) is not None:
        return
    monkeypatch.chdir(workspace.folder)
    monkeypatch.setenv("XDG_DATA_HOME", str(workspace.folder / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(workspace.folder / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(workspace.folder / "cache"))
    monkeypatch.setenv("COLUMNS", "100")
    words = _small_scale(_mapped(example, workspace))
    planned = _planned(words)
    code, out, err = _run(planned or words)
    allowed = {0}.union(*(DOCUMENTED_EXITS.get(w, set()) for w in example.words))
    assert code in allowed, (
        f"{example.where}: `{example.text}` exited {code}"
        f"{' (as ' + ' '.join(planned) + ')' if planned else ''}:\n{err}"
    )
    if example.stdout_to is not None:
        target = Path(workspace.path(example.stdout_to, example.words[0]))
        (workspace.folder / target).write_text(out, encoding="utf-8")
    assert "Traceback" not in err


def test_the_examples_are_found_where_they_are_written() -> None:
    where = {e.where.split(":")[0] for e in EXAMPLES}
    assert {"README.md", "docs/health.md", "`ssdlab --help`", "`ssdlab quick --help`"} <= where
    texts = {e.text for e in EXAMPLES}
    assert "ssdlab quick /dev/sdb --mode read" in texts  # a code block
    assert "ssdlab report 3 7 -o report.html" in texts  # a command line in a sentence
    assert not any("RUN" in e.words or "TARGET" in e.words for e in EXAMPLES)  # synopses


def test_compare_says_what_draws_its_charts(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compare has no --plots: its chart lines name the option that draws them."""
    monkeypatch.setenv("XDG_DATA_HOME", str(workspace.folder / "data"))
    code, out, err = ssdlab_in_process("compare", "1", "2")
    assert code == 0, err
    assert "compare -o FILE.html draws it" in out
    assert "--plots" not in out
