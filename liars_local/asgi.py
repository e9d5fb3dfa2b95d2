"""The ASGI app: the Chalice app's REST routes, WebSockets at ``/ws``, the web client at ``/``.

HTTP requests go to the Chalice app through ``AppRunner`` (``liars_local.chalice_bridge``)
in a handler thread; static files are Starlette's ``FileResponse``; WebSockets at ``/ws``
go to the WebSocket bridge (``liars_local.ws_bridge``).

Why a plain ASGI callable rather than a Starlette app (measured under
``bench/local.py --games 20``, docs/DECISIONS.md issues 14 and 25): every request passed
Starlette's error and exception middleware, its router and its request/response objects,
which cost more of the event loop's CPU than uvicorn's HTTP parsing. What a client sees is
Starlette's: the same 405, the same plain 500, the same static-file answers.
"""

from __future__ import annotations

import base64
import functools
import importlib
import importlib.util
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalice.app import Chalice
from chalice.local import LocalGatewayException
from starlette.datastructures import URL
from starlette.responses import FileResponse, Response
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from chalicelib import cors
from chalicelib.schemas import MAX_BODY_BYTES
from chalicelib.settings import ConfigError, get_settings
from liars_local.chalice_bridge import AppRunner, load_chalice_app
from liars_local.notifier import LocalNotifier
from liars_local.ws_bridge import serve_websocket

log = logging.getLogger(__name__)

#: The web client (the top-level ``web/`` folder, installed beside the Python packages).
STATIC_DIR = Path(importlib.util.find_spec("web").submodule_search_locations[0])  # type: ignore[union-attr,index]
HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

AccessLog = Callable[[str], None]


def print_access_log(line: str) -> None:
    """Default request log: one line on stdout, flushed."""
    print(line, file=sys.stdout, flush=True)


@functools.lru_cache(maxsize=8)
def _resolved(folder: Path) -> Path:
    return folder.resolve()


def _static_file(static_dir: Path, path: str) -> Path | None:
    """The file under ``static_dir`` that ``path`` names (``/`` is index.html), if any."""
    rel = path.lstrip("/")
    candidates = ["index.html"] if rel == "" else [rel]
    if rel.startswith("static/"):
        candidates.append(rel[len("static/") :])
    root = _resolved(static_dir)
    for candidate in candidates:
        try:
            # One stat first: an API path (most requests) is no file, and resolving it would
            # walk every component of the path through the file system.
            if not os.path.isfile(os.path.join(root, candidate)):
                continue
            target = (root / candidate).resolve()
            if target.is_relative_to(root) and target.is_file():
                return target
        except (ValueError, OSError):
            # A NUL byte or an over-long name is no file of ours; let the app answer the path.
            continue
    return None


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


def _gateway_refusal(exc: LocalGatewayException) -> dict[str, Any]:
    """A refusal of Chalice's ``LocalGateway`` as the project's error answer.

    Its only refusal here is "no route matches the path" (403 ``Missing Authentication
    Token``, API Gateway's words): the project answers 404 ``not_found``, as the deployed
    API Gateway does through its gateway responses (``infra/edges.py``).
    """
    if exc.CODE == 403:
        status, code, message = 404, "not_found", "no such resource"
    elif exc.CODE == 401:  # 401 and 500 come from authorizers, which the app has none of
        status, code, message = 401, "not_signed_in", "sign in first"
    else:
        status, code, message = 500, "internal_error", "The server failed to answer."
    headers = {"Content-Type": "application/json"}
    return {"statusCode": status, "headers": headers, "body": _error_body(code, message)}


@dataclass(slots=True)
class _Answer:
    """One HTTP answer as ASGI sends it: status, raw headers, body."""

    status_code: int
    raw_headers: list[tuple[bytes, bytes]]
    body: bytes

    async def __call__(self, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await send({"type": "http.response.body", "body": self.body})


#: Starlette's answer to an unexpected fault of the server itself, kept byte for byte; and a
#: method the server does not route at all (TRACE, CONNECT, ...): the API's 405.
_INTERNAL_ERROR = _Answer(
    500,
    [(b"content-length", b"21"), (b"content-type", b"text/plain; charset=utf-8")],
    b"Internal Server Error",
)
_NOT_ROUTED = _error_body(
    "method_not_allowed",
    "this path does not answer that method (the Allow header lists those it does)",
)
_METHOD_NOT_ALLOWED = _Answer(
    405,
    [
        (b"allow", ", ".join(HTTP_METHODS).encode()),
        (b"content-length", str(len(_NOT_ROUTED)).encode()),
        (b"content-type", b"application/json"),
    ],
    _NOT_ROUTED,
)
_HANDLER_FAILED = _error_body("internal_error", "The server failed to answer.")

#: Characters after which Starlette's URL (which the request log and the static lookup used)
#: no longer reads a path as it came: they take the exact, slower way.
_ODD_PATH = re.compile(r"[?#\\\t\r\n]")
_ODD_QUERY = re.compile(rb"[#\t\r\n]")


def _to_response(answer: dict[str, Any]) -> _Answer:
    """Turn a Lambda proxy answer into an HTTP answer (``Content-Length`` is always ours)."""
    body: Any = answer.get("body")
    if body is None:
        content = b""
    elif answer.get("isBase64Encoded"):
        content = base64.b64decode(body)
    elif isinstance(body, bytes):
        content = body
    else:
        content = str(body).encode()
    raw: list[tuple[bytes, bytes]] = []
    has_type = False
    headers = answer.get("headers")
    if headers:
        for name, value in headers.items():
            lower = name.lower()
            if lower == "content-length":
                continue
            key = lower.encode("latin-1")
            for one in value if isinstance(value, list) else (value,):
                has_type = has_type or lower == "content-type"
                raw.append((key, str(one).encode("latin-1")))
    if not has_type and content:
        raw.append((b"content-type", b"application/json"))
    raw.append((b"content-length", str(len(content)).encode()))
    return _Answer(int(answer.get("statusCode", 200)), raw, content)


def _with_cors(answer: _Answer, request_headers: dict[str, str]) -> _Answer:
    """A server-made answer (404 no route, 413) with the CORS headers the app's answers get.

    On AWS, API Gateway makes these answers (its gateway responses, ``infra/edges.py``).
    """
    try:
        allowed = get_settings().cors_allow_origins
    except ConfigError:
        allowed = ()
    if not allowed:
        return answer
    extra: dict[str, str | list[str]] = {}
    cors.add_headers(extra, request_headers.get("origin"), allowed)
    raw = [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in extra.items()]
    return _Answer(answer.status_code, [*answer.raw_headers, *raw], answer.body)


class _BodyTooLarge(Exception):
    """The request's body is over the API's limit (``MAX_BODY_BYTES``)."""


_TOO_LARGE_BODY = _error_body("body_too_large", f"bodies are limited to {MAX_BODY_BYTES} bytes")
#: The app's own 413 (``app.api``), answered before the body is read to its end; the
#: connection closes, so the rest of the body is never read either.
_TOO_LARGE = _Answer(
    413,
    [
        (b"content-length", str(len(_TOO_LARGE_BODY)).encode()),
        (b"content-type", b"application/json"),
        (b"connection", b"close"),
    ],
    _TOO_LARGE_BODY,
)


async def _read_body(receive: Receive, limit: int = MAX_BODY_BYTES) -> bytes | None:
    """The request's whole body; None when the client went away first.

    Raises ``_BodyTooLarge`` as soon as more than ``limit`` bytes arrived: a client cannot make
    the server hold more than that (the app refuses such a body anyway).
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.request":
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _BodyTooLarge
            if not message.get("more_body", False):
                if not chunks:
                    return chunk
                chunks.append(chunk)
                return b"".join(chunks)
            chunks.append(chunk)
        elif message["type"] == "http.disconnect":
            return None


def _declared_length(headers: dict[str, str]) -> int:
    """The body size a request's ``Content-Length`` announces (0 when absent or unreadable)."""
    value = headers.get("content-length", "")
    return int(value) if value.isascii() and value.isdigit() else 0


class _AnswerBroken(Exception):
    """An answer failed after its first bytes were sent."""


async def _send_file(path: Path, scope: Scope, receive: Receive, send: Send) -> Response:
    """Send a static file with Starlette's ``FileResponse`` (HEAD, ranges, ETag)."""
    response = FileResponse(path)
    began = False

    async def tracked(message: Message) -> None:
        nonlocal began
        began = True
        await send(message)

    try:
        await response(scope, receive, tracked)
    except Exception as exc:
        if began:
            raise _AnswerBroken(str(path)) from exc
        raise
    return response


class LocalApp:
    """The ASGI app: Chalice REST routes at the root, WebSockets at ``/ws``, the web client at ``/``.

    A plain ASGI callable rather than a Starlette app: every request used to pass
    Starlette's error and exception middleware, its router and its request/response objects,
    which cost more of the event loop's CPU than uvicorn's HTTP parsing. What a client sees is
    the same: every method Starlette routed goes to the static files (GET, HEAD) or the
    Chalice app, any other gets Starlette's plain 405, a fault of the server itself Starlette's
    plain 500, a WebSocket anywhere but ``/ws`` is refused.
    """

    def __init__(
        self,
        runner: AppRunner,
        notifier: LocalNotifier,
        static_dir: Path = STATIC_DIR,
        access_log: AccessLog = print_access_log,
    ) -> None:
        self.runner = runner
        self.notifier = notifier
        self.static_dir = static_dir
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            if scope["path"] == "/ws":
                websocket = WebSocket(scope, receive, send)
                await serve_websocket(websocket, self.runner, self.notifier, self.access_log)
            else:  # no such WebSocket route: refused before the handshake
                await send({"type": "websocket.close", "code": 1000, "reason": ""})
        elif kind == "lifespan":  # nothing to start or stop (uvicorn runs with lifespan off)
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        method: str = scope["method"]
        path: str = scope["path"]
        if path[:1] != "/" or _ODD_PATH.search(path):
            path = URL(scope=scope).path  # what the request log and static lookup always read
        try:
            answer = await self._answer(scope, receive, send, method, path)
        except _AnswerBroken:
            raise  # the answer had begun: nothing else can be sent (uvicorn drops the connection)
        except Exception:
            # Nothing was sent yet: a plain 500, as Starlette's error middleware answered.
            log.exception("the local server failed on %s %s", method, path)
            answer = _INTERNAL_ERROR
            await answer(send)
        if answer is None:
            return  # the client went away before its request was read
        elapsed_ms = (time.perf_counter() - started) * 1000
        self.access_log(f"{method} {path} {answer.status_code} {elapsed_ms:.1f}ms")

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, method: str, url_path: str
    ) -> _Answer | Response | None:
        """Answer one HTTP request (sent already); the answer, None if the client left."""
        if method in ("GET", "HEAD"):
            static = _static_file(self.static_dir, url_path)
            if static is not None:
                return await _send_file(static, scope, receive, send)
        elif method not in _ROUTED_METHODS:
            await _METHOD_NOT_ALLOWED(send)
            return _METHOD_NOT_ALLOWED
        raw_path: bytes = scope.get("raw_path") or url_path.encode()
        path = raw_path.decode("latin-1")
        query_string: bytes = scope.get("query_string", b"")
        if query_string:
            query = (
                URL(scope=scope).query if _ODD_QUERY.search(query_string) else query_string.decode()
            )
            if query:
                path = f"{path}?{query}"
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            if _declared_length(headers) > MAX_BODY_BYTES:
                raise _BodyTooLarge
            body = await _read_body(receive)
        except _BodyTooLarge:
            too_large = _with_cors(_TOO_LARGE, headers)
            await too_large(send)
            return too_large
        if body is None:
            return None
        client = scope.get("client")
        peer: str = client[0] if client else "127.0.0.1"
        runner = self.runner
        answer = await self._call_app(runner, method, path, headers, body or None, peer)
        await answer(send)
        return answer

    async def _call_app(
        self,
        runner: AppRunner,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes | None,
        peer: str,
    ) -> _Answer:
        """The Chalice app's answer to one request, through the gateway in a worker thread."""

        def handle() -> dict[str, Any]:
            # The peer address becomes the event's requestContext.identity.sourceIp, as API
            # Gateway sets it.
            with runner.lock:
                return runner.gateway.answer(method, path, headers, body, peer)

        try:
            if method in _READS:
                answer = await runner.in_reader_thread(handle)
            elif path in _PASSWORD_PATHS:
                answer = await runner.in_password_thread(handle)
            else:
                answer = await runner.in_thread(handle)
        except LocalGatewayException as exc:
            return _with_cors(_to_response(_gateway_refusal(exc)), headers)
        except Exception:
            log.exception("unhandled error for %s %s", method, path)
            return _Answer(
                500,
                [
                    (b"content-length", str(len(_HANDLER_FAILED)).encode()),
                    (b"content-type", b"application/json"),
                ],
                _HANDLER_FAILED,
            )
        return _to_response(answer)


_ROUTED_METHODS = frozenset(HTTP_METHODS)
#: Methods whose requests write nothing: they run on the reader threads.
_READS = frozenset(("GET", "HEAD", "OPTIONS"))
#: Requests that hash a password: they run on threads of their own.
_PASSWORD_PATHS = frozenset(("/auth/register", "/auth/login"))


def build_app(
    chalice_app: Chalice | None = None,
    *,
    notifier: LocalNotifier | None = None,
    runner: AppRunner | None = None,
    static_dir: Path = STATIC_DIR,
    access_log: AccessLog = print_access_log,
) -> LocalApp:
    """The ASGI app: Chalice REST routes at the root, WebSockets at ``/ws``, the web client at ``/``."""
    return LocalApp(
        runner or AppRunner(chalice_app or load_chalice_app()),
        notifier or LocalNotifier(),
        static_dir=static_dir,
        access_log=access_log,
    )
