"""Bearer tokens, password hashing and WebSocket tickets.

Tokens are JWTs signed with HS256. The header's ``kid`` selects the key, so keys rotate
without logging anyone out: the secret (see ``chalicelib.settings``) holds every valid key
by kid plus the kid that signs new tokens. Claims: ``sub`` (user id), ``name``, ``guest``,
``iat`` and ``exp`` (both required and checked).

Passwords are hashed with argon2id at OWASP's minimum or above (m=19 MiB, t=2, p=1).

WebSocket tickets: browsers cannot set headers on a WebSocket, so an authenticated REST
call gets a short-lived opaque ticket that the store consumes once on connect.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.low_level import Type

from chalicelib.settings import ConfigError, get_settings

ALGORITHM = "HS256"
DEFAULT_KID = "k1"
MIN_KEY_BYTES = 32
LEEWAY_SECONDS = 5


class AuthError(Exception):
    """A token was refused; ``code`` is ``invalid_token`` or ``token_expired``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TokenUser(Protocol):
    """What a token is issued for (``UserRecord`` fits)."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def guest(self) -> bool: ...


@dataclass(frozen=True)
class Claims:
    """A verified token's contents."""

    user_id: str
    name: str
    guest: bool
    issued_at: int
    expires_at: int
    kid: str


@dataclass(frozen=True)
class TokenKeys:
    """Signing keys by kid, and the kid that signs new tokens."""

    current: str
    keys: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> TokenKeys:
        """Read a secret: one key (kid ``k1``) or ``{"current": kid, "keys": {kid: key}}``."""
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except ValueError:
                raise ConfigError("token secret is not valid JSON") from None
            current = data.get("current") if isinstance(data, dict) else None
            keys = data.get("keys") if isinstance(data, dict) else None
            if not isinstance(current, str) or not isinstance(keys, dict) or not keys:
                raise ConfigError('token secret JSON needs "current" and a non-empty "keys"')
            if current not in keys:
                raise ConfigError(f"current kid {current!r} is not among the keys")
            parsed = {str(k): v for k, v in keys.items()}
        else:
            current, parsed = DEFAULT_KID, {DEFAULT_KID: stripped}
        for kid, key in parsed.items():
            if not isinstance(key, str) or len(key.encode()) < MIN_KEY_BYTES:
                raise ConfigError(f"token key {kid!r} must be a string of at least 32 bytes")
        return cls(current=current, keys=parsed)


def load_keys() -> TokenKeys:
    """The process's signing keys, from the configured secret (cached by the secrets adapter)."""
    from chalicelib.adapters.secrets import fetch_token_secret

    return _parse_cached(fetch_token_secret(get_settings()))


@lru_cache(maxsize=4)
def _parse_cached(text: str) -> TokenKeys:
    return TokenKeys.parse(text)


def issue_token(
    user: TokenUser,
    *,
    now_s: int | None = None,
    ttl_seconds: int | None = None,
    keys: TokenKeys | None = None,
) -> str:
    """Sign a bearer token for ``user`` with the current key."""
    k = keys or load_keys()
    iat = int(time.time()) if now_s is None else now_s
    ttl = get_settings().token_ttl_seconds if ttl_seconds is None else ttl_seconds
    payload = {"sub": user.id, "name": user.name, "guest": bool(user.guest), "iat": iat}
    payload["exp"] = iat + ttl
    return jwt.encode(payload, k.keys[k.current], algorithm=ALGORITHM, headers={"kid": k.current})


#: Tokens verified before, each with the key that verified it, newest last (at most
#: ``VERIFIED_TOKENS_KEPT``). Every request carries its bearer token, and PyJWT's checks
#: (two parses of the token, a per-character alphabet test, the HMAC) cost more than the
#: rest of a typical request's token work; a token seen before needs only its expiry
#: checked again, as long as its kid still maps to the key that verified it.
VERIFIED_TOKENS_KEPT = 4096
_verified: OrderedDict[str, tuple[Claims, str]] = OrderedDict()
_verified_lock = threading.Lock()


def verify_token(token: str, *, keys: TokenKeys | None = None) -> Claims:
    """Check a token's signature, kid and times; raise AuthError when it is refused."""
    with _verified_lock:
        seen = _verified.get(token)
        if seen is not None:
            _verified.move_to_end(token)
    if seen is not None and (keys or load_keys()).keys.get(seen[0].kid) == seen[1]:
        claims = seen[0]
        # PyJWT's own rule: expired once exp <= now - leeway.
        if claims.expires_at <= time.time() - LEEWAY_SECONDS:
            raise AuthError("token_expired", "the token has expired")
        return claims
    claims, key = _verify_signed(token, keys)
    with _verified_lock:
        _verified[token] = (claims, key)
        while len(_verified) > VERIFIED_TOKENS_KEPT:
            _verified.popitem(last=False)
    return claims


def _verify_signed(token: str, keys: TokenKeys | None) -> tuple[Claims, str]:
    """``verify_token`` without the memory of tokens verified before; also the key used."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise AuthError("invalid_token", "the token is malformed") from None
    kid = header.get("kid")
    k = keys or load_keys()
    if not isinstance(kid, str) or kid not in k.keys:
        raise AuthError("invalid_token", "the token was signed with an unknown key")
    try:
        data: dict[str, Any] = jwt.decode(
            token,
            k.keys[kid],
            algorithms=[ALGORITHM],
            options={"require": ["exp", "iat", "sub"]},
            leeway=LEEWAY_SECONDS,
        )
    except jwt.ExpiredSignatureError:
        raise AuthError("token_expired", "the token has expired") from None
    except jwt.InvalidTokenError:
        raise AuthError("invalid_token", "the token is not valid") from None
    sub, name, guest = data.get("sub"), data.get("name"), data.get("guest")
    if not isinstance(sub, str) or not sub or not isinstance(name, str):
        raise AuthError("invalid_token", "the token lacks its user")
    if not isinstance(guest, bool):
        raise AuthError("invalid_token", "the token lacks its guest flag")
    claims = Claims(
        user_id=sub,
        name=name,
        guest=guest,
        issued_at=int(data["iat"]),
        expires_at=int(data["exp"]),
        kid=kid,
    )
    return claims, k.keys[kid]


# --- Passwords ---------------------------------------------------------------------------

# OWASP Password Storage Cheat Sheet minimum for argon2id: m=19 MiB, t=2, p=1.
_hasher = PasswordHasher(
    time_cost=2, memory_cost=19 * 1024, parallelism=1, hash_len=32, salt_len=16, type=Type.ID
)


def hash_password(password: str) -> str:
    """An argon2id hash of ``password`` (salted, self-describing)."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """True when ``password`` matches ``password_hash``; False for a mismatch or a bad hash."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True when the hash was made with weaker parameters than today's."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher.hash(secrets.token_urlsafe(16))


def burn_password_check(password: str) -> None:
    """Spend the time of one verification, so an unknown username answers as slowly."""
    verify_password(_dummy_hash(), password)


# --- WebSocket tickets ---------------------------------------------------------------------


@dataclass(frozen=True)
class Ticket:
    """A single-use WebSocket ticket and when it stops working (epoch ms)."""

    ticket: str
    expires_ms: int


def new_ticket(now_ms: int, *, ttl_seconds: int | None = None) -> Ticket:
    """A fresh unguessable ticket valid for ``ttl_seconds`` (default TICKET_TTL_SECONDS, 60)."""
    ttl = get_settings().ticket_ttl_seconds if ttl_seconds is None else ttl_seconds
    return Ticket(ticket=secrets.token_urlsafe(32), expires_ms=now_ms + ttl * 1000)
