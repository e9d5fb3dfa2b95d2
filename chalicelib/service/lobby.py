"""The lobby: the list of rooms, creating and recreating one, and every change of a waiting room
(settings, joining and leaving, requests, ready, bots, starting play).

Each change of a room is ``Service.change_room`` with the caller's policy; a lobby action is
counted against its rate limit as the change's ``admit`` (``admit_lobby_action``): once the
rules accepted it, before its write.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from typing import Any

from chalicelib import effects, wire
from chalicelib.engine import room as lobby
from chalicelib.engine.model import Room, Status
from chalicelib.ports import NewRoom, VersionConflict
from chalicelib.service import limits
from chalicelib.service.callers import Caller
from chalicelib.service.core import Committed, Event, JsonDict, Service, summary
from chalicelib.service.errors import InvalidInput, TooMany
from chalicelib.service.events import (
    JoinRequested,
    PlayerJoined,
    RoomCreated,
    RoomRecreated,
    record,
)

LOBBY_STATUSES = ("waiting", "playing", "finished", "closed")


def admit_lobby_action(svc: Service, caller: Caller) -> Callable[[], None]:
    """``change_room``'s ``admit`` for a lobby action of ``caller`` (``limits.LOBBY_ACTION``).

    A lobby action is a room change that is not a game move (ready, settings, bots, join,
    leave, requests, invitations, start, continue mode), counted per user in all rooms
    together. Each is a room write pushed to every watcher of the room, so an unbounded client
    would flood the whole table. Counted once the rules accepted the change, before its write,
    so a request the rules refuse (which writes and pushes nothing) is not counted and one the
    limit refuses changes nothing. Game moves are bounded by turns and never counted.
    """

    def admit() -> None:
        limits.hit(svc, limits.LOBBY_ACTION, caller.user_id)

    return admit


def list_rooms(svc: Service, status: str | None) -> JsonDict:
    """The lobby list."""
    wanted = status or "waiting"
    if wanted not in LOBBY_STATUSES:
        raise InvalidInput(f"status must be one of: {', '.join(LOBBY_STATUSES)}", field="status")
    return {"rooms": [wire.lobby_entry(s, wanted) for s in svc.store.list_rooms(wanted)]}


def create_room(svc: Service, caller: Caller, settings: JsonDict | None) -> JsonDict:
    """A new waiting room; the creator is host and ready."""
    user = svc.ref(caller)
    limits.hit(svc, limits.ROOM_CREATION, user.id)
    room = lobby.create_room(secrets.token_hex(8), user, settings, svc.now())
    version = svc.within_cap(
        user.id,
        lambda: svc.store.create_room(
            room.id,
            room.to_dict(),
            summary(room),
            owner_id=user.id,
            max_open=svc.cfg.max_rooms_per_user,
        ),
    )
    created = [record(RoomCreated(svc.now()))]
    done = svc.finish(
        Committed(room, version, created, tuple(effects.plan(room, version, created)))
    )
    return svc.answer(done, user.id)


def update_settings(svc: Service, caller: Caller, room_id: str, changes: JsonDict) -> JsonDict:
    """The host edits settings while waiting."""
    return _lobby_action(svc, caller, room_id, lobby.update_settings, changes)


def join(svc: Service, caller: Caller, room_id: str, passcode: str | None) -> JsonDict:
    """Join (open), request (approval) or join with the passcode (attempts limited)."""
    user = svc.ref(caller)
    refund: list[str] = []

    def count_passcode_attempt(room: Room) -> None:
        refund.clear()
        needs_code = (
            room.settings.joining == "passcode"
            and room.status == Status.WAITING
            and user.id not in room.invited
            and room.player_of_user(user.id) is None
            and not room.created_by_guest
            and not user.guest
        )
        if needs_code:
            refund.extend(_count_passcode_attempt(svc, room, user.id))

    def change(room: Room) -> list[Event]:
        outcome = lobby.join(room, user, passcode, max_players=svc.cfg.max_players_per_room)
        kind = JoinRequested if outcome == "pending" else PlayerJoined
        return [record(kind(user.id, svc.now()))]

    count = admit_lobby_action(svc, caller)

    def admit() -> None:
        try:
            count()
        except TooMany:
            # The rules let the join in, so any passcode was right: its attempt goes back.
            window = svc.cfg.passcode_room_window_seconds
            svc.after([effects.Refund(k, window, svc.now()) for k in refund])
            raise

    def then(done: Committed) -> list[effects.Effect]:
        # The right passcode gives its attempt back: the room's budget counts wrong ones.
        window = svc.cfg.passcode_room_window_seconds
        out: list[effects.Effect] = [effects.Refund(key, window, svc.now()) for key in refund]
        if done.room.player_of_user(user.id) is not None:
            out.append(effects.RemoveInvitation(user.id, room_id))
        return out

    done = svc.change_room(
        room_id, change, caller=caller, gather=count_passcode_attempt, admit=admit, then=then
    )
    return svc.answer(done, user.id)


def _count_passcode_attempt(svc: Service, room: Room, user_id: str) -> list[str]:
    """Count a passcode attempt per user and per room overall (429 past either limit).

    Both count per room *lineage* (the first room of a chain of recreations), so a
    recreated room with the same passcode keeps its count. Returns the room-wide key,
    to give the attempt back when the passcode was right.
    """
    lineage = room.lineage or room.id
    limits.hit(svc, limits.PASSCODE, lineage, user_id)
    return [limits.hit(svc, limits.PASSCODE_ROOM, lineage)]


def leave(svc: Service, caller: Caller, room_id: str) -> JsonDict:
    """Leave a waiting room (or withdraw a request); the host hands over."""
    user = lobby.UserRef(caller.user_id, caller.name, caller.guest)

    def change(room: Room) -> list[Event]:
        if room.quickplay:  # a quick-play seat left in the countdown goes to a bot
            return lobby.leave_countdown(room, user, svc.deps.roller, svc.now())
        lobby.leave(room, user)
        return []

    done = svc.change_room(
        room_id,
        change,
        caller=caller,
        admit=admit_lobby_action(svc, caller),
        then=lambda _: [effects.ReleaseRoom(user.id, room_id)],
    )
    return svc.answer(done, user.id)


def set_ready(svc: Service, caller: Caller, room_id: str, ready: bool) -> JsonDict:
    """A member toggles ready."""
    return _lobby_action(svc, caller, room_id, lobby.set_ready, ready)


def approve(svc: Service, caller: Caller, room_id: str, user_id: str) -> JsonDict:
    """The host seats a pending requester."""
    host = lobby.UserRef(caller.user_id, caller.name, caller.guest)
    requester = svc.store.get_user(user_id)

    def change(room: Room) -> list[Event]:
        lobby.approve(room, host, user_id, max_players=svc.cfg.max_players_per_room)
        seat = room.player_of_user(user_id)
        if seat is not None and requester is not None:
            seat.continue_mode = requester.continue_mode
        return [record(PlayerJoined(user_id, svc.now()))]

    done = svc.change_room(room_id, change, caller=caller, admit=admit_lobby_action(svc, caller))
    return svc.answer(done, caller.user_id)


def deny(svc: Service, caller: Caller, room_id: str, user_id: str) -> JsonDict:
    """The host turns a request down."""
    return _lobby_action(svc, caller, room_id, lobby.deny, user_id)


def add_bot(svc: Service, caller: Caller, room_id: str, level: str | None) -> JsonDict:
    """The host adds a bot."""
    user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
    done = svc.change_room(
        room_id,
        lambda r: _run(
            functools.partial(lobby.add_bot, max_players=svc.cfg.max_players_per_room),
            r,
            user,
            level,
        ),
        caller=caller,
        admit=admit_lobby_action(svc, caller),
    )
    return svc.answer(done, user.id)


def remove_bot(svc: Service, caller: Caller, room_id: str, player_id: str) -> JsonDict:
    """The host removes a bot."""
    return _lobby_action(svc, caller, room_id, lobby.remove_bot, player_id)


def start(svc: Service, caller: Caller, room_id: str) -> JsonDict:
    """The host starts play."""
    user = lobby.UserRef(caller.user_id, caller.name, caller.guest)

    modes: dict[str, str] = {}

    def read_continue_modes(room: Room) -> None:
        # Each human plays with their remembered continue mode as it is when play begins
        # (one user read per human, once per game), whatever it was when they joined.
        modes.clear()
        host = room.host
        if host is not None and host.user_id == caller.user_id:
            for p in room.players:
                record = svc.store.get_user(p.user_id) if p.user_id else None
                if record is not None:
                    modes[record.id] = record.continue_mode

    def change(room: Room) -> list[Event]:
        for p in room.players:
            if p.user_id in modes:
                p.continue_mode = modes[p.user_id]
        return lobby.start(room, user, svc.deps.roller, svc.now(), svc.cfg.bot_think_ms)

    done = svc.change_room(
        room_id,
        change,
        caller=caller,
        admit=admit_lobby_action(svc, caller),
        gather=read_continue_modes,
    )
    return svc.answer(done, user.id)


def recreate(svc: Service, caller: Caller, room_id: str) -> JsonDict:
    """A participant opens a new waiting room with the same settings; the old one points to it.

    The old room's pointer (``recreated_as``), the new room and the new room's place in
    the caller's open-room count are one atomic write (``Store.recreate_room``): a fault
    leaves either all three or none, so a failed recreate can simply be tried again.
    """
    user = svc.ref(caller)
    # Passed deadlines are applied (and saved, with any ratings) first, as on any touch.
    current = svc.change_room(room_id)
    room, version = current.room, current.version
    new = lobby.recreate(room, user, secrets.token_hex(8), svc.now())
    limits.hit(svc, limits.ROOM_CREATION, user.id)
    old_summary = summary(room)
    claim = NewRoom(new.id, new.to_dict(), summary(new), user.id)
    try:
        old_version = svc.within_cap(
            user.id,
            lambda: svc.store.recreate_room(
                room.id,
                room.to_dict(),
                old_summary,
                version,
                claim,
                max_open=svc.cfg.max_rooms_per_user,
            ),
        )
    except VersionConflict as lost:
        raise svc.lost_race(lost.current, user.id) from None
    recreated = [record(RoomRecreated(new.id, svc.now()))]
    planned = effects.plan(room, old_version, recreated) + effects.plan(new, 1, [])
    # One write made both rooms: the old one's effects, then the new one's.
    svc.finish(Committed(room, old_version, recreated, tuple(planned)))
    return svc.view(new, 1, user.id)


def _lobby_action(
    svc: Service, caller: Caller, room_id: str, fn: Callable[..., Any], *args: Any
) -> JsonDict:
    """The caller's lobby action that the engine applies as ``fn(room, user, *args)`` with no
    events: one room change, counted by the lobby limit, answered with the caller's view."""
    user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
    done = svc.change_room(
        room_id,
        lambda r: _run(fn, r, user, *args),
        caller=caller,
        admit=admit_lobby_action(svc, caller),
    )
    return svc.answer(done, user.id)


def _run(fn: Callable[..., Any], *args: Any) -> list[Event]:
    """Run an engine call that returns nothing, as a change with no events."""
    fn(*args)
    return []
