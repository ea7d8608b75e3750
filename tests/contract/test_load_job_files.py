"""The files a fleet load job names are the files fio writes (skipped without fio): each form
of issue #32 is run with the fio installed (3.33 when written), ioengine=psync and rw=write on
files in a temp folder, and the files fio creates are compared with check_load_job's."""

import os
import subprocess
from pathlib import Path

import pytest

from ssdlab.errors import ParseError
from ssdlab.plan.load_job import check_load_job
from tests.conftest import HANG_S, needs_fio

HEAD = "[global]\nioengine=psync\nsize=64k\nbs=4k\nrw=write\n"
ACCEPTED = {
    "two filename= lines": "[load]\nfilename={d}/a\nfilename={d}/b\n",
    "global and own": "[global]\nfilename={d}/g\n[load]\nfilename={d}/a\n",
    "two globals": "[global]\nfilename={d}/g1\n[global]\nfilename={d}/g2\n[load]\n",
    "global between jobs": "[a]\nfilename={d}/a\n[global]\nfilename={d}/g\n[b]\nfilename={d}/b\n",
    "colon list": "[load]\nfilename=::{d}/a::{d}/b\\:c:\n",
    "comment in a line": "[load] ; c\nfilename={d}/a # :{d}/b\n",
}
REFUSED = {  # fio writes the file {d}/g that a job of the text does not name
    "a section named ' global' is a job": "[load]\nfilename={d}/a\n[ global]\nfilename={d}/g\n",
    "[globalx] is a [global]": "[globalx]\nfilename={d}/g\n[load]\nfilename={d}/a\n",
}


def _fio_writes(job: str, tmp_path: Path) -> set[str]:
    """The files fio creates running `job` (its files under tmp_path/files)."""
    files = tmp_path / "files"
    files.mkdir()
    path = tmp_path / "job.fio"
    path.write_text(HEAD + job)
    done = subprocess.run(
        [os.environ.get("SSDLAB_FIO", "fio"), str(path)],
        cwd=files,
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    return {str(file) for file in files.rglob("*") if file.is_file()}


@needs_fio
@pytest.mark.parametrize("form", sorted(ACCEPTED))
def test_fio_writes_exactly_the_files_of_an_accepted_job(form: str, tmp_path: Path) -> None:
    job = ACCEPTED[form].format(d=tmp_path / "files")
    assert _fio_writes(job, tmp_path) == set(check_load_job(HEAD + job).filenames)


@needs_fio
@pytest.mark.parametrize("form", sorted(REFUSED))
def test_fio_writes_another_file_for_a_refused_section_name(form: str, tmp_path: Path) -> None:
    job = REFUSED[form].format(d=tmp_path / "files")
    assert f"{tmp_path}/files/g" in _fio_writes(job, tmp_path)
    with pytest.raises(ParseError, match=r"line [68]: .*(job name|as \[global\])"):
        check_load_job(HEAD + job)
