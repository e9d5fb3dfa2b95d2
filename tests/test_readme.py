"""The README opens with the two set-up commands, and CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.+?)\n```", text)


def test_readme_opens_with_serve_and_test_commands() -> None:
    serve, test = _commands()[:2]
    assert "liars-dice serve" in serve
    assert "pip install -e ." in serve
    assert test.endswith("pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _commands()[1] in ci


def test_code_is_ruff_clean_and_formatted() -> None:
    """The house tools agree with the tree (STYLE.md: ruff for lint and format)."""
    import subprocess
    import sys

    ruff = [sys.executable, "-m", "ruff"]
    lint = subprocess.run([*ruff, "check", "--quiet", str(ROOT)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout[-2000:]
    fmt = subprocess.run(
        [*ruff, "format", "--check", "--quiet", str(ROOT)], capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout[-2000:]


def test_chalicelib_passes_mypy_strict() -> None:
    """STYLE.md: mypy strict on chalicelib/ (configured in pyproject.toml)."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "mypy", "chalicelib", "app.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:]
