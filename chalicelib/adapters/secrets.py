"""Token-signing secret lookup: Secrets Manager, SSM Parameter Store, or plain text.

Which source is used follows ``Settings``: TOKEN_SECRET_ARN (Secrets Manager), else
TOKEN_SECRET_PARAM (SSM, decrypted), else TOKEN_SECRET (plain, local server and tests).
The raw text is cached per process for ``CACHE_SECONDS`` so that a rotated secret reaches
running Lambdas within minutes without a read per request. Rotation: add the new key under
a new kid (not current), wait longer than the cache, make it current, and remove the old
kid once the longest token lifetime has passed.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from chalicelib.adapters._aws import GuardedClient
from chalicelib.settings import ConfigError, Settings

CACHE_SECONDS = 300.0

_lock = threading.Lock()
_cache: dict[tuple[str | None, str | None, str | None, str], tuple[float, str]] = {}


def fetch_token_secret(settings: Settings, *, client: Any = None) -> str:
    """The raw signing-secret text named by ``settings`` (cached per process)."""
    key = (
        settings.token_secret_arn,
        settings.token_secret_param,
        settings.token_secret,
        settings.region,
    )
    now = time.monotonic()
    with _lock:
        hit = _cache.get(key)
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1]
    value = _load(settings, client)
    with _lock:
        _cache[key] = (now, value)
    return value


def reset_secret_cache() -> None:
    """Forget cached secrets (tests, or a forced refresh)."""
    with _lock:
        _cache.clear()


def _load(settings: Settings, client: Any) -> str:
    if settings.token_secret_arn:
        # Throttled or failing like any other AWS call: Unavailable, a 503 for the client.
        sm = GuardedClient(client or _client("secretsmanager", settings.region))
        answer = sm.get_secret_value(SecretId=settings.token_secret_arn)
        text = answer.get("SecretString")
        if not isinstance(text, str) or not text:
            raise ConfigError("TOKEN_SECRET_ARN names a secret without a SecretString")
        return text
    if settings.token_secret_param:
        ssm = GuardedClient(client or _client("ssm", settings.region))
        answer = ssm.get_parameter(Name=settings.token_secret_param, WithDecryption=True)
        text = answer["Parameter"]["Value"]
        if not isinstance(text, str) or not text:
            raise ConfigError("TOKEN_SECRET_PARAM names an empty parameter")
        return text
    if settings.token_secret:
        return settings.token_secret
    raise ConfigError("no token secret: set TOKEN_SECRET_ARN, TOKEN_SECRET_PARAM or TOKEN_SECRET")


def _client(service: str, region: str) -> Any:
    import boto3

    return boto3.client(service, region_name=region)


def fetch_vapid_secret(settings: Settings, *, client: Any = None) -> str:
    """The text the VAPID key is derived from: VAPID_SECRET_ARN's secret, else VAPID_SECRET."""
    if settings.vapid_secret_arn:
        key = (settings.vapid_secret_arn, None, None, settings.region + "#vapid")
        now = time.monotonic()
        with _lock:
            hit = _cache.get(key)
            if hit is not None and now - hit[0] < CACHE_SECONDS:
                return hit[1]
        sm = GuardedClient(client or _client("secretsmanager", settings.region))
        text = sm.get_secret_value(SecretId=settings.vapid_secret_arn).get("SecretString")
        if not isinstance(text, str) or not text:
            raise ConfigError("VAPID_SECRET_ARN names a secret without a SecretString")
        with _lock:
            _cache[key] = (now, text)
        return text
    if settings.vapid_secret:
        return settings.vapid_secret
    raise ConfigError("no VAPID secret: set VAPID_SECRET_ARN or VAPID_SECRET")
