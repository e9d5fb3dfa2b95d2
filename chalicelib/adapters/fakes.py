"""Recording fakes of the Notifier, Timers and Clock ports, for unit tests and benchmarks.

``FakeNotifier``, ``FakeTimers`` and ``FakeClock`` record what they are asked. The fake of
the Store port is ``SqliteStore(":memory:")`` (``chalicelib.adapters.sqlite``): the real
SQLite adapter on a private in-memory database.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from chalicelib.ports import JsonDict


def _copy(data: Any) -> Any:
    return json.loads(json.dumps(data))


class FakeNotifier:
    """Records every push; connections in ``gone`` answer as closed (410)."""

    def __init__(self, gone: set[str] | None = None) -> None:
        self.gone: set[str] = set(gone or ())
        self.sent: list[tuple[str, JsonDict]] = []
        self._lock = threading.Lock()

    def send(self, connection_id: str, message: JsonDict) -> bool:
        """Record the message; False for a gone connection (nothing recorded)."""
        with self._lock:
            if connection_id in self.gone:
                return False
            self.sent.append((connection_id, _copy(message)))
            return True

    def messages_for(self, connection_id: str) -> list[JsonDict]:
        """Messages sent to one connection, in order."""
        with self._lock:
            return [m for c, m in self.sent if c == connection_id]


class FakeTimers:
    """Records schedules by (room_id, version) -> at_ms; cancel removes them."""

    def __init__(self) -> None:
        self.scheduled: dict[tuple[str, int], int] = {}
        self.cancelled: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        """Record a wake-up; repeating the same (room, version) keeps the first, like AWS."""
        with self._lock:
            self.scheduled.setdefault((room_id, version), at_ms)

    def cancel(self, room_id: str, version: int) -> None:
        """Forget a wake-up (missing is fine)."""
        with self._lock:
            self.scheduled.pop((room_id, version), None)
            self.cancelled.append((room_id, version))

    def due(self, now_ms: int) -> list[tuple[str, int]]:
        """(room_id, version) of every recorded wake-up at or before ``now_ms``, earliest first."""
        with self._lock:
            found = sorted((at, key) for key, at in self.scheduled.items() if at <= now_ms)
            return [key for _, key in found]


class FakeClock:
    """A settable clock (epoch ms)."""

    def __init__(self, now_ms: int = 1_700_000_000_000) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        """The time set last."""
        return self.now

    def advance(self, ms: int) -> int:
        """Move forward by ``ms``; return the new time."""
        self.now += ms
        return self.now


if TYPE_CHECKING:  # mypy proves the fakes fit the ports
    from chalicelib.ports import Clock, Notifier, Timers

    _notifier: Notifier = FakeNotifier()
    _timers: Timers = FakeTimers()
    _clock: Clock = FakeClock()
