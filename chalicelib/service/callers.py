"""Who is calling: a verified token's user, and the checks every route makes of it."""

from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib import auth
from chalicelib.ports import UserRecord
from chalicelib.service.errors import NotAllowed, NotSignedIn


@dataclass(frozen=True)
class Caller:
    """Who is calling, from a verified token."""

    user_id: str
    name: str
    guest: bool
    record: UserRecord | None = field(default=None, compare=False, repr=False)
    """The stored user, once ``accounts.known`` has read it for this request."""


def caller_from_header(header: str | None) -> Caller | None:
    """Parse ``Authorization: Bearer <token>``; None when absent; 401 when refused."""
    if header is None or not header.strip():
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotSignedIn("use Authorization: Bearer <token>", code="invalid_token")
    claims = auth.verify_token(token.strip())
    return Caller(claims.user_id, claims.name, claims.guest)


def require(caller: Caller | None) -> Caller:
    """A signed-in caller (registered or guest), else 401."""
    if caller is None:
        raise NotSignedIn("sign in first")
    return caller


def require_registered(caller: Caller | None, what: str) -> Caller:
    """A registered caller, else 401 (signed out) or 403 (guest)."""
    c = require(caller)
    if c.guest:
        raise NotAllowed(f"guests cannot {what}; register first", code="guest_not_allowed")
    return c
