"""ssdlab's own modules import one another without a cycle: every import counts, those inside
functions too (a function-local import must not stand in for a cycle)."""

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ROOT

SRC = ROOT / "src"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, modules: set[str]) -> Iterator[str]:
    """The project modules one import statement loads: `from a.b import c` is a.b.c when that
    is a module, else a.b."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names if alias.name in modules)
        return
    base = node.module or ""  # relative imports are refused by test_layers
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            yield f"{base}.{alias.name}"
        elif base in modules:
            yield base


def import_graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in sorted((SRC / "ssdlab").rglob("*.py"))}
    modules = set(paths)
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(m for m in _imported(node, modules) if m != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as the modules along it (first = last), or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph.get(node, ())):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done and (cycle := visit(target)):
                return cycle
        on_path.discard(path.pop())
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done and (cycle := visit(start)):
            return cycle
    return None


def test_the_graph_holds_every_kind_of_import() -> None:
    graph = import_graph()
    assert "ssdlab.model.units" in graph["ssdlab.cli.arg_types"]  # from a.b import name
    assert "ssdlab.cli.fleet_options" in graph["ssdlab.cli.main"]  # from a import module
    assert "ssdlab.store.db" in graph["ssdlab.cli.main"]  # inside a function


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())
