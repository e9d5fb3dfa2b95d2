"""Synthesize the CDK app once per test session, offline, for every stage.

``python infra/app.py`` runs in a subprocess (its own jsii/node process) with ``CDK_OUTDIR``
and ``CDK_CONTEXT_JSON`` set, exactly as the CDK CLI would run it, but with no CLI, no AWS
account and no credentials. Chalice's construct runs ``chalice package``, which may download
Lambda-platform wheels from PyPI on a cold cache (``.chalice/deployments/``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGES = ("dev", "prod")

Template = dict[str, Any]


def synthesize(stage: str, workdir: Path, context: dict[str, Any] | None = None) -> Path:
    """Run the CDK app for ``stage`` in ``workdir`` (more ``context`` if given); return the
    template's path."""
    outdir = workdir / "cdk.out"
    env = {
        **os.environ,
        "CDK_OUTDIR": str(outdir),
        "CDK_CONTEXT_JSON": json.dumps({"stage": stage, **(context or {})}),
        "AWS_DEFAULT_REGION": "eu-west-1",
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
    # Nothing may reach an AWS account: no credentials are handed to the synth.
    for key in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        env.pop(key, None)
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "infra" / "app.py")],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"synth of stage {stage} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
    return outdir / f"{stage}.template.json"


@pytest.fixture(scope="session")
def template_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Path of the synthesized template of each stage (one synth per stage per session)."""
    # Sequential on purpose: the first synth fills Chalice's package cache, the next reuses it.
    return {stage: synthesize(stage, tmp_path_factory.mktemp(f"synth-{stage}")) for stage in STAGES}


@pytest.fixture(scope="session")
def templates(template_paths: dict[str, Path]) -> dict[str, Template]:
    """The synthesized template of each stage, parsed."""
    return {stage: json.loads(path.read_text()) for stage, path in template_paths.items()}


@pytest.fixture(scope="session")
def dev(templates: dict[str, Template]) -> Template:
    """The dev stage's template."""
    return templates["dev"]


@pytest.fixture(scope="session")
def prod(templates: dict[str, Template]) -> Template:
    """The prod stage's template."""
    return templates["prod"]
