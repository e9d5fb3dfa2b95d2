"""Connection guard: slow clients and one greedy source cannot lock newcomers out.

uvicorn cuts an idle keep-alive connection, but not one that sends its request headers a
byte at a time: each such connection holds a file descriptor for as long as the client
likes, and enough of them use up the process's open-file limit (newcomers then fail with
nothing in the log). The protocols here are uvicorn's own (``HttpToolsProtocol`` and the
WebSocket protocol it upgrades to) with three additions:

- a **header-read timeout**: a connection whose request headers are not complete
  ``header_timeout`` seconds after it opened or after its previous answer (and which is not
  idle in keep-alive, which uvicorn already times out) is closed;
- a **per-source cap**: at most ``per_source`` simultaneous connections (HTTP and WebSocket)
  from one address in this process; one more is closed at once (a warning names the
  address, at most once a minute). Loopback addresses are exempt unless ``cap_loopback``:
  they are this machine's own clients (a benchmark, a reverse proxy, which must then cap
  its own clients);
- a warning when this process's connections near its open-file limit (``RLIMIT_NOFILE``),
  which ``raise_open_file_limit`` raises to the hard limit at start.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = logging.getLogger(__name__)

#: Seconds a client gets to send a request's headers.
HEADER_TIMEOUT_SECONDS = 10.0
#: Simultaneous connections from one address, per process.
MAX_CONNECTIONS_PER_SOURCE = 512
#: The share of the open-file limit past which the log warns.
NEAR_LIMIT_SHARE = 0.8
#: A repeated warning is logged at most once in this many seconds.
WARN_EVERY_SECONDS = 60.0


def raise_open_file_limit() -> tuple[int, int] | None:
    """Raise this process's soft open-file limit to its hard limit; the (soft, hard) now.

    None where the platform has no such limit (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            log.warning("could not raise the open-file limit from %s to %s", soft, hard)
    return soft, hard


def _open_file_limit() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else int(soft)


class _Throttled:
    """Log a warning of one kind at most once a ``WARN_EVERY_SECONDS`` (how many were left
    out since the last line is said in the next)."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}
        self._left_out: dict[str, int] = {}

    def warn(self, kind: str, message: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, float("-inf")) >= WARN_EVERY_SECONDS:
            self._last[kind] = now
            left_out = self._left_out.pop(kind, 0)
            if left_out:
                message += f" ({left_out} more like it in the last minute)"
            log.warning(message, *args)
        else:
            self._left_out[kind] = self._left_out.get(kind, 0) + 1


#: Warnings about what clients send (a bad frame), shared by every connection of the process.
CLIENT_WARNINGS = _Throttled()


class Sources:
    """Open connections per source address in this process (touched on the event loop only)."""

    def __init__(self, per_source: int, cap_loopback: bool = False) -> None:
        self.per_source = per_source
        self.cap_loopback = cap_loopback
        self.open: dict[str, int] = {}
        self.total = 0
        self.limit = _open_file_limit()
        self.warnings = _Throttled()

    def admit(self, source: str) -> bool:
        count = self.open.get(source, 0)
        if count >= self.per_source and (self.cap_loopback or not _is_loopback(source)):
            self.warnings.warn(
                f"cap {source}",
                "refusing connections from %s: it already holds %s (the cap per source)",
                source,
                count,
            )
            return False
        self.open[source] = count + 1
        self.total += 1
        if self.limit is not None and self.total >= self.limit * NEAR_LIMIT_SHARE:
            self.warnings.warn(
                "near limit",
                "%s open connections, near this process's open-file limit of %s",
                self.total,
                self.limit,
            )
        return True

    def release(self, source: str) -> None:
        count = self.open.get(source, 0)
        if count <= 1:
            self.open.pop(source, None)
        else:
            self.open[source] = count - 1
        self.total = max(0, self.total - 1)


def _is_loopback(source: str) -> bool:
    try:
        return ipaddress.ip_address(source).is_loopback
    except ValueError:
        return False


def _source(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return str(peer or "?")


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a header-read timeout and the per-source cap."""

    sources: Sources
    header_timeout: float

    _guard_source: str | None = None
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        source = _source(transport)
        if not self.sources.admit(source):
            transport.abort()
            return
        self._guard_source = source
        super().connection_made(transport)
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._disarm_header_timer()
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        # the WebSocket protocol now owns the connection and releases its source
        source, self._guard_source = self._guard_source, None
        self._disarm_header_timer()
        super().handle_websocket_upgrade()
        protocol = self.transport.get_protocol()
        if isinstance(protocol, GuardedWebSocketProtocol):
            protocol.guard_source = source
        elif source is not None:
            self.sources.release(source)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        source, self._guard_source = self._guard_source, None
        if source is None:
            return  # refused at the door (nothing was set up), or handed to a WebSocket
        self.sources.release(source)
        super().connection_lost(exc)


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, releasing its source's place when the connection ends."""

    sources: Sources
    guard_source: str | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        source, self.guard_source = self.guard_source, None
        if source is not None:
            self.sources.release(source)
        super().connection_lost(exc)

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, except that a text message which is not UTF-8 closes the connection
        (1007) with a one-line warning at most once a minute, instead of an ERROR with a
        traceback for every such frame (any client could flood the log)."""
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            if not data.isascii():
                try:
                    data.decode()
                except UnicodeDecodeError:
                    self.frames = []
                    CLIENT_WARNINGS.warn(
                        "bad utf-8",
                        "a WebSocket client (%s) sent text that is not UTF-8: closed it (1007)",
                        self.guard_source or (self.client[0] if self.client else "?"),
                    )
                    self.conn.send_close(1007)
                    self.handle_parser_exception()
                    return
        super().send_receive_event_to_app()


def guarded_protocols(
    header_timeout: float = HEADER_TIMEOUT_SECONDS,
    per_source: int = MAX_CONNECTIONS_PER_SOURCE,
    cap_loopback: bool = False,
) -> tuple[type[GuardedHttpProtocol], type[GuardedWebSocketProtocol]]:
    """The HTTP and WebSocket protocol classes for one server (``uvicorn.Config(http=, ws=)``)."""
    sources = Sources(per_source, cap_loopback)
    http = type(
        "GuardedHttp",
        (GuardedHttpProtocol,),
        {"sources": sources, "header_timeout": header_timeout},
    )
    ws = type("GuardedWebSocket", (GuardedWebSocketProtocol,), {"sources": sources})
    return http, ws
