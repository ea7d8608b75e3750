"""A user's fio job file read into the job model: what it may say, and what it may not."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.user_job import job_writes, parse_fio_jobfile


def test_sections_and_options_are_kept_in_order() -> None:
    job = parse_fio_jobfile("# c\n[global]\nrw=randwrite\nnorandommap\n\n[a]\nbs=4k\n[b]\nbs=8k\n")
    assert job.global_options == (("rw", "randwrite"), ("norandommap", ""))
    assert [name for name, _ in job.sections] == ["a", "b"]
    assert "[b]\nbs=8k" in render_job(job)
    assert job_writes(job)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[w]\nfilename=/dev/sdz\n", "filename"),
        ("[w]\nFILENAME=/dev/sdz\n", "filename"),
        ("[w]\ndirectory=/\n", "directory"),
        ("[w]\nexec_postrun=touch /tmp/x\n", "exec_postrun"),
        ("[w]\ninclude other.fio\n", "include"),
        ("[w]\nbs=${BS}\n", r"\$"),
        ("rw=write\n", "before any"),
        ("[bad name]\nrw=write\n", "job name"),
        ("[global]\nrw=write\n", "no job section"),
        ("[w]\nrw=\n", "no value"),
        ("[w]\nwrite_bw_log=/etc/x\n", "where the I/O goes"),
    ],
)
def test_refused_with_the_line(text: str, words: str) -> None:
    with pytest.raises(ParseError, match=words):
        parse_fio_jobfile(text)


def test_a_job_without_rw_reads() -> None:
    assert not job_writes(parse_fio_jobfile("[w]\nbs=4k\n"))
