"""The engine is pure: it imports nothing that reads a clock, the environment, the OS or AWS.

Read with ``ast`` (nothing is imported to find the imports), so an import inside a function
or under ``if TYPE_CHECKING:`` counts like one at the top of a module. Time and dice are the
engine's inputs (``now``, a ``Roller``); the production roller lives in the adapters.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "chalicelib" / "engine"

#: Modules that read a clock, the environment, the OS, randomness or the network, and the
#: project's own layers above the engine.
FORBIDDEN = {
    "os",
    "sys",
    "time",
    "random",
    "secrets",
    "socket",
    "threading",
    "subprocess",
    "boto3",
    "botocore",
    "chalicelib.adapters",
    "chalicelib.service",
    "chalicelib.wiring",
    "chalicelib.settings",
}


def imported_modules(source: str) -> set[str]:
    """Every absolute module an ``import`` or ``from ... import`` in ``source`` names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def forbidden(names: set[str]) -> set[str]:
    return {n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)}


def test_no_engine_module_imports_a_clock_the_environment_the_os_or_aws() -> None:
    found = {
        str(path.relative_to(ENGINE)): sorted(bad)
        for path in sorted(ENGINE.rglob("*.py"))
        if (bad := forbidden(imported_modules(path.read_text(encoding="utf-8"))))
    }
    assert found == {}


def test_the_check_sees_imports_anywhere_in_a_module() -> None:
    source = (
        "import os.path\n"
        "from chalicelib.adapters.dice import SecretsRoller\n"
        "def f():\n"
        "    import time\n"
        "import collections\n"
    )
    assert forbidden(imported_modules(source)) == {"os.path", "chalicelib.adapters.dice", "time"}
