"""Probes for the abuse tests: what fio itself makes of a job text, and ssdlab run for real in
a directory (where a relative `touch CANARY` from a successful injection would land) or
through its own entry point in this process."""

import contextlib
import io
import os
import re
import subprocess
from pathlib import Path

from ssdlab.cli.main import main
from tests.conftest import HANG_S
from tests.e2e.conftest import ssdlab_argv, ssdlab_env

_HANDLED = re.compile(r"^parse\s+\d+\s+handle_option=([^,]+), ptr=(.*)$", re.MULTILINE)
# options that make fio run a program or load code; none may ever come from ssdlab's inputs
RUNS_CODE = frozenset({"exec_prerun", "exec_postrun", "program", "arguments"})


def fio_binary() -> str:
    return os.environ.get("SSDLAB_FIO", "fio")


def fio_parsed_options(job_text: str, folder: Path) -> list[tuple[str, str]]:
    """Every (option, value) fio's own parser handled for the job text (``fio --debug=parse
    --parse-only``), in order; global options appear again for each job that inherits them.
    Fails the test when fio refuses the text."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "check.fio"
    path.write_text(job_text, encoding="utf-8")
    done = subprocess.run(
        [fio_binary(), "--debug=parse", "--parse-only", str(path)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        check=False,
        cwd=folder,
    )
    assert done.returncode == 0, f"fio --parse-only refused the job:\n{done.stderr}\n{job_text}"
    return _HANDLED.findall(done.stdout + done.stderr)


def rendered_options(job_text: str) -> set[str]:
    """The option names ssdlab wrote, one per line (comments and section headers skipped)."""
    names = set()
    for line in job_text.split("\n"):  # fio splits on \n only (not on U+2028, U+0085, ...)
        if line and not line.startswith((";", "#", "[")):
            names.add(line.partition("=")[0])
    return names


def assert_fio_reads_only_what_ssdlab_wrote(job_text: str, folder: Path, target: str) -> None:
    """fio handles exactly the options ssdlab rendered, and filename= is the whole target path."""
    handled = fio_parsed_options(job_text, folder)
    names = {name for name, _value in handled}
    assert names == rendered_options(job_text), (names, job_text)
    assert not names & RUNS_CODE
    filenames = {value for name, value in handled if name == "filename"}
    assert filenames == {target}, (filenames, target)


def ssdlab_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ssdlab command, run in `folder`."""
    return subprocess.run(
        ssdlab_argv(*args),
        capture_output=True,
        text=True,
        env=ssdlab_env(),
        cwd=folder,
        timeout=HANG_S,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def ssdlab_in_process(*args: str) -> tuple[int, str, str]:
    """ssdlab's own entry point in this process: the same code as the command without the
    interpreter start-up (for sweeps over many inputs). (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    except SystemExit as stop:  # argparse's usage errors
        code = int(stop.code or 0)
    return code, out.getvalue(), err.getvalue()
