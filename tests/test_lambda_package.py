"""The Lambda package holds Lambda code only: no web client files, no local-server modules.

One ``chalice package`` run (offline: the project is copied with an empty
``requirements.txt``, so Chalice has no dependencies to download; what is checked is the
project's own files, which Chalice takes from ``app.py`` and ``chalicelib/``) serves every
test of this module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Never copied: virtual environments, git, build output, caches.
SKIP = (".venv", ".git", "*.egg-info", "cdk.out", "deployments", "__pycache__", "node_modules")
WEB_SUFFIXES = (".js", ".mjs", ".css", ".html", ".map")


@pytest.fixture(scope="module")
def lambda_zip(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The file names in the deployment zip that ``chalice package`` builds."""
    work = tmp_path_factory.mktemp("chalice-package")
    project = work / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(*SKIP))
    (project / "requirements.txt").write_text("")
    chalice = Path(sys.executable).with_name("chalice")
    out = work / "out"
    env = {**os.environ, "AWS_DEFAULT_REGION": "us-east-1"}
    done = subprocess.run(
        [str(chalice), "--project-dir", str(project), "package", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(out / "deployment.zip") as package:
        return package.namelist()


def test_the_lambda_package_holds_the_app_and_its_library(lambda_zip: list[str]) -> None:
    names = set(lambda_zip)
    assert {"app.py", "chalicelib/service/core.py", "chalicelib/engine/__init__.py"} <= names


def test_the_lambda_package_holds_the_bots_endgame_tables(lambda_zip: list[str]) -> None:
    # the strong bot's heads-up endgame tables are package data read at play time
    tables = {n for n in lambda_zip if n.startswith("chalicelib/engine/endgames/")}
    assert "chalicelib/engine/endgames/classic-2v1-w10.bin" in tables
    assert "chalicelib/engine/endgames/perudo-1v2.bin" in tables
    assert not any(n.startswith("tools/") for n in lambda_zip)


def test_the_lambda_package_holds_no_web_client_files(lambda_zip: list[str]) -> None:
    web = [name for name in lambda_zip if name.lower().endswith(WEB_SUFFIXES)]
    assert web == []


def test_the_lambda_package_holds_no_local_server_module(lambda_zip: list[str]) -> None:
    server = [name for name in lambda_zip if name.startswith(("liars_local/", "chalicelib/local/"))]
    assert server == []
