"""The local server: one port serving the Chalice app's REST routes, WebSockets and web client.

``LocalServer`` assembles the parts, each in its own module:

- ``liars_local.environment``: the data folder, the token secret, the environment the app
  reads, and the store (ARCHITECTURE.md decision 8: by default a SQLite file in the data
  folder, so accounts, rooms and sessions survive a restart; ``storage="moto"`` keeps
  everything in moto's in-memory DynamoDB, and since moto is not safe under concurrent
  requests every handler invocation then runs under one global lock; a DynamoDB endpoint
  talks to a real DynamoDB or a compatible server);
- ``liars_local.chalice_bridge``: the Chalice app invoked per thread as Lambda would;
- ``liars_local.thread_pool``: the handler threads;
- ``liars_local.asgi``: the ASGI app uvicorn serves (REST, static files);
- ``liars_local.ws_bridge``: WebSockets at ``/ws`` through the app's WebSocket handlers;
- ``liars_local.timers``: ``LocalTimers`` invokes ``app.handler_map["room_timer"]``;
- ``liars_local.notifier``: the app's pushes to the live WebSockets.

It binds the socket, sweeps expired rows, wakes the rooms in play at start and runs uvicorn.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from chalice.app import Chalice

from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine import endgames
from chalicelib.ports import Store
from liars_local.asgi import STATIC_DIR, AccessLog, build_app, print_access_log
from liars_local.chalice_bridge import (
    APP_LOCK,
    AppRunner,
    load_chalice_app,
    local_websocket_api,
    thread_local_requests,
)
from liars_local.data import (
    CHECKPOINT_SECONDS,
    DB_FILE_NAME,
    DataProblem,
    ServerLock,
    check_data_folder,
    checkpoint,
    set_aside,
)
from liars_local.environment import (
    STORAGES,
    InstallDeps,
    install_wiring_deps,
    load_or_create_secret,
    local_environment,
    local_store,
    preload_app_modules,
)
from liars_local.guard import (
    HEADER_TIMEOUT_SECONDS,
    MAX_CONNECTIONS_PER_SOURCE,
    guarded_protocols,
    raise_open_file_limit,
)
from liars_local.notifier import LocalNotifier
from liars_local.outage import restart_lapsed_deadline
from liars_local.profiling import profiled
from liars_local.push import load_or_create_vapid_secret
from liars_local.thread_pool import SQLITE_WORKER_THREADS, WORKER_THREADS
from liars_local.timers import LocalTimers
from liars_local.ws_bridge import WS_MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

SWEEP_SECONDS = 600.0

WAKE_AT_START_LIMIT = 10_000
"""At most this many rooms in play are woken when the server starts (newest first)."""


class PortInUse(OSError):
    """The chosen port is taken by another program."""


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
        start_fresh: bool = False,
        header_timeout: float = HEADER_TIMEOUT_SECONDS,
        max_connections_per_source: int = MAX_CONNECTIONS_PER_SOURCE,
        cap_loopback: bool = False,
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
        self.start_fresh = start_fresh
        self._header_timeout = header_timeout
        self._max_connections_per_source = max_connections_per_source
        self._cap_loopback = cap_loopback
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
        limits = raise_open_file_limit()
        if limits is not None and limits[0] < 4096:
            log.warning(
                "this process may open only %s files (hard limit %s): each connection holds one",
                *limits,
            )
        if self.storage == "sqlite" and self.data_dir is None:
            self.data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory("-liars")))
        if self.storage == "sqlite" and self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock = ServerLock(self.data_dir)
            stack.enter_context(lock)  # restore waits for every server on the folder
            self._check_data(self.data_dir)
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
            stack.enter_context(thread_local_requests(chalice_app))
        threads = SQLITE_WORKER_THREADS if self.storage == "sqlite" else WORKER_THREADS
        self.runner = runner = AppRunner(
            chalice_app, APP_LOCK if serialized else None, threads=threads
        )
        stack.callback(runner.close)
        preload_app_modules()
        endgames.preload()  # the bots' tables, off the players' requests
        stack.enter_context(local_websocket_api(chalice_app, self.notifier))
        self.store = store = local_store(self.db_path)
        if isinstance(store, SqliteStore):
            db_path = self.db_path
            assert db_path is not None
            # at a clean stop, once every connection is closed: the WAL's commits go into
            # the database file, so the .db alone holds everything (docs/OPERATIONS.md)
            stack.callback(checkpoint, db_path, "TRUNCATE")
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
        # uvicorn's own protocols (httptools, websockets-sansio) with a header-read timeout and
        # a cap per source address (liars_local.guard)
        http_protocol, ws_protocol = guarded_protocols(
            self._header_timeout, self._max_connections_per_source, self._cap_loopback
        )
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            loop="auto",
            http=http_protocol,
            ws=ws_protocol,
            ws_per_message_deflate=False,
            ws_max_size=WS_MAX_MESSAGE_BYTES,
            proxy_headers=False,
        )
        server = uvicorn.Server(config)
        self._running = _Running(server=server, thread=None, sock=sock)
        return server

    def _bind(self) -> socket.socket:
        return listening_socket(self.host, self.port)

    def _check_data(self, data_dir: Path) -> None:
        """Refuse a data folder whose database is missing, empty or damaged (``DataProblem``);
        with ``start_fresh``, set such files aside and start with an empty database."""
        try:
            check_data_folder(data_dir)
        except DataProblem:
            if not self.start_fresh:
                raise
            for moved in set_aside(data_dir):
                log.warning("start fresh: %s set aside", moved)

    def _start_sweeper(self, store: SqliteStore) -> None:
        """Delete expired rows now and every ``sweep_seconds`` (DynamoDB's TTL, locally), and
        copy the WAL into the database every ``CHECKPOINT_SECONDS`` (``PASSIVE``: it never
        waits for the requests in flight)."""
        stop = threading.Event()
        db_path = Path(store.path)

        def sweep_forever() -> None:
            next_sweep = time.monotonic()
            while True:
                if time.monotonic() >= next_sweep:
                    next_sweep = time.monotonic() + self._sweep_seconds
                    try:
                        store.sweep()
                    except Exception:
                        log.exception("the expiry sweep failed")
                if stop.wait(min(CHECKPOINT_SECONDS, self._sweep_seconds)):
                    return
                checkpoint(db_path, "PASSIVE")

        thread = threading.Thread(target=sweep_forever, name="liars-dice-sweep", daemon=True)
        thread.start()

        def stop_sweeper() -> None:
            stop.set()
            thread.join(10)

        self._stack.callback(stop_sweeper)

    def _after_outage(self) -> bool:
        """Whether this start follows a time the whole server was down (True here)."""
        return True

    def _wake_rooms_in_play(self, store: Store, runner: AppRunner) -> None:
        """Wake every room in play once, in the background, as a late timer would.

        Pending wake-ups live in the memory of the process that armed them and went with it;
        the rooms' deadlines are in the store. Each room's timer handler applies what has
        passed and arms the room's next wake-up in this process (a room whose wake-up is
        pending elsewhere gets one more, which changes nothing when it fires).

        When the whole server starts (``_after_outage``), a human's turn or a break whose
        deadline passed while it was down first starts again from now
        (``liars_local.outage``): nobody loses a turn they could not play.
        """
        stop = threading.Event()
        after_outage = self._after_outage()
        started_ms = int(time.time() * 1000)

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
                    if after_outage:
                        restart_lapsed_deadline(store, room_id, started_ms)
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
            with profiled("event-loop"):
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
