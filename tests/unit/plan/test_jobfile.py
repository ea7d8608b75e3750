import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import TargetError
from ssdlab.model.plan import FioJob
from ssdlab.plan.jobfile import check_fio_path, render_job


@pytest.mark.parametrize(
    "path",
    [
        "/tmp/a:b",
        "/tmp/a\nb",
        "/tmp/$HOME",
        "/tmp/a;b",
        "/tmp/#x",
        "/tmp/a\\b",
        "/tmp/\x7f",
        "/tmp/it's",
        '/tmp/"q"',
        "/tmp/x ",
        " /tmp/x",
        "/tmp/tab\there",
    ],
)
def test_paths_fio_would_misread_are_rejected(path: str) -> None:
    with pytest.raises(TargetError):
        check_fio_path(path)


@pytest.mark.parametrize("path", ["/tmp/my disk/x", "/tmp/a=b", "/tmp/-x", "/dev/nvme0n1"])
def test_ordinary_paths_are_accepted(path: str) -> None:
    check_fio_path(path)


SAFE_CHARS = st.characters(
    min_codepoint=32, max_codepoint=0x2FFF, exclude_characters=":$\\;#\"'\x7f"
)


@given(st.text(SAFE_CHARS, min_size=1, max_size=40).filter(lambda s: s == s.strip()))
def test_accepted_paths_appear_verbatim_on_one_line(name: str) -> None:
    path = "/srv/" + name
    check_fio_path(path)
    text = render_job(FioJob((("filename", path),), (("job", (("rw", "read"),)),)))
    assert f"filename={path}\n" in text
    assert text.count("\n") == 5  # [global], filename, blank, [job], rw


def test_render_job_writes_flags_bare_and_keeps_order() -> None:
    job = FioJob((("time_based", ""), ("runtime", "5")), (("a-b", (("rw", "read"),)),))
    assert render_job(job, comment="hello") == (
        "; hello\n[global]\ntime_based\nruntime=5\n\n[a-b]\nrw=read\n"
    )


def test_render_job_refuses_bad_option_names_and_values() -> None:
    with pytest.raises(ValueError, match="not a fio option name"):
        render_job(FioJob((("bad name", "1"),), ()))
    with pytest.raises(ValueError, match="control character"):
        render_job(FioJob((("rw", "read\nexec_prerun=x"),), ()))
