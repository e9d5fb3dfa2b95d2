"""What the use cases refuse, as domain errors: a kind and a stable code, never an HTTP status.

The engine's errors (``chalicelib.engine.errors``) are the rules' refusals; these are the use
cases' own (who is calling, what exists, limits, a lost race). ``chalicelib.errors`` alone
maps each kind to its status (``SERVICE_STATUS``) and builds the error body.

They are not engine ``DomainError``s on purpose: ``change_room`` saves the deadlines that
passed when the *rules* refuse a change, and nothing when a use case's own check (a limit
counted in ``gather``, a cap) refuses it, as before.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class: a request a use case refuses. ``code`` is stable (a raise may refine it)."""

    code = "bad_request"

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if code is not None:
            self.code = code


class NotSignedIn(ServiceError):
    """No caller, a refused token, bad credentials, or a user that no longer exists."""

    code = "not_signed_in"


class NotAllowed(ServiceError):
    """The caller is known but may not do this (a guest, not the host, not a member)."""

    code = "forbidden"


class Unknown(ServiceError):
    """An unknown room or user."""

    code = "not_found"


class InvalidInput(ServiceError):
    """Input the use case refuses (a query parameter, a chat text, a name)."""

    code = "invalid_input"


class Clash(ServiceError):
    """The request clashes with what is stored: a taken name, a game not started, a room that
    changed while the request was in flight (``room``: the caller's view of it now)."""

    code = "conflict"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        room: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code, field=field)
        self.room = room


class TooMany(ServiceError):
    """A limit refused the request: a rate limit (``retry_after``: seconds until its window
    ends, the ``Retry-After`` header) or a cap (invitations)."""

    code = "rate_limited"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message, code=code, field=field)
        self.retry_after = retry_after
