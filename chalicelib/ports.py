"""Ports: the small interfaces the service layer talks to.

Each port has two implementations: an AWS adapter under ``chalicelib/adapters/`` (the only
place boto3 is imported) and an in-memory fake used by unit tests and, where useful, by the
local server. The service layer depends on these Protocols only.
"""

from __future__ import annotations

from typing import Any, Protocol


class Notifier(Protocol):
    """Pushes JSON messages to WebSocket connections."""

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Send one message; return False when the connection is gone (410), True otherwise."""
        ...


class Timers(Protocol):
    """One-time wake-ups for rooms (EventBridge Scheduler in AWS, a precise loop locally)."""

    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        """Wake the timer handler for ``room_id`` at ``at_ms`` (epoch ms), tagged with ``version``."""
        ...

    def cancel(self, room_id: str, version: int) -> None:
        """Forget the wake-up made for ``room_id`` at ``version`` (missing is fine)."""
        ...


class Clock(Protocol):
    """The server's clock: the only clock of the game."""

    def now_ms(self) -> int:
        """Current time in epoch milliseconds."""
        ...
