"""The TypeScript SDK (``clients/typescript``) installs, builds and passes its own tests.

Its ``npm test`` starts this project's local server (the ``liars-dice`` next to this Python),
plays a whole game of each rule system through the SDK and validates every message against
``docs/openapi.json`` and ``docs/asyncapi.json``; see docs/SDK.md. Node 20+ and npm are
required: CI installs Debian's ``nodejs`` and ``npm`` (``.ci/run``), so a missing Node fails
this test rather than skipping it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SDK = ROOT / "clients" / "typescript"


def _run(command: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(
        command, cwd=SDK, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{output[-6000:]}"
    return output


def test_typescript_sdk_builds_and_passes_its_tests() -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node is not None and npm is not None, (
        "node and npm are needed for the TypeScript SDK's tests: "
        "apt-get install nodejs npm (CI does, in .ci/run)"
    )
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    major = int(version.stdout.strip().lstrip("v").split(".")[0])
    assert major >= 20, f"the SDK needs Node 20 or newer, found {version.stdout.strip()}"

    serve = Path(sys.executable).parent / "liars-dice"
    env = {**os.environ, "LIARS_DICE_BIN": str(serve)}
    _run([npm, "ci", "--no-audit", "--no-fund"], env)
    _run([npm, "run", "build"], env)
    output = _run([npm, "test"], env)
    # node's test runner summary: every test ran and passed (the games of all four systems).
    assert "# fail 0" in output, output[-3000:]
    for rules in ("classic", "wild-stars", "poker", "perudo"):
        assert re.search(rf"^ok \d+ - a whole {rules} game", output, re.M), output[-3000:]
