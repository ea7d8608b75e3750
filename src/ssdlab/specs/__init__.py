"""The spec sheets shipped with ssdlab: TOML files in this package, each with its sources.

They are package data (pyproject: `package-data` "specs/*.toml"), read with importlib.resources
so they are found in a wheel and in an editable install alike.
"""

from importlib import resources

from ssdlab.errors import ParseError
from ssdlab.model.spec import SpecSheet
from ssdlab.parse.spec_sheet import parse_spec_sheet


def load_builtin_spec_sheets() -> tuple[SpecSheet, ...]:
    """Every shipped sheet, sorted by key; two files with one key are refused."""
    folder = resources.files("ssdlab.specs")
    by_key: dict[str, SpecSheet] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        origin = f"ssdlab/specs/{entry.name}"
        sheet = parse_spec_sheet(entry.read_text(encoding="utf-8"), origin)
        if sheet.key in by_key:
            raise ParseError(
                f"{origin}: key {sheet.key!r} is already used by another shipped sheet"
            )
        by_key[sheet.key] = sheet
    return tuple(by_key[key] for key in sorted(by_key))
