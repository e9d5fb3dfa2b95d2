"""The environment every moto-backed test runs in: fake credentials, one region, no real secrets."""

from __future__ import annotations

import pytest

from chalicelib.settings import reset_settings

REGION = "us-east-1"
SECRET = "test-secret-key-that-is-long-enough-0123456789"


def use_offline_aws(monkeypatch: pytest.MonkeyPatch, table_name: str) -> None:
    """Fake credentials and region, a plain token secret, the table name; settings re-read."""
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": REGION,
        "TOKEN_SECRET": SECRET,
        "TABLE_NAME": table_name,
    }.items():
        monkeypatch.setenv(key, value)
    # Nothing from the developer's shell may point the tests at a real account or secret.
    for key in ("AWS_PROFILE", "TOKEN_SECRET_ARN", "TOKEN_SECRET_PARAM", "MAX_ROOMS_PER_USER"):
        monkeypatch.delenv(key, raising=False)
    reset_settings()
