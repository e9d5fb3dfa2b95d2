"""The core of the use cases: ``Service.change_room``, ``Committed`` and the two policies.

Every room change is ``change_room``: it reads the room item once, runs ``advance(room, now)``
so every passed deadline is applied first, makes the reads and rate-limit counts the change
needs (``gather``), runs the change (one engine transition, pure given the room, the clock,
the dice and what ``gather`` found), and writes the item back under the version it read
(``RoomStore.save_room``). Two policies: a client's change (the *caller's* policy) reads and
writes once, and a lost race is a 409 carrying the caller's view of the room as it is now;
a server-driven change (viewing, tick, timers, preferences: the *server's* policy) retries
on the version it finds, and writes nothing when nothing changed. The write returns a
``Committed`` value (room, version, events, its planned effects and the use case's own,
``then``); only then do the effects run, all through ``Service.finish`` (or ``after``, for a
use case that writes no room) and ``effects.run``: pushes, wake-ups, releases, invitation
bookkeeping, refunds. The service never
calls a notifier or a timer itself, and never imports the WebSocket or timer handlers
(``chalicelib.realtime`` sits above it) nor the wiring (handlers pass the dependencies in).

Ratings: when a transition finishes a rated game, the rating changes are computed from the
ratings stored now, written into the room's results and applied to the users' ratings in the
same atomic room write (``save_room(..., ratings=RatingsWrite(...))``), keyed by the room id:
a crash can never leave a finished rated game without its ratings, a lost race applies none,
and a finished room never finishes again, so the ratings move exactly once.

The use cases themselves are functions of one area each, over a ``Service`` (the
dependencies, the settings and this core): ``accounts``, ``lobby``, ``invitations``,
``play``, ``records`` and ``chat``; every rate limit is a row of ``limits``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from chalicelib import effects, observability, wire
from chalicelib.engine import game as game_flow
from chalicelib.engine import ratings as elo
from chalicelib.engine import records as round_records
from chalicelib.engine import room as lobby
from chalicelib.engine.dice import Roller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.model import Room, Status
from chalicelib.engine.views import iso
from chalicelib.ports import (
    RatedOutcome,
    RatingsWrite,
    RoomLimitReached,
    RoundsWrite,
    Store,
    StoredRoom,
    TooManyRatingChanges,
    UnknownUser,
    UserRecord,
    VersionConflict,
)
from chalicelib.service.callers import Caller
from chalicelib.service.errors import Clash, NotSignedIn, Unknown
from chalicelib.settings import Settings, get_settings

log = logging.getLogger("chalicelib.service")

JsonDict = dict[str, Any]
Event = dict[str, Any]
T = TypeVar("T")

SERVER_RETRIES = 8
"""Server-driven writes (tick, viewing, preferences) retry this often on a version conflict."""
CLOSED_ROOM_TTL_SECONDS = 30 * 24 * 3600
"""Finished and closed rooms are kept 30 days (results, recreate pointer), then expire."""
ROUND_RECORD_TTL_SECONDS = CLOSED_ROOM_TTL_SECONDS + 7 * 24 * 3600
"""Round records outlive their room's 30 days by a week, counted from when they are written."""
LEADERBOARD_MIN_GAMES = 5
"""Registered players appear on the leaderboard from their fifth rated game on."""


class Deps(effects.Deps, Protocol):
    """What the service needs: the effects' ports and the dice (``chalicelib.wiring.Deps`` fits)."""

    @property
    def roller(self) -> Roller: ...


def summary(room: Room) -> JsonDict:
    """The lobby summary kept beside the room's state (never the passcode)."""
    settings = room.settings.to_dict()
    settings.pop("passcode", None)
    host = room.host
    bots = sum(1 for p in room.players if p.is_bot)
    return {
        "status": room.status.value,
        "host_name": host.name if host else "",
        "players": len(room.players),
        "humans": len(room.players) - bots,
        "bots": bots,
        "settings": settings,
        "created_by_guest": room.created_by_guest,
        "created_at": room.created_at,
    }


RoomChange = Callable[[Room], list[Event]]
"""A change of a room as read (deadlines applied): mutates it, returns its events. Pure: it
reads nothing and writes nothing (what it needs is read before, by ``gather``)."""


@dataclass(frozen=True)
class Committed:
    """What a room change committed: the room as written, its version, the change's events and
    the effects planned for it (already run when ``change_room`` returns it)."""

    room: Room
    version: int
    events: list[Event] = field(default_factory=list)
    effects: tuple[effects.Effect, ...] = ()


Then = Callable[[Committed], Sequence[effects.Effect]]
"""The effects a use case adds to its committed change (a refund, an invitation to add or to
remove, a released slot), planned from what was committed; they run after the write's own."""


class Service:
    """The dependencies, the settings and the one room change the use cases share.

    The use cases are functions of their area's module taking a ``Service`` first
    (``lobby.join(svc, caller, room_id, passcode)``); the handlers make one per request.
    """

    def __init__(self, deps: Deps, config: Settings | None = None) -> None:
        self.deps = deps
        self.cfg = config or get_settings()

    @property
    def store(self) -> Store:
        """The store port."""
        return self.deps.store

    def now(self) -> int:
        """The server's clock, epoch ms."""
        return self.deps.clock.now_ms()

    def view(self, room: Room, version: int, user_id: str | None) -> JsonDict:
        """``wire.view`` stamped with the server's clock."""
        return wire.view(room, version, user_id, self.now())

    def answer(self, done: Committed, user_id: str | None) -> JsonDict:
        """The caller's view of what a change committed."""
        return self.view(done.room, done.version, user_id)

    def finish(self, done: Committed, then: Then | None = None) -> Committed:
        """Add the use case's own effects (``then``) to what ``done`` planned, run them all in
        order, and return the committed value with every effect it ran on it."""
        if then is not None:
            done = dataclasses.replace(done, effects=(*done.effects, *then(done)))
        self._execute(done.effects)
        return done

    def after(self, planned: Sequence[effects.Effect]) -> None:
        """Run the effects of a use case that writes no room (a sign-in's refunds, a chat
        message's push, a stale invitation's removal) through the same executor."""
        self._execute(planned)

    def _execute(self, planned: Iterable[effects.Effect]) -> None:
        """The one call of the executor (``effects.run``): every effect of every use case."""
        effects.run(self.deps, planned)

    # --- users ------------------------------------------------------------------------

    def user(self, caller: Caller) -> UserRecord:
        """The caller's stored user (read once per request, see ``accounts.known``)."""
        return caller.record if caller.record is not None else self.stored_user(caller.user_id)

    def stored_user(self, user_id: str) -> UserRecord:
        """The stored user; 401 ``unknown_user`` when it is gone."""
        user = self.store.get_user(user_id)
        if user is None:
            raise NotSignedIn("this account no longer exists", code="unknown_user")
        return user

    def ref(self, caller: Caller) -> lobby.UserRef:
        """The caller as the lobby rules see them (with their continue mode)."""
        user = self.user(caller)
        return lobby.UserRef(user.id, user.name, user.guest, user.continue_mode)

    # --- room plumbing ----------------------------------------------------------------

    def load(self, room_id: str) -> tuple[Room, int]:
        stored = self.store.get_room(room_id)
        if stored is None:
            raise Unknown("no such room", code="unknown_room")
        return Room.from_dict(stored.state), stored.version

    def _finish_ratings(
        self, room: Room
    ) -> tuple[dict[str, float], dict[str, RatedOutcome]] | None:
        """For a game that just finished rated: fill results; return the deltas to apply and
        each player's outcome for their profile and the leaderboard."""
        if room.status != Status.FINISHED or not room.rated or room.results is None:
            return None
        if "elo" in room.results:
            return None
        uids = [p.user_id for p in room.players if not p.is_bot and p.user_id]
        standings = self.store.get_standings(uids)
        changes = elo.final_changes(room, {u: st.rating for u, st in standings.items()})
        elo.apply_to_results(room, changes)
        finished_at = room.game.finished_at if room.game and room.game.finished_at else self.now()
        outcomes: dict[str, RatedOutcome] = {}
        # A rated game for profiles and the leaderboard needs two rated humans: one human
        # against bots (or against players who walked out without a move) rates nothing.
        for p in room.players if len(changes) >= 2 else []:
            standing = standings.get(p.user_id or "")
            change = changes.get(p.user_id or "")
            if standing is None or change is None or p.rank is None:
                continue
            row = {
                "room_id": room.id,
                "finished_at": iso(finished_at),
                "rules": room.settings.rules,
                "players": len(room.players),
                "rank": p.rank,
                "rating_before": change["before"],
                "delta": change["delta"],
                "rating_after": change["after"],
            }
            # On the leaderboard: registered players from their fifth rated game on.
            listed = not standing.guest and standing.games + 1 >= LEADERBOARD_MIN_GAMES
            outcomes[p.user_id or ""] = RatedOutcome(p.rank, finished_at, row, listed)
        return {uid: c["delta"] for uid, c in changes.items()}, outcomes

    def _commit(
        self,
        room: Room,
        version: int,
        before: Status,
        events: list[Event],
        invited: list[str],
        seen: effects.Seen | None = None,
    ) -> Committed:
        """The conditional write of a changed room, and its planned effects (not yet run).

        Raises VersionConflict on a lost race. ``before`` and ``invited``: the room's status
        and invitations as read (a room leaving waiting drops its invitations).
        """
        finished = self._finish_ratings(room)
        expires = None
        if room.status in (Status.FINISHED, Status.CLOSED):
            expires = self.now() // 1000 + CLOSED_ROOM_TTL_SECONDS
        ratings = None
        if finished is not None:
            deltas, outcomes = finished
            record = {
                "room_id": room.id,
                "results": room.results,
                "finished_at": room.game.finished_at if room.game else None,
            }
            ratings = RatingsWrite(room.id, deltas, record, outcomes)
        rounds = None
        if room.completed:
            # The rounds this change completed are recorded in the same atomic write.
            rounds = RoundsWrite(
                [round_records.round_record(room, done) for done in room.completed],
                self.now() // 1000 + ROUND_RECORD_TTL_SECONDS,
            )
        new_version = self._write(room, version, expires, ratings, rounds)
        room.completed.clear()
        planned = effects.plan(room, new_version, events, before=before, invited=invited, seen=seen)
        return Committed(room, new_version, events, tuple(planned))

    def _write(
        self,
        room: Room,
        version: int,
        expires: int | None,
        ratings: RatingsWrite | None,
        rounds: RoundsWrite | None = None,
    ) -> int:
        """The conditional room write, carrying the ratings of a game it finishes and the
        records of the rounds it completes."""
        # The next deadline rides in the same write, so the sweeper can find the room if its
        # wake-up is lost (docs/REALTIME.md).
        deadline = game_flow.next_deadline(room)

        def save(ratings: RatingsWrite | None = None) -> int:
            return self.store.save_room(
                room.id,
                room.to_dict(),
                summary(room),
                version,
                expires_at_s=expires,
                rounds=rounds,
                deadline_ms=deadline,
                ratings=ratings,
            )

        try:
            return save(ratings)
        except (UnknownUser, TooManyRatingChanges):
            # Ratings that cannot be applied must not stop the game from finishing.
            log.exception("ratings of room %s cannot be applied; saving the room alone", room.id)
        return save()

    def within_cap(self, owner_id: str, create: Callable[[], T]) -> T:
        """Run a room creation; at the open-room cap, reconcile the count once and retry.

        The count of a user's open rooms is bookkeeping kept beside the rooms and released
        after commit, so a release can be lost (a fault after the room's write). Rather than
        trust it, a creation it refuses re-derives it from the rooms themselves.
        """
        try:
            return create()
        except RoomLimitReached:
            if not self._reconcile_open_rooms(owner_id):
                raise
        return create()

    def _reconcile_open_rooms(self, user_id: str) -> bool:
        """Stop counting rooms that are no longer open for ``user_id``; True if any was."""
        released = False
        for rid in self.store.open_rooms(user_id):
            stored = self.store.get_room(rid)
            if stored is not None:
                room = Room.from_dict(stored.state)
                still_open = room.status in (Status.WAITING, Status.PLAYING)
                if still_open and room.player_of_user(user_id) is not None:
                    continue
            self.store.release_room(user_id, rid)
            released = True
        return released

    def lost_race(self, current: StoredRoom | None, user_id: str | None) -> Clash:
        """409 for a client whose write lost a race, carrying their view of the room now."""
        observability.conflict()
        shown = None
        if current is not None:
            shown = self.view(Room.from_dict(current.state), current.version, user_id)
        return Clash(
            "the room changed while your request was in flight; nothing was applied", room=shown
        )

    def change_room(
        self,
        room_id: str,
        change: RoomChange | None = None,
        *,
        caller: Caller | None = None,
        gather: Callable[[Room], None] | None = None,
        admit: Callable[[], None] | None = None,
        then: Then | None = None,
    ) -> Committed:
        """The one room change: read, advance, ``gather``, ``change``, ``admit``, conditional
        write, effects (the write's, then the use case's own: ``then``).

        ``gather`` makes the reads and rate-limit counts the change needs, on the room as read
        with its deadlines applied, before the change runs; ``change`` itself does no I/O.
        ``admit`` counts a client's change against its rate limit once the rules accepted it,
        before the write: a change the rules refuse is not counted, and one the limit refuses
        (its ``TooMany``) writes nothing, not even the deadlines that passed.

        With a ``caller``, it is that client's change: one read and one write (even if nothing
        changed), and a lost race is a 409 with the caller's view of the room now. Without
        one, it is server-driven (viewing, tick, timers, preferences): nothing is written when
        nothing changed (the room's wake-up is repaired instead), and a lost race is retried
        on the version found, ``SERVER_RETRIES`` times.

        A change the rules refuse (``DomainError``) still saves the deadlines that passed,
        since they are the server's to apply, whatever the client did. Effects run only after
        the write succeeded (``effects.run``), and never undo it.
        """
        stored = self.store.get_room(room_id)
        for _ in range(1 if caller is not None else SERVER_RETRIES):
            if stored is None:
                raise Unknown("no such room", code="unknown_room")
            room, version = Room.from_dict(stored.state), stored.version
            before = room.status
            invited = list(room.invited)
            seen = effects.Seen.of(room, caller.user_id if caller is not None else None)
            advanced = game_flow.advance(room, self.now(), self.deps.roller)
            try:
                if gather is not None:
                    gather(room)
                events = advanced + (change(room) if change is not None else [])
            except DomainError:
                if advanced:
                    with contextlib.suppress(VersionConflict):
                        self.finish(self._commit(room, version, before, advanced, invited, seen))
                else:
                    self.finish(
                        Committed(room, version, effects=(effects.RepairWakeUp(room, version),))
                    )
                raise
            if admit is not None:
                admit()
            if caller is None and not events and room.to_dict() == stored.state:
                repair = (effects.RepairWakeUp(room, version),)
                return self.finish(Committed(room, version, effects=repair))
            try:
                done = self._commit(room, version, before, events, invited, seen)
            except VersionConflict as lost:
                if caller is not None:
                    raise self.lost_race(lost.current, caller.user_id) from None
                observability.conflict()
                stored = lost.current if lost.current is not None else self.store.get_room(room_id)
                continue
            return self.finish(done, then)
        raise Clash("the room is busy; try again")
