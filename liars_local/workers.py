"""``liars-dice serve --workers N``: the local server on several processes (POSIX).

One Python process runs one handler at a time (one GIL), so the local server uses one core.
With N workers:

- The supervisor (the process you started) binds the port (so ``--port 0`` and a taken
  port behave as with one process; on Linux one ``SO_REUSEPORT`` socket per worker, see
  ``WorkerPool._listen``), makes the token secret and migrates the SQLite file before any
  worker opens it, makes a private runtime folder (mode 0700) and starts N worker
  processes (``python -m liars_local.workers``), handing each its listening socket. It
  prints the URL once every worker accepts connections. Workers write their request lines
  to the shared stdout one ``write`` each, so lines never interleave.
- Each worker is a whole ``LocalServer`` on the shared socket: uvicorn, the handler threads,
  its own timers (a wake-up fires in the worker whose handler scheduled it), and a push
  channel (``liars_local.channel``) to reach WebSockets held by the other workers. Only
  worker 0 runs the expiry sweep (one sweeper is enough; N would only contend for writes).
  Writers of all workers queue on the SQLite store's file lock. Worker 0 wakes every room
  in play once at the start, and so does a worker started again (``_wake_rooms_in_play``:
  wake-ups pending in a process die with it).
- Ctrl-C or SIGTERM stops every worker (SIGTERM, then SIGKILL after a grace period); if the
  supervisor itself dies, every worker notices (a pipe closes) and exits. A worker that
  dies while serving is started again with the same index (its WebSockets died with it;
  pushes meant for them are cleaned up, see the channel); one that dies before it was ready
  stops the whole server with exit code 1, since it would only die again.

Why it is over 600 lines: the supervisor and the worker processes it starts, pings and
replaces are one protocol (the shared socket, the ping pipe, the stop); just over the line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import Store
from liars_local.channel import PushChannel
from liars_local.data import ServerLock, checkpoint
from liars_local.environment import (
    load_or_create_secret,
    local_environment,
    local_store,
    tune_gc_for_serving,
)
from liars_local.push import load_or_create_vapid_secret
from liars_local.server import LocalServer, listening_socket

log = logging.getLogger(__name__)

#: At most this many workers by default (beyond, the processes only contend for SQLite).
MAX_DEFAULT_WORKERS = 4
#: How long the supervisor waits for every worker to accept connections.
START_TIMEOUT_SECONDS = 90.0
#: How often the supervisor pings each worker, and how long a worker may stay silent before
#: it is replaced (stopped, or its event loop stuck).
PING_SECONDS = 1.0
PING_TIMEOUT_SECONDS = 5.0
#: How long workers get to finish (close WebSockets, drain requests) before SIGKILL.
STOP_GRACE_SECONDS = 10.0


def default_workers(storage: str, platform: str | None = None, cpus: int | None = None) -> int:
    """How many worker processes ``serve`` runs when ``--workers`` is not given.

    One per CPU this process may use, at most ``MAX_DEFAULT_WORKERS``, on SQLite and on a
    DynamoDB endpoint; 1 on moto (in memory, in one process) and on Windows.
    """
    platform = sys.platform if platform is None else platform
    if storage == "moto" or platform.startswith("win"):
        return 1
    if cpus is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_DEFAULT_WORKERS))


def refuse_workers(storage: str, workers: int, platform: str | None = None) -> str | None:
    """Why ``workers`` processes cannot serve ``storage`` here; None when they can."""
    platform = sys.platform if platform is None else platform
    if workers < 1:
        return "--workers must be at least 1"
    if workers == 1:
        return None
    if storage == "moto":
        return (
            "--storage moto keeps everything in one process's memory: it runs with --workers 1 only"
        )
    if platform.startswith("win"):
        return "--workers above 1 needs a POSIX system (Unix sockets, file locks)"
    return None


# --- one worker ------------------------------------------------------------------------------


class WorkerServer(LocalServer):
    """A ``LocalServer`` on an inherited listening socket, with a push channel to its peers."""

    def __init__(
        self,
        sock: socket.socket,
        *,
        index: int,
        workers: int,
        runtime_dir: str,
        restarted: bool = False,
        **kwargs: Any,
    ) -> None:
        host, port = sock.getsockname()[:2]
        super().__init__(host, port, **kwargs)
        self._inherited = sock
        self.index = index
        self.workers = workers
        self.runtime_dir = runtime_dir
        self.restarted = restarted

    def _bind(self) -> socket.socket:
        return self._inherited

    def _after_outage(self) -> bool:
        # a worker started again after it died: the others served meanwhile
        return not self.restarted

    def _check_data(self, data_dir: Path) -> None:
        """Nothing: the supervisor checked the folder before it started any worker."""

    def _start_sweeper(self, store: SqliteStore) -> None:
        if self.index == 0:
            super()._start_sweeper(store)

    def _wake_rooms_in_play(self, store: Store, runner: Any) -> None:
        # Worker 0 when the server starts; any worker started again after it died.
        if self.index == 0 or self.restarted:
            super()._wake_rooms_in_play(store, runner)

    def _prepare(self) -> uvicorn.Server:
        server = super()._prepare()
        store = self.store
        assert store is not None
        channel = PushChannel(
            self.runtime_dir,
            self.index,
            self.workers,
            deliver=self.notifier.deliver,
            gone=_forget(store),
        )
        channel.start()
        self._stack.callback(channel.stop)
        self.notifier.channel = channel
        return server


def write_access_log(line: str) -> None:
    """One request line on stdout in one ``write``, so the workers' lines never interleave
    (a pipe or terminal takes a write of up to 4 KiB whole)."""
    # no stdout any more: the log is not worth failing a request for
    with contextlib.suppress(OSError, ValueError):
        os.write(sys.stdout.fileno(), (line + "\n").encode(errors="replace"))


def _forget(store: Store) -> Any:
    def forget(connection_id: str) -> None:
        store.delete_connection(connection_id)

    return forget


def _watch_parent(server: uvicorn.Server, lifeline_fd: int) -> None:
    """Stop this worker when the supervisor is gone (its end of the lifeline pipe closed)."""
    with contextlib.suppress(OSError):
        while os.read(lifeline_fd, 1):
            pass
    server.should_exit = True
    time.sleep(STOP_GRACE_SECONDS)
    os._exit(1)  # the graceful stop did not finish, and nobody is left to wait for it


def _signal_ready(server: uvicorn.Server, ready_fd: int, ping_fd: int | None = None) -> None:
    """Tell the supervisor once uvicorn accepts connections, then answer its pings.

    Each ping (a byte on ``ping_fd``) is answered by the event loop itself (a ``P`` on the
    ready pipe): a worker whose loop is stuck, or which is stopped (SIGSTOP), stays silent,
    and the supervisor replaces it.
    """
    try:
        while not server.started:
            if server.should_exit:
                return
            time.sleep(0.01)
        os.write(ready_fd, b"R")
        if ping_fd is None or not server.servers:
            return
        loop = server.servers[0].get_loop()
        while os.read(ping_fd, 1):
            loop.call_soon_threadsafe(_pong, ready_fd)
    except (OSError, RuntimeError):  # the supervisor or the loop is gone
        pass
    finally:
        with contextlib.suppress(OSError):
            os.close(ready_fd)


def _pong(ready_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.write(ready_fd, b"P")


def worker_main(argv: Sequence[str]) -> int:
    """A worker process: serve the shared socket until told to stop."""
    spec = json.loads(argv[0])
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sock = socket.socket(fileno=spec["listen_fd"])
    data_dir = Path(spec["data_dir"]) if spec["data_dir"] else None
    server = WorkerServer(
        sock,
        index=spec["index"],
        workers=spec["workers"],
        runtime_dir=spec["runtime_dir"],
        restarted=spec.get("restarted", False),
        storage=spec["storage"],
        data_dir=data_dir,
        dynamodb_endpoint=spec["dynamodb_endpoint"],
        access_log=write_access_log,
    )
    uv = server.prepare()
    threading.Thread(
        target=_watch_parent, args=(uv, spec["lifeline_fd"]), daemon=True, name="lifeline"
    ).start()
    threading.Thread(
        target=_signal_ready,
        args=(uv, spec["ready_fd"], spec.get("ping_fd")),
        daemon=True,
        name="ready",
    ).start()
    tune_gc_for_serving()
    with contextlib.suppress(KeyboardInterrupt):
        server.run_prepared()
    return 0


# --- the supervisor --------------------------------------------------------------------------


class WorkerFailed(RuntimeError):
    """A worker process could not start."""


@dataclass
class _Worker:
    index: int
    process: subprocess.Popen[bytes]
    ready_fd: int | None
    ping_fd: int | None = None
    started_at: float = field(default_factory=time.monotonic)
    ready: bool = False
    last_ping: float = 0.0
    last_pong: float = 0.0

    def close_fds(self) -> None:
        for fd in (self.ready_fd, self.ping_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.ready_fd = self.ping_fd = None


class WorkerPool:
    """The supervisor: one listening socket, N worker processes serving it.

    ``start()`` returns once every worker accepts connections (``url`` names the real
    port); ``run()`` supervises until Ctrl-C or SIGTERM; ``stop()`` stops every worker.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        workers: int = 2,
        storage: str | None = None,
        data_dir: Path | None = None,
        dynamodb_endpoint: str | None = None,
        python: str = sys.executable,
        stdout: int | None = None,
        start_fresh: bool = False,
    ) -> None:
        storage = storage or ("dynamodb" if dynamodb_endpoint else "sqlite")
        refused = refuse_workers(storage, workers)
        if refused:
            raise ValueError(refused)
        # LocalServer checks the arguments, binds exactly as with one process and holds the
        # address, storage and data folder (``port`` and ``data_dir`` once chosen at start)
        self._binder = LocalServer(
            host,
            port,
            storage=storage,
            data_dir=data_dir,
            dynamodb_endpoint=dynamodb_endpoint,
            start_fresh=start_fresh,
        )
        self._server_lock: ServerLock | None = None
        self.workers = workers
        self._python = python
        self._stdout = stdout
        self._socks: list[socket.socket] = []
        self._runtime_dir: str | None = None
        self._own_data_dir: tempfile.TemporaryDirectory[str] | None = None
        self._lifeline: tuple[int, int] | None = None
        self._workers: dict[int, _Worker] = {}
        self.restarts = 0
        self._saved_signals: dict[int, Any] = {}

    @property
    def db_path(self) -> Path | None:
        return self._binder.db_path

    @property
    def url(self) -> str:
        return self._binder.url

    @property
    def ws_url(self) -> str:
        return self._binder.ws_url

    def pids(self) -> dict[int, int]:
        """The live workers' process ids by worker index."""
        return {i: w.process.pid for i, w in self._workers.items()}

    def start(self) -> WorkerPool:
        """Bind, prepare the data folder, start every worker and wait until all are ready.

        Raises PortInUse when the port is taken, WorkerFailed when a worker cannot start.
        From here to ``stop()``, SIGINT and SIGTERM raise KeyboardInterrupt in the main
        thread, even where SIGINT was ignored when the program started (a background job of
        a shell: uvicorn, serving one process, also installs its own handlers).
        """
        if threading.current_thread() is threading.main_thread():
            self._saved_signals = {
                sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGINT, signal.SIGTERM)
            }
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        binder = self._binder
        self._socks = self._listen()
        binder.port = self._socks[0].getsockname()[1]
        if binder.storage == "sqlite" and binder.data_dir is None:
            self._own_data_dir = tempfile.TemporaryDirectory("-liars")
            binder.data_dir = Path(self._own_data_dir.name)
        self._prepare_storage()
        self._runtime_dir = tempfile.mkdtemp(prefix="liars-dice-")
        self._lifeline = os.pipe()
        for index in range(self.workers):
            self._spawn(index)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not all(w.ready for w in self._workers.values()):
            self._poll(deadline - time.monotonic())
            if time.monotonic() > deadline:
                raise WorkerFailed("the workers did not start in time")

    def _prepare_storage(self) -> None:
        """Make the token secret and migrate the SQLite file (or create the DynamoDB table)
        here, once, so that no two workers race to do it (a worker that found the table
        being created would otherwise serve before it is ready)."""
        binder = self._binder
        if binder.db_path is not None and binder.data_dir is not None:
            binder.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._server_lock = ServerLock(binder.data_dir)
            self._server_lock.__enter__()  # released by stop(); restore waits for it
            binder._check_data(binder.data_dir)
        secret = None if binder.data_dir is None else load_or_create_secret(binder.data_dir)
        if binder.data_dir is not None:
            load_or_create_vapid_secret(binder.data_dir)  # made once, before any worker reads it
        if binder.db_path is not None:
            SqliteStore(binder.db_path).close()
        elif binder.storage == "dynamodb":
            with local_environment(
                binder.dynamodb_endpoint, embedded_moto=False, token_secret=secret
            ):
                store: Any = local_store(None)  # a DynamoStore
                store.ensure_table()

    def _listen(self) -> list[socket.socket]:
        """The listening sockets: one shared by all workers, or on Linux one per worker.

        Each worker's event loop accepts every connection waiting when it wakes, so on one
        shared socket the first worker to wake takes a whole burst of new connections (and
        keeps them: clients keep their connections alive); measured, one of two workers did
        85% of the work. On Linux, N sockets bound to the one port with ``SO_REUSEPORT`` let
        the kernel spread new connections evenly over the workers. The port is first bound
        by a plain socket (``LocalServer._bind``), so a port held by anyone, even by another
        server sharing it the same way, is refused as taken (and ``--port 0`` picks one).
        """
        probe = self._binder._bind()
        if self.workers == 1 or not sys.platform.startswith("linux"):
            return [probe]
        host, port = probe.getsockname()[:2]
        probe.close()
        socks: list[socket.socket] = []
        try:
            for _ in range(self.workers):
                # PortInUse when taken in the moment between
                socks.append(listening_socket(host, port, reuse_port=True))
        except OSError:
            for sock in socks:
                sock.close()
            raise
        return socks

    def _spawn(self, index: int) -> None:
        assert self._socks and self._lifeline is not None
        sock = self._socks[index % len(self._socks)]
        ready_r, ready_w = os.pipe()
        ping_r, ping_w = os.pipe()
        os.set_blocking(ping_w, False)  # a stopped worker must never block the supervisor
        binder = self._binder
        spec = {
            "index": index,
            # a worker started again wakes the rooms in play: its wake-ups died with it
            "restarted": index in self._workers,
            "workers": self.workers,
            "runtime_dir": self._runtime_dir,
            "storage": binder.storage,
            "data_dir": str(binder.data_dir) if binder.data_dir is not None else None,
            "dynamodb_endpoint": binder.dynamodb_endpoint,
            "listen_fd": sock.fileno(),
            "ready_fd": ready_w,
            "ping_fd": ping_r,
            "lifeline_fd": self._lifeline[0],
        }
        try:
            process = subprocess.Popen(
                [self._python, "-m", "liars_local.workers", json.dumps(spec)],
                pass_fds=(sock.fileno(), ready_w, ping_r, self._lifeline[0]),
                stdin=subprocess.DEVNULL,
                stdout=self._stdout,
            )
        except BaseException:
            os.close(ready_r)
            os.close(ping_w)
            raise
        finally:
            os.close(ready_w)
            os.close(ping_r)
        old = self._workers.get(index)
        if old is not None:
            old.close_fds()
        self._workers[index] = _Worker(index, process, ready_r, ping_w)

    def _poll(self, timeout: float) -> None:
        """Wait up to ``timeout`` for a worker to become ready or to exit; handle it."""
        waiting = {w.ready_fd: w for w in self._workers.values() if w.ready_fd is not None}
        if waiting:
            readable, _, _ = select.select(list(waiting), [], [], max(0.0, min(timeout, 0.25)))
            for fd in readable:
                worker = waiting[fd]
                try:
                    said = os.read(fd, 64)
                except OSError:
                    said = b""
                if not said:  # the worker closed its end: it is exiting (handled below)
                    worker.close_fds()
                    if not worker.ready:
                        self._failed(worker)
                    continue
                if not worker.ready:
                    worker.ready = said[:1] == b"R"
                    if not worker.ready:
                        self._failed(worker)
                worker.last_pong = time.monotonic()
        else:
            time.sleep(max(0.0, min(timeout, 0.25)))
        self._ping()
        for worker in list(self._workers.values()):
            code = worker.process.poll()
            if code is None:
                continue
            if not worker.ready:
                self._failed(worker)
            print(
                f"liars-dice: worker {worker.index} (pid {worker.process.pid}) exited with "
                f"code {code}; starting it again",
                file=sys.stderr,
                flush=True,
            )
            self.restarts += 1
            self._spawn(worker.index)

    def _ping(self) -> None:
        """Ping every ready worker each ``PING_SECONDS``; replace one silent for
        ``PING_TIMEOUT_SECONDS`` (stopped, or its event loop stuck): its share of newcomers
        would otherwise wait for it."""
        now = time.monotonic()
        for worker in self._workers.values():
            if not worker.ready or worker.ping_fd is None:
                continue
            if now - worker.last_pong > PING_TIMEOUT_SECONDS and worker.process.poll() is None:
                print(
                    f"liars-dice: worker {worker.index} (pid {worker.process.pid}) did not "
                    f"answer for {PING_TIMEOUT_SECONDS:.0f} s; replacing it",
                    file=sys.stderr,
                    flush=True,
                )
                worker.process.kill()
                worker.process.wait()
                continue
            if now - worker.last_ping >= PING_SECONDS:
                worker.last_ping = now
                with contextlib.suppress(OSError):  # a full pipe: it has not read for long
                    os.write(worker.ping_fd, b"?")

    def _failed(self, worker: _Worker) -> None:
        code = worker.process.wait()
        raise WorkerFailed(
            f"worker {worker.index} (pid {worker.process.pid}) exited with code {code} "
            "before it was ready"
        )

    def run(self) -> None:
        """Supervise until Ctrl-C or SIGTERM (or a worker that cannot start), then stop."""
        try:
            while True:
                self._poll(1.0)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop every worker (SIGTERM, then SIGKILL after the grace period) and clean up."""
        workers, self._workers = list(self._workers.values()), {}
        for worker in workers:
            if worker.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for worker in workers:
            try:
                worker.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %s did not stop in time: killing it", worker.index)
                worker.process.kill()
                worker.process.wait()
            worker.close_fds()
        if self._lifeline is not None:
            for fd in self._lifeline:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._lifeline = None
        for sock in self._socks:
            sock.close()
        self._socks = []
        if self._server_lock is not None:
            if self.db_path is not None:
                checkpoint(self.db_path, "TRUNCATE")  # every worker has stopped: the .db is whole
            self._server_lock.release()
            self._server_lock = None
        if self._runtime_dir is not None:
            shutil.rmtree(self._runtime_dir, ignore_errors=True)
            self._runtime_dir = None
        if self._own_data_dir is not None:
            self._own_data_dir.cleanup()
            self._own_data_dir = None
        saved, self._saved_signals = self._saved_signals, {}
        for sig, handler in saved.items():
            signal.signal(sig, handler)

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
