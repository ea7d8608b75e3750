"""Every profile found in the registry is complete: spec, planner, analysis, report, options."""

import argparse

import pytest

from ssdlab.cli.main import build_parser
from ssdlab.registry import profile_record, profile_records, run_profiles

NAMES = sorted(run_profiles())


def test_every_profile_is_registered_in_listing_order() -> None:
    assert list(profile_records()) == [
        "quick", "cache", "align", "sweep", "cachefit", "trim", "fill", "endurance", "qos",
        "pts-iops", "pts-tp", "pts-lat", "pts-wsat", "pts-hir", "pts-xsr",
    ]  # fmt: skip
    assert list(run_profiles()) == list(profile_records())[1:]  # quick has its own command


def test_quick_is_a_profile_with_its_own_command() -> None:
    record = profile_record("quick")
    assert record.run_kind == "quick"
    parts = record.parts()
    assert parts.analyse is None  # best of the measured passes, read from them by its report
    assert parts.check_round is None
    assert parts.read_facts is None
    assert parts.build_document is None  # its runs are read by the quick kind record
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "quick", "/tmp"])  # one way to run it: ssdlab quick


@pytest.mark.parametrize("name", NAMES)
def test_profile_is_complete(name: str) -> None:
    record = profile_record(name)
    spec = record.spec
    assert record.name == spec.name == name
    assert spec.version >= 1
    assert record.run_kind == "profile"
    assert spec.summary
    assert spec.description
    assert spec.examples
    assert all(example.startswith("ssdlab ") for example in spec.examples)
    flags = [option.flag for option in spec.options]
    assert len(flags) == len(set(flags))
    assert not {"--size", "--buffered", "--json", "--db", "--keep"} & set(flags)
    assert all(option.help for option in spec.options)
    parts = record.parts()
    assert callable(parts.plan)
    assert callable(parts.analyse)
    assert callable(parts.build_document)
    assert (parts.check_round is not None) == name.startswith("pts-")


@pytest.mark.parametrize("name", NAMES)
def test_every_option_reaches_the_command_line(name: str) -> None:
    parser = build_parser()
    args = parser.parse_args(["run", name, "/tmp"])
    assert isinstance(args, argparse.Namespace)
    assert args.profile == name
    for option in profile_record(name).spec.options:
        assert hasattr(args, option.name)
        assert getattr(args, option.name) in (None, False)  # the table's default applies later


@pytest.mark.parametrize("command", ["run", "plan"])
def test_help_of_every_profile_prints(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for argv in ([command, "--help"], *([command, name, "--help"] for name in NAMES)):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        assert stop.value.code == 0
    assert "90 % full" in capsys.readouterr().out  # a literal percent sign survives


def test_the_command_line_loads_no_profile_parts() -> None:
    """Building the parser reads the option tables only: no planner, analysis or report."""
    import subprocess
    import sys

    code = (
        "import sys; from ssdlab.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith(('ssdlab.analysis.profiles', "
        "'ssdlab.report.', 'ssdlab.plan.pts', 'vl_convert', 'altair'))))"
    )  # the document type (report/document.py, data classes only) is part of the record's type
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "['ssdlab.report.document']"


def test_reports_lay_out_stored_verdicts_and_make_none() -> None:
    """report/ reads the verdicts a run stored: it imports no profile analysis and no parser."""
    from tests.unit.test_layers import SRC, imports_of

    for path in sorted((SRC / "report").rglob("*.py")):
        made_here = {
            m
            for m in imports_of(path)
            if m.startswith(("ssdlab.analysis.profiles", "ssdlab.parse"))
        }
        assert not made_here, f"{path.name} imports {sorted(made_here)}"
