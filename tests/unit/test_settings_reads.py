"""Settings are read as fields of a profile's typed class, never by their names as text.

A plan's settings are decoded once (model/typed_settings.decode_settings) into the class its
option table fills; planners, analyses, reports and runners then read `settings.iodepth`. This
test fails on the string readers that came before: `plan.setting("iodepth")`, the typed reads
of plan/profile.Values (`values.text("pattern")`, `values.get(…)`, …), and a name looked up as
text in a plan's settings or in a settings mapping (`dict(plan.settings).get("until_wear")`,
`given["fstrim"]` where `given: Settings`). Only the options layer, which turns what was given
into the class, reads settings by name.
"""

import ast
import re

import pytest

from tests.unit.test_layers import SRC

# the options layer: (module, why it may read settings by name)
OPTIONS_LAYER = {
    "plan/quick_settings.py": "decodes the quick suite's settings: command line over preset",
    "app/given_settings.py": "reads what options name outside ssdlab (--job-file, --from-run)",
}
# the packages that hold profile settings: a local `values` elsewhere (parse/, system/) is
# some other mapping
SETTINGS_PACKAGES = ("plan", "profiles", "analysis", "report", "registry", "runner", "cli")
VALUES_READERS = frozenset(
    {"raw", "integer", "optional_integer", "number", "optional_number", "integers", "text"}
    | {"flag", "get"}
)
SETTINGS_ANNOTATION = re.compile(r"\bSettings\b|\bSettingValue\b")


def _is_plan(node: ast.expr) -> bool:
    """`plan`, or `<anything>.plan` (results.plan)."""
    return (isinstance(node, ast.Name) and node.id == "plan") or (
        isinstance(node, ast.Attribute) and node.attr == "plan"
    )


def _plan_settings(node: ast.expr) -> bool:
    """`plan.settings`, or `dict(plan.settings)`."""
    if isinstance(node, ast.Attribute) and node.attr == "settings":
        return _is_plan(node.value)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and len(node.args) == 1
        and _plan_settings(node.args[0])
    )


def _settings_annotation(annotation: ast.expr | None) -> bool:
    return annotation is not None and bool(SETTINGS_ANNOTATION.search(ast.unparse(annotation)))


def _settings_names(function: ast.AST) -> set[str]:
    """Names in `function` that hold settings: bound to a plan's settings, or annotated as a
    settings mapping."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _plan_settings(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if _settings_annotation(node.annotation):
                names.add(node.target.id)
        elif isinstance(node, ast.arg) and _settings_annotation(node.annotation):
            names.add(node.arg)
    return names


def _named_values(node: ast.expr) -> bool:
    """`values`, or `<anything>.values` (setup.values)."""
    return (isinstance(node, ast.Name) and node.id == "values") or (
        isinstance(node, ast.Attribute) and node.attr == "values"
    )


def _holds_settings(node: ast.expr, names: set[str]) -> bool:
    return _plan_settings(node) or (isinstance(node, ast.Name) and node.id in names)


def _literal(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def string_reads(source: str, package: str) -> list[str]:
    """Each read of a setting by its name as text in `source` (a module of `package`), as
    'line: code'."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope in [tree, *scopes]:
        names = _settings_names(scope) if scope is not tree else set()
        for node in ast.walk(scope):
            bad = False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                method, owner = node.func.attr, node.func.value
                bad = (
                    method == "setting"
                    or (
                        package in SETTINGS_PACKAGES
                        and method in VALUES_READERS
                        and _named_values(owner)
                    )
                    or (
                        method == "get"
                        and bool(node.args)
                        and _literal(node.args[0])
                        and _holds_settings(owner, names)
                    )
                )
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                bad = _literal(node.slice) and _holds_settings(node.value, names)
            if bad:
                found.append((node.lineno, ast.unparse(node)))  # type: ignore[attr-defined]
    return [f"{line}: {code}" for line, code in sorted(set(found))]


def test_settings_are_read_as_fields_outside_the_options_layer() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        reads = string_reads(path.read_text(), path.relative_to(SRC).parts[0])
        if module not in OPTIONS_LAYER and reads:
            found[module] = reads
    assert not found, (
        "settings read by name as text (decode them with model/typed_settings.decode_settings "
        f"and read their fields): {found}"
    )


def test_the_options_layer_is_still_where_settings_are_read_by_name() -> None:
    for module in OPTIONS_LAYER:
        path = SRC / module
        assert string_reads(path.read_text(), path.relative_to(SRC).parts[0]), (
            f"{module} reads no setting by name: take it out of OPTIONS_LAYER"
        )


@pytest.mark.parametrize(
    "code",
    [
        "def f(plan):\n    return plan.setting('iodepth')",
        "def f(values):\n    return values.text('pattern')",
        "def f(values):\n    return values.get('pattern')",
        "def f(setup):\n    return setup.values.optional_number('wipc_multiple')",
        "def f(plan):\n    return dict(plan.settings).get('until_wear')",
        "def f(results):\n    return dict(results.plan.settings)['from_run']",
        "def f(plan):\n    s = dict(plan.settings)\n    return s.get('last_hours')",
        "def f(given: Settings):\n    return given['fstrim']",
        "def f(settings: Mapping[str, SettingValue]):\n    return settings.get('rate')",
    ],
)
def test_each_string_reader_is_found(code: str) -> None:
    assert string_reads(code, "plan"), code


def test_fields_and_other_mappings_are_not_string_reads() -> None:
    code = (
        "def f(plan, run, point, values, settings: CacheSettings):\n"
        "    s = decode_settings(CacheSettings, plan.settings)\n"
        "    return s.rate, settings.iodepth, run.settings.get('source_tool'), "
        "point.settings['pe_cycles'], plan.param('element_s')\n"
    )
    assert string_reads(code, "report") == []
    assert string_reads("def f(values):\n    return values.get('host')", "parse") == []
