"""The push channel between the local server's worker processes (POSIX).

With ``--workers N`` a WebSocket lives in the one worker process that accepted it, but the
action that must push to it may be handled by any worker. Every worker therefore listens on
a Unix domain socket of its own, ``w<index>.sock`` in a private runtime folder (mode 0700,
made by the supervisor), and a connection id names its worker: ``w<index>-<random>``.

A push to a foreign connection id is written, from the handler's own thread, as one
length-prefixed frame on a persistent stream to the owning worker (one stream per pair of
sender and owner, opened at the first push, guarded by a lock): frames of one sender reach
the owner in the order they were written, and the owner queues each on the connection's
writer, so pushes from one sender to one connection keep their order. The sender does not
wait for the owner's answer (that would cost a round trip through another process's GIL
per push):

- the owner is unreachable (its socket is gone or refuses: the worker died, and so did
  every WebSocket it held) -> the push answers False, as API Gateway's GoneException, and
  the sender's usual cleanup forgets the connection;
- the owner is alive but no longer knows the connection (it closed) -> the owner forgets
  it in the store itself (``gone``), which is what the sender would have done.

Frame: ``>BI`` (operation, body length), then the body ``<connection id>\\n<text>`` (UTF-8).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from liars_local.profiling import profiled

log = logging.getLogger(__name__)

HEADER = struct.Struct(">BI")
OP_SEND = 1
OP_CLOSE = 2
#: A room message, kept in the room's version order: the body's text is
#: ``<room id>\n<version>\n<1 for an answer, else 0>\n<text>``.
OP_SEND_ROOM = 3
#: A frame larger than this is refused (the stream is then closed): no push is near it.
MAX_BODY = 16 * 1024 * 1024
#: How long a sender waits for a stuck owner to take a frame before giving up on it.
SEND_TIMEOUT_SECONDS = 5.0
_OWNER = re.compile(r"^w(\d{1,3})-")

#: Deliver one frame locally: (operation, connection id, text) -> whether it was known.
Deliver = Callable[[int, str, str], bool]
#: Forget a connection the owner no longer has (in the store).
Gone = Callable[[str], None]


def socket_path(runtime_dir: str | Path, index: int) -> str:
    """Where worker ``index`` listens for pushes."""
    return os.path.join(str(runtime_dir), f"w{index}.sock")


def connection_prefix(index: int) -> str:
    """The start of every connection id made by worker ``index``."""
    return f"w{index}-"


def owner_of(connection_id: str) -> int | None:
    """The worker that holds ``connection_id``, from its prefix; None when it names none."""
    found = _OWNER.match(connection_id)
    return int(found.group(1)) if found else None


def encode(op: int, connection_id: str, text: str) -> bytes:
    """One frame."""
    body = f"{connection_id}\n{text}".encode()
    return HEADER.pack(op, len(body)) + body


class _Link:
    """The persistent stream from this worker to one other worker."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.sock: socket.socket | None = None

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(SEND_TIMEOUT_SECONDS)
        try:
            sock.connect(self.path)
        except BaseException:
            sock.close()
            raise
        return sock

    def send(self, frame: bytes) -> bool:
        """Write one frame; False when the owner cannot be reached (its worker is gone)."""
        with self.lock:
            for attempt in (1, 2):
                if self.sock is None:
                    try:
                        self.sock = self._connect()
                    except OSError:
                        return False  # no socket, or nobody accepts on it: the worker is gone
                try:
                    self.sock.sendall(frame)
                    return True
                except OSError as err:
                    # The owner went away since the last frame (a restarted worker listens
                    # again on the same path): one fresh stream, then give up.
                    self.close_locked()
                    if attempt == 2 or isinstance(err, TimeoutError):
                        log.warning("push channel to %s failed: %s", self.path, err)
                        return False
            return False

    def reachable(self) -> bool:
        """Whether the owner accepts this link (opening it if need be)."""
        with self.lock:
            if self.sock is None:
                try:
                    self.sock = self._connect()
                except OSError:
                    return False
            return True

    def close_locked(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.sock = None

    def close(self) -> None:
        with self.lock:
            self.close_locked()


class PushChannel:
    """One worker's end of the channel: a listener for pushes to its own connections, and
    links to the other workers for pushes to theirs."""

    def __init__(
        self, runtime_dir: str | Path, index: int, workers: int, deliver: Deliver, gone: Gone
    ) -> None:
        self.runtime_dir = str(runtime_dir)
        self.index = index
        self.workers = workers
        self.prefix = connection_prefix(index)
        self._deliver = deliver
        self._gone = gone
        self._links = {
            other: _Link(socket_path(runtime_dir, other))
            for other in range(workers)
            if other != index
        }
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._threads: list[threading.Thread] = []
        self._streams: set[socket.socket] = set()
        self._streams_lock = threading.Lock()
        self._stopping = threading.Event()
        # connection ids already forgotten, so a burst of pushes to one writes it once
        self._forgotten: OrderedDict[str, None] = OrderedDict()

    # --- sending ------------------------------------------------------------------------

    def owner(self, connection_id: str) -> int | None:
        """The other worker holding ``connection_id``; None when it is this worker's (or
        names no worker, which this worker then answers as unknown)."""
        other = owner_of(connection_id)
        return other if other in self._links else None

    def forward(self, owner: int, op: int, connection_id: str, text: str = "") -> bool:
        """Hand one push (or close) to the worker ``owner``; False when that worker is gone."""
        return self._links[owner].send(encode(op, connection_id, text))

    def reachable(self, owner: int) -> bool:
        """Whether the worker ``owner`` is there to take pushes."""
        return self._links[owner].reachable()

    # --- receiving ----------------------------------------------------------------------

    def start(self) -> None:
        """Listen on this worker's socket (replacing a dead predecessor's) and serve peers."""
        path = socket_path(self.runtime_dir, self.index)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(64)
        self._listener = listener
        self._acceptor = self._spawn(self._accept_forever, "liars-dice-channel")

    def stop(self) -> None:
        """Stop listening, close every stream; the threads end."""
        self._stopping.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
            with contextlib.suppress(OSError):
                os.unlink(socket_path(self.runtime_dir, self.index))
        if self._acceptor is not None:
            self._acceptor.join(2)  # no stream is accepted after this
        with self._streams_lock:
            streams = list(self._streams)
        for stream in streams:
            with contextlib.suppress(OSError):
                stream.shutdown(socket.SHUT_RDWR)
        for link in self._links.values():
            link.close()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(2)

    def _spawn(self, target: Callable[..., None], name: str, *args: object) -> threading.Thread:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()]
        self._threads.append(thread)
        thread.start()
        return thread

    def _accept_forever(self) -> None:
        listener = self._listener
        while listener is not None and not self._stopping.is_set():
            try:
                stream, _ = listener.accept()
            except OSError:
                return  # closed by stop()
            if self._stopping.is_set():
                stream.close()
                return
            with self._streams_lock:
                self._streams.add(stream)
            self._spawn(self._read_forever, "liars-dice-channel-peer", stream)

    def _read_forever(self, stream: socket.socket) -> None:
        with profiled():
            self._read_stream(stream)

    def _read_stream(self, stream: socket.socket) -> None:
        reader = stream.makefile("rb")
        try:
            while True:
                header = reader.read(HEADER.size)
                if len(header) < HEADER.size:
                    return  # the peer closed its end
                op, size = HEADER.unpack(header)
                if size > MAX_BODY:
                    log.error("push channel: a %s-byte frame, closing the stream", size)
                    return
                body = reader.read(size)
                if len(body) < size:
                    return
                connection_id, _, text = body.decode().partition("\n")
                self._handle(op, connection_id, text)
        except OSError:
            return
        finally:
            with self._streams_lock:
                self._streams.discard(stream)
            with contextlib.suppress(OSError):
                reader.close()
                stream.close()

    def _handle(self, op: int, connection_id: str, text: str) -> None:
        try:
            known = self._deliver(op, connection_id, text)
        except Exception:
            log.exception("push channel: delivering to %s failed", connection_id)
            return
        if known or op not in (OP_SEND, OP_SEND_ROOM):
            return
        with self._streams_lock:
            if connection_id in self._forgotten:
                return
            self._forgotten[connection_id] = None
            while len(self._forgotten) > 1024:
                self._forgotten.popitem(last=False)
        # What the sender would do on a GoneException: forget the connection in the store.
        try:
            self._gone(connection_id)
        except Exception:
            log.exception("push channel: forgetting gone connection %s failed", connection_id)
