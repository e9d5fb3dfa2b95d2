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


def test_readme_links_only_to_documents_the_project_carries() -> None:
    """A clone has no ``../shared``: every link of the README resolves inside the repository."""
    text = (ROOT / "README.md").read_text()
    assert "../shared" not in text
    links = re.findall(r"\]\(([^)#]+)\)", text)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert {"docs/RULES.md", "docs/API.md", "docs/openapi.json"} <= set(local)
    for link in local:
        assert (ROOT / link).exists(), link
    for needed in ("Python 3.11", "--host 0.0.0.0", "register", "web game"):
        assert needed in text, needed


def test_api_md_documents_every_field_decisions_md_lists() -> None:
    decisions = (ROOT / "docs" / "DECISIONS.md").read_text()
    table = decisions.split("## Additions to API.md", 1)[1].split("\n## ", 1)[0]
    fields: set[str] = set()
    for row in table.splitlines():
        cells = row.split("|")
        if len(cells) > 3 and "`" in cells[2]:
            fields.update(re.findall(r"`([^`]+)`", cells[2]))
    assert len(fields) > 20, fields
    api = (ROOT / "docs" / "API.md").read_text()
    assert "../shared" not in api and "openapi.json" in api and "REALTIME.md" in api
    missing = sorted(f for f in fields if f not in api)
    assert missing == [], missing
