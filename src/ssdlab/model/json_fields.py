"""Dataclasses as JSON, field by field: `encode` and `dumps` write a frozen dataclass as an
object of its fields (tuples as lists, enums as their values, mappings as objects), and
`decode_fields` builds it back by the type hints of its fields — nested dataclasses, tuples of
any length or fixed, enums, optionals, unions such as `SettingValue`, mappings. What does not
fit (a missing field, a field the class does not have, a value of another type) is a
`FieldMismatch` that says where, never a field dropped in silence; a field missing from the
JSON takes the class's default. The store's blobs (store/codec.py) are read through it.

Kept rather than msgspec or cattrs (tried, docs/store.md): neither refuses an unknown field of
a stdlib dataclass with exact scalar types and a whole number kept whole in a float field.
"""

import dataclasses
import functools
import json
import types
from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")


class FieldMismatch(ValueError):
    """JSON that does not fit the type it is decoded as; `path` says where in the JSON."""

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


def decode_fields(cls: type[T], data: object) -> T:
    """`data` (JSON data) as a `cls`, by the type hints of its fields."""
    value: T = _decode(cls, data, "")
    return value


def _at(path: str, part: str | int) -> str:
    return f"{path}[{part}]" if isinstance(part, int) else (f"{path}.{part}" if path else part)


def _decode(hint: Any, data: object, path: str) -> Any:
    if hint is Any or hint is object:
        return data
    if hint is None or hint is type(None):
        if data is not None:
            raise FieldMismatch(path, f"expected null, found {_shown(data)}")
        return None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return _decode_union(get_args(hint), data, path)
    if origin is Literal:
        if data not in get_args(hint):
            raise FieldMismatch(path, f"{_shown(data)} is not one of {get_args(hint)}")
        return data
    if origin is tuple:
        return _decode_tuple(get_args(hint), data, path)
    if origin is list:
        return list(_decode_tuple((get_args(hint)[0], ...), data, path))
    if origin is dict or origin is Mapping:
        return _decode_mapping(get_args(hint), data, path)
    if isinstance(hint, type):
        return _decode_type(hint, data, path)
    raise FieldMismatch(path, f"cannot decode a {hint!r}")


def _decode_type(cls: type, data: object, path: str) -> Any:
    if dataclasses.is_dataclass(cls):
        return _decode_dataclass(cls, data, path)
    if issubclass(cls, Enum):
        try:
            return cls(data)
        except ValueError:
            raise FieldMismatch(path, f"{_shown(data)} is not a {cls.__name__}") from None
    if cls in (bool, int, float, str):
        return _decode_scalar(cls, data, path)
    if cls is tuple:
        return _decode_tuple((Any, ...), data, path)
    if cls is dict:
        return _decode_mapping((str, Any), data, path)
    raise FieldMismatch(path, f"cannot decode a {cls.__name__}")


def _decode_scalar(cls: type, data: object, path: str) -> Any:
    """A bool, int, float or str, refused when the JSON holds another kind of value."""
    if cls is bool:
        if not isinstance(data, bool):
            raise FieldMismatch(path, f"expected true or false, found {_shown(data)}")
        return data
    if cls is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise FieldMismatch(path, f"expected a whole number, found {_shown(data)}")
        return data
    if cls is float:  # a whole number stays one, so the blob encodes back to the same JSON
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise FieldMismatch(path, f"expected a number, found {_shown(data)}")
        return data
    if not isinstance(data, str):
        raise FieldMismatch(path, f"expected text, found {_shown(data)}")
    return data


def _decode_dataclass(cls: type, data: object, path: str) -> Any:
    if not isinstance(data, dict):
        raise FieldMismatch(path, f"expected an object ({cls.__name__}), found {_shown(data)}")
    fields = _fields_of(cls)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise FieldMismatch(path, f"{cls.__name__} has no field {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, (hint, required) in fields.items():
        if name in data:
            values[name] = _decode(hint, data[name], _at(path, name))
        elif required:
            raise FieldMismatch(_at(path, name), f"missing (a {cls.__name__} needs it)")
    return cls(**values)


@functools.cache
def _fields_of(cls: type) -> dict[str, tuple[Any, bool]]:
    """A dataclass's fields given to its constructor: name -> (type hint, whether required).
    Read once per class (type hints are slow to resolve)."""
    hints = get_type_hints(cls)
    return {
        f.name: (
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
        if f.init
    }


def _decode_tuple(args: tuple[Any, ...], data: object, path: str) -> tuple[Any, ...]:
    if not isinstance(data, list | tuple):
        raise FieldMismatch(path, f"expected a list, found {_shown(data)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], item, _at(path, i)) for i, item in enumerate(data))
    if args == ((),):  # tuple[()]
        args = ()
    if len(data) != len(args):
        raise FieldMismatch(path, f"expected a list of {len(args)}, found one of {len(data)}")
    pairs = enumerate(zip(args, data, strict=True))
    return tuple(_decode(arg, item, _at(path, i)) for i, (arg, item) in pairs)


def _decode_mapping(args: tuple[Any, ...], data: object, path: str) -> dict[Any, Any]:
    if not isinstance(data, dict):
        raise FieldMismatch(path, f"expected an object, found {_shown(data)}")
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
        except FieldMismatch:
            continue
    raise FieldMismatch(path, f"{_shown(data)} fits none of {_union_name(arms)}")


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
