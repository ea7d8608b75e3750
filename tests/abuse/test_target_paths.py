"""Target paths with spaces, quotes, line breaks, '=', leading dashes and fio job syntax: a
clear refusal before anything is created, or a job file in which fio reads the whole path as
the file name and nothing else. Non-execution is proven with a canary file that an injected
``exec_prerun`` would create (and test_canary_detects_an_injection shows that it would)."""

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.abuse.probes import (
    assert_fio_reads_only_what_ssdlab_wrote,
    fio_binary,
    ssdlab_in,
    ssdlab_in_process,
)
from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import FAST, run_ssdlab

pytestmark = needs_fio

CANARY = "CANARY"
INJECT = f"exec_prerun=touch {CANARY}"

# fio would read these differently from the path: refused, naming the reason
INJECTIONS = [
    f"x\n{INJECT}",  # a new option line
    f"x\r{INJECT}",
    f"x\n[evil]\n{INJECT}",  # a new job section
]
REFUSED = [
    "x\tx",
    "x\x1b[2Jx",  # a terminal escape
    "x\x7fx",
    "colon:x",  # fio's file separator: a second file
    "dollar$HOME",  # fio's variable expansion
    "${HOME}",
    "semi;colon",  # comments
    "hash#x",
    'double"quote',  # quotes fio strips
    "single'quote",
    "back\\slash",
    "trailing space ",  # of the directory named: refused, though the test file is inside it
]

# harmless to fio's parser, and therefore accepted: fio reads them as part of the file name
ACCEPTED = [
    "two  spaces",
    " leading space",  # inside the path: fio strips white space only around the whole value
    "eq=uals",
    "-leading-dash",
    "x --name=evil --exec_prerun=touch",
    "[global]",
    "[x] exec_prerun=touch y",
    "brace{x}",
    "per%cent",
    "com,ma",
    "star*?",
    "ünïcödé",
    "line\u2028separator",  # not a line break for fio (it splits on \n only)
    "nel\x85x",
]


def test_canary_detects_an_injection(tmp_path: Path) -> None:
    """The control: a job file that pasted an injected path naively makes fio run the
    command, and the canary appears. The tests below check the canary is absent."""
    job = tmp_path / "naive.fio"
    job.write_text(
        f"[global]\nfilename={tmp_path}/x\n{INJECT}\nioengine=null\nsize=1m\n[j]\nrw=read\n"
    )
    done = subprocess.run(
        [fio_binary(), "--output=/dev/null", str(job)], cwd=tmp_path, check=False, timeout=HANG_S
    )
    assert done.returncode == 0
    assert (tmp_path / CANARY).exists()


def _quick(tmp_path: Path, target: Path, *extra: str) -> tuple[int, str, str]:
    """The real ssdlab quick, run in tmp_path (where a relative `touch CANARY` would land)."""
    done = ssdlab_in(tmp_path, "quick", str(target), *FAST, "--db", str(tmp_path / "db"), *extra)
    return done.returncode, done.stdout, done.stderr


def _assert_refused(tmp_path: Path, folder: Path, code: int, err: str) -> None:
    assert code == 1, err
    assert "fio would read" in err or "white space" in err
    assert "Traceback" not in err
    assert list(folder.iterdir()) == []  # no test file was created
    assert not list(tmp_path.rglob(CANARY))


@pytest.mark.parametrize("name", INJECTIONS)
def test_injected_fio_options_are_refused_and_never_run(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    code, _out, err = _quick(tmp_path, folder)
    _assert_refused(tmp_path, folder, code, err)


@pytest.mark.parametrize("name", REFUSED)
def test_paths_fio_would_misread_are_refused_before_anything_runs(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / name
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    code, _out, err = ssdlab_in_process("quick", str(folder), *FAST, "--db", str(tmp_path / "db"))
    _assert_refused(tmp_path, folder, code, err)


def test_refusal_names_the_characters(tmp_path: Path) -> None:
    folder = tmp_path / f"x\n{INJECT}"
    folder.mkdir()
    result = run_ssdlab("plan", "quick", str(folder))
    assert result.code == 1
    assert "'\\n'" in result.stderr
    assert "choose a path without" in result.stderr


@pytest.mark.parametrize("name", ACCEPTED)
def test_accepted_paths_reach_fio_as_one_file_name(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    code, out, err = ssdlab_in_process("plan", "quick", str(folder), "--size", "8MiB", "--json")
    assert code == 0, err
    doc = json.loads(out)
    target = doc["target"]
    assert target.startswith(str(folder) + "/")
    # the prepare job (it writes) and the first measured pass, as fio's own parser reads them
    for job in doc["jobs"][:2]:
        assert_fio_reads_only_what_ssdlab_wrote(job["text"], tmp_path / "fio", target)
    assert list(folder.iterdir()) == []  # plan creates nothing


def test_a_real_run_on_the_most_hostile_accepted_path(tmp_path: Path) -> None:
    """fio runs on the exact path, nothing else runs, the test file is removed."""
    folder = tmp_path / "x --name=evil [global] exec_prerun=touch CANARY ü=1,2"
    folder.mkdir()
    code, out, err = _quick(tmp_path, folder, "--mode", "read", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["run"]["status"] == "complete"
    assert list(folder.iterdir()) == []
    assert not list(tmp_path.rglob(CANARY))
    with sqlite3.connect(tmp_path / "db") as conn:
        captures = conn.execute("SELECT argv_json, input_text FROM captures").fetchall()
    fio_runs = [(json.loads(argv), text) for argv, text in captures if text]
    assert len(fio_runs) >= 2  # the fill job and the measured passes, stored as fio read them
    for argv, text in fio_runs:
        assert Path(argv[0]).name == "fio"
        assert not {"sh", "bash", "-c"} & set(argv)
        target = next(line[9:] for line in text.split("\n") if line.startswith("filename="))
        assert target.startswith(f"{folder}/ssdlab-")
        assert_fio_reads_only_what_ssdlab_wrote(text, tmp_path / "fio", target)


def test_leading_dash_paths(tmp_path: Path) -> None:
    """A relative path starting with '-' is an option to argparse (a usage error, never a
    target); after '--', or written ./-x, it is a target like any other."""
    (tmp_path / "-x").mkdir()
    as_option = ssdlab_in(tmp_path, "plan", "quick", "-x")
    assert as_option.returncode == 2
    assert "Traceback" not in as_option.stderr
    for argv in (["--", "-x"], ["./-x"]):
        done = ssdlab_in(tmp_path, "plan", "quick", "--json", *argv)
        assert done.returncode == 0, done.stderr
        target = json.loads(done.stdout)["target"]
        assert os.path.dirname(target) == str(tmp_path / "-x")
