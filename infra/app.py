"""CDK entry point: synthesizes the stack for one stage of the backend.

Run from ``infra/`` by the CDK CLI (``cdk.json``), or directly with ``python infra/app.py``
(the tests do, with ``CDK_OUTDIR`` set). Context keys:

- ``stage``: ``dev`` (default) or ``prod``; also the Chalice stage in ``.chalice/config.json``.
- ``token_secret_arn``: use an existing Secrets Manager secret instead of generating one.
- ``chalice_source_dir``: the Chalice project to package (default: the repository root).
- ``throttle_rate``, ``throttle_burst``, ``reserved_concurrency`` (JSON object by function
  name), ``alarm_email``, ``api_gateway_account_role``: operations knobs, see
  ``infra/operations.py`` and ``docs/OPERATIONS.md``.

The Chalice construct writes its packages under ``./chalice.out`` of the working directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

import aws_cdk as cdk

sys.path.insert(0, str(Path(__file__).resolve().parent))

from operations import OpsSettings
from stack import REPO_ROOT, LiarsLiesStack


def main() -> None:
    """Build the app for the requested stage and write the cloud assembly."""
    app = cdk.App()
    stage = app.node.try_get_context("stage") or "dev"
    source_dir = Path(app.node.try_get_context("chalice_source_dir") or REPO_ROOT)
    LiarsLiesStack(
        app,
        stage,
        source_dir=source_dir,
        token_secret_arn=app.node.try_get_context("token_secret_arn"),
        ops=OpsSettings.from_context(app.node.try_get_context),
    )
    app.synth()


if __name__ == "__main__":
    main()
