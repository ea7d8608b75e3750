"""The fio job of `ssdlab fleet load` and its --server value: every option that runs a program
or touches another file is refused with its line; only `sock:/absolute/path` is a server."""

import pytest

from ssdlab.errors import ParseError, UsageError
from ssdlab.plan.load_job import (
    HISTOGRAM_LOG,
    NEVER_TCP,
    LoadJob,
    check_load_job,
    logged_job_text,
    server_socket_path,
    socket_path,
    split_filenames,
)
from ssdlab.plan.user_job import OTHER_FILE_OPTIONS, UNSAFE_OPTIONS

HEAD = "[global]\nioengine=libaio\nfilename=/dev/nvme0n1\n\n[load]\nrw=randread\n"
REFUSED_LINE = 7  # the first line after HEAD


def refusal(extra: str) -> str:
    with pytest.raises(ParseError) as caught:
        check_load_job(HEAD + extra + "\n")
    return str(caught.value)


def test_a_plain_job_gives_its_files_and_reads_only() -> None:
    job = check_load_job(HEAD + "bs=4k\niodepth=32\nsize=1g\nruntime=60\ntime_based\ndirect=1\n")
    assert job == LoadJob(
        text=HEAD + "bs=4k\niodepth=32\nsize=1g\nruntime=60\ntime_based\ndirect=1\n",
        jobs=("load",),
        filenames=("/dev/nvme0n1",),
        writes=False,
        size_bytes=2**30,
        direct=True,
    )


@pytest.mark.parametrize(
    "line",
    [
        "exec_prerun=/bin/sh -c id",
        "exec_postrun=/bin/true",
        "ioengine=exec",
        "ioengine=external:/tmp/engine.so",
        "ioengine=filedelete",
        "trigger=reboot",
        "trigger_cmd=/sbin/reboot",
        "write_bw_log=bw",
        "write_lat_log=lat",
        "write_iops_log=iops",
        "write_hist_log=hist",
        "write_iolog=/tmp/io.log",
        "read_iolog=/tmp/io.log",
        "iolog=/tmp/io.log",
        "replay_redirect=/dev/sda",
        "verify_state_save=1",
        "verify_state_load=1",
        "verify_dump=1",
        "directory=/etc",
        "filename_format=/etc/$jobname",
        "opendir=/etc",
        "nrfiles=4",
        "ioscheduler=none",
        "cgroup=fio",
        "mem=mmaphuge:/hugepages/buffer",
        "profile=tiobench",
        "unlink=1",
        "include other.fio",
        "$include=1",
        "size=${HOME}",
    ],
)
def test_a_refused_option_is_named_with_its_line(line: str) -> None:
    message = refusal(line)
    assert message.startswith(f"line {REFUSED_LINE}:")
    if not line.startswith(("$", "size=${", "filename_format")):
        assert line.split("=")[0].split()[0] in message


def test_every_option_user_job_refuses_as_another_file_or_a_program_is_refused_here() -> None:
    for name in sorted(OTHER_FILE_OPTIONS | UNSAFE_OPTIONS):
        assert refusal(f"{name}=x").startswith(f"line {REFUSED_LINE}: "), name


def test_a_job_without_a_filename_is_refused_with_its_section_line() -> None:
    with pytest.raises(ParseError, match=r"line 4: job \[second\] names no file"):
        check_load_job("[first]\nfilename=/dev/sdb\n\n[second]\nrw=read\n")


def test_a_global_filename_given_after_a_job_does_not_reach_it() -> None:
    with pytest.raises(ParseError, match=r"line 1: job \[early\] names no file"):
        check_load_job("[early]\nrw=read\n[global]\nfilename=/dev/sdb\n[late]\nrw=read\n")


def test_every_job_resolves_its_files_and_writes() -> None:
    job = check_load_job(
        "[global]\nfilename=/dev/sdb\n[a]\nrw=read\n[b]\nfilename=/mnt/x/f:/mnt/y/g\nrw=randrw\n"
    )
    assert job.jobs == ("a", "b")
    assert job.filenames == ("/dev/sdb", "/mnt/x/f", "/mnt/y/g")
    assert job.writes
    assert not job.direct


@pytest.mark.parametrize("rw", ["write", "randwrite", "rw", "randrw", "trim", "trimwrite"])
def test_writes_are_seen_in_any_job(rw: str) -> None:
    assert check_load_job(
        f"[r]\nfilename=/dev/sdb\n[w]\nfilename=/dev/sdb\nreadwrite={rw}\n"
    ).writes


def test_filenames_split_at_colons() -> None:
    assert split_filenames("/dev/sdb:/dev/sdc") == ("/dev/sdb", "/dev/sdc")
    assert split_filenames(r"/mnt/a\:b") == ("/mnt/a:b",)


@pytest.mark.parametrize("name", ["relative.dat", "/mnt/../etc/passwd", "/mnt//x", "/", "-"])
def test_a_filename_must_be_a_plain_absolute_path(name: str) -> None:
    with pytest.raises(ParseError, match="not an absolute path"):
        check_load_job(f"[load]\nfilename={name}\n")


def test_syntax_fio_would_read_otherwise_is_refused() -> None:
    with pytest.raises(ParseError, match="line 1: an option before any"):
        check_load_job("filename=/dev/sdb\n[load]\n")
    with pytest.raises(ParseError, match="no job section"):
        check_load_job("[global]\nfilename=/dev/sdb\n")
    with pytest.raises(ParseError, match="line 2: filename= has no value"):
        check_load_job("[load]\nfilename=\n")


def test_a_unix_socket_server_gives_its_path() -> None:
    assert server_socket_path("sock:/run/ssdlab-load/fio.sock") == "/run/ssdlab-load/fio.sock"


@pytest.mark.parametrize(
    "value",
    ["tcp:10.0.0.1,8765", "ip:lab1,4444", "ip6:::1,4444", "lab1,8765", ",4444", "1.2.3.4", ""],
)
def test_a_network_server_is_refused_saying_why(value: str) -> None:
    with pytest.raises(UsageError) as caught:
        server_socket_path(value)
    assert NEVER_TCP in str(caught.value)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("sock:fio.sock", "absolute path"),
        ("sock:/run/../tmp/fio.sock", "absolute path"),
        ("sock:/fio.sock", "folder of its own"),
        ("sock:/run/a b/fio.sock", "spaces"),
        ("sock:/run/a:b/fio.sock", "colons"),
        ("sock:/run/a,b/fio.sock", "commas"),
        ("sock:/run/" + "x" * 100 + "/fio.sock", "at most 100 bytes"),
    ],
)
def test_a_socket_path_that_cannot_be_made_is_refused(value: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        server_socket_path(value)


def test_the_node_checks_its_socket_option_the_same_way() -> None:
    with pytest.raises(UsageError, match=r"^--socket 'tcp:1\.2\.3\.4': give an absolute path"):
        socket_path("tcp:1.2.3.4", "--socket 'tcp:1.2.3.4'")


# Every file fio 3.33 would open, judged as fio judges it (issue #32). Each case below was run
# with fio 3.33 itself (ioengine=psync, rw=write on files under a temp folder, and
# --debug=file for opendir), and tests/contract/test_load_job_files.py runs the accepted ones
# against the fio installed: the files fio writes are exactly the job's filenames.


def test_every_filename_line_of_a_job_adds_its_files() -> None:
    """fio's filename= callback adds its files to the job's each time it is read: a second
    line adds, it does not replace."""
    job = check_load_job("[load]\nfilename=/mnt/t/f\nfilename=/dev/sda\n")
    assert job.filenames == ("/mnt/t/f", "/dev/sda")


def test_a_global_filename_reaches_a_job_that_names_its_own() -> None:
    """A job starts as a copy of [global], files included, and its own filename= adds to them."""
    job = check_load_job("[global]\nfilename=/dev/sda\n[load]\nfilename=/mnt/t/f\n")
    assert job.filenames == ("/dev/sda", "/mnt/t/f")


def test_every_global_section_adds_its_files_to_later_jobs() -> None:
    """Every [global] section fills the same defaults: the second adds to the first's files."""
    job = check_load_job("[global]\nfilename=/dev/sda\n[global]\nfilename=/dev/sdb\n[load]\n")
    assert job.filenames == ("/dev/sda", "/dev/sdb")


def test_a_global_between_jobs_reaches_only_the_later_ones() -> None:
    job = check_load_job(
        "[a]\nfilename=/mnt/t/a\n[global]\nfilename=/dev/sda\n[b]\nfilename=/mnt/t/b\n"
    )
    assert job.filenames == ("/mnt/t/a", "/dev/sda", "/mnt/t/b")


@pytest.mark.parametrize(
    ("value", "files"),
    [
        ("/mnt/a:/mnt/b", ("/mnt/a", "/mnt/b")),
        (r"/mnt/a\:b", ("/mnt/a:b",)),
        ("::/mnt/a::/mnt/b:", ("/mnt/a", "/mnt/b")),
        (r"/mnt/a\::/mnt/b", ("/mnt/a:", "/mnt/b")),
        (r"/mnt/a\:\:b", ("/mnt/a::b",)),
    ],
)
def test_filenames_split_as_fio_splits_them(value: str, files: tuple[str, ...]) -> None:
    """fio's get_next_str: ':' ends a name, '\\:' is a colon in it, an empty name is skipped."""
    assert split_filenames(value) == files
    assert check_load_job(f"[load]\nfilename={value}\n").filenames == files


def test_a_comment_ends_the_line_as_it_does_for_fio() -> None:
    """fio cuts every line at its first ';' or '#' (strip_blank_end): the rest is no file."""
    job = check_load_job("[load] ; the load\nfilename=/mnt/t/f # :/dev/sda\nrw=write;x\n")
    assert job.filenames == ("/mnt/t/f",)
    assert job.writes


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[load]\nfilename=/mnt/t/f\n[globalx]\nfilename=/dev/sda\n", "line 3: .*as \\[global\\]"),
        ("[load]\nfilename=/mnt/t/f\n[global ]\nfilename=/dev/sda\n", "line 3: .*as \\[global\\]"),
        ("[load]\nfilename=/mnt/t/f\n[ global]\nfilename=/dev/sda\n", "line 3: .*job name"),
        ("[load]\nfilename=/mnt/t/f\ninclude_x\n", "line 3: include"),
        ("[load]\nfilename=/mnt/t/f\nincluded=1\n", "line 3: include"),
        ("[load]\nfilename=/mnt/t/f\rfilename=/dev/sda\n", "control character"),
        ("[load]\nfilename=/mnt/t/f\nfilename\n", "line 3: the option filename"),
        ("[load]\nfilename=/mnt/t/f\nbuffer_pattern='/etc/shadow'\n", "line 3: .*buffer_pattern"),
        ("[load]\nfilename=/mnt/t/f\nverify_pattern='/etc/shadow'\n", "line 3: .*verify_pattern"),
        ("[load]\nfilename=/mnt/t/f\nnr_files=2\n", "line 3: .*nr_files"),
    ],
)
def test_a_form_fio_reads_otherwise_is_refused_with_its_line(text: str, said: str) -> None:
    """What fio 3.33 does with each: a section whose name starts with 'global' is a [global]
    (its files reach the later jobs, or none), '[ global]' is a job of that name that writes
    its file, any line starting with 'include' includes the file after its 8th character, a
    carriage return is no line break for fio (one file of a strange name), a bare filename is
    a parse error, a pattern in quotes is read from that file, nr_files is nrfiles."""
    with pytest.raises(ParseError, match=said):
        check_load_job(text)


@pytest.mark.parametrize(
    "line",
    ["directory=/mnt/t", "directory=/mnt/t:/dev", "filename_format=/dev/sdx", "opendir=/dev"],
)
@pytest.mark.parametrize("where", ["[global]\n{line}\n[load]\n", "[load]\n{line}\n"])
def test_options_that_name_other_files_are_refused_wherever_they_are(line: str, where: str) -> None:
    """fio joins every filename= (absolute ones too) to directory, sorting directory before
    filename whatever their order; directory= a:b gives each clone of numjobs the next folder;
    filename_format names the files of a job without filename=; opendir adds every file of a
    folder. None can be judged from the text alone, so each is refused wherever it is."""
    text = where.format(line=line) + "filename=/mnt/t/f\n"
    with pytest.raises(ParseError, match=r"line 2: .*not accepted in a load job"):
        check_load_job(text)


@pytest.mark.parametrize(
    "line", ["log_hist_msec=100", "log_hist_coarseness=2", "per_job_logs=0", "log_compression=1m"]
)
def test_the_jobs_latency_histograms_are_ssdlabs_to_set(line: str) -> None:
    said = refusal(line)
    assert f"line {REFUSED_LINE}" in said
    assert "latency histograms" in said


def test_the_servers_get_the_job_after_ssdlabs_histogram_log() -> None:
    job = check_load_job(HEAD)
    sent = logged_job_text(job)
    assert sent == HISTOGRAM_LOG + HEAD
    assert "write_hist_log=ssdlab-hist\nlog_hist_msec=1000\n" in sent
