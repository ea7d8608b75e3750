"""Every profile ssdlab runs, found in this package: every module but `record` exports
`RECORDS`, the typed records (registry/record.py) of the profiles it binds — the profiles of
`ssdlab run`, and the quick suite of `ssdlab quick`."""

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
        records: object = importlib.import_module(f"{__name__}.{module.name}").RECORDS
        if not isinstance(records, tuple) or not all(
            isinstance(record, ProfileRecord) for record in records
        ):
            raise TypeError(f"registry/{module.name}.py: RECORDS must be a tuple of ProfileRecords")
        found.extend(records)
    names = [record.name for record in found]
    if len(set(names)) != len(names):
        raise ValueError(
            f"profiles registered twice: {sorted({n for n in names if names.count(n) > 1})}"
        )
    return {record.name: record for record in sorted(found, key=lambda r: r.rank)}


def run_profiles() -> dict[str, ProfileRecord]:
    """The profiles of `ssdlab run` and `ssdlab plan PROFILE` (quick has its own command)."""
    return {name: r for name, r in profile_records().items() if r.run_kind == "profile"}


def profile_record(name: str) -> ProfileRecord:
    """The record of a profile `ssdlab run` knows (KeyError for any other name)."""
    return profile_records()[name]
