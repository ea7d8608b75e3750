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


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[w]\nbs=4k\n[global2]\nrw=write\n", r"line 3: .*read by fio as \[global\]"),
        ("[ w]\nbs=4k\n", "line 1: .*job name"),
        ("[w]\ninclude_other.fio\n", "line 2: include"),
        ("[w]\nbs=4k\x0bexec_prerun=x\n", "line 2: a control character"),
        ("[w]\nbs=4k\x00\n", "line 2: a control character"),
    ],
)
def test_a_section_or_include_fio_reads_otherwise_is_refused(text: str, words: str) -> None:
    """fio 3.33 makes every section whose name starts with 'global' a [global] section, keeps
    the spaces of a section name, includes a file for any line that starts with 'include'
    and breaks lines at newlines only (init.c, __parse_jobs_ini)."""
    with pytest.raises(ParseError, match=words):
        parse_fio_jobfile(text)


def test_a_comment_ends_the_line_as_it_does_for_fio() -> None:
    """fio cuts a line at its first ';' or '#' (parse.c, strip_blank_end)."""
    job = parse_fio_jobfile("[w] # writes\nrw=randwrite ; random\nbs=4k#x\n")
    assert job.sections == (("w", (("rw", "randwrite"), ("bs", "4k"))),)
