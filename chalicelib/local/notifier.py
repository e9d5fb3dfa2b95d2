"""The Notifier port for the local server: pushes go to live Starlette WebSockets.

Handlers run in worker threads; a push is queued onto the event loop and written by one
writer task per connection, so messages keep their order and the handler never waits on
the network. An unknown or closed connection answers False, like a 410 from API Gateway.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

from starlette.websockets import WebSocket

log = logging.getLogger(__name__)


class _Connection:
    """One live WebSocket with its outgoing queue and writer task."""

    def __init__(self, websocket: WebSocket, loop: asyncio.AbstractEventLoop) -> None:
        self.websocket = websocket
        self.loop = loop
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.open = True
        self.writer: asyncio.Task[None] | None = None

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
        conn.queue.put_nowait(None)
        if conn.writer is not None:
            if flush:
                await conn.writer
            else:
                conn.writer.cancel()

    def is_connected(self, connection_id: str) -> bool:
        """Whether ``connection_id`` is a live connection."""
        with self._lock:
            conn = self._connections.get(connection_id)
        return conn is not None and conn.open

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Queue one JSON message; False when the connection is unknown or closed."""
        with self._lock:
            conn = self._connections.get(connection_id)
        if conn is None or not conn.open or conn.loop.is_closed():
            return False
        text = json.dumps(message, separators=(",", ":"))
        try:
            conn.loop.call_soon_threadsafe(conn.queue.put_nowait, text)
        except RuntimeError:  # loop closed between the check and the call
            return False
        return True
