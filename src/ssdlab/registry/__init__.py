"""Every profile ssdlab runs and every kind of run it stores, found in this package: every
module but the record types and their shared parts exports `RECORDS`, the typed records it
binds — profiles (registry/record.py: the profiles of `ssdlab run`, and the quick suite of
`ssdlab quick`) and kinds of stored run (registry/kind.py: how a stored run is read back).
Each profile of `ssdlab run` gives the kind record of its runs itself."""

import importlib
import pkgutil
from functools import cache

from ssdlab.errors import SsdlabError
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.registry.kind import KindRecord
from ssdlab.registry.record import ProfileRecord

# the record types and the parts several records share
_NOT_RECORDS = frozenset({"record", "kind", "passes"})


@cache
def _records() -> tuple[ProfileRecord | KindRecord, ...]:
    found: list[ProfileRecord | KindRecord] = []
    for module in pkgutil.iter_modules(__path__):
        if module.name in _NOT_RECORDS:
            continue
        records: object = importlib.import_module(f"{__name__}.{module.name}").RECORDS
        if not isinstance(records, tuple) or not all(
            isinstance(record, ProfileRecord | KindRecord) for record in records
        ):
            raise TypeError(
                f"registry/{module.name}.py: RECORDS must be a tuple of ProfileRecords and "
                "KindRecords"
            )
        found.extend(records)
    return tuple(found)


@cache
def profile_records() -> dict[str, ProfileRecord]:
    """Every profile's record by name, in listing order."""
    found = [record for record in _records() if isinstance(record, ProfileRecord)]
    names = [record.name for record in found]
    if len(set(names)) != len(names):
        raise ValueError(
            f"profiles registered twice: {sorted({n for n in names if names.count(n) > 1})}"
        )
    return {record.name: record for record in sorted(found, key=lambda r: r.rank)}


def run_profiles() -> dict[str, ProfileRecord]:
    """The profiles of `ssdlab run` and `ssdlab plan PROFILE` (quick has its own command)."""
    return {name: r for name, r in profile_records().items() if r.run_kind is RunKind.PROFILE}


def profile_record(name: str) -> ProfileRecord:
    """The record of a profile `ssdlab run` knows (KeyError for any other name)."""
    return profile_records()[name]


@cache
def kind_records() -> tuple[KindRecord, ...]:
    """The record of every kind of stored run: those declared, and each profile's."""
    declared = [record for record in _records() if isinstance(record, KindRecord)]
    found = declared + [record.kind_record() for record in run_profiles().values()]
    claims = [(r.kind, profile) for r in found for profile in r.profiles or (None,)]
    twice = sorted({f"{k}/{p or '*'}" for k, p in claims if claims.count((k, p)) > 1})
    if twice:
        raise ValueError(f"kinds of run registered twice: {twice}")
    return tuple(found)


@cache
def _by_claim() -> dict[tuple[RunKind, str | None], KindRecord]:
    return {(r.kind, profile): r for r in kind_records() for profile in r.profiles or (None,)}


def kind_record(run: RunRecord) -> KindRecord:
    """The record that reads `run` back: the one of its kind that names its profile, else the
    one that takes every other run of its kind."""
    claims = _by_claim()
    record = claims.get((run.kind, run.profile)) or claims.get((run.kind, None))
    if record is None:
        what = run.profile if run.kind is RunKind.PROFILE else f"{run.kind} ({run.profile})"
        raise SsdlabError(f"run {run.run_id} is a {what} run, which this ssdlab cannot show")
    return record
