"""The layer rules of docs/architecture.md, checked on the source itself."""

import ast
import functools
from pathlib import Path

import pytest

from tests.conftest import ROOT

SRC = ROOT / "src" / "ssdlab"
PURE = ["model", "plan", "parse", "analysis", "report", "profiles", "sim"]
FORBIDDEN_IN_PURE = {
    "subprocess",
    "sqlite3",
    "random",
    "socket",
    "ssdlab.system",
    "ssdlab.store",
    "ssdlab.runner",
    "ssdlab.cli",
    "rich",
}
# The "may import" column of the layer table in docs/architecture.md, plus each package itself
# and `ssdlab.errors` where the package raises ssdlab's errors. "ssdlab" alone is
# `from ssdlab import __version__`, never a subpackage (see imports_of). A package (or a
# subpackage such as analysis/profiles/) is ruled by the row of its top-level package.
EVERYTHING = "ssdlab.*"
ALLOWED = {
    "model": {"ssdlab.model"},
    "parse": {"ssdlab.model", "ssdlab.errors", "ssdlab.parse"},
    "plan": {"ssdlab.model", "ssdlab.errors", "ssdlab.plan", "ssdlab.profiles"},
    "profiles": {"ssdlab.model", "ssdlab.errors", "ssdlab.profiles"},
    # analysis/model_fit*.py fits the simulator (sim/, pure too, below analysis)
    "analysis": {"ssdlab.model", "ssdlab.analysis", "ssdlab.sim"},
    "report": {"ssdlab.model", "ssdlab.analysis", "ssdlab.report", "ssdlab"},
    "store": {"ssdlab.model", "ssdlab.errors", "ssdlab.store"},
    "specs": {"ssdlab.model", "ssdlab.errors", "ssdlab.parse", "ssdlab.specs"},
    "sim": {"ssdlab.model", "ssdlab.errors", "ssdlab.sim"},
    # system/: never runner/, store/, report/ or cli/
    "system": {
        "ssdlab.model",
        "ssdlab.errors",
        "ssdlab.parse",
        "ssdlab.plan",
        "ssdlab.system",
        "ssdlab",
    },
    # runner/: every layer below it and store/; never report/ or cli/
    "runner": {
        "ssdlab.model",
        "ssdlab.errors",
        "ssdlab.profiles",
        "ssdlab.plan",
        "ssdlab.parse",
        "ssdlab.system",
        "ssdlab.analysis",
        "ssdlab.sim",
        "ssdlab.store",
        "ssdlab.runner",
        "ssdlab",
    },
    # registry/: binds each profile's spec, planner, facts reader, analysis and report
    "registry": {
        "ssdlab.model",
        "ssdlab.errors",
        "ssdlab.profiles",
        "ssdlab.plan",
        "ssdlab.parse",
        "ssdlab.system",
        "ssdlab.analysis",
        "ssdlab.report",
        "ssdlab.registry",
    },
    # fleet/: many hosts over SSH; nodes run ssdlab itself, runs come back through the store
    "fleet": {
        "ssdlab.model",
        "ssdlab.errors",
        "ssdlab.parse",
        "ssdlab.plan",
        "ssdlab.system",
        "ssdlab.analysis",
        "ssdlab.store",
        "ssdlab.runner",
        "ssdlab.app",
        "ssdlab.fleet",
        "ssdlab",
    },
    # monitoring/: the shipped Prometheus rules and Grafana dashboard, data only
    "monitoring": {"ssdlab.monitoring"},
    # app/: the use cases between the registry/runner and the command line; everything but cli/
    "app": {
        "ssdlab.model",
        "ssdlab.errors",
        "ssdlab.profiles",
        "ssdlab.plan",
        "ssdlab.parse",
        "ssdlab.specs",
        "ssdlab.system",
        "ssdlab.analysis",
        "ssdlab.sim",
        "ssdlab.store",
        "ssdlab.runner",
        "ssdlab.registry",
        "ssdlab.report",
        "ssdlab.fleet",
        "ssdlab.monitoring",
        "ssdlab.app",
        "ssdlab",
    },
    "cli": {EVERYTHING},
}
# top-level modules of src/ssdlab: what each may import
MODULES = {
    "__init__.py": set(),
    "errors.py": set(),
    "__main__.py": {"ssdlab.cli"},
    "guard.py": {"ssdlab.system"},
}
ENTRY_POINTS = {"__main__.py", "guard.py"}  # top-level modules that are a process's main
# imports that break the table today and that issue 18 removes; each entry must still be
# there (the test says when to delete it), so the list only ever shrinks
PENDING: set[tuple[str, str]] = set()


@functools.cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `path`'s syntax tree (`ast.walk`'s order), parsed and walked once for all
    the rules (none of them changes a tree)."""
    return tuple(ast.walk(ast.parse(path.read_text())))


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module a `from` import names, a relative one resolved against `path`'s package."""
    if node.level == 0:
        return node.module or ""
    package = ["ssdlab", *path.relative_to(SRC).parent.parts]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


@functools.cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module `path` imports, anywhere in it (function-local and TYPE_CHECKING too).

    `from ssdlab import cli` and `from . import args` count as imports of the subpackage or
    module they name, so no layer is crossed unseen."""
    found: set[str] = set()
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            found.add(module)
            if module.startswith("ssdlab"):
                folder = SRC.joinpath(*module.split(".")[1:])
                found |= {
                    f"{module}.{alias.name}"
                    for alias in node.names
                    if (folder / alias.name).is_dir() or (folder / f"{alias.name}.py").exists()
                }
    return frozenset(found)


def files(package: str) -> list[Path]:
    """Every module of `package`, its subpackages included."""
    return sorted((SRC / package).rglob("*.py"))


def is_allowed(module: str, allowed: set[str]) -> bool:
    # "ssdlab" allows `from ssdlab import __version__`, not every subpackage
    return EVERYTHING in allowed or any(
        module == a or (a != "ssdlab" and module.startswith(a + ".")) for a in allowed
    )


@pytest.mark.parametrize("package", PURE)
def test_pure_packages_touch_no_process_database_or_randomness(package: str) -> None:
    for path in files(package):
        bad = {
            m
            for m in imports_of(path)
            for f in FORBIDDEN_IN_PURE
            if m == f or m.startswith(f + ".")
        }
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def own_imports(path: Path) -> set[str]:
    return {m for m in imports_of(path) if m == "ssdlab" or m.startswith("ssdlab.")}


def pending(path: Path) -> set[str]:
    return {m for f, m in PENDING if SRC / f == path}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_ssdlab_imports_flow_one_way(package: str) -> None:
    for path in files(package):
        bad = {m for m in own_imports(path) if not is_allowed(m, ALLOWED[package])}
        assert bad <= pending(path), (
            f"{path.relative_to(ROOT)} imports {sorted(bad - pending(path))}, but {package}/ may "
            f"import only {sorted(ALLOWED[package])} (the layer table of docs/architecture.md; "
            "if the table changed, change ALLOWED in tests/unit/test_layers.py to match it)"
        )


def test_every_package_and_module_has_a_layer_rule() -> None:
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    modules = {p.name for p in SRC.glob("*.py")}
    assert packages <= set(ALLOWED), (
        f"no layer rule for {sorted(packages - set(ALLOWED))}: add its row of the table in "
        "docs/architecture.md to ALLOWED in tests/unit/test_layers.py"
    )
    assert modules <= set(MODULES), f"no layer rule for {sorted(modules - set(MODULES))}"
    for name in sorted(modules):
        path = SRC / name
        bad = {m for m in own_imports(path) if not is_allowed(m, MODULES[name])}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_only_the_cli_and_main_import_the_cli() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] in {"cli", "__main__.py"}:
            continue
        bad = {m for m in own_imports(path) if m == "ssdlab.cli" or m.startswith("ssdlab.cli.")}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: only cli/ may"


def test_pending_exceptions_are_still_needed() -> None:
    for file, module in sorted(PENDING):
        assert module in own_imports(SRC / file), (
            f"src/ssdlab/{file} no longer imports {module}: "
            "delete its entry from PENDING in tests/unit/test_layers.py"
        )


def test_no_relative_imports() -> None:
    """Imports name their module in full (`from ssdlab.cli.arg_types import ...`), project-wide,
    so an import reads the same wherever it is moved and the layer rules see every one."""
    for path in sorted(SRC.rglob("*.py")):
        for node in nodes_of(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                pytest.fail(
                    f"{path.relative_to(ROOT)}:{node.lineno} imports relatively "
                    f"(from {'.' * node.level}{node.module or ''}): "
                    f"write `from {_absolute(path, node)} import ...`"
                )


def test_no_shell_anywhere() -> None:
    for path in sorted(SRC.rglob("*.py")):
        for node in nodes_of(path):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno} passes shell=")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in {"system", "popen"}
                and (isinstance(node.value, ast.Name) and node.value.id == "os")
            ):
                pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno} uses os.{node.attr}")


def test_only_the_cli_knows_argparse() -> None:
    """Below the command line nothing takes or returns an argparse Namespace: the command line
    turns its options into typed requests (app/) and values; nothing else imports argparse or
    names it."""
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] in {"cli", "__main__.py"}:
            continue
        assert "argparse" not in imports_of(path), f"{path.relative_to(ROOT)} imports argparse"
        for node in nodes_of(path):
            named = (isinstance(node, ast.Name) and node.id in {"argparse", "Namespace"}) or (
                isinstance(node, ast.Attribute) and node.attr == "Namespace"
            )
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            assert not named, f"{where} names argparse"


def test_no_print_or_exit_below_the_cli() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if "cli" in path.relative_to(SRC).parts or str(path.relative_to(SRC)) in ENTRY_POINTS:
            continue
        for node in nodes_of(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"print", "exit", "quit"}, (
                    f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}()"
                )
            if isinstance(node, ast.Attribute) and node.attr in {"exit", "_exit"}:
                assert not (isinstance(node.value, ast.Name) and node.value.id in {"sys", "os"}), (
                    f"{path.relative_to(ROOT)}:{node.lineno} exits"
                )
