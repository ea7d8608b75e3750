"""The spec sheets ssdlab knows and the rated endurance a drive's sheet gives: what `health`,
`endure`, `report`, `spec` and `metrics` judge a drive's wear against."""

import sqlite3

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.errors import ParseError, SsdlabError
from ssdlab.model.spec import SpecSheet
from ssdlab.parse.spec_sheet import parse_spec_sheet
from ssdlab.specs import load_builtin_spec_sheets
from ssdlab.store.specs import load_spec_sheets


def known_spec_sheets(conn: sqlite3.Connection) -> list[SpecSheet]:
    """Shipped sheets, with any the user added under the same key taking their place."""
    by_key = {sheet.key: sheet for sheet in load_builtin_spec_sheets()}
    for stored in load_spec_sheets(conn):
        try:
            by_key[stored.key] = parse_spec_sheet(stored.toml_text, stored.origin)
        except ParseError as error:
            raise SsdlabError(
                f"the stored spec sheet {stored.key} no longer parses ({error}); "
                f"add it again with 'ssdlab spec add FILE'"
            ) from error
    return sorted(by_key.values(), key=lambda s: s.key)


def rated_endurance(spec: SpecSheet | None) -> RatedEndurance | None:
    """The spec sheet's rating, for the life projection."""
    if spec is None or (spec.tbw_bytes is None and spec.dwpd is None):
        return None
    return RatedEndurance(
        tbw_bytes=spec.tbw_bytes,
        dwpd=spec.dwpd,
        warranty_years=spec.warranty_years,
        capacity_bytes=spec.capacity_bytes,
    )
