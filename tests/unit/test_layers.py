"""The layer rules of docs/architecture.md, checked on the source itself."""

import ast
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
ALLOWED = {
    "model": {"ssdlab.model"},
    "parse": {"ssdlab.model", "ssdlab.errors", "ssdlab.parse"},
    "plan": {"ssdlab.model", "ssdlab.errors", "ssdlab.plan", "ssdlab.profiles"},
    "profiles": {"ssdlab.model", "ssdlab.errors", "ssdlab.profiles"},
    "analysis": {"ssdlab.model", "ssdlab.analysis"},
    "report": {"ssdlab.model", "ssdlab.analysis", "ssdlab.report", "ssdlab"},
    "store": {"ssdlab.model", "ssdlab.errors", "ssdlab.store"},
    "specs": {"ssdlab.model", "ssdlab.errors", "ssdlab.parse", "ssdlab.specs"},
    "sim": {"ssdlab.model", "ssdlab.errors", "ssdlab.sim"},
}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def files(package: str) -> list[Path]:
    return sorted((SRC / package).glob("*.py"))


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


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_ssdlab_imports_flow_one_way(package: str) -> None:
    for path in files(package):
        own = {m for m in imports_of(path) if m == "ssdlab" or m.startswith("ssdlab.")}
        # "ssdlab" itself allows `from ssdlab import __version__`, not every subpackage
        bad = {
            m
            for m in own
            if not any(
                m == a or (a != "ssdlab" and m.startswith(a + ".")) for a in ALLOWED[package]
            )
        }
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_no_shell_anywhere() -> None:
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno} passes shell=")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in {"system", "popen"}
                and (isinstance(node.value, ast.Name) and node.value.id == "os")
            ):
                pytest.fail(f"{path.relative_to(ROOT)}:{node.lineno} uses os.{node.attr}")


def test_no_print_or_exit_below_the_cli() -> None:
    for path in sorted(SRC.rglob("*.py")):
        if "cli" in path.relative_to(SRC).parts or path.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"print", "exit", "quit"}, (
                    f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}()"
                )
            if isinstance(node, ast.Attribute) and node.attr in {"exit", "_exit"}:
                assert not (isinstance(node.value, ast.Name) and node.value.id in {"sys", "os"}), (
                    f"{path.relative_to(ROOT)}:{node.lineno} exits"
                )
