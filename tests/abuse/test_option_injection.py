"""Attempts to inject fio options or commands through option values: every quick option and
every option of every profile, the --ioengine name, an endurance job file. The outcome is a
clear usage error, or a plan in which fio's own parser finds no option ssdlab did not write;
a canary file proves that nothing ran."""

import functools
import json
from pathlib import Path

import pytest

from ssdlab.cli import main as cli_main
from ssdlab.model.profile import OptionKind
from ssdlab.registry import run_profiles
from tests.abuse.probes import RUNS_CODE, fio_parsed_options, ssdlab_in, ssdlab_in_process
from tests.conftest import needs_fio

pytestmark = needs_fio

CANARY = "CANARY"
HOSTILE_VALUES = [
    f"4\nexec_prerun=touch {CANARY}",
    f"4;exec_prerun=touch {CANARY}",
    f"4 --exec_prerun=touch {CANARY}",
    "9" * 400,
]
QUICK_FLAGS = ["--size", "--count", "--measure", "--interval", "--mode", "--mix", "--data"]
QUICK_FLAGS += ["--ioengine", "--preset"]


def _plan(*argv: str) -> tuple[int, str, str]:
    return ssdlab_in_process("plan", *argv)


def _assert_no_injection(plan_json: str, folder: Path) -> None:
    """The jobs of an accepted plan, as fio parses them, run no program (the first one, and
    the first two that hold the hostile value)."""
    jobs = [job["text"] for job in json.loads(plan_json).get("jobs", []) if "text" in job]
    hostile = [t for t in jobs if CANARY in t or "9" * 40 in t]
    chosen = set(jobs[:1] + hostile[:2])
    for text in sorted(chosen):
        names = {name for name, _value in fio_parsed_options(text, folder)}
        assert not names & RUNS_CODE, text


def _cases() -> list[tuple[str, str, str]]:
    cases = [("quick", flag, value) for flag in QUICK_FLAGS for value in HOSTILE_VALUES]
    for name, record in run_profiles().items():
        for option in record.spec.options:
            if option.kind is not OptionKind.FLAG:
                cases += [(name, option.flag, value) for value in HOSTILE_VALUES]
    return cases


def test_every_option_value_is_refused_or_harmless(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One test over all (profile, option, value) triples: each is a usage error naming the
    option, or (text options a plan ignores) a plan whose jobs fio reads without a program."""
    monkeypatch.chdir(tmp_path)
    # one parser for the five hundred calls (building it is most of a call's cost)
    monkeypatch.setattr(cli_main, "build_parser", functools.cache(cli_main.build_parser))
    target = tmp_path / "target"
    target.mkdir()
    refused = accepted = 0
    for profile, flag, value in _cases():
        code, out, err = _plan(profile, str(target), "--json", flag, value)
        where = f"{profile} {flag} {value[:40]!r}"
        assert "Traceback" not in err, where
        if code == 0:
            accepted += 1
            _assert_no_injection(out, tmp_path / "fio")
        else:
            refused += 1
            assert code == 2, f"{where}: exit {code}: {err}"
            assert err.strip(), where
    assert not list(tmp_path.rglob(CANARY))
    assert refused > 300, (refused, accepted)  # the sweep really ran
    assert accepted < 20, (refused, accepted)


@pytest.mark.parametrize(
    "engine",
    ["external:/tmp/evil.so", "libaio\nexec_prerun=touch CANARY", "libaio;x", "../x", "-h", ""],
)
def test_ioengine_names_are_names(tmp_path: Path, engine: str) -> None:
    code, _out, err = _plan("quick", str(tmp_path), "--ioengine", engine)
    assert code == 2
    assert "ioengine" in err


@pytest.mark.parametrize("mount", ["-a", "--all", "--fstab", "-v"])
def test_fstrim_gets_no_options_through_its_mount_point(tmp_path: Path, mount: str) -> None:
    """`fstrim --verbose MOUNT` with MOUNT = '-a' would trim every mounted file system."""
    code, _out, err = _plan("trim", str(tmp_path), f"--fstrim={mount}")
    assert code == 2
    assert "not a mount point" in err


JOB_TEXTS = {
    "exec engine": f"[w]\nrw=write\nioengine=exec\nprogram=touch\narguments={CANARY}\n",
    "prerun": f"[w]\nrw=write\nexec_prerun=touch {CANARY}\n",
    "postrun in global": f"[global]\nexec_postrun=touch {CANARY}\n[w]\nrw=write\n",
    "vertical tab": f"[w]\nrw=write\nbs=4k\x0bexec_prerun=touch {CANARY}\n",
    "line separator": f"[w]\nrw=write\nbs=4k\u2028exec_prerun=touch {CANARY}\n",
    "include": "include /etc/passwd\n[w]\nrw=write\n",
    "variable": "[w]\nrw=write\nbs=${BS}\n",
    "filename": "[w]\nrw=write\nfilename=/dev/sda\n",
}


@pytest.mark.parametrize("case", sorted(JOB_TEXTS))
def test_endurance_job_files_that_would_run_a_program_are_refused(
    tmp_path: Path, case: str
) -> None:
    code, _out, err = _plan(
        "endurance", str(tmp_path), "--workload", "job", "--job-text", JOB_TEXTS[case]
    )
    assert code == 2
    assert "the job file" in err
    assert "Traceback" not in err


def test_job_file_comments_stay_comments(tmp_path: Path) -> None:
    """fio reads ' ;' as the start of a comment: accepted, and fio handles no exec_prerun."""
    code, out, err = _plan(
        "endurance",
        str(tmp_path),
        "--workload",
        "job",
        "--json",
        "--job-text",
        f"[w]\nrw=write\nbs=4k ;exec_prerun=touch {CANARY}\n",
    )
    assert code == 0, err
    _assert_no_injection(out, tmp_path / "fio")


def test_endurance_with_an_exec_engine_job_file_runs_nothing(tmp_path: Path) -> None:
    """The real command with a job file that, before this was refused, ran `touch CANARY`."""
    job = tmp_path / "evil.fio"
    job.write_text(JOB_TEXTS["exec engine"])
    (tmp_path / "target").mkdir()
    argv = ["endure", str(tmp_path / "target"), "--size", "8MiB", "--workload", "job"]
    argv += ["--job-file", str(job), "--iteration-time", "1", "--for-time", "1"]
    done = ssdlab_in(tmp_path, *argv, "--db", str(tmp_path / "db"))
    assert done.returncode == 2, done.stderr
    assert "ioengine is not accepted here" in done.stderr
    assert not list(tmp_path.rglob(CANARY))
