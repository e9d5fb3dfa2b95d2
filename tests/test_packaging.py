"""The Lambda package's requirements stay in step with pyproject and never bundle boto3."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower()


def _lambda_requirements() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_lambda_requirements_are_pinned_project_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_name(d): d for d in project["dependencies"]}
    for requirement in _lambda_requirements():
        assert ">=" in requirement, f"{requirement}: pin a lower bound"
        assert _name(requirement) in declared, f"{requirement} is not in pyproject dependencies"
        assert declared[_name(requirement)].replace(" ", "") == requirement.replace(" ", "")


def test_lambda_package_does_not_bundle_boto3_or_dev_tools() -> None:
    names = {_name(r) for r in _lambda_requirements()}
    assert not names & {"boto3", "botocore", "moto", "chalice", "pytest", "uvicorn"}


def test_every_runtime_import_of_the_lambda_code_is_packaged() -> None:
    """Modules the Lambda imports (app.py and chalicelib outside local/) are in requirements."""
    allowed = {_name(r) for r in _lambda_requirements()} | {"boto3", "botocore", "chalice"}
    module_to_dist = {
        "jwt": "pyjwt",
        "argon2": "argon2-cffi",
        "aws_lambda_powertools": "aws-lambda-powertools",
        "pydantic": "pydantic",
        "pydantic_core": "pydantic",
    }
    files = [
        ROOT / "app.py",
        *[
            p
            for p in (ROOT / "chalicelib").rglob("*.py")
            if "local" not in p.relative_to(ROOT).parts
        ],
    ]
    stdlib = set(__import__("sys").stdlib_module_names)
    for path in files:
        # the import statements themselves (a docstring line that starts with "from the…" is
        # prose, not an import)
        tops = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                tops |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops.add(node.module.split(".")[0])
        for top in sorted(tops):
            if top in stdlib or top in ("chalicelib", "app", "__future__"):
                continue
            assert module_to_dist.get(top, top) in allowed, f"{path.name} imports {top}"
