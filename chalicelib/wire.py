"""Wire shapes: every JSON shape the API sends or reads that is not the room view itself.

The room view is ``engine.views.room_view`` (one function, ARCHITECTURE.md decision 2); here
it is only stamped with its version and the server's clock (``view``). Everything else a
client receives is shaped here: the JSON of what the store keeps (a chat message), the
WebSocket pushes (``room_message``, ``chat_push``), the WebSocket answers and errors, the
messages a client sends over the WebSocket, the error body of every 4xx/503, and the small
REST answers (session, ticket, lobby entries, profile). Pure functions of their inputs: no
store, no clock, no handler.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from chalicelib.engine.model import Room
from chalicelib.engine.views import iso, room_view, room_views
from chalicelib.ports import ChatMessage, PlayerStats, UserRecord

JsonDict = dict[str, Any]
Event = dict[str, Any]

MAX_PUSH_BYTES = 32 * 1024
"""API Gateway WebSocket frames are 32 KB: every pushed message stays strictly below."""


# --- the room view on the wire -------------------------------------------------------------------


def view(room: Room, version: int, user_id: str | None, now: int | None = None) -> JsonDict:
    """The caller's view of the room (``engine.views.room_view``) with the stored version.

    ``server_time`` (epoch ms, the server's clock when the view was made) lets a client count
    deadlines down on the server's clock rather than its own.
    """
    out = room_view(room, user_id=user_id)
    out["version"] = version
    if now is not None:
        out["server_time"] = now
    return out


def views(room: Room, version: int, now: int | None = None) -> Callable[[str | None], JsonDict]:
    """``view`` for many viewers of one room version (``engine.views.room_views``: the parts
    every viewer sees alike are built once and shared; nobody may change them)."""
    of = room_views(room)

    def view_of(user_id: str | None) -> JsonDict:
        out = of(user_id)
        out["version"] = version
        if now is not None:
            out["server_time"] = now
        return out

    return view_of


# --- what the store keeps, as clients see it -----------------------------------------------------


def chat_message(message: ChatMessage) -> JsonDict:
    """``{"id", "user": {"id", "name"}, "text", "at"}``, ``at`` in ISO 8601 UTC with ``Z``."""
    return {
        "id": message.id,
        "user": {"id": message.user_id, "name": message.name},
        "text": message.text,
        "at": iso(message.at_ms),
    }


# --- WebSocket pushes and answers ----------------------------------------------------------------


_COMPACT_UTF8 = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def encoded_size(message: Mapping[str, Any]) -> int:
    """Bytes of ``message`` as the notifier sends it (compact UTF-8 JSON)."""
    return len(_COMPACT_UTF8(message).encode())


def room_message(room_view: JsonDict, shown_events: list[Event]) -> JsonDict:
    """``{"type": "room", "room", "events"}``, shrunk to fit a frame.

    Too large with its events: the events that fit are kept from the start of the change, the
    rest dropped (``events_dropped``; clients resync from the view). Still too large: a small
    ``{"type": "room_changed", "room_id", "version"}`` asks the client to fetch the room over
    REST.
    """
    message: JsonDict = {"type": "room", "room": room_view, "events": shown_events}
    if encoded_size(message) < MAX_PUSH_BYTES:
        return message
    message = _first_events_that_fit(room_view, shown_events)
    if encoded_size(message) < MAX_PUSH_BYTES:
        return message
    return {"type": "room_changed", "room_id": room_view["id"], "version": room_view["version"]}


def _first_events_that_fit(room_view: JsonDict, shown_events: list[Event]) -> JsonDict:
    """The room message with the longest run of the change's first events that fits a frame.

    A change can hold more events than one frame (the bots finishing a game at once after the
    last person's dice are gone, see docs/RULES.md), but what a person saw happen comes first:
    their own move, the reveal that cost them their last die, their elimination. Those are kept; only the
    later ones are dropped. Compact JSON is exact arithmetic: the message without events, plus
    each kept event's bytes and a comma between two.
    """
    budget = MAX_PUSH_BYTES - 1 - encoded_size(_truncated(room_view, []))
    kept = used = 0
    for event in shown_events:
        used += encoded_size(event) + (1 if kept else 0)
        if used > budget:
            break
        kept += 1
    return _truncated(room_view, shown_events[:kept])


def _truncated(room_view: JsonDict, kept: list[Event]) -> JsonDict:
    return {"type": "room", "room": room_view, "events": kept, "events_dropped": True}


_COMPACT_ASCII = json.JSONEncoder(separators=(",", ":")).encode


def push_text(message: Mapping[str, Any]) -> str:
    """``message`` as a text frame: compact JSON with ASCII escapes (``json.dumps(message,
    separators=(",", ":"))``), what a notifier's ``send_text`` takes (``ports.TextNotifier``)."""
    return _COMPACT_ASCII(message)


def _fits(message: Mapping[str, Any], text: str) -> bool:
    """Whether ``message`` (whose ``push_text`` is ``text``) is under ``MAX_PUSH_BYTES``.

    The ASCII text is never shorter than the UTF-8 bytes ``encoded_size`` counts (an escape
    takes 6 or 12 characters where UTF-8 takes 1 to 4 bytes; everything else is alike), so a
    short enough text proves the message fits without encoding it again. A text with a
    surrogate escape takes the exact count (which refuses a lone surrogate, as it always did).
    """
    if len(text) < MAX_PUSH_BYTES and "\\ud" not in text:
        return True
    return encoded_size(message) < MAX_PUSH_BYTES


def room_push(room_view: JsonDict, shown_events: list[Event]) -> tuple[JsonDict, str]:
    """``room_message`` and its ``push_text``, encoded once (it is the text that is sent)."""
    message: JsonDict = {"type": "room", "room": room_view, "events": shown_events}
    text = push_text(message)
    if _fits(message, text):
        return message, text
    message = _first_events_that_fit(room_view, shown_events)
    text = push_text(message)
    if _fits(message, text):
        return message, text
    message = {"type": "room_changed", "room_id": room_view["id"], "version": room_view["version"]}
    return message, push_text(message)


def chat_push(room_id: str, message: JsonDict) -> JsonDict:
    """``{"type": "chat", "room_id", "message"}``: a chat message pushed to a room's watchers."""
    return {"type": "chat", "room_id": room_id, "message": message}


def pong() -> JsonDict:
    """The answer to ``ping``."""
    return {"type": "pong"}


def error_message(code: str, message: str, **extra: Any) -> JsonDict:
    """``{"type": "error", "error": {"code", "message"}}`` plus context (``action``, ``room_id``)."""
    return {"type": "error", "error": {"code": code, "message": message}, **extra}


# --- what a client sends over the WebSocket ------------------------------------------------------

RoomId = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[\x21-\x7e]+$")]


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SubscribeMessage(_Message):
    """Watch a room: its current view now, then every change."""

    action: Literal["subscribe"]
    room_id: RoomId


class UnsubscribeMessage(_Message):
    """Stop watching a room."""

    action: Literal["unsubscribe"]
    room_id: RoomId


class TickMessage(_Message):
    """The client's countdown ended: apply every deadline that has passed."""

    action: Literal["tick"]
    room_id: RoomId


class PingMessage(_Message):
    """Keep-alive; answered with ``pong``."""

    action: Literal["ping"]


ClientMessage = Annotated[
    SubscribeMessage | UnsubscribeMessage | TickMessage | PingMessage,
    Field(discriminator="action"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
CLIENT_ACTIONS = ("subscribe", "unsubscribe", "tick", "ping")


# --- errors --------------------------------------------------------------------------------------


def error_body(code: str, message: str, field: str | None = None) -> JsonDict:
    """The API's error body: ``{"error": {"code", "message", "field"?}}``."""
    err: JsonDict = {"code": code, "message": message}
    if field is not None:
        err["field"] = field
    return {"error": err}


# --- REST answers --------------------------------------------------------------------------------


def user(record: UserRecord) -> JsonDict:
    """``{"id", "name", "guest"}``."""
    return {"id": record.id, "name": record.name, "guest": record.guest}


def session(token: str, record: UserRecord) -> JsonDict:
    """``{"token", "user"}``: a sign-in's answer."""
    return {"token": token, "user": user(record)}


def ticket(ticket_id: str, expires_ms: int) -> JsonDict:
    """``{"ticket", "expires_at"}``: a WebSocket ticket."""
    return {"ticket": ticket_id, "expires_at": iso(expires_ms)}


def me(record: UserRecord, rating: float | None, invitations: list[JsonDict]) -> JsonDict:
    """The caller's profile, rating (registered users only), preferences and invitations."""
    return {
        "user": user(record),
        "rating": None if rating is None else {"liars-lies": rating},
        "preferences": preferences(record.continue_mode, record.language),
        "invitations": invitations,
    }


def preferences(continue_mode: str, language: str | None) -> JsonDict:
    """``{"continue_mode", "language"}``: the preferences in ``me`` and in the answer of setting
    them (``language`` null until the user picks one)."""
    return {"continue_mode": continue_mode, "language": language}


def lobby_entry(summary: JsonDict, status: str) -> JsonDict:
    """One room of the lobby list, from the summary stored beside it (never the passcode)."""
    settings = dict(summary.get("settings") or {})
    settings.pop("passcode", None)
    return {
        "id": summary["id"],
        "status": summary.get("status", status),
        "host_name": summary.get("host_name", ""),
        "players": summary.get("players", 0),
        "humans": summary.get("humans", 0),
        "bots": summary.get("bots", 0),
        "settings": settings,
        "created_by_guest": bool(summary.get("created_by_guest", False)),
    }


def leaderboard(min_games: int, rows: list[JsonDict]) -> JsonDict:
    """``{"min_games", "players": [{"rank", "name", "rating", "games"}]}``, ranked as given."""
    return {
        "min_games": min_games,
        "players": [
            {"rank": i, "name": r["name"], "rating": r["rating"], "games": r["games"]}
            for i, r in enumerate(rows, start=1)
        ],
    }


def profile(
    username: str, name: str, stats: PlayerStats, listed: bool, recent: list[JsonDict]
) -> JsonDict:
    """A registered player's public profile: rating, rated games, wins, best finish, recent."""
    return {
        "username": username,
        "name": name,
        "rating": stats.rating,
        "rated_games": stats.games,
        "wins": stats.finishes.get(1, 0),
        "best_finish": min(stats.finishes) if stats.finishes else None,
        "listed": listed,
        "recent": recent,
    }


# --- quick play --------------------------------------------------------------------------------


def match_found(ticket_id: str, room_id: str) -> JsonDict:
    """The push to every connection of a user quick play just seated."""
    return {"type": "match_found", "ticket_id": ticket_id, "room_id": room_id}
