"""The two stores share their policy through ``adapters.policy`` and nothing else.

Read from the source with ``ast`` (nothing imported): the SQLite package imports no DynamoDB
module and the DynamoDB package no SQLite module, and SQLite's live-row filter is written in
one place.
"""

from __future__ import annotations

import ast
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parents[2] / "chalicelib" / "adapters"


def _imports(package: str) -> dict[str, set[str]]:
    """Every module imported by each module of ``adapters/<package>``."""
    found: dict[str, set[str]] = {}
    for path in sorted((ADAPTERS / package).glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[path.name] = names
    return found


def test_the_sqlite_store_imports_no_dynamodb_module() -> None:
    imports = _imports("sqlite")
    assert {"rooms.py", "users.py", "records.py", "_base.py"} <= set(imports)
    crossing = {
        module: sorted(n for n in names if n.startswith("chalicelib.adapters.dynamo"))
        for module, names in imports.items()
    }
    assert {m: names for m, names in crossing.items() if names} == {}


def test_the_dynamodb_store_imports_no_sqlite_module() -> None:
    imports = _imports("dynamo")
    crossing = {
        module: sorted(n for n in names if n.startswith("chalicelib.adapters.sqlite"))
        for module, names in imports.items()
    }
    assert {m: names for m, names in crossing.items() if names} == {}


def test_both_stores_take_their_policy_from_the_one_module() -> None:
    for package in ("sqlite", "dynamo"):
        users = {
            m for m, names in _imports(package).items() if "chalicelib.adapters.policy" in names
        }
        assert {"rooms.py", "users.py", "chat.py", "connections.py", "limits.py"} <= users


def test_the_live_row_filter_is_written_once() -> None:
    places = {
        path.name: path.read_text(encoding="utf-8").count("expires_at IS NULL OR")
        for path in (ADAPTERS / "sqlite").glob("*.py")
    }
    assert {name: n for name, n in places.items() if n} == {"_base.py": 1}
