"""Live updates and room timers: WebSocket connections, fan-out after commit, the timer handler.

The WebSocket side (API.md, "WebSocket"): a connection opens with a single-use ticket from
``POST /realtime/tickets`` (signed in) or with none (signed-out spectator); it then sends
``subscribe``, ``unsubscribe``, ``tick`` and ``ping``. Anything else gets an ``error`` message;
nothing a client sends makes a handler fail.

After every committed room change, ``after_commit`` pushes each subscribed connection its own
viewer's room view plus the redacted events (ARCHITECTURE.md decision 6), then schedules the
room's next deadline with the Timers port and cancels the previous version's schedule. A gone
connection is forgotten and the fan-out goes on; a failing push never fails the change.

The timer side (decision 4): EventBridge Scheduler invokes ``on_timer`` with the room id and the
version it was scheduled for. The handler loads the room, applies every passed deadline with the
server's clock and saves conditionally (``Service.advance_room``), so a stale, duplicate or early
delivery changes nothing.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from chalicelib import jsonbody
from chalicelib.engine import game as game_flow
from chalicelib.engine.model import Room
from chalicelib.engine.views import events_for
from chalicelib.errors import ApiError, body, retry_after, to_response
from chalicelib.retry import with_backoff
from chalicelib.service import Deps, Service, current_deps, view

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
Event = dict[str, Any]

MAX_PUSH_BYTES = 32 * 1024
"""API Gateway WebSocket frames are 32 KB: every pushed message stays strictly below."""
MAX_CLIENT_MESSAGE_CHARS = 4096
"""Client messages are tiny; longer ones are refused unread."""
MAX_SUBSCRIPTIONS = 20
"""Rooms one connection may watch at once (a screen shows one; a few spare for tabs)."""
MAX_TICKET_CHARS = 256

REFUSED = {"statusCode": 401}
ACCEPTED = {"statusCode": 200}


# --- sizes and messages -------------------------------------------------------------------------


def encoded_size(message: Mapping[str, Any]) -> int:
    """Bytes of ``message`` as the notifier sends it (compact UTF-8 JSON)."""
    return len(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode())


def room_message(room_view: JsonDict, shown_events: list[Event]) -> JsonDict:
    """``{"type": "room", "room", "events"}``, shrunk to fit a frame.

    Too large with its events: the events are dropped (clients resync from the view). Still
    too large: a small ``{"type": "room_changed", "room_id", "version"}`` asks the client to
    fetch the room over REST.
    """
    message: JsonDict = {"type": "room", "room": room_view, "events": shown_events}
    if encoded_size(message) < MAX_PUSH_BYTES:
        return message
    message = {"type": "room", "room": room_view, "events": [], "events_dropped": True}
    if encoded_size(message) < MAX_PUSH_BYTES:
        return message
    return {"type": "room_changed", "room_id": room_view["id"], "version": room_view["version"]}


def error_message(code: str, message: str, **extra: Any) -> JsonDict:
    """``{"type": "error", "error": {"code", "message"}}`` plus context (``action``, ``room_id``)."""
    return {"type": "error", "error": {"code": code, "message": message}, **extra}


# --- fan-out ----------------------------------------------------------------------------------


def _fan_out(deps: Deps, room_id: str, build: Callable[[str | None], JsonDict]) -> int:
    """Send each subscriber of ``room_id`` the message built for its user; prune gone ones."""
    delivered = 0
    built: dict[str | None, JsonDict] = {}
    watchers = with_backoff(lambda: deps.store.subscribers(room_id), what="subscribers")
    for connection_id, user_id in watchers:
        try:
            if user_id not in built:
                built[user_id] = build(user_id)
            if deps.notifier.send(connection_id, built[user_id]):
                delivered += 1
                continue
        except Exception:
            log.exception("push to %s for room %s failed", connection_id, room_id)
            continue
        # The connection is gone (410): forget it and go on with the others.
        try:
            deps.store.delete_connection(connection_id)
        except Exception:
            log.exception("forgetting gone connection %s failed", connection_id)
    return delivered


def publish(room: Room, version: int, events: list[Event], *, deps: Deps | None = None) -> int:
    """Push every subscriber its own viewer's room view and the events; the number delivered."""
    d = deps or current_deps()
    shown = events_for(room, events)
    now = d.clock.now_ms()
    return _fan_out(
        d, room.id, lambda user_id: room_message(view(room, version, user_id, now), shown)
    )


def publish_chat(room_id: str, message: JsonDict, *, deps: Deps | None = None) -> int:
    """Push a chat message to every subscriber of the room; the number delivered."""
    d = deps or current_deps()
    payload = {"type": "chat", "room_id": room_id, "message": message}
    return _fan_out(d, room_id, lambda _user: payload)


def schedule_next(room: Room, version: int, *, deps: Deps | None = None) -> int | None:
    """Wake the room at its next deadline (tagged ``version``); drop the previous version's wake-up.

    The new schedule is made before the old one is deleted, so a failure in between leaves a
    wake-up too many (which changes nothing when it fires), never one too few.
    """
    d = deps or current_deps()
    deadline = game_flow.next_deadline(room)
    if deadline is not None:
        d.timers.schedule(room.id, version, deadline)
        _armed.remember(d, room.id, version)
    if version > 1:
        _armed.forget(d, room.id, version - 1)
        try:
            d.timers.cancel(room.id, version - 1)
        except Exception:
            log.exception("cancelling the schedule of room %s v%s failed", room.id, version - 1)
    return deadline


class _Armed:
    """The wake-ups this process armed (or repaired), by timers, room and version; bounded."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._keys: OrderedDict[tuple[int, str, int], None] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, deps: Deps, room_id: str, version: int) -> None:
        with self._lock:
            self._keys[(id(deps.timers), room_id, version)] = None
            while len(self._keys) > self._size:
                self._keys.popitem(last=False)

    def forget(self, deps: Deps, room_id: str, version: int) -> None:
        with self._lock:
            self._keys.pop((id(deps.timers), room_id, version), None)

    def known(self, deps: Deps, room_id: str, version: int) -> bool:
        with self._lock:
            return (id(deps.timers), room_id, version) in self._keys


_armed = _Armed()


def ensure_wake_up(room: Room, version: int, *, deps: Deps | None = None) -> None:
    """Repair a lost wake-up: arm the room's wake-up at ``version`` if it has a deadline.

    Called on every touch of a room that writes nothing. If the CreateSchedule after the
    write that set the deadline failed, the wake-up is missing; scheduling is idempotent by
    the deterministic name (room id and version), so asking again is safe. A wake-up this
    process armed or repaired already is not asked for again, so a warm Lambda calls the
    scheduler at most once per room version. Raises what the timers raise (callers log it).
    """
    d = deps or current_deps()
    deadline = game_flow.next_deadline(room)
    if deadline is None or _armed.known(d, room.id, version):
        return
    d.timers.schedule(room.id, version, deadline)
    _armed.remember(d, room.id, version)


def after_commit(deps: Deps, room: Room, version: int, events: list[Event]) -> None:
    """The effects of a committed room change: pushes, then the next wake-up. Never raises."""
    try:
        publish(room, version, events, deps=deps)
    except Exception:
        log.exception("push for room %s failed", room.id)
    try:
        schedule_next(room, version, deps=deps)
    except Exception:
        log.exception("scheduling room %s failed", room.id)


# --- WebSocket: connect and disconnect ------------------------------------------------------------


def connect(
    connection_id: str, query: Mapping[str, Any] | None, *, deps: Deps | None = None
) -> JsonDict:
    """Accept with a valid unused ticket (signed in) or none (spectator); refuse a bad one (401)."""
    d = deps or current_deps()
    now = d.clock.now_ms()
    user_id: str | None = None
    if query and "ticket" in query:
        ticket = query["ticket"]
        if not isinstance(ticket, str) or not 0 < len(ticket) <= MAX_TICKET_CHARS:
            return dict(REFUSED)
        user_id = d.store.consume_ticket(ticket, now)
        if user_id is None:
            return dict(REFUSED)
    d.store.put_connection(connection_id, user_id, now)
    return dict(ACCEPTED)


def disconnect(connection_id: str, *, deps: Deps | None = None) -> None:
    """Forget the connection and its subscriptions."""
    (deps or current_deps()).store.delete_connection(connection_id)


# --- WebSocket: messages ----------------------------------------------------------------------

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
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def parse_message(raw: str | None) -> ClientMessage:
    """Validate a client message; raise ApiError(400) with a stable code."""
    if raw is None or raw == "None" or not raw.strip():
        raise ApiError(400, "invalid_message", "send a JSON object with an action")
    if len(raw) > MAX_CLIENT_MESSAGE_CHARS:
        raise ApiError(
            400,
            "message_too_large",
            f"messages are limited to {MAX_CLIENT_MESSAGE_CHARS} characters",
        )
    try:
        data = jsonbody.loads(raw)
    except jsonbody.TooDeep:
        raise ApiError(
            400, "invalid_json", f"the message nests deeper than {jsonbody.MAX_DEPTH} levels"
        ) from None
    except ValueError:
        raise ApiError(400, "invalid_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_message", "send a JSON object with an action")
    action = data.get("action")
    if action not in ("subscribe", "unsubscribe", "tick", "ping"):
        raise ApiError(
            400,
            "unknown_action",
            "action must be one of: subscribe, unsubscribe, tick, ping",
            field="action",
        )
    try:
        return _CLIENT_MESSAGE.validate_python(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != action) or None
        raise ApiError(
            400, "invalid_message", f"{loc or 'message'}: {first.get('msg')}", field=loc
        ) from None


def _room_view_now(deps: Deps, room_id: str, user_id: str | None) -> JsonDict:
    """The room with passed deadlines applied (and saved, with pushes), as ``user_id`` sees it."""
    room, version = Service(deps).advance_room(room_id)
    return room_message(view(room, version, user_id, deps.clock.now_ms()), [])


def answer_message(
    connection_id: str, raw: str | None, *, deps: Deps | None = None
) -> list[JsonDict]:
    """What the server sends back to this connection for one client message (never raises)."""
    d = deps or current_deps()
    context: JsonDict = {}
    try:
        msg = parse_message(raw)
        context["action"] = msg.action
        if isinstance(msg, PingMessage):
            return [{"type": "pong"}]
        context["room_id"] = msg.room_id
        conn = d.store.get_connection(connection_id)
        if conn is None:
            raise ApiError(
                401, "unknown_connection", "this connection is not registered; reconnect"
            )
        if isinstance(msg, UnsubscribeMessage):
            d.store.unsubscribe(connection_id, msg.room_id)
            return []
        if isinstance(msg, SubscribeMessage):
            if msg.room_id not in conn.rooms and len(conn.rooms) >= MAX_SUBSCRIPTIONS:
                raise ApiError(
                    429,
                    "too_many_subscriptions",
                    f"a connection may watch at most {MAX_SUBSCRIPTIONS} rooms",
                )
            if d.store.get_room(msg.room_id) is None:
                raise ApiError(404, "unknown_room", "no such room")
            # Subscribe before reading, so no change can fall between the view and the pushes.
            if not d.store.subscribe(connection_id, msg.room_id):
                raise ApiError(
                    401, "unknown_connection", "this connection is not registered; reconnect"
                )
        # subscribe and tick: the viewer's room now, with every passed deadline applied.
        return [_room_view_now(d, msg.room_id, conn.user_id)]
    except Exception as exc:
        known = to_response(exc)
        if known is None:
            log.exception("WebSocket message from %s failed", connection_id)
            err = body("internal_error", "something went wrong on our side")["error"]
        else:
            err = known[1]["error"]
        wait = retry_after(exc)
        if wait is not None:
            context["retry_after"] = wait
        return [error_message(err["code"], err["message"], **context)]


def handle_message(connection_id: str, raw: str | None, *, deps: Deps | None = None) -> None:
    """Answer one client message on its own connection (a gone connection is forgotten)."""
    d = deps or current_deps()
    for message in answer_message(connection_id, raw, deps=d):
        try:
            if not d.notifier.send(connection_id, message):
                d.store.delete_connection(connection_id)
                return
        except Exception:
            log.exception("answering %s failed", connection_id)


# --- timers -----------------------------------------------------------------------------------


def on_timer(room_id: Any, version: Any = None, *, deps: Deps | None = None) -> JsonDict:
    """A room's wake-up: apply every passed deadline and save (no write when nothing is due).

    ``version`` is the version the wake-up was scheduled for; it is informational, since the
    room's own deadlines decide what happens. A room that no longer exists is a no-op.
    """
    if not isinstance(room_id, str) or not room_id:
        log.error("timer event without a room id: %r", room_id)
        return {"room_id": room_id, "error": "invalid_event"}
    d = deps or current_deps()
    try:
        # Nobody waits on a wake-up: an infrastructure fault is retried here, and one that
        # persists fails the invocation, so Lambda's asynchronous retries (then the timer's
        # dead-letter destination) take over.
        room, now_version = with_backoff(
            lambda: Service(d).advance_room(room_id), what=f"timer of room {room_id}"
        )
    except ApiError as err:
        if err.status == 404:
            log.info("timer for room %s v%s: the room is gone", room_id, version)
            return {"room_id": room_id, "scheduled_version": version, "gone": True}
        raise
    deadline = game_flow.next_deadline(room)
    if deadline is not None and now_version == version:
        # Nothing was due yet (an early delivery): arm the wake-up again so the room never
        # waits for a client to tick. A committed change scheduled its own wake-up already.
        # The schedule that fired deletes itself after this run: drop it first, so the name is
        # free for the new one (a repeat of an existing name would be a harmless no-op).
        _armed.forget(d, room.id, now_version)
        d.timers.cancel(room.id, now_version)
        d.timers.schedule(room.id, now_version, deadline)
        _armed.remember(d, room.id, now_version)
    return {"room_id": room_id, "scheduled_version": version, "version": now_version}
