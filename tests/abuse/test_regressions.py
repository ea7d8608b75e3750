"""Holes the abuse tests found, each with the minimal input that showed it."""

import tomllib
from pathlib import Path

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.spec_sheet import _toml_string, parse_spec_sheet
from ssdlab.plan.user_job import parse_fio_jobfile

SHEET = 'schema = 1\nvendor = "V"\ncapacity = "1TB"\nsources = ["x"]\n'


@pytest.mark.parametrize(
    "text",
    [
        "[w]\nrw=write\nioengine=exec\nprogram=touch\narguments=CANARY\n",  # ran `touch CANARY`
        "[w]\nrw=write\nioengine=external:/tmp/evil.so\n",  # loads a library into fio
        "[w]\nrw=write\nioengine=filedelete\n",  # deletes files instead of writing them
        "[w]\nrw=write\nprogram=touch\n",
    ],
)
def test_user_job_files_cannot_run_programs_through_an_ioengine(text: str) -> None:
    with pytest.raises(ParseError, match="not accepted here"):
        parse_fio_jobfile(text)


def test_user_job_files_keep_their_io_engines() -> None:
    for engine in ("libaio", "io_uring", "psync", "sync", "posixaio", "mmap"):
        assert parse_fio_jobfile(f"[w]\nrw=write\nioengine={engine}\n").sections


@pytest.mark.parametrize(
    "model", ["\\u001b[2J", "a\\nb", "\\u001b]0;title\\u0007", "x\\u2028y", "\\u009b31m"]
)
def test_spec_sheet_strings_with_control_characters_are_refused(model: str) -> None:
    """`spec show` printed them raw: terminal escapes acted on the terminal, and a line break
    inside a string made the printed TOML invalid."""
    with pytest.raises(ParseError, match="without control characters"):
        parse_spec_sheet(SHEET + f'model = "{model}"\n', "evil.toml")
    with pytest.raises(ParseError, match="without control characters"):
        parse_spec_sheet(SHEET + f'model = "M"\npart_numbers = ["{model}"]\n', "evil.toml")


def test_rendered_toml_strings_escape_control_characters() -> None:
    text = 'a\x1b[2J\nb"\\ \u2028 \x7f'
    rendered = _toml_string(text)
    assert all(ord(c) >= 32 and c not in "\x7f\u2028" for c in rendered)
    assert tomllib.loads(f"k = {rendered}")["k"] == text


def test_imported_text_loses_its_control_characters() -> None:
    """The OS line of an imported CrystalDiskMark text went raw to `export --format cdm`."""
    text = (
        "CrystalDiskMark 8.0.4 x64\n[Read]\nSEQ 1MiB (Q= 8, T= 1): 1.0 MB/s\n"
        "OS: \x1b[31mred\x1b]0;title\x07 Windows\nComment: \x9b2J x\n"
    )
    result = parse_benchmark_text(text)
    shown = repr(result)
    assert "\\x1b" not in shown
    assert "\\x07" not in shown
    assert "\\x9b" not in shown
    assert "[31mred]0;title Windows" in shown


def test_option_values_beyond_any_float_are_usage_errors() -> None:
    """OverflowError: int too large to convert to float, formatting the refusal of
    `ssdlab run cache --iodepth 999…9` (400 digits)."""
    from ssdlab.errors import UsageError
    from ssdlab.plan.profile import resolve_profile_settings
    from ssdlab.profiles.cache import SPEC

    with pytest.raises(
        UsageError, match=r"--iodepth must be at most 1024 \(got 999999999999…\(400"
    ):
        resolve_profile_settings(SPEC, {"iodepth": int("9" * 400)})


def test_pts_seed_fits_fio() -> None:
    """`--seed 999…9` was accepted and rendered as randseed=, which fio refuses; so was any
    seed from 2^63 (fio 3.33 parses randseed as a signed 64-bit number)."""
    from ssdlab.errors import UsageError
    from ssdlab.plan.profile import resolve_profile_settings
    from ssdlab.registry import profile_record

    spec = profile_record("pts-iops").spec
    assert next(o for o in spec.options if o.name == "seed").maximum == 2**63 - 1
    for seed in (2**63, 2**64):
        with pytest.raises(UsageError, match="--seed must be at most"):
            resolve_profile_settings(spec, {"seed": seed})


def test_run_and_sample_ids_beyond_sqlite() -> None:
    """OverflowError: Python int too large to convert to SQLite INTEGER (show, report,
    compare, resume, wear and cachefit --from-run with an id of 2^63 or more)."""
    import sqlite3

    from ssdlab.app.runs import run_id_of
    from ssdlab.errors import UsageError
    from ssdlab.store.health import load_health_sample
    from ssdlab.store.run_rows import load_run

    conn = sqlite3.connect(":memory:")
    with pytest.raises(UsageError, match="is not a run id"):
        run_id_of(conn, str(2**63))
    assert load_run(conn, 2**63) is None
    assert load_health_sample(conn, -(2**63)) is None


@pytest.mark.parametrize("value", ["inf", "nan", "9" * 400])
def test_vendor_map_units_must_be_finite(value: str) -> None:
    """`health --vendor-map` with unit_bytes = inf failed storing the sample: ValueError: Out
    of range float values are not JSON compliant (and 10^400 overflowed float())."""
    from ssdlab.parse.smart_vendors import load_vendor_map

    entry = '[[vendor]]\nmodel = "^A"\n[[vendor.attribute]]\nid = 241\nunit = "x"\n'
    with pytest.raises(ParseError, match="unit_bytes"):
        load_vendor_map(entry + f'metric = "host_written_bytes"\nunit_bytes = {value}\n')
    with pytest.raises(ParseError, match="'scale' must be a finite number"):
        load_vendor_map(entry + f'metric = "host_written_bytes"\nunit_bytes = 1\nscale = {value}\n')


def test_spec_sheet_numbers_beyond_any_float() -> None:
    """OverflowError: int too large to convert to float (math.isfinite of a 400-digit int)."""
    with pytest.raises(ParseError, match="a finite number above 0"):
        parse_spec_sheet(SHEET + f'model = "M"\nseq_read_mb_s = {"9" * 400}\n', "evil.toml")
    text = f'model = "M"\nrandom_read_iops = 5\nrandom_read_qd = {"9" * 400}\n'
    with pytest.raises(ParseError, match="a whole number"):
        parse_spec_sheet(SHEET + text, "evil.toml")


def test_drive_identity_strings_lose_their_control_characters(tmp_path: Path) -> None:
    """A drive reports whatever its firmware says; a model such as 'X\\x1b[2J' went into
    stored identities and from there raw into exports."""
    import json

    from ssdlab.parse.smartctl_json import parse_smartctl_json
    from ssdlab.system.block import read_device_identity

    doc = {"smartctl": {}, "model_name": "X\x1b[2J\x07", "serial_number": "S\x9b1"}
    identity = parse_smartctl_json(json.dumps(doc)).identity
    assert (identity.model, identity.serial) == ("X?[2J?", "S?1")

    root = tmp_path
    device = root / "class" / "block" / "sdz" / "device"
    device.mkdir(parents=True)
    (device / "model").write_bytes(b"Evil\x1b]0;owned\x07 \n")
    (device / "vendor").write_bytes(b"ATA\x1b[31m\n")
    (device / "serial").write_bytes(b"123\x00\n")
    found = read_device_identity("sdz", root)
    assert (found.model, found.vendor, found.serial) == ("Evil?]0;owned?", "ATA?[31m", "123?")
