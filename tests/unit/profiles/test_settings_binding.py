"""Every option table is bound to its profile's settings class, as fio's option table is bound
to `struct thread_options`: each option fills a field of a type its kind gives, every field is
filled by an option (or says what fills it), and what the table resolves, and every plan stored
by an earlier ssdlab, decodes into the class."""

import dataclasses
import json
import shutil
import sqlite3
import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest

from ssdlab.model.plan import QuickSettings
from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.profile import resolve_profile_settings
from ssdlab.plan.quick_settings import quick_settings, settings_pairs
from ssdlab.registry import profile_records, run_profiles
from ssdlab.store.quick_plans import is_pass_list_plan, migrate_pass_list_plan
from tests.conftest import ROOT

SPECS = {name: record.spec for name, record in profile_records().items()}
STORES = sorted((ROOT / "tests" / "data" / "store").glob("*.sqlite"))

# the Python type a value of each kind of option is
KIND_TYPES: dict[OptionKind, Any] = {
    OptionKind.SIZE: int,
    OptionKind.SIZES: tuple[int, ...],
    OptionKind.INT: int,
    OptionKind.INTS: tuple[int, ...],
    OptionKind.PCTS: tuple[int, ...],
    OptionKind.PCT: int,
    OptionKind.SECONDS: float,
    OptionKind.FLOAT: float,
    OptionKind.CHOICE: str,
    OptionKind.TEXT: str,
    OptionKind.FLAG: bool,
    OptionKind.COUNT: int,
    OptionKind.PLAIN_SECONDS: float,
}


def settings_type(spec: ProfileSpec) -> type[Any]:
    kind = spec.settings_type
    assert kind is not None, f"{spec.name}: the option table names no settings_type"
    return kind


def value_type(option: OptionSpec) -> Any:
    """The type of what the option puts in its field (a flag: its flag_value's)."""
    if option.kind is OptionKind.FLAG:
        return type(option.flag_value)
    return KIND_TYPES[option.kind]


def arms(hint: Any) -> set[Any]:
    return set(get_args(hint)) if get_origin(hint) in (Union, types.UnionType) else {hint}


def test_every_kind_of_option_has_a_type() -> None:
    assert set(KIND_TYPES) == set(OptionKind)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_settings_class_is_a_frozen_dataclass(name: str) -> None:
    kind = settings_type(SPECS[name])
    assert dataclasses.is_dataclass(kind)
    params = kind.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen, f"{kind.__name__} is not frozen"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_option_fills_a_field_of_its_type(name: str) -> None:
    spec = SPECS[name]
    kind = settings_type(spec)
    hints = get_type_hints(kind)
    fields = {f.name: f for f in dataclasses.fields(kind)}
    for option in spec.options:
        where = f"{name} {option.flag} → {kind.__name__}.{option.field_name}"
        assert option.field_name in fields, f"{where}: no such field"
        expected = {value_type(option)} | ({type(None)} if option.default is None else set())
        assert arms(hints[option.field_name]) == expected, (
            f"{where}: the field is {hints[option.field_name]}, the option gives "
            f"{' | '.join(getattr(t, '__name__', str(t)) for t in expected)}"
        )
        field = fields[option.field_name]
        if field.default is not dataclasses.MISSING:  # for plans stored before the field
            assert field.default == option.default, f"{where}: defaults differ"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_field_is_filled_by_an_option_or_says_what_fills_it(name: str) -> None:
    spec = SPECS[name]
    fields = {f.name for f in dataclasses.fields(settings_type(spec))}
    filled = {option.field_name for option in spec.options}
    elsewhere = dict(spec.filled_elsewhere)
    assert all(elsewhere.values()), f"{name}: say what fills each field no option fills"
    assert not filled & set(elsewhere), f"{name}: {sorted(filled & set(elsewhere))} are filled"
    assert fields == filled | set(elsewhere), (
        f"{name}: fields no option fills: {sorted(fields - filled - set(elsewhere))}; "
        f"options of no field: {sorted((filled | set(elsewhere)) - fields)}"
    )


@pytest.mark.parametrize("name", sorted(run_profiles()))
def test_a_run_profile_stores_each_option_under_the_field_it_fills(name: str) -> None:
    """A profile of `ssdlab run` stores its settings under its options' names; they are its
    fields' names, so a stored plan reads back field by field."""
    spec = SPECS[name]
    assert [option.field_name for option in spec.options] == [o.name for o in spec.options]
    defaults = resolve_profile_settings(spec, {})
    settings = decode_settings(settings_type(spec), defaults)
    assert {name: getattr(settings, name) for name, _ in defaults} == dict(defaults)


def test_quick_options_fill_quick_settings_through_the_table() -> None:
    given = {"measure": 2.0, "interval": 0.0, "mix": 60, "zero_fill": True, "count": 2}
    settings = quick_settings(given, size_bytes=64 * 2**20, direct_io=False)
    assert (settings.measure_s, settings.interval_s, settings.mix_read_pct) == (2.0, 0.0, 60)
    assert (settings.data, settings.count, settings.size_bytes) == ("zero", 2, 64 * 2**20)
    assert settings.direct_io is False
    assert decode_settings(QuickSettings, settings_pairs(settings)) == settings


@pytest.mark.parametrize("name", sorted(SPECS))
def test_choice_help_says_what_every_choice_does(name: str) -> None:
    for option in SPECS[name].options:
        if option.choice_help:
            assert option.kind is OptionKind.CHOICE, f"{option.flag}: choice help of no choice"
            assert tuple(value for value, _ in option.choice_help) == option.choices
            assert all(text for _, text in option.choice_help)


def stored_plans(tmp_path: Path) -> list[tuple[str, str, list[Any]]]:
    """(store, profile, settings pairs) of every plan the stores of earlier ssdlabs hold."""
    found = []
    for store in STORES:
        copy = tmp_path / store.name
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{store}{suffix}").exists():
                shutil.copy(f"{store}{suffix}", f"{copy}{suffix}")
        conn = sqlite3.connect(copy)
        rows = conn.execute("SELECT profile, plan_json FROM runs WHERE plan_json IS NOT NULL")
        for profile, text in rows:
            plan = json.loads(text)
            if profile not in SPECS or "settings" not in plan:
                continue
            if is_pass_list_plan(plan):
                plan = migrate_pass_list_plan(plan)
            found.append((store.name, profile, plan["settings"]))
        conn.close()
    return found


def test_plans_stored_by_earlier_versions_decode(tmp_path: Path) -> None:
    plans = stored_plans(tmp_path)
    assert {profile for _, profile, _ in plans} >= {"quick", "cache", "align", "fill", "endurance"}
    for store, profile, pairs in plans:
        settings = decode_settings(settings_type(SPECS[profile]), [tuple(p) for p in pairs])
        for name, value in pairs:
            shown = getattr(settings, name)
            assert shown == (tuple(value) if isinstance(value, list) else value), (store, name)


def test_a_cache_plan_stored_before_rate_decodes_with_no_rate() -> None:
    """--rate came after the first cache runs were stored: their plans lack it."""
    spec = SPECS["cache"]
    pairs = [(n, v) for n, v in resolve_profile_settings(spec, {}) if n != "rate"]
    assert decode_settings(settings_type(spec), pairs).rate is None
