"""The profiles `ssdlab run` knows, found in this package: every module but `record` exports
`RECORDS`, the typed records (registry/record.py) of the profiles it binds."""

import importlib
import pkgutil
from functools import cache

from ssdlab.registry.record import ProfileRecord

_NOT_RECORDS = frozenset({"record"})


@cache
def profile_records() -> dict[str, ProfileRecord]:
    """Every profile's record by name, in listing order."""
    found: list[ProfileRecord] = []
    for module in pkgutil.iter_modules(__path__):
        if module.name in _NOT_RECORDS:
            continue
        records: tuple[ProfileRecord, ...] = importlib.import_module(
            f"{__name__}.{module.name}"
        ).RECORDS
        found.extend(records)
    return {record.name: record for record in sorted(found, key=lambda r: r.rank)}


def profile_record(name: str) -> ProfileRecord:
    """The record of a profile `ssdlab run` knows (KeyError for any other name)."""
    return profile_records()[name]
