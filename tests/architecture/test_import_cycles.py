"""No import cycle anywhere in ``chalicelib``: every import counts, at the top of a module or
deferred inside a function (a deferred import only hides a cycle, it does not remove it).

The graph is read from the source with ``ast``, so nothing is imported to check it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "chalicelib"

Graph = dict[str, set[str]]


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root`` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The known module ``name`` is, or the closest package above it that is known."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported(module: str, path: Path, known: dict[str, Path]) -> Iterable[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):  # every import, however deeply nested
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name, known)
                if target is not None:
                    yield target
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from pkg import mod`` imports the module pkg.mod when there is one.
                target = _resolve(f"{source}.{alias.name}", known) if source else None
                if target is None or target != f"{source}.{alias.name}":
                    target = _resolve(source, known)
                if target is not None:
                    yield target


def import_graph(root: Path, package: str) -> Graph:
    """Which modules of ``package`` each of its modules imports (itself left out)."""
    known = modules(root, package)
    return {
        name: {t for t in _imported(name, path, known) if t != name} for name, path in known.items()
    }


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_anywhere_in_chalicelib() -> None:
    graph = import_graph(ROOT, PACKAGE)
    assert "chalicelib.service" in graph and "chalicelib.engine.model" in graph
    assert cycles(graph) == []


def test_the_service_never_imports_the_realtime_handlers_or_the_wiring() -> None:
    graph = import_graph(ROOT, PACKAGE)
    service = [m for m in graph if m == "chalicelib.service" or m.startswith("chalicelib.service.")]
    assert "chalicelib.service.core" in service and "chalicelib.service.lobby" in service
    for module in service:
        assert not graph[module] & {"chalicelib.realtime", "chalicelib.wiring"}, module
        assert module not in graph["chalicelib.effects"]


def test_a_cycle_through_a_deferred_import_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import c\n")
    (pkg / "c.py").write_text("import pkg.a as a\n")
    (pkg / "d.py").write_text("from pkg.a import thing\nfrom . import c\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
