"""The shape of ``chalicelib/service/``, held: use cases by area, domain errors only, one
executor of effects, typed events, files a reader can take in.

Read from the source with ``ast``; nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "chalicelib" / "service"
MAX_LINES = 600
"""A module longer than this says why at its top (a line containing ``longer than 600``)."""
HTTP_ERRORS = {"ApiError", "unauthorized", "forbidden", "not_found", "rate_limited", "conflict"}


def modules() -> dict[str, ast.Module]:
    return {
        path.name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for path in sorted(SERVICE.glob("*.py"))
    }


def test_the_service_is_a_package_of_modules_by_area() -> None:
    assert not (ROOT / "chalicelib" / "service.py").exists()
    names = set(modules())
    assert {"core.py", "limits.py", "accounts.py", "lobby.py", "play.py", "records.py"} <= names
    assert {"chat.py", "errors.py", "events.py"} <= names


def test_no_use_case_chooses_an_http_status() -> None:
    found = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "chalicelib.errors":
                found.append(f"{name}: imports chalicelib.errors")
            if isinstance(node, ast.Name) and node.id in HTTP_ERRORS:
                found.append(f"{name}:{node.lineno}: {node.id}")
    assert found == []


def _runs_effects(node: ast.AST) -> bool:
    """A call of ``effects.run(...)`` (``run`` itself cannot be imported: see below)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "run"
        and (isinstance(func.value, ast.Name) and func.value.id == "effects")
    )


def test_effects_run_only_in_the_one_executor_of_the_core() -> None:
    callers = []
    for name, tree in modules().items():
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and any(_runs_effects(n) for n in ast.walk(fn)):
                callers.append(f"{name}:{fn.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "chalicelib.effects":
                callers.append(f"{name}: from chalicelib.effects import ...")
    assert callers == ["core.py:_execute"]


def test_the_use_cases_make_no_event_dicts_on_the_spot() -> None:
    # An event is a dataclass recorded by events.record: no {"type": ...} literal in a use case.
    found = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "type" for k in node.keys
            ):
                found.append(f"{name}:{node.lineno}")
    assert found == []


def test_no_service_module_is_longer_than_600_lines_without_saying_why() -> None:
    long = []
    for path in sorted(SERVICE.glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > MAX_LINES and not any("longer than 600" in line for line in lines[:15]):
            long.append(f"{path.name}: {len(lines)} lines")
    assert long == []


def test_every_rate_limit_is_a_row_of_the_limits_table() -> None:
    # store.hit (the counter) is called by limits.hit alone, so a limit cannot hide in a use case.
    hits = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "hit":
                owner = node.value
                if isinstance(owner, ast.Attribute) and owner.attr == "store":
                    hits.append(name)
    assert hits == ["limits.py"]


def test_no_module_of_the_server_is_longer_than_600_lines_without_saying_why() -> None:
    # The same rule for app.py and every module of chalicelib and liars_local: a long module
    # says in its docstring why it is one module ("over 600 lines" or "longer than 600").
    root = SERVICE.parents[1]
    long = []
    paths = [root / "app.py"]
    for package in ("chalicelib", "liars_local"):
        paths += sorted((root / package).rglob("*.py"))
    for path in paths:
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        says_why = "over 600 lines" in doc or "longer than 600" in doc
        if len(text.splitlines()) > MAX_LINES and not says_why:
            long.append(f"{path.relative_to(root)}: {len(text.splitlines())} lines")
    assert long == []
