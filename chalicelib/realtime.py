"""WebSocket and timer handlers: connections, client messages and room wake-ups.

These handlers sit above the service: they parse what arrives, call the service's one room
change (``Service.change_room``) and answer; the service never imports them. The pushes and
wake-ups that follow every committed change are the service's effects
(``chalicelib.effects``); the messages' shapes are in ``chalicelib.wire``.

The WebSocket side (API.md, "WebSocket"): a connection opens with a single-use ticket from
``POST /realtime/tickets`` (signed in) or with none (signed-out spectator); it then sends
``subscribe``, ``unsubscribe``, ``tick`` and ``ping``. Anything else gets an ``error`` message;
nothing a client sends makes a handler fail.

The timer side (decision 4): EventBridge Scheduler invokes ``on_timer`` with the room id and the
version it was scheduled for. The handler loads the room, applies every passed deadline with the
server's clock and saves conditionally (``Service.change_room``), so a stale, duplicate or early
delivery changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from chalicelib import effects, jsonbody, observability, wire, wiring
from chalicelib.errors import ApiError, body, retry_after, to_response
from chalicelib.retry import with_backoff
from chalicelib.service import Deps, Service, limits, source_key
from chalicelib.service.errors import Unknown
from chalicelib.settings import get_settings
from chalicelib.wire import (
    CLIENT_ACTIONS,
    CLIENT_MESSAGE,
    ClientMessage,
    PingMessage,
    SubscribeMessage,
    UnsubscribeMessage,
)

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]

MAX_CLIENT_MESSAGE_CHARS = 4096
"""Client messages are tiny; longer ones are refused unread."""
MAX_SUBSCRIPTIONS = 20
"""Rooms one connection may watch at once (a screen shows one; a few spare for tabs)."""
MAX_TICKET_CHARS = 256
QUICKPLAY_TIMER = "qp"
"""The wake-up id of the quick-play matcher (``chalicelib.quickplay.TIMER_ID``)."""

REFUSED = {"statusCode": 401}
TOO_MANY = {"statusCode": 429}
ACCEPTED = {"statusCode": 200}


def current_deps() -> Deps:
    """The dependencies in force (``chalicelib.wiring``): the handlers pass them down."""
    return wiring.get_deps()


# --- WebSocket: connect and disconnect ------------------------------------------------------------


def connect(
    connection_id: str,
    query: Mapping[str, Any] | None,
    *,
    deps: Deps | None = None,
    source: str = "unknown",
) -> JsonDict:
    """Accept with a valid unused ticket (signed in) or none (spectator); refuse a bad one (401).

    New connections are limited per source address (``source``, API Gateway's
    ``identity.sourceIp``): past the limit the handshake is refused (429) before any ticket
    is used.
    """
    d = deps or current_deps()
    now = d.clock.now_ms()
    cfg = get_settings()
    limit = limits.CONNECT
    if not d.store.hit(limit.key(source_key(source)), limit.allowed(cfg), limit.seconds(cfg), now):
        return dict(TOO_MANY)
    user_id: str | None = None
    if query and "ticket" in query:
        ticket = query["ticket"]
        if not isinstance(ticket, str) or not 0 < len(ticket) <= MAX_TICKET_CHARS:
            return dict(REFUSED)
        user_id = d.store.consume_ticket(ticket, now)
        if user_id is None:
            return dict(REFUSED)
    # A signed-in connection also listens on the user's own channel (pushes to the user
    # wherever they look: match_found), written with the connection itself so that a refused
    # handshake leaves nothing behind.
    channels = (f"user:{user_id}",) if user_id is not None else ()
    d.store.put_connection(connection_id, user_id, now, channels)
    return dict(ACCEPTED)


def disconnect(connection_id: str, *, deps: Deps | None = None) -> None:
    """Forget the connection and its subscriptions."""
    (deps or current_deps()).store.delete_connection(connection_id)


# --- WebSocket: messages ----------------------------------------------------------------------


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
    if action not in CLIENT_ACTIONS:
        raise ApiError(
            400,
            "unknown_action",
            "action must be one of: subscribe, unsubscribe, tick, ping",
            field="action",
        )
    try:
        return CLIENT_MESSAGE.validate_python(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != action) or None
        raise ApiError(
            400, "invalid_message", f"{loc or 'message'}: {first.get('msg')}", field=loc
        ) from None


def _room_view_now(deps: Deps, room_id: str, user_id: str | None) -> JsonDict:
    """The room with passed deadlines applied (and saved, with pushes), as ``user_id`` sees it."""
    done = Service(deps).change_room(room_id)
    return wire.room_message(wire.view(done.room, done.version, user_id, deps.clock.now_ms()), [])


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
            return [wire.pong()]
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
        return [wire.error_message(err["code"], err["message"], **context)]


def handle_message(connection_id: str, raw: str | None, *, deps: Deps | None = None) -> None:
    """Answer one client message on its own connection (a gone connection is forgotten)."""
    d = deps or current_deps()
    send_room = getattr(d.notifier, "send_room_text", None)
    for message in answer_message(connection_id, raw, deps=d):
        try:
            room = message.get("room") if message.get("type") == "room" else None
            if send_room is not None and room is not None:
                # The room as read: where this connection's pushes of the room continue.
                text = wire.push_text(message)
                sent = send_room(connection_id, text, room["id"], room["version"], answer=True)
            else:
                sent = d.notifier.send(connection_id, message)
            if not sent:
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
    if room_id == QUICKPLAY_TIMER:
        # The quick-play matcher's wake-up (a lone ticket's wait is over).
        from chalicelib.service.quickplay import Quickplay

        return with_backoff(lambda: Quickplay(Service(d)).on_timer(), what="quick-play timer")
    try:
        # Nobody waits on a wake-up: an infrastructure fault is retried here, and one that
        # persists fails the invocation, so Lambda's asynchronous retries (then the timer's
        # dead-letter destination) take over.
        done = with_backoff(
            lambda: Service(d).change_room(room_id), what=f"timer of room {room_id}"
        )
    except Unknown:
        log.info("timer for room %s v%s: the room is gone", room_id, version)
        return {"room_id": room_id, "scheduled_version": version, "gone": True}
    if done.version == version:
        # Nothing was due yet (an early delivery): arm the wake-up again so the room never
        # waits for a client to tick.
        effects.rearm(done.room, done.version, deps=d)
    else:
        # A committed change scheduled its own wake-up, as an effect that logs a failure.
        # The timer is what touches a room nobody watches: if that wake-up is missing, make
        # it now, and if Scheduler still refuses, fail so Lambda retries this delivery.
        effects.ensure_wake_up(done.room, done.version, deps=d)
    return {"room_id": room_id, "scheduled_version": version, "version": done.version}


SWEEP_GRACE_MS = 60_000
"""The sweeper wakes rooms whose deadline passed more than this long ago: a wake-up that is
merely late (Scheduler's usual delivery) is left to the timer."""

SWEEP_LIMIT = 200
"""Rooms one sweep wakes at most (the rest are found by the next one, a minute later)."""


def sweep(*, deps: Deps | None = None) -> JsonDict:
    """The backstop of lost wake-ups: wake every room whose deadline passed over a minute ago.

    A room whose Scheduler wake-up could not be made (every try failed) and that no client
    touches would otherwise wait forever. Each room found goes through ``on_timer``, the very
    path of a wake-up: a room woken twice, or already moved on, changes nothing.
    """
    d = deps or current_deps()
    now = d.clock.now_ms()
    overdue = d.store.overdue_rooms(now - SWEEP_GRACE_MS, SWEEP_LIMIT)
    observability.overdue_rooms(len(overdue))
    woken, failed = [], []
    for room_id in overdue:
        log.warning("room %s: its deadline passed over a minute ago; waking it", room_id)
        try:
            on_timer(room_id, None, deps=d)
        except Exception:
            # One room's fault must not stop the others; the next sweep finds it again.
            log.exception("the sweeper could not wake room %s", room_id)
            failed.append(room_id)
        else:
            woken.append(room_id)
    return {"overdue": len(overdue), "woken": woken, "failed": failed}
