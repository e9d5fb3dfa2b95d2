"""The Chalice bridge: the project's Chalice app, invoked in parallel threads as Lambda would.

Chalice keeps the request it handles on the app object and the peer's address on its event
converter, both one per process; ``thread_local_requests`` and ``_per_thread_source_ip``
make them per thread while the local server serves. ``_Gateway`` is Chalice's own
``LocalGateway`` building the same API Gateway event for less CPU (the measurement and the
equality test are in its docstring). ``AppRunner`` invokes the app's handlers (REST through
the gateway, WebSocket and timer handlers by name) in the handler threads
(``liars_local.thread_pool``), one at a time under ``APP_LOCK`` when the store is moto.
``local_websocket_api`` points Chalice's ``app.websocket_api`` at the local notifier.

Hand-written parts and why (each measured under ``bench/local.py --games 20``; see
docs/DECISIONS.md, issues 14 and 25): ``_Gateway`` overrides two private methods of
``LocalGateway`` and matches routes itself, because ``LocalGateway.handle_request`` parsed
every path as a URL, tried every route and read the Lambda settings through the layered
config on every request, which cost more of the server's CPU than the rest of the bridge.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

from chalice.app import Chalice
from chalice.config import Config
from chalice.local import LambdaContext, LocalGateway

from liars_local.notifier import LocalManagementApi, LocalNotifier
from liars_local.thread_pool import (
    PASSWORD_THREADS,
    READER_THREADS,
    WORKER_THREADS,
    HandlerThreads,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: One lock around every call into the Chalice app when the storage is moto (not thread-safe).
APP_LOCK = threading.RLock()


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
def thread_local_requests(chalice_app: Chalice) -> Iterator[None]:
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
        self._workers: HandlerThreads | None = None
        self._readers: HandlerThreads | None = None
        self._hashers: HandlerThreads | None = None
        self._workers_lock = threading.Lock()
        self.gateway = _Gateway(chalice_app, chalice_config(chalice_app))
        _per_thread_source_ip(self.gateway.event_converter)

    async def in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in one of at most ``threads`` worker threads (call on the loop).

        Measured under the bench, anyio's ``to_thread`` (capacity limiter, cancel scope,
        run-vars) cost more of the server's CPU per request than the Chalice bridge did, and
        ``loop.run_in_executor`` still a good part of that (see ``HandlerThreads``).
        """
        return await self._run_on("_workers", self.threads, "liars-dice-worker", fn, args)

    async def in_reader_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``in_thread``, on threads of their own for requests that write nothing (GET, HEAD).

        A writer waits for the store's writer lock (up to the busy timeout when another
        process holds it); with every handler thread waiting so, ``/health`` and every read
        would wait too. Reads never take that lock, so on their own ``READER_THREADS`` they
        answer while writes queue.
        """
        return await self._run_on("_readers", READER_THREADS, "liars-dice-reader", fn, args)

    async def in_password_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``in_thread``, on threads of their own for the requests that hash a password
        (sign-up, sign-in: argon2, tens of milliseconds each, out of the GIL).

        On the writers' few threads a burst of sign-ups held every one of them while room
        changes queued behind (at a thousand rooms starting in 20 s, the actions' p99 was
        mostly that wait); here a hash waits only for other hashes.
        """
        return await self._run_on("_hashers", PASSWORD_THREADS, "liars-dice-password", fn, args)

    async def _run_on(
        self, pool: str, threads: int, name: str, fn: Callable[..., T], args: tuple[Any, ...]
    ) -> T:
        """Run ``fn(*args)`` on the pool kept in attribute ``pool`` (started on first use)."""
        workers: HandlerThreads | None = getattr(self, pool)
        if workers is None:
            with self._workers_lock:
                workers = getattr(self, pool)
                if workers is None:
                    workers = HandlerThreads(threads, name)
                    setattr(self, pool, workers)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        workers.submit(loop, future, fn, args)
        return await future

    def close(self) -> None:
        """Stop the worker threads once their current calls are done."""
        for pool in (self._workers, self._readers, self._hashers):
            if pool is not None:
                pool.shutdown()
        self._workers = self._readers = self._hashers = None

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


@contextlib.contextmanager
def local_websocket_api(chalice_app: Chalice, notifier: LocalNotifier) -> Iterator[None]:
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
