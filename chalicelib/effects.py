"""The effects of a committed change, as data: ``plan`` says what they are, ``run`` does them.

A room change first commits (the conditional write succeeds), then its effects run: pushes to
every watcher, the room's next wake-up, and the bookkeeping kept beside the rooms (a host's
open-room count, invitations, rate-limit refunds). The service never calls a notifier or a
timer itself: it plans effects (``plan`` for a room write; a use case may add its own) and
hands the list to ``run``, the one executor (ARCHITECTURE.md decision 6):

- Effects run in the order planned, and only after the commit they follow.
- A failed effect never undoes the commit and never fails the request: it is logged (the
  bookkeeping is retried first, and repaired on later touches). ``AddInvitation`` alone is
  required: it is retried, and a fault that remains surfaces as a 503 (repeating an
  invitation is idempotent), so it is planned last.
- Seats ("my games") and notifications (``Notify``: your turn, invited) are planned from what
  the change read (``Seen``) and what it wrote, never written on a move: a seat changes when a
  player sits down or leaves or the room ends (docs/DECISIONS.md, "Issue 27").
- The wake-up is created before the previous version's is deleted (``schedule_next``), so a
  failure in between leaves a wake-up too many, never one too few; a room read without a write
  gets its wake-up repaired (``RepairWakeUp``, ``ensure_wake_up``).
- Pushes (``Publish``, ``PublishChat``, ``PushToUser``) may wait until the request is answered:
  a server that can answer first and push after (the local server's handler threads) runs the
  request inside ``pushes_after_answer`` and runs the pushes it collects once the answer is on
  its way. Lambda answers when the handler returns, so there they run in place, as planned.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib import observability, wire
from chalicelib.engine import game as game_flow
from chalicelib.engine.model import Room, Status
from chalicelib.engine.views import events_for, sees_as_spectator
from chalicelib.notify import Notify, your_turn
from chalicelib.ports import Clock, Notifier, PushNotifier, Store, Timers
from chalicelib.retry import with_backoff

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
Event = dict[str, Any]

OPEN = (Status.WAITING, Status.PLAYING)
OVER = (Status.FINISHED, Status.CLOSED)


class Deps(Protocol):
    """What the effects need (``chalicelib.wiring.Deps`` fits)."""

    @property
    def store(self) -> Store: ...

    @property
    def notifier(self) -> Notifier: ...

    @property
    def timers(self) -> Timers: ...

    @property
    def clock(self) -> Clock: ...


# --- the effects ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseRoom:
    """The room no longer counts among the user's open rooms."""

    user_id: str
    room_id: str


@dataclass(frozen=True)
class RemoveInvitation:
    """The user's invitation to the room goes (the room left waiting, or they joined)."""

    user_id: str
    room_id: str


@dataclass(frozen=True)
class Refund:
    """Give back one attempt counted under a rate-limit key (a right password or passcode)."""

    key: str
    window_seconds: int
    now_ms: int


@dataclass(frozen=True)
class Observe:
    """Count what the committed events say happened (metrics) and bind the version to logs."""

    room: Room
    version: int
    events: Sequence[Event]


@dataclass(frozen=True)
class Publish:
    """Push every watcher of the room its own viewer's view and the change's events."""

    room: Room
    version: int
    events: Sequence[Event]


@dataclass(frozen=True)
class WakeUp:
    """Wake the room at its next deadline (tagged ``version``); drop the previous version's."""

    room: Room
    version: int


@dataclass(frozen=True)
class RepairWakeUp:
    """A room was read without a write: arm its wake-up at ``version`` if it went missing."""

    room: Room
    version: int


@dataclass(frozen=True)
class PublishChat:
    """Push a chat message to everyone watching the room."""

    room_id: str
    message: JsonDict


@dataclass(frozen=True)
class AddInvitation:
    """Write the invitee's invitation (required: a fault that remains is the caller's 503)."""

    user_id: str
    room_id: str
    host_name: str
    now_ms: int


@dataclass(frozen=True)
class Seat:
    """The user sits in the room (their "my games" index)."""

    user_id: str
    room_id: str


@dataclass(frozen=True)
class Unseat:
    """The user no longer sits in an open room (they left, or it ended)."""

    user_id: str
    room_id: str


@dataclass(frozen=True)
class Seen:
    """What ``plan`` compares the written room with: who sat in it and whose turn it was
    as read (before any deadline was applied), and who made the change."""

    seated: frozenset[str]
    turn_user: str | None
    turn: int
    actor: str | None = None

    @classmethod
    def of(cls, room: Room, actor: str | None = None) -> Seen:
        game = room.game
        holder = room.player(game.turn_player) if game and game.turn_player else None
        return cls(
            _seated(room), holder.user_id if holder else None, game.turn if game else 0, actor
        )


def _seated(room: Room) -> frozenset[str]:
    return frozenset(p.user_id for p in room.players if p.user_id and not p.is_bot)


@dataclass(frozen=True)
class PushToUser:
    """Push ``message`` to every open connection of a user (their own channel, e.g. a
    quick-play ``match_found``)."""

    channel: str
    message: JsonDict


Effect = (
    PushToUser
    | ReleaseRoom
    | RemoveInvitation
    | Refund
    | Observe
    | Publish
    | WakeUp
    | RepairWakeUp
    | PublishChat
    | AddInvitation
    | Seat
    | Unseat
    | Notify
)


# --- the planner ---------------------------------------------------------------------------------


def plan(
    room: Room,
    version: int,
    events: Sequence[Event],
    *,
    before: Status | None = None,
    invited: Iterable[str] = (),
    seen: Seen | None = None,
) -> list[Effect]:
    """The effects of writing ``room`` at ``version`` with ``events``.

    ``before`` is the room's status as read (None for a room just created): a room that stops
    being open no longer counts among its host's open rooms, and a room that leaves waiting
    drops its invitations (``invited`` as read, and any the change made).
    """
    planned: list[Effect] = []
    if before in OPEN and room.status in OVER:
        host = room.host
        if host is not None and host.user_id:
            planned.append(ReleaseRoom(host.user_id, room.id))
    if before == Status.WAITING and room.status != Status.WAITING:
        for uid in sorted({*invited, *room.invited}):
            planned.append(RemoveInvitation(uid, room.id))
    planned += [Observe(room, version, events), Publish(room, version, events)]
    planned.append(WakeUp(room, version))
    planned += _seats(room, before, seen) + _turn_notice(room, events, seen)
    return planned


def _seats(room: Room, before: Status | None, seen: Seen | None) -> list[Effect]:
    """Seat changes: everyone in a new room; who came or went; everyone when it ends."""
    if before is None:
        was: frozenset[str] = frozenset()
    elif seen is None:
        return []  # a write planned without what it read: no seat changes known
    else:
        was = seen.seated
    now = _seated(room) if room.status in OPEN else frozenset()
    gone = sorted(was - now) if before in OPEN or before is None else []
    out: list[Effect] = [Seat(u, room.id) for u in sorted(now - was)]
    return out + [Unseat(u, room.id) for u in gone]


def _turn_notice(room: Room, events: Sequence[Event], seen: Seen | None) -> list[Effect]:
    """``your_turn`` for the human whose turn began with this change (not its actor)."""
    game = room.game
    if seen is None or game is None or room.status != Status.PLAYING or not game.turn_player:
        return []
    holder = room.player(game.turn_player)
    if holder is None or holder.is_bot or not holder.user_id or holder.user_id == seen.actor:
        return []
    if holder.user_id == seen.turn_user and game.turn == seen.turn:
        return []
    mover = None
    for event in reversed(events):
        pid = event.get("player_id")
        if isinstance(pid, str) and pid != holder.id and room.player(pid) is not None:
            mover = room.player(pid).name  # type: ignore[union-attr]
            break
    s = room.settings
    return [your_turn(holder.user_id, room.id, s.rules, s.pace, s.turn_seconds, mover)]


# --- the executor --------------------------------------------------------------------------------


def run(deps: Deps, effects: Iterable[Effect]) -> None:
    """Run ``effects`` in order. Only ``AddInvitation`` may raise; every other failure is logged."""
    for effect in effects:
        if isinstance(effect, AddInvitation):
            _invite(deps, effect)
        elif isinstance(effect, ReleaseRoom):
            _quietly(deps.store.release_room, effect.user_id, effect.room_id)
        elif isinstance(effect, RemoveInvitation):
            _quietly(deps.store.remove_invitation, effect.user_id, effect.room_id)
        elif isinstance(effect, Refund):
            _quietly(deps.store.refund, effect.key, effect.window_seconds, effect.now_ms)
        elif isinstance(effect, Seat):
            _quietly(deps.store.seat, effect.user_id, effect.room_id)
        elif isinstance(effect, Unseat):
            _quietly(deps.store.unseat, effect.user_id, effect.room_id)
        elif isinstance(effect, Notify):
            _notify(deps, effect)
        else:
            _run_push_or_timer(deps, effect)


_after_answer = threading.local()
"""The pushes waiting for this thread's answer (``pushes_after_answer``), if it collects them."""

PushJob = Callable[[], None]


@contextlib.contextmanager
def pushes_after_answer() -> Iterator[list[PushJob]]:
    """Collect the pushes of the changes committed in this thread inside the block, instead of
    running them in place; the caller runs each (in order, once the answer is sent) after.

    A push job never raises (a failure is logged, as in place). Pushes of one room keep their
    order per connection however late they run: each names its room version, and the
    notifier holds a version that arrives before the one it follows (``ports.OrderedNotifier``).
    """
    outer = getattr(_after_answer, "jobs", None)
    jobs: list[PushJob] = []
    _after_answer.jobs = jobs
    try:
        yield jobs
    finally:
        _after_answer.jobs = outer


def _push(deps: Deps, effect: Effect) -> None:
    """Run one push effect now, or after the answer when this thread collects them."""
    jobs: list[PushJob] | None = getattr(_after_answer, "jobs", None)
    if jobs is None:
        _run_push(deps, effect)
    else:
        jobs.append(functools.partial(_run_push, deps, effect))


def _run_push(deps: Deps, effect: Effect) -> None:
    if isinstance(effect, Publish):
        try:
            publish(effect.room, effect.version, list(effect.events), deps=deps)
        except Exception:
            log.exception("push for room %s failed", effect.room.id)
    elif isinstance(effect, PublishChat):
        try:
            publish_chat(effect.room_id, effect.message, deps=deps)
        except Exception:
            log.exception("chat push for room %s failed", effect.room_id)
    elif isinstance(effect, PushToUser):
        try:
            push_to_channel(effect.channel, effect.message, deps=deps)
        except Exception:
            log.exception("push to %s failed", effect.channel)


def _run_push_or_timer(deps: Deps, effect: Effect) -> None:
    if isinstance(effect, Publish | PublishChat | PushToUser):
        _push(deps, effect)
    elif isinstance(effect, Observe):
        try:
            observability.room_committed(effect.room, effect.version, list(effect.events))
        except Exception:
            log.exception("recording the change of room %s failed", effect.room.id)
    elif isinstance(effect, WakeUp):
        try:
            schedule_next(effect.room, effect.version, deps=deps)
        except Exception:
            log.exception("scheduling room %s failed", effect.room.id)
    elif isinstance(effect, RepairWakeUp):
        # A failure here is logged, never the caller's: the next touch tries again.
        try:
            ensure_wake_up(effect.room, effect.version, deps=deps)
        except Exception:
            log.exception(
                "repairing the wake-up of room %s v%s failed", effect.room.id, effect.version
            )


def _notify(deps: Deps, effect: Notify) -> None:
    """Send a notification (after the commit); a failure is logged, never the caller's."""
    push: PushNotifier | None = getattr(deps, "push", None)
    if push is None:
        return
    try:
        if effect.unless_watching:
            watchers = deps.store.subscribers(effect.room_id)
            if any(user == effect.user_id for _, user in watchers):
                return
        push.notify(effect.user_id, effect.message, ttl=effect.ttl, urgency=effect.urgency)
    except Exception:
        log.exception("notifying %s about room %s failed", effect.user_id, effect.room_id)


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    """Bookkeeping after a commit: retried on a passing fault, then logged, never raised."""
    try:
        with_backoff(lambda: fn(*args), what="after-commit bookkeeping")
    except Exception:
        log.exception("after-commit bookkeeping failed")


def _invite(deps: Deps, effect: AddInvitation) -> None:
    # After the room's write; a fault here is retried, and a 503 that remains is safe to
    # repeat (inviting again is idempotent), which writes the invitation.
    with_backoff(
        lambda: deps.store.add_invitation(
            effect.user_id, effect.room_id, effect.host_name, now_ms=effect.now_ms
        ),
        what="invitation",
    )


# --- pushes --------------------------------------------------------------------------------------


Build = Callable[[str | None, bool], tuple[JsonDict, str | None]]
"""The message for a viewer (a user id, None for a spectator) and, when asked (True), its
``wire.push_text``."""


def _fan_out(
    deps: Deps,
    room_id: str,
    build: Build,
    version: int | None = None,
    viewer: Callable[[str | None], str | None] | None = None,
) -> int:
    """Send each subscriber of ``room_id`` the message built for its user; prune gone ones.

    A message is built once per distinct viewer and, for a notifier that takes text
    (``ports.TextNotifier``), encoded once too: ``viewer`` maps a user to the one whose
    message they get (None: every spectator, and every watcher who sees what spectators
    see, shares one). A room push names its ``version``, so a notifier that keeps a room's
    order (``ports.OrderedNotifier``) can.
    """
    delivered = 0
    built: dict[str | None, tuple[JsonDict, str | None]] = {}
    send_text = getattr(deps.notifier, "send_text", None)
    send_room = getattr(deps.notifier, "send_room_text", None)
    if send_room is not None and version is not None:
        ordered = send_room

        def send_ordered(connection_id: str, text: str) -> bool:
            return bool(ordered(connection_id, text, room_id, version))

        send_text = send_ordered
    watchers = with_backoff(lambda: deps.store.subscribers(room_id), what="subscribers")
    for connection_id, watcher in watchers:
        try:
            user_id = watcher if viewer is None else viewer(watcher)
            if user_id not in built:
                built[user_id] = build(user_id, send_text is not None)
            message, text = built[user_id]
            sent = (
                send_text(connection_id, text)
                if send_text is not None and text is not None
                else deps.notifier.send(connection_id, message)
            )
            if sent:
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


def publish(room: Room, version: int, events: list[Event], *, deps: Deps) -> int:
    """Push every subscriber its own viewer's room view and the events; the number delivered."""
    shown = events_for(room, events, version)
    view_of = wire.views(room, version, deps.clock.now_ms())

    def build(user_id: str | None, as_text: bool) -> tuple[JsonDict, str | None]:
        view = view_of(user_id)
        if as_text:
            return wire.room_push(view, shown)
        return wire.room_message(view, shown), None

    def viewer(user_id: str | None) -> str | None:
        return None if sees_as_spectator(room, user_id) else user_id

    return _fan_out(deps, room.id, build, version, viewer)


def publish_chat(room_id: str, message: JsonDict, *, deps: Deps) -> int:
    """Push a chat message to every subscriber of the room; the number delivered."""
    payload = wire.chat_push(room_id, message)
    encoded: list[str] = []

    def build(_user: str | None, as_text: bool) -> tuple[JsonDict, str | None]:
        if not as_text:
            return payload, None
        if not encoded:
            encoded.append(wire.push_text(payload))
        return payload, encoded[0]

    return _fan_out(deps, room_id, build)


def push_to_channel(channel: str, message: JsonDict, *, deps: Deps) -> int:
    """Push one message to every connection subscribed to ``channel``; the number delivered."""
    encoded = wire.push_text(message)

    def build(_user: str | None, as_text: bool) -> tuple[JsonDict, str | None]:
        return message, encoded if as_text else None

    return _fan_out(deps, channel, build)


# --- wake-ups ------------------------------------------------------------------------------------


def schedule_next(room: Room, version: int, *, deps: Deps) -> int | None:
    """Wake the room at its next deadline (tagged ``version``); drop the previous version's wake-up.

    The new schedule is made before the old one is deleted, so a failure in between leaves a
    wake-up too many (which changes nothing when it fires), never one too few.
    """
    deadline = game_flow.next_deadline(room)
    if deadline is not None:
        deps.timers.schedule(room.id, version, deadline)
        ARMED.remember(deps, room.id, version)
    if version > 1:
        ARMED.forget(deps, room.id, version - 1)
        try:
            deps.timers.cancel(room.id, version - 1)
        except Exception:
            log.exception("cancelling the schedule of room %s v%s failed", room.id, version - 1)
    return deadline


class Armed:
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


ARMED = Armed()


def ensure_wake_up(room: Room, version: int, *, deps: Deps) -> None:
    """Repair a lost wake-up: arm the room's wake-up at ``version`` if it has a deadline.

    Called on every touch of a room that writes nothing. If the CreateSchedule after the
    write that set the deadline failed, the wake-up is missing; scheduling is idempotent by
    the deterministic name (room id and version), so asking again is safe. A wake-up this
    process armed or repaired already is not asked for again, so a warm Lambda calls the
    scheduler at most once per room version. Raises what the timers raise (``run`` logs it).
    """
    deadline = game_flow.next_deadline(room)
    if deadline is None or ARMED.known(deps, room.id, version):
        return
    deps.timers.schedule(room.id, version, deadline)
    ARMED.remember(deps, room.id, version)


def rearm(room: Room, version: int, *, deps: Deps) -> None:
    """Arm the wake-up at ``version`` again after an early delivery (the timer handler's repair).

    The schedule that fired deletes itself after this run: it is dropped first, so the name is
    free for the new one (a repeat of an existing name would be a harmless no-op). Raises what
    the timers raise (the timer handler lets Lambda retry).
    """
    deadline = game_flow.next_deadline(room)
    if deadline is None:
        return
    ARMED.forget(deps, room.id, version)
    deps.timers.cancel(room.id, version)
    deps.timers.schedule(room.id, version, deadline)
    ARMED.remember(deps, room.id, version)
