"""A profile's settings, as a plan keeps them ((name, value) pairs), read as its typed class.

`decode_settings` is the one reading of settings: the planners decode what the option table
resolved, and analyses, reports and runners decode what a stored plan holds. Either way the
pairs are named after the class's fields (model/profile_settings.py, `QuickSettings`), so a
field is read as `settings.iodepth`, never by its name as text.
"""

import dataclasses
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin, get_type_hints

from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import SettingValue

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

S = TypeVar("S", bound="DataclassInstance")


def decode_settings(kind: type[S], pairs: Iterable[tuple[str, SettingValue]]) -> S:
    """The settings `pairs` as a `kind`: every value checked against its field's type (a
    ValueError naming the field when it does not fit), a whole number in a float field made a
    float, a field the pairs lack given its default (a field added after the plan was stored;
    without a default, a ValueError), a name `kind` has no field for refused."""
    decoded = decode_fields(kind, dict(pairs))
    hints = get_type_hints(kind)
    floats = {
        field.name: float(value)
        for field in dataclasses.fields(kind)
        if _holds_float(hints[field.name])
        and isinstance(value := getattr(decoded, field.name), int)
        and not isinstance(value, bool)
    }
    return dataclasses.replace(decoded, **floats) if floats else decoded


def _holds_float(hint: Any) -> bool:
    """float, or float | None."""
    if get_origin(hint) in (Union, types.UnionType):
        return float in get_args(hint)
    return hint is float
