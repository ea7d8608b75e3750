"""The one codec of the JSON the store keeps: dataclasses encoded by field and decoded by the
type hints of their fields (model/json_fields.py), and a version in every JSON object the
store writes.

`decode` rebuilds a dataclass from a blob and refuses what does not fit (a missing field, a
field the class does not have, a value of another type) with a `StoreError` that names the
blob, instead of dropping a field silently. A field missing from the JSON takes the class's
default: that is how blobs written before a field was added read back.

Each kind of blob (`BlobKind`) has a version, written into the object under `VERSION_KEY`.
A blob without one is version 1 (the shape written before blobs had versions); an older blob
is brought to today's shape by the kind's migrations, one version at a time; a blob of a
newer version than this ssdlab knows is refused. `open_blob` takes the version out, so what
ssdlab prints from a blob (`show --json`, `export`, reports) never carries it.
"""

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ssdlab.errors import StoreError
from ssdlab.model.json_fields import FieldMismatch, decode_fields, encode

VERSION_KEY = "blob_version"

T = TypeVar("T")
Migration = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class BlobKind:
    """One kind of JSON object the store writes: its name in messages, today's version, and
    the migrations that bring version n to n + 1 (`migrations[n]`)."""

    name: str
    version: int = 1
    migrations: Mapping[int, Migration] = field(default_factory=dict)


# every JSON object column of the store
RUN_TARGET = BlobKind("target")
RUN_SETTINGS = BlobKind("settings")
RUN_PLAN = BlobKind("plan")
RUN_ENVIRONMENT = BlobKind("environment")
DEVICE_IDENTITY = BlobKind("device identity")
STEP_METRICS = BlobKind("step metrics")
HEALTH_SAMPLE = BlobKind("health sample")
FINDING_BODY = BlobKind("finding")


def to_blob(value: object, kind: BlobKind) -> str:
    """`value` (a dataclass or a mapping) as the JSON object of a `kind` blob, versioned."""
    data = encode(value)
    if not isinstance(data, dict):
        raise TypeError(f"a {kind.name} blob is a JSON object, not {type(data).__name__}")
    return json.dumps({**data, VERSION_KEY: kind.version}, sort_keys=True, allow_nan=False)


def versioned(text: str, kind: BlobKind) -> str:
    """JSON object text made elsewhere (by `dumps`) with the version of `kind` put in first;
    text that is not an object is left as it is (reading it back refuses it)."""
    body = text.strip()
    if not body.startswith("{"):
        return text
    rest = body[1:].lstrip()
    return f'{{"{VERSION_KEY}": {kind.version}{"" if rest.startswith("}") else ", "}{rest}'


def blob_version(data: Mapping[str, Any]) -> int:
    """The version a stored object says it is (1 when it says none)."""
    version = data.get(VERSION_KEY, 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise FieldMismatch(VERSION_KEY, f"{version!r} is not a blob version")
    return version


def open_blob(data: object, kind: BlobKind, where: str) -> dict[str, Any]:
    """A stored `kind` object in today's shape, without its version: older versions migrated,
    a newer one refused. `where` names the blob in messages ("run 7's plan")."""
    if not isinstance(data, dict):
        raise StoreError(f"{where} is JSON {type(data).__name__}, not an object")
    try:
        version = blob_version(data)
    except FieldMismatch as error:
        raise StoreError(f"{where} cannot be read: {error}") from None
    if version > kind.version:
        raise StoreError(
            f"{where} was written by a newer ssdlab ({kind.name} version {version}; this ssdlab "
            f"reads up to version {kind.version}): upgrade ssdlab to read it"
        )
    opened = {key: value for key, value in data.items() if key != VERSION_KEY}
    for step in range(version, kind.version):
        migrate = kind.migrations.get(step)
        if migrate is None:
            raise StoreError(
                f"{where} is {kind.name} version {step}, and no migration to version "
                f"{step + 1} exists"
            )
        opened = migrate(opened)
    return opened


def loads_blob(text: str, kind: BlobKind, where: str) -> dict[str, Any]:
    """`open_blob` of JSON text."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise StoreError(f"{where} is not valid JSON ({error})") from None
    except RecursionError:  # nested deeper than Python parses: damage, not a crash
        raise StoreError(f"{where} is not valid JSON (nested too deeply)") from None
    return open_blob(data, kind, where)


def decode(cls: type[T], data: object, where: str) -> T:
    """`data` (JSON data in today's shape) as a `cls`, by the type hints of its fields."""
    try:
        return decode_fields(cls, data)
    except FieldMismatch as error:
        raise StoreError(f"{where} cannot be read: {error}") from None


def from_blob(cls: type[T], data: object, kind: BlobKind, where: str) -> T:
    """A stored `kind` blob (JSON data, versioned or not) as a `cls`."""
    return decode(cls, open_blob(data, kind, where), where)
