"""The Notifier port for the local server: pushes go to live Starlette WebSockets.

Handlers run in worker threads; a push is queued onto the event loop and written by one
writer task per connection, so messages keep their order and the handler never waits on
the network. An unknown or closed connection answers False, like a 410 from API Gateway.

A room's pushes reach each connection in version order (``send_room_text``). Two changes
to one room commit in order, but their fan-outs run on different threads (or workers) and
race: the connection's writer holds a push that comes before the one it follows, until
that one arrives or ``HOLD_SECONDS`` pass (a push that was lost must not stall the rest).

With several worker processes (``liars-dice serve --workers N``) each worker's notifier has
a ``PushChannel`` (``liars_local.channel``): connection ids name the worker that holds them,
and a push to another worker's connection goes over the channel (see there for what a
push to a gone connection then does).
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import json
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket

from liars_local.channel import OP_CLOSE, OP_SEND, OP_SEND_ROOM, PushChannel

log = logging.getLogger(__name__)

#: How long a room push waits for the room's push before it (its version minus one), which
#: another thread or worker is still sending, before it goes anyway.
HOLD_SECONDS = 0.5

#: ``json.dumps(message, separators=(",", ":"))`` without making an encoder for every push.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


class _Outbox:
    """The frames waiting for one connection's writer task (use on its loop only).

    What ``asyncio.Queue`` does for one consumer and no size limit, for less of the loop's
    CPU per push (no task accounting, no event, no list of waiting producers).
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[str | None] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: str | None) -> None:
        self._items.append(item)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> str | None:
        while not self._items:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()


class _Connection:
    """One live WebSocket with its outgoing queue and writer task."""

    def __init__(self, websocket: WebSocket, loop: asyncio.AbstractEventLoop) -> None:
        self.websocket = websocket
        self.loop = loop
        self.queue = _Outbox()
        self.open = True
        self.writer: asyncio.Task[None] | None = None
        # per room: the latest version queued, and pushes waiting for the ones before them
        self.versions: dict[str, int] = {}
        self.held: dict[str, dict[int, str]] = {}
        self.holds: dict[str, asyncio.TimerHandle] = {}

    def put_room(self, room_id: str, version: int, text: str, answer: bool) -> None:
        """Queue a room message in version order (call on the loop).

        A push that follows the latest version queued, or is not newer (the client keeps the
        newest view it has), is queued at once; one that skips a version waits for it. An
        answer (subscribe, tick) is never held: it is the room as read, and the pushes
        continue from it.
        """
        last = self.versions.get(room_id)
        if answer or last is None or version <= last + 1:
            self.queue.put_nowait(text)
            if last is None or version > last:
                self.versions[room_id] = version
                if room_id in self.held:
                    self._release(room_id)
            return
        held = self.held.setdefault(room_id, {})
        held[version] = text
        if room_id not in self.holds:
            self.holds[room_id] = self.loop.call_later(HOLD_SECONDS, self._give_up, room_id)

    def _release(self, room_id: str) -> None:
        """Queue the held pushes that now follow on, in order."""
        held = self.held[room_id]
        last = self.versions[room_id]
        while held:
            first = min(held)
            if first > last + 1:
                return
            self.queue.put_nowait(held.pop(first))
            last = max(last, first)
            self.versions[room_id] = last
        del self.held[room_id]
        hold = self.holds.pop(room_id, None)
        if hold is not None:
            hold.cancel()

    def _give_up(self, room_id: str) -> None:
        """The missing version did not come in time: queue what waits, in order."""
        self.holds.pop(room_id, None)
        held = self.held.pop(room_id, None)
        if not held or not self.open:
            return
        for version in sorted(held):
            self.queue.put_nowait(held[version])
        self.versions[room_id] = max(self.versions.get(room_id, 0), max(held))

    async def write_forever(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self.websocket.send_text(text)
            except Exception:  # the peer went away mid-send; the reader will notice
                self.open = False
                return


class LocalNotifier:
    """Notifier port over the local server's WebSockets (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: dict[str, _Connection] = {}
        self.channel: PushChannel | None = None

    def new_connection_id(self) -> str:
        """A fresh connection id (naming this worker when there are several)."""
        prefix = "" if self.channel is None else self.channel.prefix
        return prefix + base64.urlsafe_b64encode(secrets.token_bytes(12)).decode()

    def deliver(self, op: int, connection_id: str, text: str) -> bool:
        """A frame from another worker for one of this worker's connections: push or close."""
        if op == OP_CLOSE:
            return self._close_local(connection_id)
        if op == OP_SEND_ROOM:
            room_id, version, answer, text = text.split("\n", 3)
            return self._send_local_room(connection_id, text, room_id, int(version), answer == "1")
        return self._send_local(connection_id, text)

    async def register(self, connection_id: str, websocket: WebSocket) -> None:
        """Make an accepted WebSocket reachable as ``connection_id`` (call on the loop)."""
        conn = _Connection(websocket, asyncio.get_running_loop())
        conn.writer = asyncio.create_task(conn.write_forever())
        with self._lock:
            self._connections[connection_id] = conn

    async def unregister(self, connection_id: str, flush: bool = False) -> None:
        """Forget a connection; with ``flush``, first write what is already queued."""
        with self._lock:
            conn = self._connections.pop(connection_id, None)
        if conn is None:
            return
        conn.open = False
        for hold in conn.holds.values():
            hold.cancel()
        conn.queue.put_nowait(None)
        if conn.writer is not None:
            if flush:
                await conn.writer
            else:
                conn.writer.cancel()

    def is_connected(self, connection_id: str) -> bool:
        """Whether ``connection_id`` is a live connection.

        For another worker's connection: whether that worker is alive (asking it would cost
        a round trip; the project itself never asks, only Chalice's ``websocket_api.info``).
        """
        channel = self.channel
        if channel is not None and (owner := channel.owner(connection_id)) is not None:
            return channel.reachable(owner)
        with self._lock:
            conn = self._connections.get(connection_id)
        return conn is not None and conn.open

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Queue one JSON message; False when the connection is unknown or closed."""
        return self.send_text(connection_id, _COMPACT.encode(message))

    def send_text(self, connection_id: str, text: str) -> bool:
        """Queue one text frame; False when the connection is unknown or closed."""
        channel = self.channel
        if channel is not None and (owner := channel.owner(connection_id)) is not None:
            return channel.forward(owner, OP_SEND, connection_id, text)
        return self._send_local(connection_id, text)

    def send_room_text(
        self, connection_id: str, text: str, room_id: str, version: int, answer: bool = False
    ) -> bool:
        """Queue one room message (a push, or with ``answer`` the answer to subscribe or tick)
        of ``room_id`` at ``version``, in the room's version order; False when gone."""
        channel = self.channel
        if channel is not None and (owner := channel.owner(connection_id)) is not None:
            body = f"{room_id}\n{version}\n{int(answer)}\n{text}"
            return channel.forward(owner, OP_SEND_ROOM, connection_id, body)
        return self._send_local_room(connection_id, text, room_id, version, answer)

    def _send_local_room(
        self, connection_id: str, text: str, room_id: str, version: int, answer: bool
    ) -> bool:
        return self._on_loop(
            connection_id, lambda conn: conn.put_room(room_id, version, text, answer)
        )

    def _send_local(self, connection_id: str, text: str) -> bool:
        return self._on_loop(connection_id, lambda conn: conn.queue.put_nowait(text))

    def _on_loop(self, connection_id: str, queue: Callable[[_Connection], None]) -> bool:
        """Run ``queue`` on the connection's event loop; False when it is gone or closed."""
        with self._lock:
            conn = self._connections.get(connection_id)
        if conn is None or not conn.open or conn.loop.is_closed():
            return False
        try:
            conn.loop.call_soon_threadsafe(queue, conn)
        except RuntimeError:  # loop closed between the check and the call
            return False
        return True

    def close(self, connection_id: str) -> bool:
        """Close a connection from the server side after its queued frames; False when gone."""
        channel = self.channel
        if channel is not None and (owner := channel.owner(connection_id)) is not None:
            return channel.forward(owner, OP_CLOSE, connection_id)
        return self._close_local(connection_id)

    def _close_local(self, connection_id: str) -> bool:
        with self._lock:
            conn = self._connections.get(connection_id)
        if conn is None or not conn.open or conn.loop.is_closed():
            return False

        async def close_after_writes() -> None:
            await self.unregister(connection_id, flush=True)
            with contextlib.suppress(Exception):
                await conn.websocket.close(code=1000)

        try:
            asyncio.run_coroutine_threadsafe(close_after_writes(), conn.loop)
        except RuntimeError:
            return False
        return True


class GoneException(Exception):
    """What ``post_to_connection`` raises for a closed connection (HTTP 410 in AWS)."""


class _Exceptions:
    GoneException = GoneException


class LocalManagementApi:
    """Stands in for both ``app.websocket_api.session`` and its ``apigatewaymanagementapi`` client.

    The project pushes through the Notifier port; this only makes Chalice's own
    ``app.websocket_api.send/close/info`` work locally too.
    """

    exceptions = _Exceptions

    def __init__(self, notifier: LocalNotifier) -> None:
        self.notifier = notifier
        self.region_name = "us-east-1"

    def client(self, service_name: str, **_: Any) -> LocalManagementApi:
        """boto3-session style: the management API client is this object."""
        return self

    def post_to_connection(self, ConnectionId: str, Data: str | bytes) -> dict[str, Any]:
        """Push one frame; GoneException when the connection is gone."""
        text = Data.decode() if isinstance(Data, bytes) else Data
        if not self.notifier.send_text(ConnectionId, text):
            raise GoneException(ConnectionId)
        return {}

    def delete_connection(self, ConnectionId: str) -> dict[str, Any]:
        """Close the connection; GoneException when it is already gone."""
        if not self.notifier.close(ConnectionId):
            raise GoneException(ConnectionId)
        return {}

    def get_connection(self, ConnectionId: str) -> dict[str, Any]:
        """Minimal connection info; GoneException when the connection is gone."""
        if not self.notifier.is_connected(ConnectionId):
            raise GoneException(ConnectionId)
        return {"Identity": {"SourceIp": "127.0.0.1"}}
