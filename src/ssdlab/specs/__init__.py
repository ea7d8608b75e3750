"""The spec sheets shipped with ssdlab: TOML files in this package, each with its sources."""

from importlib import resources

from ssdlab.model.spec import SpecSheet
from ssdlab.parse.spec_sheet import parse_spec_sheet


def load_builtin_spec_sheets() -> tuple[SpecSheet, ...]:
    """Every shipped sheet, by key."""
    folder = resources.files("ssdlab.specs")
    sheets = [
        parse_spec_sheet(entry.read_text(encoding="utf-8"), f"ssdlab/specs/{entry.name}")
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    ]
    return tuple(sorted(sheets, key=lambda s: s.key))
