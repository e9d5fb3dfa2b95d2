"""The local server: one ASGI app serving the Chalice app's REST routes, WebSockets and web client.

HTTP requests become API Gateway events by the rules of Chalice's own ``LocalGateway``
(routing, path parameters, CORS and error answers are Chalice's; ``_Gateway`` builds the
same event for less CPU), static files are Starlette's ``FileResponse``, WebSocket frames on
``/ws`` become API-Gateway-style WebSocket events for ``app.handler_map["ws_connect" |
"ws_message" | "ws_disconnect"]``, and a ``LocalTimers`` loop invokes
``app.handler_map["room_timer"]``.

Storage (ARCHITECTURE.md decision 8): by default a SQLite file in a data folder
(``SqliteStore``), which also holds the token-signing secret, so accounts, rooms and sessions
survive a restart; handlers then run in parallel worker threads. ``storage="moto"`` keeps
everything in moto's in-memory DynamoDB, and since moto is not safe under concurrent
requests every handler invocation then runs under one global lock; a DynamoDB endpoint
(``dynamodb_endpoint``) talks to a real DynamoDB or a compatible server.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import functools
import gc
import importlib
import importlib.util
import json
import logging
import os
import pkgutil
import queue
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

import uvicorn
from chalice.app import Chalice
from chalice.config import Config
from chalice.local import LambdaContext, LocalGateway, LocalGatewayException
from starlette.datastructures import URL
from starlette.responses import FileResponse, Response
from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from chalicelib import cors, wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import Store
from chalicelib.schemas import MAX_BODY_BYTES
from chalicelib.settings import ConfigError, get_settings, reset_settings
from liars_local.notifier import LocalManagementApi, LocalNotifier
from liars_local.push import load_or_create_vapid_secret, local_push
from liars_local.timers import LocalTimers

log = logging.getLogger(__name__)

T = TypeVar("T")

#: One lock around every call into the Chalice app when the storage is moto (not thread-safe).
APP_LOCK = threading.RLock()

STORAGES = ("sqlite", "moto", "dynamodb")
APP_DIR_NAME = "liars-lies"
DB_FILE_NAME = "liars-lies.db"
SECRET_FILE_NAME = "token-secret"
SWEEP_SECONDS = 600.0
#: Handler threads at once. The work is CPU-bound Python under one GIL: more threads than a
#: few only make each request wait longer for its turn (and hold SQLite's write lock longer).
WORKER_THREADS = 8
#: Handler threads at once on SQLite, where a handler waits on nothing but the GIL (a store
#: call takes microseconds): with 8, the requests in hand share the interpreter in 5 ms
#: slices, so each one finishes only when most of them have, and the event loop's thread
#: queues for the GIL behind them all. Two keep a slow request (a password hash, which
#: leaves the GIL) from holding up the rest. Measured under ``bench/local.py --games 20``:
#: p99 x0.78 and CPU per action x0.91 against 8 (docs/DECISIONS.md, issue 14).
SQLITE_WORKER_THREADS = 2

#: The web client (the top-level ``web/`` folder, installed beside the Python packages).
STATIC_DIR = Path(importlib.util.find_spec("web").submodule_search_locations[0])  # type: ignore[union-attr,index]
LOCAL_TABLE_NAME = "liars-lies-local"
LOCAL_REGION = "us-east-1"
WS_STAGE = "ws"
WS_API_ID = "local"
HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

AccessLog = Callable[[str], None]


def print_access_log(line: str) -> None:
    """Default request log: one line on stdout, flushed."""
    print(line, file=sys.stdout, flush=True)


def load_chalice_app() -> Chalice:
    """Import the project's Chalice app (``app.py``), the same object Lambda runs."""
    import app as app_module  # the project's top-level module

    chalice_app: Chalice = app_module.app
    return chalice_app


def chalice_config(chalice_app: Chalice, stage: str = "dev") -> Config:
    """A chalice Config for ``LocalGateway``, read from ``.chalice/config.json`` when present."""
    config_from_disk: dict[str, Any] = {"version": "2.0", "app_name": chalice_app.app_name}
    project_dir = Path.cwd()
    with contextlib.suppress(ImportError):
        import app as app_module

        if app_module.__file__:
            project_dir = Path(app_module.__file__).resolve().parent
    config_file = project_dir / ".chalice" / "config.json"
    if config_file.is_file():
        config_from_disk = json.loads(config_file.read_text())
    return Config(
        chalice_stage=stage,
        user_provided_params={"chalice_app": chalice_app, "project_dir": str(project_dir)},
        config_from_disk=config_from_disk,
        default_params={"project_dir": str(project_dir)},
    )


def lambda_context(function_name: str) -> LambdaContext:
    """A small fake Lambda context like the one ``chalice local`` passes."""
    return LambdaContext(function_name=function_name, memory_size=512, max_runtime_ms=900_000)


def default_data_dir(
    platform: str | None = None, env: dict[str, str] | os._Environ[str] | None = None
) -> Path:
    """The per-user data folder: the platform's data directory plus ``liars-lies``.

    Linux and others: ``$XDG_DATA_HOME/liars-lies`` (default ``~/.local/share/liars-lies``);
    macOS: ``~/Library/Application Support/liars-lies``; Windows: ``%APPDATA%/liars-lies``.
    """
    platform = sys.platform if platform is None else platform
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if platform.startswith("win"):
        base = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = env.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / APP_DIR_NAME


def load_or_create_secret(data_dir: Path) -> str:
    """The token-signing secret kept in ``data_dir``, made once (owner-only file, mode 0600)."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = data_dir / SECRET_FILE_NAME
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # a copied or restored file: owner-only again
        text = path.read_text().strip()
        if len(text.encode()) < 32:
            raise ValueError(
                f"{path} holds no usable secret: delete it to make a new one"
            ) from None
        return text
    text = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w") as out:
        out.write(text + "\n")
    return text


def preload_app_modules(package: str = "chalicelib") -> None:
    """Import every module of the app's package now, before the first request.

    ``app.py`` imports the service and its dependencies lazily (a Lambda cold start pays
    only for what it uses); a long-running server would otherwise pay those imports inside
    its first requests, which then wait hundreds of milliseconds (and every request queued
    behind them too).
    """
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        importlib.import_module(info.name)


def tune_gc_for_serving() -> None:
    """Garbage-collect less often in a process that only serves (call once, after start-up).

    Everything imported and built at start-up is moved out of the collector's sight
    (``gc.freeze``), and the youngest generation is collected after 20,000 allocations
    instead of 700: a request makes thousands of short-lived objects (JSON, views, the
    room), nearly all freed by reference counting, so the default thresholds ran a
    collection every few requests and a full one, over every module's objects, every few
    hundred. Measured under ``bench/local.py --games 20``: CPU per action x0.90, p99
    x0.92. Process-wide, so only the ``liars-dice serve`` processes call it, never a test
    that starts a server in its own process.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


class PortInUse(OSError):
    """The chosen port is taken by another program."""


class _ThreadLocalRequest:
    """Per-thread ``current_request`` and ``lambda_context`` for a Chalice app.

    Chalice keeps the request being handled on the app object; with handlers in parallel
    threads each thread must see its own (as ``chalice local`` does with ``LocalChalice``).
    """

    _local = threading.local()

    @property
    def current_request(self) -> Any:
        return getattr(self._local, "current_request", None)

    @current_request.setter
    def current_request(self, value: Any) -> None:
        self._local.current_request = value

    @property
    def lambda_context(self) -> Any:
        return getattr(self._local, "lambda_context", None)

    @lambda_context.setter
    def lambda_context(self, value: Any) -> None:
        self._local.lambda_context = value


class _ThreadLocalSourceIp:
    """Per-thread ``LOCAL_SOURCE_IP`` for Chalice's event converter (each request's peer)."""

    _local = threading.local()

    @property
    def LOCAL_SOURCE_IP(self) -> str:
        return str(getattr(self._local, "source_ip", "127.0.0.1"))

    @LOCAL_SOURCE_IP.setter
    def LOCAL_SOURCE_IP(self, value: str) -> None:
        self._local.source_ip = value


def _per_thread_source_ip(converter: Any) -> None:
    """Make ``converter.LOCAL_SOURCE_IP`` a per-thread value (once)."""
    cls = converter.__class__
    if not issubclass(cls, _ThreadLocalSourceIp):
        converter.__class__ = type(f"ThreadLocal{cls.__name__}", (_ThreadLocalSourceIp, cls), {})


@contextlib.contextmanager
def _thread_local_requests(chalice_app: Chalice) -> Iterator[None]:
    """Give ``chalice_app`` per-thread request state while serving; restore its class after."""
    original = chalice_app.__class__
    if issubclass(original, _ThreadLocalRequest):
        yield
        return
    chalice_app.__dict__.pop("current_request", None)
    chalice_app.__dict__.pop("lambda_context", None)
    chalice_app.__class__ = type(
        f"ThreadLocal{original.__name__}", (_ThreadLocalRequest, original), {}
    )
    try:
        yield
    finally:
        chalice_app.__class__ = original


#: A path Chalice's route matcher (``urllib.parse.urlparse``) reads in its own way: a
#: leading ``//`` (a host), ``;`` (parameters), ``#`` (a fragment), tabs and line breaks.
_PARSED_SPECIALLY = re.compile(r"^//|^[^/]|[;#\t\r\n]")


class _Gateway(LocalGateway):
    """Chalice's ``LocalGateway``, doing the same for less CPU per request.

    Chalice looks up the function name, memory size and timeout through its layered config
    for every request (they cannot change while the server runs), and matches a path by
    parsing it as a URL and trying every route in turn. ``answer`` builds the same event
    with the same route-matching rule over only the routes of the path's length; whatever is
    unusual (no route, CORS preflight, a path ``urlparse`` reads specially) goes through
    Chalice's own ``handle_request``.
    """

    def __init__(self, app_object: Chalice, config: Config) -> None:
        super().__init__(app_object, config)
        timeout = config.lambda_timeout
        self._context_args: dict[str, Any] = {
            "function_name": config.function_name,
            "memory_size": config.lambda_memory_size,
            "max_runtime_ms": (self.MAX_LAMBDA_EXECUTION_TIME if timeout is None else timeout)
            * 1000,
        }
        # RouteMatcher's order (sorted), grouped by the number of parts: a route of another
        # length never matches, nor captures anything on the way.
        self._routes_by_length: dict[int, list[tuple[str, list[tuple[bool, str]]]]] = {}
        for route in sorted(app_object.routes):
            parts = route.split("/")
            pattern = [
                (True, p[1:-1]) if p.startswith("{") and p.endswith("}") else (False, p)
                for p in parts
            ]
            self._routes_by_length.setdefault(len(parts), []).append((route, pattern))
        self._binary = self._app_object.api.binary_types

    def _generate_lambda_context(self) -> LambdaContext:
        return LambdaContext(**self._context_args)

    def _has_user_defined_options_method(self, lambda_event: dict[str, Any]) -> bool:
        # OPTIONS on a path without CORS reaches the app, which answers 405 with Allow, as the
        # deployed API does; Chalice's gateway would answer an empty 200 itself. A CORS path
        # keeps Chalice's preflight answer.
        methods = self._app_object.routes[lambda_event["requestContext"]["resourcePath"]]
        return "OPTIONS" in methods or all(entry.cors is None for entry in methods.values())

    def answer(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes | None,
        source_ip: str,
    ) -> dict[str, Any]:
        """What ``handle_request`` answers, with ``source_ip`` as the event's sourceIp.

        ``headers`` must have lower-case names (ASGI's). Raises ``LocalGatewayException``
        as ``handle_request`` does.
        """
        event = (
            None
            if _PARSED_SPECIALLY.search(path)
            else self._event(method, path, headers, body, source_ip)
        )
        if event is None or (
            method == "OPTIONS" and not self._has_user_defined_options_method(event)
        ):
            # Chalice's own way: its 403 for no route, its CORS preflight answer.
            self.event_converter.LOCAL_SOURCE_IP = source_ip
            found: dict[str, Any] = self.handle_request(
                method=method, path=path, headers=headers, body=body
            )
            return found
        context = self._generate_lambda_context()
        event, context = self._authorizer.authorize(path, event, context)
        response: dict[str, Any] = self._app_object(event, context)
        return response

    def _event(
        self, method: str, path: str, headers: dict[str, str], body: bytes | None, source_ip: str
    ) -> dict[str, Any] | None:
        """``LambdaEventConverter.create_lambda_event``'s event; None when no route matches."""
        url_path, _, query = path.partition("?")
        match_path = url_path[:-1] if url_path != "/" and url_path.endswith("/") else url_path
        parts = match_path.split("/")
        captured: dict[str, str] = {}
        for route, pattern in self._routes_by_length.get(len(parts), ()):
            for part, (capture, name) in zip(parts, pattern, strict=True):
                if capture:
                    captured[name] = part
                elif part != name:
                    break
            else:
                resource = route
                break
        else:
            return None
        event: dict[str, Any] = {
            "requestContext": {
                "httpMethod": method,
                "resourcePath": resource,
                "identity": {"sourceIp": source_ip},
                "path": url_path,
            },
            "headers": headers,
            "pathParameters": captured,
            "stageVariables": {},
            "multiValueQueryStringParameters": (
                parse_qs(query, keep_blank_values=True) or None if query else None
            ),
        }
        if body is not None and headers.get("content-type", "") in self._binary:
            event["body"] = base64.b64encode(body).decode("ascii")
            event["isBase64Encoded"] = True
        else:
            event["body"] = body
        return event


class _Workers:
    """Handler threads fed from one queue, each answer handed straight back to its event loop.

    What ``loop.run_in_executor`` on a ``ThreadPoolExecutor`` does, for less of the loop's CPU:
    no concurrent ``Future`` (lock, condition) chained to an asyncio one, just a queue in and
    ``call_soon_threadsafe`` out.
    """

    def __init__(self, threads: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def submit(
        self,
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[Any],
        fn: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> None:
        self._jobs.put((loop, future, fn, args))

    def shutdown(self) -> None:
        """Let the threads finish what is queued, then end them."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job is None:
                return
            loop, future, fn, args = job
            del job
            if future.cancelled():  # its caller stopped waiting before it started
                continue
            outcome: tuple[Callable[[asyncio.Future[Any], Any], None], Any, Any]
            try:
                outcome = (_set_result, future, fn(*args))
            except BaseException as exc:  # handed to the caller, as an executor does
                outcome = (_set_exception, future, exc)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for it
                loop.call_soon_threadsafe(*outcome)
            del outcome, future, fn, args, loop


def _set_result(future: asyncio.Future[Any], result: Any) -> None:
    if not future.cancelled():
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], exc: BaseException) -> None:
    if isinstance(exc, StopIteration):  # an asyncio future refuses it (the caller would hang)
        wrapped = RuntimeError(f"the handler raised {exc!r}")
        wrapped.__cause__ = exc
        exc = wrapped
    if not future.cancelled():
        future.set_exception(exc)


class AppRunner:
    """Invokes the Chalice app's handlers: one at a time under ``lock``, or in parallel (None)."""

    def __init__(
        self,
        chalice_app: Chalice,
        lock: threading.RLock | None = APP_LOCK,
        threads: int = WORKER_THREADS,
    ) -> None:
        self.app = chalice_app
        self.lock: contextlib.AbstractContextManager[Any] = (
            contextlib.nullcontext() if lock is None else lock
        )
        self.serialized = lock is not None
        self.threads = threads
        self._workers: _Workers | None = None
        self._workers_lock = threading.Lock()
        self.gateway = _Gateway(chalice_app, chalice_config(chalice_app))
        _per_thread_source_ip(self.gateway.event_converter)

    async def in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in one of at most ``threads`` worker threads (call on the loop).

        Measured under the bench, anyio's ``to_thread`` (capacity limiter, cancel scope,
        run-vars) cost more of the server's CPU per request than the Chalice bridge did, and
        ``loop.run_in_executor`` still a good part of that (see ``_Workers``).
        """
        workers = self._workers
        if workers is None:
            with self._workers_lock:
                if self._workers is None:
                    self._workers = _Workers(self.threads, "liars-dice-worker")
                workers = self._workers
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        workers.submit(loop, future, fn, args)
        return await future

    def close(self) -> None:
        """Stop the worker threads once their current calls are done."""
        workers, self._workers = self._workers, None
        if workers is not None:
            workers.shutdown()

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` holding the lock if any (blocking: call from a worker thread)."""
        with self.lock:
            return fn()

    def handler(self, name: str) -> Callable[[dict[str, Any], Any], Any] | None:
        """The app's handler registered under the Python function name ``name``, if any."""
        found: Callable[[dict[str, Any], Any], Any] | None = self.app.handler_map.get(name)
        return found

    def invoke(self, name: str, event: dict[str, Any]) -> Any:
        """Invoke the handler ``name`` with ``event`` as Lambda would, under the lock."""
        handler = self.handler(name)
        if handler is None:
            raise LookupError(f"the app has no handler named {name!r}")
        with self.lock:
            return handler(event, lambda_context(name))

    def fire_timer(self, room_id: str, version: int) -> None:
        """What EventBridge Scheduler would do: invoke ``room_timer`` with room and version."""
        if self.handler("room_timer") is None:
            log.warning(
                "timer for %s v%s dropped: the app has no room_timer handler", room_id, version
            )
            return
        self.invoke("room_timer", {"room_id": room_id, "version": version})


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


WS_MAX_MESSAGE_BYTES = 128 * 1024
"""The largest WebSocket message the server reads, as API Gateway (which closes with 1009
past it): uvicorn's default of 16 MB would let each connection make the server hold that much
for a message the app refuses past 4,096 characters anyway."""


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
                await _serve_websocket(websocket, self.runner, self.notifier, self.access_log)
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


def _ws_event(
    websocket: WebSocket, connection_id: str, route_key: str, body: str | None
) -> dict[str, Any]:
    """An API-Gateway-shaped WebSocket event, as Lambda receives it."""
    event_type = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route_key, "MESSAGE")
    host = websocket.headers.get("host") or "localhost"
    query = dict(websocket.query_params)
    now = time.time()
    event: dict[str, Any] = {
        "requestContext": {
            "routeKey": route_key,
            "eventType": event_type,
            "connectionId": connection_id,
            "domainName": host,
            "stage": WS_STAGE,
            "apiId": WS_API_ID,
            "requestId": uuid.uuid4().hex,
            "requestTimeEpoch": int(now * 1000),
            "identity": {"sourceIp": websocket.client.host if websocket.client else "127.0.0.1"},
        },
        "queryStringParameters": query or None,
        "isBase64Encoded": False,
    }
    if route_key == "$connect":
        event["headers"] = {k: v for k, v in websocket.headers.items()}
    if body is not None:
        event["body"] = body
    return event


async def _serve_websocket(
    websocket: WebSocket, runner: AppRunner, notifier: LocalNotifier, access_log: AccessLog
) -> None:
    """Run one WebSocket connection through the app's $connect/$default/$disconnect handlers."""
    connection_id = notifier.new_connection_id()
    started = time.perf_counter()
    if runner.handler("ws_message") is None:
        await websocket.accept()
        await websocket.send_text(
            json.dumps(
                {
                    "type": "error",
                    "error": {
                        "code": "websocket_unavailable",
                        "message": "This server's app has no WebSocket handlers "
                        "(ws_message is missing).",
                    },
                }
            )
        )
        await websocket.close(code=1011, reason="no WebSocket handlers")
        access_log(f"WS /ws 1011 {(time.perf_counter() - started) * 1000:.1f}ms no handlers")
        return

    def invoke(route_key: str, body: str | None = None) -> Any:
        name = {"$connect": "ws_connect", "$disconnect": "ws_disconnect"}.get(
            route_key, "ws_message"
        )
        if runner.handler(name) is None:  # $connect and $disconnect are optional
            return None
        return runner.invoke(name, _ws_event(websocket, connection_id, route_key, body))

    try:
        answer = await runner.in_thread(invoke, "$connect")
    except Exception:
        log.exception("ws_connect failed")
        answer = {"statusCode": 500}
    status = int(answer.get("statusCode", 200)) if isinstance(answer, dict) else 200
    if status >= 400:
        # refused before the handshake completes: the client sees an HTTP 403, as in AWS
        await websocket.close(code=1008)
        access_log(f"WS /ws {status} {(time.perf_counter() - started) * 1000:.1f}ms refused")
        return
    await websocket.accept()
    await notifier.register(connection_id, websocket)
    access_log(
        f"WS /ws 101 {(time.perf_counter() - started) * 1000:.1f}ms connected {connection_id}"
    )
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None and message.get("bytes") is not None:
                text = message["bytes"].decode("utf-8", errors="replace")
            try:
                await runner.in_thread(invoke, "$default", text)
            except Exception:
                log.exception("ws_message failed")
                notifier.send(
                    connection_id,
                    {
                        "type": "error",
                        "error": {"code": "internal_error", "message": "Internal server error"},
                    },
                )
    except WebSocketDisconnect:
        pass
    finally:
        await notifier.unregister(connection_id)
        try:
            await runner.in_thread(invoke, "$disconnect")
        except Exception:
            log.exception("ws_disconnect failed")
        access_log(f"WS /ws closed {(time.perf_counter() - started) * 1000:.1f}ms {connection_id}")


@contextlib.contextmanager
def local_environment(
    dynamodb_endpoint: str | None = None,
    *,
    embedded_moto: bool | None = None,
    token_secret: str | None = None,
    vapid_secret: str | None = None,
) -> Iterator[None]:
    """Environment for the app: fake AWS credentials, table name, token secret, moto.

    moto runs when ``embedded_moto`` (default: when no endpoint is given); the token secret
    is ``token_secret`` (the data folder's) or a fresh random one, unless TOKEN_SECRET is set.
    """
    use_moto = dynamodb_endpoint is None if embedded_moto is None else embedded_moto
    defaults = {
        "AWS_DEFAULT_REGION": LOCAL_REGION,
        "AWS_REGION": os.environ.get("AWS_DEFAULT_REGION", LOCAL_REGION),
        "TABLE_NAME": LOCAL_TABLE_NAME,
        "TOKEN_SECRET": token_secret or secrets.token_urlsafe(32),
        "VAPID_SECRET": vapid_secret or secrets.token_urlsafe(48),
        "WEBSOCKET_API_ID": WS_API_ID,
    }
    forced: dict[str, str] = {}
    if dynamodb_endpoint is None:
        # never let the embedded backend see real credentials
        forced = {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_SESSION_TOKEN": "testing",
        }
    else:
        defaults.update({"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"})
        forced = {
            "DYNAMODB_ENDPOINT": dynamodb_endpoint,
            "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_endpoint,
        }
    saved = {k: os.environ.get(k) for k in [*defaults, *forced]}
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    os.environ.update(forced)
    mock: Any = None
    reset_settings()
    try:
        if use_moto:
            from moto import mock_aws

            mock = mock_aws()
            mock.start()
        yield
    finally:
        if mock is not None:
            mock.stop()
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        reset_settings()


InstallDeps = Callable[[LocalNotifier, LocalTimers, Store], Callable[[], None] | None]

WAKE_AT_START_LIMIT = 10_000
"""At most this many rooms in play are woken when the server starts (newest first)."""


def local_store(db_path: Path | None = None) -> Store:
    """The store: SQLite at ``db_path``, else DynamoDB on this process's table (moto or endpoint)."""
    settings = get_settings()
    if db_path is not None:
        return SqliteStore(db_path, connection_ttl_seconds=settings.connection_ttl_seconds)
    return DynamoStore(
        settings.table_name,
        settings.region,
        connection_ttl_seconds=settings.connection_ttl_seconds,
    )


def install_wiring_deps(
    notifier: LocalNotifier, timers: LocalTimers, store: Store
) -> Callable[[], None] | None:
    """Point the app's deps at the store, notifier and timers; return the undo."""
    wiring.set_deps(
        wiring.Deps(
            store=store,
            notifier=notifier,
            timers=timers,
            clock=wiring.SystemClock(),
            roller=wiring.default_roller(),
            push=local_push(store),
        )
    )
    return wiring.reset_deps


@contextlib.contextmanager
def _local_websocket_api(chalice_app: Chalice, notifier: LocalNotifier) -> Iterator[None]:
    """Route Chalice's own ``app.websocket_api`` through the local notifier while serving."""
    api: Any = chalice_app.websocket_api
    if api is None:
        yield
        return
    saved = (api.session, api._client, api._endpoint)
    api.session = LocalManagementApi(notifier)
    api._client = None
    api._endpoint = None
    try:
        yield
    finally:
        api.session, api._client, api._endpoint = saved


def listening_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening; PortInUse when it is taken.

    ``reuse_port`` (Linux) lets several such sockets share the port (``liars_local.workers``).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, so asyncio sets TCP_NODELAY on every accepted connection: with
    # proto 0 it does not, and Nagle holds each answer's body until the client's delayed
    # ACK (about 40 ms per request on Linux).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(2048)  # the printed URL accepts connections before uvicorn's loop runs
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise PortInUse(err.errno, f"port {port} in use; try --port 0") from None
        raise
    return sock


@dataclass
class _Running:
    server: uvicorn.Server
    thread: threading.Thread | None
    sock: socket.socket


class LocalServer:
    """The whole local server: environment, storage, timers, deps and uvicorn on one port.

    ``storage`` is ``"sqlite"`` (default: ``liars-lies.db`` in ``data_dir``, or in a
    temporary folder removed at stop when ``data_dir`` is None), ``"moto"`` (in memory, one
    global lock) or ``"dynamodb"`` (the table at ``dynamodb_endpoint``; implied by it).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        storage: str | None = None,
        data_dir: Path | None = None,
        dynamodb_endpoint: str | None = None,
        chalice_app: Chalice | None = None,
        access_log: AccessLog = print_access_log,
        install_deps: InstallDeps = install_wiring_deps,
        static_dir: Path = STATIC_DIR,
        sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        storage = storage or ("dynamodb" if dynamodb_endpoint else "sqlite")
        if storage not in STORAGES:
            raise ValueError(f"storage must be one of {', '.join(STORAGES)}, not {storage!r}")
        if (storage == "dynamodb") != (dynamodb_endpoint is not None):
            raise ValueError("a DynamoDB endpoint goes with storage 'dynamodb' only")
        self.host = host
        self.port = port
        self.storage = storage
        self.data_dir = data_dir
        self.dynamodb_endpoint = dynamodb_endpoint
        self._chalice_app = chalice_app
        self._access_log = access_log
        self._install_deps = install_deps
        self._static_dir = static_dir
        self._sweep_seconds = sweep_seconds
        self.notifier = LocalNotifier()
        self.timers: LocalTimers | None = None
        self.runner: AppRunner | None = None
        self.store: Store | None = None
        self._stack = contextlib.ExitStack()
        self._running: _Running | None = None

    @property
    def db_path(self) -> Path | None:
        """The SQLite file, once prepared with SQLite storage."""
        if self.storage != "sqlite" or self.data_dir is None:
            return None
        return self.data_dir / DB_FILE_NAME

    @property
    def url(self) -> str:
        """The HTTP base URL, e.g. ``http://127.0.0.1:8000``."""
        return f"http://{self._netloc}"

    @property
    def ws_url(self) -> str:
        """The WebSocket URL, e.g. ``ws://127.0.0.1:8000/ws``."""
        return f"ws://{self._netloc}/ws"

    @property
    def _netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def prepare(self) -> uvicorn.Server:
        """Set up environment, storage, deps and timers, bind the socket; return the uvicorn server.

        Raises PortInUse when the port is taken (nothing is left set up).
        """
        try:
            return self._prepare()
        except BaseException:
            self._stack.close()
            raise

    def _prepare(self) -> uvicorn.Server:
        stack = self._stack
        sock = self._bind()  # first: a taken port fails before anything else is set up
        stack.callback(sock.close)
        if self.storage == "sqlite" and self.data_dir is None:
            self.data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory("-liars")))
        secret = None if self.data_dir is None else load_or_create_secret(self.data_dir)
        vapid = None if self.data_dir is None else load_or_create_vapid_secret(self.data_dir)
        stack.enter_context(
            local_environment(
                self.dynamodb_endpoint,
                embedded_moto=self.storage == "moto",
                token_secret=secret,
                vapid_secret=vapid,
            )
        )
        chalice_app = self._chalice_app or load_chalice_app()
        serialized = self.storage == "moto"
        if not serialized:
            stack.enter_context(_thread_local_requests(chalice_app))
        threads = SQLITE_WORKER_THREADS if self.storage == "sqlite" else WORKER_THREADS
        self.runner = runner = AppRunner(
            chalice_app, APP_LOCK if serialized else None, threads=threads
        )
        stack.callback(runner.close)
        preload_app_modules()
        stack.enter_context(_local_websocket_api(chalice_app, self.notifier))
        self.store = store = local_store(self.db_path)
        if isinstance(store, SqliteStore):
            stack.callback(store.close)
            self._start_sweeper(store)
        elif isinstance(store, DynamoStore):
            with runner.lock:
                store.ensure_table()
        self.timers = timers = LocalTimers(runner.fire_timer)
        undo = self._install_deps(self.notifier, timers, store)
        if undo is not None:
            stack.callback(undo)
        timers.start()
        stack.callback(timers.stop)
        if self.storage != "moto":  # moto's tables start empty: no room is in play
            self._wake_rooms_in_play(store, runner)
        self.port = sock.getsockname()[1]
        app = build_app(
            runner=runner,
            notifier=self.notifier,
            static_dir=self._static_dir,
            access_log=self._access_log,
        )
        # proxy_headers off: X-Forwarded-For must not choose the address that limits count.
        # loop "auto" is uvloop where installed (not on Windows). No permessage-deflate: on
        # loopback or a LAN, compressing every push costs CPU on both ends and saves nothing.
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            loop="auto",
            ws="websockets-sansio",
            ws_per_message_deflate=False,
            ws_max_size=WS_MAX_MESSAGE_BYTES,
            proxy_headers=False,
        )
        server = uvicorn.Server(config)
        self._running = _Running(server=server, thread=None, sock=sock)
        return server

    def _bind(self) -> socket.socket:
        return listening_socket(self.host, self.port)

    def _start_sweeper(self, store: SqliteStore) -> None:
        """Delete expired rows now and every ``sweep_seconds`` (DynamoDB's TTL, locally)."""
        stop = threading.Event()

        def sweep_forever() -> None:
            while True:
                try:
                    store.sweep()
                except Exception:
                    log.exception("the expiry sweep failed")
                if stop.wait(self._sweep_seconds):
                    return

        thread = threading.Thread(target=sweep_forever, name="liars-dice-sweep", daemon=True)
        thread.start()

        def stop_sweeper() -> None:
            stop.set()
            thread.join(10)

        self._stack.callback(stop_sweeper)

    def _wake_rooms_in_play(self, store: Store, runner: AppRunner) -> None:
        """Wake every room in play once, in the background, as a late timer would.

        Pending wake-ups live in the memory of the process that armed them and went with it;
        the rooms' deadlines are in the store. Each room's timer handler applies what has
        passed and arms the room's next wake-up in this process (a room whose wake-up is
        pending elsewhere gets one more, which changes nothing when it fires).
        """
        stop = threading.Event()

        def wake_all() -> None:
            try:
                rooms = store.list_rooms("playing", limit=WAKE_AT_START_LIMIT)
            except Exception:
                log.exception("listing the rooms in play to wake them failed")
                return
            for summary in rooms:
                if stop.is_set():
                    return
                room_id = str(summary["id"])
                try:
                    stored = store.get_room(room_id)
                    if stored is not None:
                        runner.fire_timer(room_id, stored.version)
                except Exception:
                    log.exception("waking room %s after the start failed", room_id)

        thread = threading.Thread(target=wake_all, name="liars-dice-wake", daemon=True)
        thread.start()

        def stop_waking() -> None:
            stop.set()
            thread.join(10)

        self._stack.callback(stop_waking)

    def run_prepared(self) -> None:
        """Serve the prepared server in this thread until Ctrl-C (uvicorn handles SIGINT/SIGTERM)."""
        running = self._running
        if running is None:
            raise RuntimeError("call prepare() first")
        try:
            running.server.run(sockets=[running.sock])
        finally:
            self._running = None
            self._stack.close()

    def serve_forever(self) -> None:
        """Prepare, then serve in this thread until Ctrl-C, then clean up."""
        self.prepare()
        self.run_prepared()

    def start(self) -> LocalServer:
        """Serve in a background thread; return once it accepts connections."""
        server = self.prepare()
        running = self._running
        assert running is not None
        thread = threading.Thread(
            target=server.run,
            kwargs={"sockets": [running.sock]},
            name="liars-dice-uvicorn",
            daemon=True,
        )
        running.thread = thread
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the local server failed to start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and undo everything ``prepare`` set up."""
        running, self._running = self._running, None
        try:
            if running is not None and running.thread is not None:
                running.server.should_exit = True
                running.thread.join(10)
        finally:
            self._stack.close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
