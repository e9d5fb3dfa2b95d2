"""Domain errors and their HTTP mapping: the one place an exception becomes an API error body.

Every error answer has the shape ``{"error": {"code", "message", "field"?}}`` (API.md); a lost
race on a room also carries ``"room"``: the caller's view of the room as it is now. Engine
errors (``DomainError``) carry their own code and no HTTP status: each kind's status is
decided here (``DOMAIN_STATUS``); store, auth and validation errors are mapped here too, and so is ``Unavailable`` (the adapters' word for an infrastructure fault:
throttling, a service error, a timeout), which answers 503 ``unavailable`` with
``Retry-After`` (``retry_after``). Anything unexpected becomes a 400 ``bad_request`` only where the input is to
blame; the route wrapper in ``app.py`` guarantees no 5xx reaches a client for its input.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from chalicelib.engine.errors import (
    Conflict,
    DomainError,
    Forbidden,
    IllegalBid,
    InvalidAction,
    InvalidOrder,
    InvalidSetting,
    NoBidToChallenge,
    NotAPlayer,
    NotFound,
    NotHost,
    NotYourTurn,
    StaleTurn,
    Unrated,
    WrongPhase,
)
from chalicelib.ports import (
    RoomExists,
    RoomLimitReached,
    StoreError,
    TooManyRatingChanges,
    Unavailable,
    UnknownUser,
    UserExists,
    UsernameTaken,
)
from chalicelib.service.errors import (
    Clash,
    InvalidInput,
    NotAllowed,
    NotSignedIn,
    ServiceError,
    TooMany,
    Unknown,
)

JsonDict = dict[str, Any]


class ApiError(Exception):
    """An error answer decided outside the engine (auth, limits, body size, unknown room)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        room: JsonDict | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.room = room
        self.retry_after = retry_after
        """Seconds until trying again can succeed (the ``Retry-After`` header), if known."""


def unauthorized(message: str = "sign in first", code: str = "not_signed_in") -> ApiError:
    """401: no token, or a token that was refused."""
    return ApiError(401, code, message)


def forbidden(message: str, code: str = "forbidden") -> ApiError:
    """403: signed in but not allowed."""
    return ApiError(403, code, message)


def not_found(message: str, code: str = "not_found") -> ApiError:
    """404: unknown room or user."""
    return ApiError(404, code, message)


def rate_limited(
    message: str, code: str = "rate_limited", *, retry_after: int | None = None
) -> ApiError:
    """429: too many attempts in the current window (``retry_after``: seconds until it ends)."""
    return ApiError(429, code, message, retry_after=retry_after)


def conflict(message: str, room: JsonDict | None = None, code: str = "conflict") -> ApiError:
    """409: the room changed under the caller; ``room`` is their view of it now."""
    return ApiError(409, code, message, room=room)


_STORE_STATUS: dict[type[StoreError], tuple[int, str]] = {
    UsernameTaken: (409, "that username is taken"),
    UserExists: (409, "that user already exists"),
    RoomExists: (409, "that room already exists"),
    RoomLimitReached: (429, "you already have the maximum number of open rooms"),
    UnknownUser: (404, "unknown user"),
    TooManyRatingChanges: (409, "too many rated players in one game"),
}


DOMAIN_STATUS: dict[type[DomainError], int] = {
    InvalidSetting: 400,
    InvalidAction: 400,
    IllegalBid: 400,
    InvalidOrder: 400,
    NotYourTurn: 403,
    NotAPlayer: 403,
    NotHost: 403,
    Forbidden: 403,
    NotFound: 404,
    StaleTurn: 409,
    WrongPhase: 409,
    NoBidToChallenge: 409,
    Conflict: 409,
    Unrated: 409,
}
"""The HTTP status of each kind of engine error. A raise may refine the code
(``WrongPhase(..., code="not_accepted")``); the status follows the kind."""


SERVICE_STATUS: dict[type[ServiceError], int] = {
    InvalidInput: 400,
    NotSignedIn: 401,
    NotAllowed: 403,
    Unknown: 404,
    Clash: 409,
    TooMany: 429,
}
"""The HTTP status of each kind of use-case error (``chalicelib.service.errors``): the service
raises kinds and codes, this table alone says what they answer."""


def service_status(err: ServiceError) -> int:
    """The HTTP status of a use case's error: its kind's (or its nearest base's), else 400."""
    for kind in type(err).__mro__:
        if kind in SERVICE_STATUS:
            return SERVICE_STATUS[kind]
    return 400


def domain_status(err: DomainError) -> int:
    """The HTTP status of an engine error: its kind's (or its nearest base's), else 400."""
    for kind in type(err).__mro__:
        if kind in DOMAIN_STATUS:
            return DOMAIN_STATUS[kind]
    return 400


UNAVAILABLE_MESSAGE = "the service is busy or briefly unavailable; nothing was changed, try again"


def retry_after(exc: BaseException) -> int | None:
    """Seconds a client should wait before retrying (the ``Retry-After`` header), if any."""
    seconds = getattr(exc, "retry_after", None)
    if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds > 0:
        return seconds
    return None


def body(code: str, message: str, field: str | None = None) -> JsonDict:
    """The API's error body (``wire.error_body``, imported on first use: ``chalicelib.wire``
    builds the WebSocket messages' validators, which ``import app`` need not pay for)."""
    from chalicelib.wire import error_body

    return error_body(code, message, field)


def _validation(err: ValidationError) -> tuple[int, JsonDict]:
    first = err.errors(include_url=False)[0]
    loc = ".".join(str(part) for part in first.get("loc", ()))
    kind = str(first.get("type", ""))
    code = "unknown_field" if kind == "extra_forbidden" else "invalid_input"
    message = str(first.get("msg", "invalid input"))
    if loc:
        message = f"{loc}: {message}"
    return 400, body(code, message, loc or None)


def to_response(exc: BaseException) -> tuple[int, JsonDict] | None:
    """Status and body for a known error, or None for an unexpected one."""
    if isinstance(exc, ApiError):
        out = body(exc.code, exc.message, exc.field)
        if exc.room is not None:
            out["room"] = exc.room
        return exc.status, out
    if isinstance(exc, ServiceError):
        out = body(exc.code, exc.message, exc.field)
        room = getattr(exc, "room", None)
        if room is not None:
            out["room"] = room
        return service_status(exc), out
    if isinstance(exc, DomainError):
        return domain_status(exc), body(exc.code, exc.message, exc.field)
    if isinstance(exc, ValidationError):
        return _validation(exc)
    if isinstance(exc, Unavailable):
        return 503, body("unavailable", UNAVAILABLE_MESSAGE)
    if isinstance(exc, StoreError):
        status, message = _STORE_STATUS.get(type(exc), (409, str(exc)))
        return status, body(exc.code, message)
    from chalicelib.auth import AuthError

    if isinstance(exc, AuthError):
        return 401, body(exc.code, exc.message)
    return None


# --- answers Chalice makes itself ---------------------------------------------------------------

JSON_MEDIA_TYPES = ("application/json",)
"""The body types a route accepts (``application/*+json`` too; parameters such as ``charset``
are allowed). A request without ``Content-Type`` is read as JSON, as Chalice does."""


def is_json_media_type(content_type: str | None) -> bool:
    """Whether a ``Content-Type`` header names JSON (a missing header counts as JSON)."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media in JSON_MEDIA_TYPES or (
        media.startswith("application/") and media.endswith("+json")
    )


def unsupported_media_type(content_type: str) -> ApiError:
    """415: a body sent with a content type that is not JSON (an empty body is never refused)."""
    shown = content_type if len(content_type) <= 100 and content_type.isprintable() else "that"
    return ApiError(
        415,
        "unsupported_media_type",
        f"bodies must be JSON (Content-Type: application/json), not {shown}",
    )


CHALICE_CODES: dict[str, str] = {
    "MethodNotAllowedError": "method_not_allowed",
    "UnsupportedMediaType": "unsupported_media_type",
    "BadRequest": "bad_request",
    "BadRequestError": "bad_request",
    "UnauthorizedError": "not_signed_in",
    "ForbiddenError": "forbidden",
    "NotFoundError": "not_found",
    "ConflictError": "conflict",
    "UnprocessableEntityError": "invalid_input",
    "TooManyRequestsError": "rate_limited",
    "InternalServerError": "internal_error",
}
"""Chalice's own error names (``{"Code", "Message"}`` bodies) and the project's code for each."""

_CHALICE_MESSAGES: dict[str, str] = {
    "method_not_allowed": "this path does not answer that method (the Allow header lists those it does)",
    "unsupported_media_type": "bodies must be JSON (Content-Type: application/json)",
    "internal_error": "something went wrong on our side",
}


def _snake(name: str) -> str:
    name = name.removesuffix("Error") or name
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return out if out.isidentifier() else "bad_request"


def from_chalice(answer: Any) -> JsonDict | None:
    """The project's error body for an answer Chalice made itself, or None for any other body.

    Chalice answers a known path with an unknown method (405), a content type a route does not
    declare (415), a ``ChaliceViewError`` and an exception that escaped every handler (500)
    with ``{"Code": "...", "Message": "..."}``; the status and headers stay, the body becomes
    ``{"error": {"code", "message"}}``.
    """
    if not isinstance(answer, dict) or set(answer) != {"Code", "Message"}:
        return None
    name = answer["Code"]
    if not isinstance(name, str):
        return None
    code = CHALICE_CODES.get(name) or _snake(name)
    message = _CHALICE_MESSAGES.get(code)
    if message is None:
        message = str(answer["Message"])[:200] or code.replace("_", " ")
    return body(code, message)
