"""Stored verdicts (a finding's JSON body) read back as the analysis dataclasses they were
made from, so that a report lays out what was stored rather than computing it again.

A body holds a dataclass's fields (nested dataclasses as objects, tuples as lists); keys the
class does not have (what the analysis added beside the fields, such as `total_bytes`) are
left out, and a field the body lacks takes the class's default, else None.
"""

import dataclasses
import types
from collections.abc import Mapping
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")


def verdict_of(cls: type[T], body: Mapping[str, Any]) -> T:
    """The `cls` dataclass a stored body was encoded from."""
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field.name in body:
            values[field.name] = _value_of(hints[field.name], body[field.name])
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            values[field.name] = None
    return cls(**values)


def _value_of(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return _value_of(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value_of(args[0], item) for item in value)
        return tuple(_value_of(arg, item) for arg, item in zip(args, value, strict=True))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return verdict_of(hint, value)
    return value
