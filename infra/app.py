"""CDK entry point: synthesizes the stack for one stage of the backend.

Run from ``infra/`` by the CDK CLI (``cdk.json``), or directly with ``python infra/app.py``
(the tests do, with ``CDK_OUTDIR`` set). Context keys:

- ``stage``: ``dev`` (default) or ``prod``; also the Chalice stage in ``.chalice/config.json``.
- ``token_secret_arn``: use an existing Secrets Manager secret instead of generating one.
- ``chalice_source_dir``: the Chalice project to package (default: the repository root).
- ``cors_allow_origins``: origins whose web pages may call the REST API (comma-separated, or
  ``*``; default none), passed to the functions as ``CORS_ALLOW_ORIGINS`` and written into
  API Gateway's own error answers (``infra/edges.py``).
- ``sns_apns_application_arn``, ``sns_fcm_application_arn``: SNS platform applications for
  mobile push (default none: mobile push off); ``push_endpoint_allow``: the Web Push
  allow-list (default the browsers' services); ``vapid_subject``: the contact push services
  see. See ``docs/OPERATIONS.md``, "Notifications".
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
from stack import REPO_ROOT, LiarsLiesStack, PushSettings


def _parse_origins(raw: str) -> tuple[str, ...]:
    """``chalicelib.cors.parse_origins``: the stack reads the list as the functions will.

    The repository root is on ``sys.path`` only for this import: Chalice puts the project
    folder first on it only when it is not there yet, and ``import app`` must find the app.
    """
    root = str(REPO_ROOT)
    added = root not in sys.path
    if added:
        sys.path.append(root)
    try:
        from chalicelib.cors import parse_origins
    finally:
        if added:
            sys.path.remove(root)
    return parse_origins(raw)


def cors_origins_from_context(raw: object) -> tuple[str, ...]:
    """The ``cors_allow_origins`` context (a comma-separated string or a JSON list)."""
    if raw is None:
        return ()
    if isinstance(raw, list | tuple):
        raw = ",".join(str(item) for item in raw)
    if not isinstance(raw, str):
        raise ValueError("cors_allow_origins must be a comma-separated string of origins")
    return _parse_origins(raw)


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
        cors_allow_origins=cors_origins_from_context(
            app.node.try_get_context("cors_allow_origins")
        ),
        push=PushSettings.from_context(app.node.try_get_context),
    )
    app.synth()


if __name__ == "__main__":
    main()
