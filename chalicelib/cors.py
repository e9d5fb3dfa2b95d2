"""Cross-origin requests (CORS): which browser pages on other origins may call the API.

The operator lists the origins in ``CORS_ALLOW_ORIGINS`` (comma-separated, ``*`` for any;
unset: none, and the API answers exactly as a same-origin API does). Chalice's own
``CORSConfig`` takes one origin per route, so the app does it itself, in one ``http``
middleware (``app.py``) that every REST answer goes through, errors included:

- an answer to a request whose ``Origin`` is on the list carries
  ``Access-Control-Allow-Origin`` (that origin, or ``*`` when the list is ``*``) and
  ``Access-Control-Expose-Headers`` (``Retry-After``, ``Allow``); with a list of origins
  every answer says ``Vary: Origin``, since it depends on it;
- a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from a
  listed origin on a path the API has is answered 204 with the path's methods, the request
  headers a client needs (``Authorization``, ``Content-Type``) and a ``Max-Age``;
- anything else (no ``Origin``, an origin not listed, a plain ``OPTIONS``) gets today's
  answer, with no ``Access-Control-*`` header.

Auth is a bearer token in ``Authorization``, never a cookie, so no answer says
``Access-Control-Allow-Credentials``: a page on an allowed origin can do only what its own
token allows, and ``*`` is safe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from urllib.parse import urlsplit

ENV_NAME = "CORS_ALLOW_ORIGINS"
ANY_ORIGIN = "*"
ALLOW_HEADERS = "Authorization, Content-Type"
EXPOSE_HEADERS = "Retry-After, Allow"
"""The answer headers a client reads besides the CORS-safelisted ones (``Content-Type``)."""
MAX_AGE_SECONDS = 600
"""How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours)."""


class BadOrigin(ValueError):
    """An entry of the allow-list is no origin."""


def parse_origins(raw: str | None) -> tuple[str, ...]:
    """The allow-list from ``CORS_ALLOW_ORIGINS``: ``()`` (none), ``("*",)`` or origins.

    An origin is ``scheme://host[:port]`` as a browser sends it (``https://a.example``,
    ``http://localhost:5173``); a trailing ``/`` is dropped, scheme and host are lower-cased.
    Raises ``BadOrigin`` naming the entry that is not one.
    """
    entries = [part.strip() for part in (raw or "").split(",")]
    entries = [part for part in entries if part]
    if ANY_ORIGIN in entries:
        return (ANY_ORIGIN,)
    out: list[str] = []
    for entry in entries:
        origin = normalize(entry)
        if origin not in out:
            out.append(origin)
    return tuple(out)


def normalize(entry: str) -> str:
    """``entry`` as a browser's ``Origin`` header says it; raises ``BadOrigin``."""
    text = entry[:-1] if entry.endswith("/") else entry
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise BadOrigin(f"{entry!r} is not an origin like https://app.example") from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or "*" in text
    ):
        raise BadOrigin(f"{entry!r} is not an origin like https://app.example") from None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + ("" if port is None else f":{port}")


def allowed_origin(origin: str | None, allowed: tuple[str, ...]) -> str | None:
    """What ``Access-Control-Allow-Origin`` says to ``origin``; None: not allowed."""
    if not origin:
        return None
    if allowed == (ANY_ORIGIN,):
        return ANY_ORIGIN
    return origin if origin in allowed else None


def add_headers(
    headers: MutableMapping[str, str | list[str]], origin: str | None, allowed: tuple[str, ...]
) -> None:
    """Add the CORS headers of an ordinary answer (any status) to ``headers``."""
    if allowed != (ANY_ORIGIN,):
        headers["Vary"] = "Origin"
    value = allowed_origin(origin, allowed)
    if value is not None:
        headers["Access-Control-Allow-Origin"] = value
        headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS


def is_preflight(method: str, headers: Mapping[str, str]) -> bool:
    """A browser's preflight: ``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``."""
    return (
        method == "OPTIONS"
        and bool(headers.get("origin"))
        and bool(headers.get("access-control-request-method"))
    )


def preflight_headers(
    origin: str, allowed: tuple[str, ...], methods: Iterable[str]
) -> dict[str, str | list[str]]:
    """The headers of a preflight's 204 from an allowed ``origin`` on a path with ``methods``."""
    headers: dict[str, str | list[str]] = {}
    add_headers(headers, origin, allowed)
    headers["Access-Control-Allow-Methods"] = ", ".join(methods)
    headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
    headers["Access-Control-Max-Age"] = str(MAX_AGE_SECONDS)
    return headers
