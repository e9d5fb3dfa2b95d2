"""Tokens (kid rotation, tampering, expiry), password hashing and WebSocket tickets."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass

import jwt
import pytest

from chalicelib import auth
from chalicelib.adapters.secrets import reset_secret_cache
from chalicelib.auth import AuthError, TokenKeys, issue_token, verify_token
from chalicelib.settings import ConfigError, reset_settings

KEY_A = "a" * 40
KEY_B = "b" * 40


@dataclass(frozen=True)
class User:
    id: str
    name: str
    guest: bool


ALICE = User("u-alice", "Alice", False)


@pytest.fixture(autouse=True)
def _fresh_config(monkeypatch: pytest.MonkeyPatch) -> object:
    for name in ("TOKEN_SECRET_ARN", "TOKEN_SECRET_PARAM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOKEN_SECRET", KEY_A)
    reset_settings()
    reset_secret_cache()
    yield
    reset_settings()
    reset_secret_cache()


def _keys(current: str, **keys: str) -> TokenKeys:
    return TokenKeys.parse(json.dumps({"current": current, "keys": keys}))


def test_token_round_trip_carries_user_claims() -> None:
    claims = verify_token(issue_token(ALICE))
    assert (claims.user_id, claims.name, claims.guest, claims.kid) == (
        "u-alice",
        "Alice",
        False,
        "k1",
    )
    assert claims.expires_at - claims.issued_at == 7 * 24 * 3600


def test_guest_flag_survives() -> None:
    assert verify_token(issue_token(User("g1", "Guest 1", True))).guest is True


def test_plain_secret_means_kid_k1_in_header() -> None:
    assert jwt.get_unverified_header(issue_token(ALICE))["kid"] == "k1"


def test_tampered_payload_is_invalid() -> None:
    header, payload, sig = issue_token(ALICE).split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=="))
    data["sub"] = "u-mallory"
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with pytest.raises(AuthError) as err:
        verify_token(f"{header}.{forged}.{sig}")
    assert err.value.code == "invalid_token"


def test_token_signed_with_another_key_is_invalid() -> None:
    token = issue_token(ALICE, keys=TokenKeys.parse(KEY_B))
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "invalid_token"


def test_garbage_is_invalid() -> None:
    with pytest.raises(AuthError) as err:
        verify_token("not-a-token")
    assert err.value.code == "invalid_token"


def test_none_algorithm_is_refused() -> None:
    token = jwt.encode(
        {"sub": "u-alice", "name": "A", "guest": False, "iat": 1, "exp": 2**40},
        None,
        algorithm="none",
        headers={"kid": "k1"},
    )
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "invalid_token"


def test_expired_token_is_refused_as_expired() -> None:
    token = issue_token(ALICE, now_s=int(time.time()) - 7200, ttl_seconds=3600)
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "token_expired"


def test_a_token_verified_before_is_refused_once_it_expires(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = int(time.time())
    token = issue_token(ALICE, now_s=now, ttl_seconds=60)
    assert verify_token(token).user_id == "u-alice"  # verified, and remembered
    monkeypatch.setattr(auth.time, "time", lambda: now + 60 + auth.LEEWAY_SECONDS)
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "token_expired"


def test_a_token_verified_before_is_refused_once_its_kid_names_another_key() -> None:
    token = issue_token(ALICE, keys=_keys("k1", k1=KEY_A))
    assert verify_token(token, keys=_keys("k1", k1=KEY_A)).kid == "k1"
    with pytest.raises(AuthError) as err:
        verify_token(token, keys=_keys("k1", k1=KEY_B))
    assert err.value.code == "invalid_token"


def test_unknown_kid_is_invalid() -> None:
    token = issue_token(ALICE, keys=_keys("k9", k9=KEY_A))
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "invalid_token"


def test_missing_exp_is_invalid() -> None:
    token = jwt.encode(
        {"sub": "u-alice", "name": "A", "guest": False, "iat": int(time.time())},
        KEY_A,
        algorithm="HS256",
        headers={"kid": "k1"},
    )
    with pytest.raises(AuthError) as err:
        verify_token(token)
    assert err.value.code == "invalid_token"


def test_rotation_keeps_old_tokens_valid_and_signs_with_new_kid() -> None:
    old = issue_token(ALICE, keys=_keys("k1", k1=KEY_A))
    rotated = _keys("k2", k1=KEY_A, k2=KEY_B)
    new = issue_token(ALICE, keys=rotated)
    assert jwt.get_unverified_header(new)["kid"] == "k2"
    assert verify_token(old, keys=rotated).kid == "k1"
    assert verify_token(new, keys=rotated).kid == "k2"
    retired = _keys("k2", k2=KEY_B)
    with pytest.raises(AuthError):
        verify_token(old, keys=retired)


def test_rotated_secret_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "TOKEN_SECRET", json.dumps({"current": "k2", "keys": {"k1": KEY_A, "k2": KEY_B}})
    )
    reset_settings()
    reset_secret_cache()
    token = issue_token(ALICE)
    assert verify_token(token).kid == "k2"


@pytest.mark.parametrize(
    "text",
    [
        "short",
        '{"current": "k1"}',
        '{"current": "k3", "keys": {"k1": "' + KEY_A + '"}}',
        '{"current": "k1", "keys": {"k1": "tiny"}}',
        "{not json",
    ],
)
def test_bad_secrets_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError):
        TokenKeys.parse(text)


def test_no_secret_configured_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOKEN_SECRET")
    reset_settings()
    reset_secret_cache()
    with pytest.raises(ConfigError):
        issue_token(ALICE)


def test_password_round_trip() -> None:
    h = auth.hash_password("correct horse battery staple")
    assert h.startswith("$argon2id$")
    assert auth.verify_password(h, "correct horse battery staple")
    assert not auth.verify_password(h, "Correct horse battery staple")
    assert not auth.needs_rehash(h)


def test_password_hash_uses_owasp_minimum_parameters() -> None:
    params = auth.hash_password("pw").split("$")[3]
    assert params == "m=19456,t=2,p=1"


def test_weaker_hash_needs_rehash_and_garbage_never_verifies() -> None:
    from argon2 import PasswordHasher

    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("pw")
    assert auth.verify_password(weak, "pw")
    assert auth.needs_rehash(weak)
    assert not auth.verify_password("not a hash", "pw")
    assert auth.needs_rehash("not a hash")


def test_tickets_are_unique_opaque_and_short_lived() -> None:
    a, b = auth.new_ticket(1_000), auth.new_ticket(1_000)
    assert a.ticket != b.ticket and len(a.ticket) >= 32
    assert a.expires_ms == 61_000
