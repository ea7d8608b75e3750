"""The one codec of the JSON the store keeps: dataclasses encoded by field and decoded by the
type hints of their fields, and a version in every JSON object the store writes.

`dumps` is the canonical JSON of a value (sorted keys, no NaN): a dataclass becomes an object
of its fields, a tuple a list, an enum its value. `decode` rebuilds a dataclass from such JSON
by its type hints — nested dataclasses, tuples (of any length or fixed), enums, optionals,
unions such as `SettingValue`, mappings — and refuses what does not fit (a missing field, a
field the class does not have, a value of another type) with a `StoreError` that names the
blob, instead of dropping a field silently. A field missing from the JSON takes the class's
default: that is how blobs written before a field was added read back.

Each kind of blob (`BlobKind`) has a version, written into the object under `VERSION_KEY`.
A blob without one is version 1 (the shape written before blobs had versions); an older blob
is brought to today's shape by the kind's migrations, one version at a time; a blob of a
newer version than this ssdlab knows is refused. `open_blob` takes the version out, so what
ssdlab prints from a blob (`show --json`, `export`, reports) never carries it.
"""

import dataclasses
import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from ssdlab.errors import StoreError

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


class BlobMismatch(ValueError):
    """JSON that does not fit the type it is decoded as; `path` says where in the blob."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)


def encode(value: object) -> Any:
    """`value` as JSON data: dataclasses by field, tuples and lists as lists, mappings as
    objects, enums as their values, sets sorted."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return encode(value.value)
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {key: encode(item) for key, item in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(encode(item) for item in value)
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"cannot store {type(value).__name__} as JSON")


def dumps(value: object) -> str:
    """The canonical JSON of `value` (sorted keys, no NaN)."""
    return json.dumps(encode(value), sort_keys=True, allow_nan=False)


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
        raise BlobMismatch(VERSION_KEY, f"{version!r} is not a blob version")
    return version


def open_blob(data: object, kind: BlobKind, where: str) -> dict[str, Any]:
    """A stored `kind` object in today's shape, without its version: older versions migrated,
    a newer one refused. `where` names the blob in messages ("run 7's plan")."""
    if not isinstance(data, dict):
        raise StoreError(f"{where} is JSON {type(data).__name__}, not an object")
    try:
        version = blob_version(data)
    except BlobMismatch as error:
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
    return open_blob(data, kind, where)


def decode(cls: type[T], data: object, where: str) -> T:
    """`data` (JSON data in today's shape) as a `cls`, by the type hints of its fields."""
    try:
        value: T = _decode(cls, data, "")
    except BlobMismatch as error:
        raise StoreError(f"{where} cannot be read: {error}") from None
    return value


def from_blob(cls: type[T], data: object, kind: BlobKind, where: str) -> T:
    """A stored `kind` blob (JSON data, versioned or not) as a `cls`."""
    return decode(cls, open_blob(data, kind, where), where)


def _at(path: str, part: str | int) -> str:
    return f"{path}[{part}]" if isinstance(part, int) else (f"{path}.{part}" if path else part)


def _decode(hint: Any, data: object, path: str) -> Any:
    if hint is Any or hint is object:
        return data
    if hint is None or hint is type(None):
        if data is not None:
            raise BlobMismatch(path, f"expected null, found {_shown(data)}")
        return None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return _decode_union(get_args(hint), data, path)
    if origin is Literal:
        if data not in get_args(hint):
            raise BlobMismatch(path, f"{_shown(data)} is not one of {get_args(hint)}")
        return data
    if origin is tuple:
        return _decode_tuple(get_args(hint), data, path)
    if origin is list:
        return list(_decode_tuple((get_args(hint)[0], ...), data, path))
    if origin is dict or origin is Mapping:
        return _decode_mapping(get_args(hint), data, path)
    if isinstance(hint, type):
        return _decode_type(hint, data, path)
    raise BlobMismatch(path, f"cannot decode a {hint!r}")


def _decode_type(cls: type, data: object, path: str) -> Any:
    if dataclasses.is_dataclass(cls):
        return _decode_dataclass(cls, data, path)
    if issubclass(cls, Enum):
        try:
            return cls(data)
        except ValueError:
            raise BlobMismatch(path, f"{_shown(data)} is not a {cls.__name__}") from None
    if cls is bool:
        if not isinstance(data, bool):
            raise BlobMismatch(path, f"expected true or false, found {_shown(data)}")
        return data
    if cls is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise BlobMismatch(path, f"expected a whole number, found {_shown(data)}")
        return data
    if cls is float:  # a whole number stays one, so the blob encodes back to the same JSON
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise BlobMismatch(path, f"expected a number, found {_shown(data)}")
        return data
    if cls is str:
        if not isinstance(data, str):
            raise BlobMismatch(path, f"expected text, found {_shown(data)}")
        return data
    if cls is tuple:
        return _decode_tuple((Any, ...), data, path)
    if cls is dict:
        return _decode_mapping((str, Any), data, path)
    raise BlobMismatch(path, f"cannot decode a {cls.__name__}")


def _decode_dataclass(cls: type, data: object, path: str) -> Any:
    if not isinstance(data, dict):
        raise BlobMismatch(path, f"expected an object ({cls.__name__}), found {_shown(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise BlobMismatch(path, f"{cls.__name__} has no field {', '.join(unknown)}")
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for name, spec in fields.items():
        if name in data:
            values[name] = _decode(hints[name], data[name], _at(path, name))
        elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            raise BlobMismatch(_at(path, name), f"missing (a {cls.__name__} needs it)")
    return cls(**values)


def _decode_tuple(args: tuple[Any, ...], data: object, path: str) -> tuple[Any, ...]:
    if not isinstance(data, list | tuple):
        raise BlobMismatch(path, f"expected a list, found {_shown(data)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], item, _at(path, i)) for i, item in enumerate(data))
    if args == ((),):  # tuple[()]
        args = ()
    if len(data) != len(args):
        raise BlobMismatch(path, f"expected a list of {len(args)}, found one of {len(data)}")
    pairs = enumerate(zip(args, data, strict=True))
    return tuple(_decode(arg, item, _at(path, i)) for i, (arg, item) in pairs)


def _decode_mapping(args: tuple[Any, ...], data: object, path: str) -> dict[Any, Any]:
    if not isinstance(data, dict):
        raise BlobMismatch(path, f"expected an object, found {_shown(data)}")
    key_hint, value_hint = args if args else (str, Any)
    return {
        _decode(key_hint, key, path): _decode(value_hint, value, _at(path, key))
        for key, value in data.items()
    }


def _decode_union(arms: tuple[Any, ...], data: object, path: str) -> Any:
    """The first arm `data` fits exactly, else the first it fits at all (a whole number where
    a float is expected)."""
    exact = [arm for arm in arms if _fits_as_is(arm, data)]
    for arm in [*exact, *(arm for arm in arms if arm not in exact)]:
        try:
            return _decode(arm, data, path)
        except BlobMismatch:
            continue
    raise BlobMismatch(path, f"{_shown(data)} fits none of {_union_name(arms)}")


def _fits_as_is(arm: Any, data: object) -> bool:
    if data is None:
        return arm is None or arm is type(None)
    if isinstance(data, bool):
        return arm is bool
    if isinstance(data, int):
        return arm is int
    if isinstance(data, float):
        return arm is float
    if isinstance(data, str):
        return arm is str
    return False


def _union_name(arms: tuple[Any, ...]) -> str:
    return " | ".join(getattr(arm, "__name__", None) or str(arm) for arm in arms)


def _shown(data: object) -> str:
    text = json.dumps(data) if not isinstance(data, tuple) else repr(data)
    return text if len(text) <= 40 else text[:37] + "..."
