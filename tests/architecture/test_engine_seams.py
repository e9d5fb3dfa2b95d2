"""The engine's seams hold: no import cycle, and each rule system is named only where it lives.

Both checks read the source with ``ast`` (nothing is imported to find the imports), so an
import inside a function, under ``if TYPE_CHECKING:`` or in any other block counts exactly like
one at the top of a module.

**An import edge** goes from a module to the module an ``import`` statement names: ``import
a.b`` and ``from a import b`` (when ``a/b.py`` or ``a/b/`` exists) give ``a.b``; ``from a import
name`` (``name`` defined in ``a``) gives ``a``. Relative imports are resolved against the
importing module's package. Python also runs a module's parent packages before the module;
those implicit steps are not edges (a package ``__init__`` that re-exports its modules would
otherwise close a loop with every module below it), but an explicit import of the package
(``from chalicelib.engine import Room``) is one.

**A rule system's name** is (1) a string literal equal to the system's registered name (its
``rules`` setting, e.g. ``"wild-stars"``), anywhere but in a docstring, or (2) an import of the
system's package or of any module in it (``chalicelib.engine.systems.wild_stars...``). Prose in
docstrings and comments is not a name. Outside ``chalicelib/engine/systems/<package>/`` (the
system's own package) and the registry (``chalicelib/engine/systems/__init__.py``), names may
appear in ``chalicelib/schemas.py`` on one line at most (the ``Rules`` literal), and nowhere
else in ``chalicelib/`` or ``app.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import fields
from itertools import pairwise
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from chalicelib import schemas
from chalicelib.engine.model import SETTING_CHOICES, Settings
from chalicelib.engine.systems import ACTION_BODIES, SYSTEMS, TURN_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "chalicelib" / "engine"
REGISTRY = ENGINE / "systems" / "__init__.py"
SCHEMA_FILE = ROOT / "chalicelib" / "schemas.py"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(path: Path, module: str | None = None) -> Iterator[tuple[str, int]]:
    """Every module an import statement of ``path`` names (see the module docstring), with its line.

    ``module`` is the file's module name (by default from its place in the repository).
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    package = (module or module_name(path)).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield (sub if is_module(sub) else target), node.lineno


def engine_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        name = module_name(path)
        graph[name] = {
            target
            for target, _ in imports_of(path)
            if target.startswith("chalicelib.engine") and target != name
        }
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_sees_deferred_and_type_checking_imports(tmp_path: Path) -> None:
    # the checker itself can fail: a loop of three, and imports hidden in blocks
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..model import Room\n"
        "def f():\n    from .. import game\n    from .. import Room\n"
    )
    got = set(imports_of(source, "chalicelib.engine.systems.probe"))
    # a name from a module: that module; a module of a package: that module; a name defined
    # in a package: the package itself
    assert got == {
        ("typing", 1),
        ("chalicelib.engine.model", 3),
        ("chalicelib.engine.game", 5),
        ("chalicelib.engine", 6),
    }


def test_no_import_cycle_in_the_engine_deferred_imports_included() -> None:
    graph = engine_graph()
    assert "chalicelib.engine.systems" in graph and "chalicelib.engine.model" in graph
    # the registry really is read: the shared model derives the settings from it
    assert "chalicelib.engine.systems" in graph["chalicelib.engine.model"]
    assert cycles(graph) == []


def test_no_rule_system_module_imports_the_shared_flow_or_the_registry() -> None:
    shared_flow = {
        "chalicelib.engine",
        "chalicelib.engine.game",
        "chalicelib.engine.model",
        "chalicelib.engine.room",
        "chalicelib.engine.views",
        "chalicelib.engine.systems",
    }
    for path in sorted((ENGINE / "systems").rglob("*.py")):
        if path == REGISTRY:
            continue
        used = {target for target, _ in imports_of(path)}
        assert not used & shared_flow, (path, used & shared_flow)


# -- names --------------------------------------------------------------------------------


def system_packages() -> dict[str, str]:
    """Each registered system's name and the package its implementation lives in."""
    out = {}
    for name, system in SYSTEMS.items():
        module = type(system).__module__
        assert module.startswith("chalicelib.engine.systems."), module
        out[name] = ".".join(module.split(".")[:4])
    return out


def docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        # an attribute docstring: a bare string right after an assignment
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for prev, cur in pairwise(body):
                if (
                    isinstance(prev, ast.Assign | ast.AnnAssign)
                    and isinstance(cur, ast.Expr)
                    and isinstance(cur.value, ast.Constant)
                ):
                    ids.add(id(cur.value))
    return ids


def names_in(
    path: Path, packages: dict[str, str], module: str | None = None
) -> list[tuple[str, int, str]]:
    """Every name of a rule system in ``path``: (system, line, what)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for name in packages:
                if node.value == name:
                    found.append((name, node.lineno, repr(node.value)))
    for target, line in imports_of(path, module):
        for name, package in packages.items():
            if target == package or target.startswith(package + "."):
                found.append((name, line, f"import {target}"))
    return found


def test_the_name_finder_sees_literals_and_imports_but_not_prose(tmp_path: Path) -> None:
    packages = system_packages()
    name, package = next(iter(packages.items()))
    probe = tmp_path / "probe.py"
    probe.write_text(
        f'"""Docstrings may say {name!r}."""\n'
        f"X = {name!r}\n"
        f'"""An attribute docstring: {name!r}."""\n'
        f"def f():\n    import {package}.rules\n"
    )
    got = names_in(probe, packages, "chalicelib.probe")
    assert sorted((n, line) for n, line, _ in got) == [(name, 2), (name, 5)]


def test_a_rule_system_is_named_only_in_its_package_the_registry_and_one_schema_line() -> None:
    packages = system_packages()
    sources = [ROOT / "app.py", *sorted((ROOT / "chalicelib").rglob("*.py"))]
    schema_lines: set[int] = set()
    outside = []
    for path in sources:
        if path == REGISTRY:
            continue
        for name, line, what in names_in(path, packages):
            own = ROOT.joinpath(*packages[name].split("."))
            if path.is_relative_to(own):
                continue
            if path == SCHEMA_FILE:
                schema_lines.add(line)
                continue
            outside.append((str(path.relative_to(ROOT)), line, what))
    assert outside == []
    assert len(schema_lines) <= 1


def test_the_schema_list_of_rule_systems_is_the_registry() -> None:
    assert get_args(schemas.Rules) == tuple(SYSTEMS)
    assert SETTING_CHOICES["rules"] == tuple(SYSTEMS)


# -- what each system declares ------------------------------------------------------------


def literal_type(body: type[BaseModel]) -> Any:
    (value,) = get_args(body.model_fields["type"].annotation)
    return value


def test_each_system_declares_one_action_body_per_turn_action_it_plays() -> None:
    for name, system in SYSTEMS.items():
        declared = [literal_type(body) for body in system.action_bodies]
        assert sorted(declared) == sorted(system.turn_actions), name
    assert [literal_type(body) for body in ACTION_BODIES] == list(TURN_ACTIONS)


def test_the_action_body_of_the_api_is_every_systems_actions_then_agree_and_resign() -> None:
    bodies = get_args(schemas.ActionBody.model_fields["root"].annotation)
    assert tuple(literal_type(b) for b in bodies) == (*TURN_ACTIONS, "agree", "resign")


def test_each_setting_a_system_owns_is_its_own_with_a_default_it_allows() -> None:
    shared = {f.name for f in fields(Settings)}
    for name, system in SYSTEMS.items():
        assert set(system.setting_defaults) == set(system.setting_choices), name
        for setting, choices in system.setting_choices.items():
            assert setting not in shared, (name, setting)  # never on the shared Settings
            assert system.setting_defaults[setting] in choices, (name, setting)
            assert SETTING_CHOICES[setting] == choices
            assert Settings().option(setting) == system.setting_defaults[setting]
