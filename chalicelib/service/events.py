"""The lobby's events: what happened to a room outside its game, typed like the game's events.

Each is a frozen dataclass on the engine's ``Event`` base (``chalicelib.engine.events``), turned
into the plain dict a change returns by the same ``record()``: ``{"type", …}`` with the fields
in declared order and epoch-ms stamps, exactly as the use cases used to write them by hand.
Their published shapes are the ``RoomCreated``, ``PlayerJoined``, ``JoinRequested`` and
``RoomRecreated`` models of ``chalicelib.schemas``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from chalicelib.engine.events import Event, Record, record


@dataclass(frozen=True, slots=True)
class RoomCreated(Event):
    """A new waiting room (its creator is host)."""

    TYPE: ClassVar[str] = "room_created"
    at: int


@dataclass(frozen=True, slots=True)
class PlayerJoined(Event):
    """A user took a seat (joined, or was approved by the host)."""

    TYPE: ClassVar[str] = "player_joined"
    user_id: str
    at: int


@dataclass(frozen=True, slots=True)
class JoinRequested(Event):
    """A user asked to join a room that needs the host's approval."""

    TYPE: ClassVar[str] = "join_requested"
    user_id: str
    at: int


@dataclass(frozen=True, slots=True)
class RoomRecreated(Event):
    """A participant opened a new waiting room with the same settings (``room_id``)."""

    TYPE: ClassVar[str] = "room_recreated"
    room_id: str
    at: int


LOBBY_EVENTS: tuple[type[Event], ...] = (RoomCreated, PlayerJoined, JoinRequested, RoomRecreated)
"""Every event of the lobby (``tests/service`` checks each against its published model)."""

__all__ = [
    "LOBBY_EVENTS",
    "JoinRequested",
    "PlayerJoined",
    "Record",
    "RoomCreated",
    "RoomRecreated",
    "record",
]
