"""Use cases of the REST API around one core: ``Service.change_room``.

Every room change is ``change_room``: it reads the room item once, runs ``advance(room, now)``
so every passed deadline is applied first, makes the reads and rate-limit counts the change
needs (``gather``), runs the change (one engine transition, pure given the room, the clock,
the dice and what ``gather`` found), and writes the item back under the version it read
(``RoomStore.save_room``). A lost race on a client's action is a 409 carrying the caller's view
of the room as it is now; server-driven changes (viewing, tick, timers, preferences) retry on
the version they find, and write nothing when nothing changed. The write returns a
``Committed`` value (room, version, events, its planned effects); only then do the effects run
(``chalicelib.effects``: pushes, wake-ups, releases, invitation bookkeeping). The service never
calls a notifier or a timer itself, and never imports the WebSocket or timer handlers
(``chalicelib.realtime`` sits above it) nor the wiring (handlers pass the dependencies in).

Ratings: when a transition finishes a rated game, the rating changes are computed from the
ratings stored now, written into the room's results and applied to the users' ratings in the
same atomic room write (``save_room(..., ratings=RatingsWrite(...))``), keyed by the room id:
a crash can never leave a finished rated game without its ratings, a lost race applies none,
and a finished room never finishes again, so the ratings move exactly once.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from chalicelib import auth, effects, notify, observability, wire
from chalicelib import text as text_rules
from chalicelib.engine import game as game_flow
from chalicelib.engine import ratings as elo
from chalicelib.engine import records as round_records
from chalicelib.engine import room as lobby
from chalicelib.engine.commands import Command
from chalicelib.engine.dice import Roller
from chalicelib.engine.errors import DomainError, NotAPlayer
from chalicelib.engine.model import Room, Status
from chalicelib.engine.views import iso, room_view
from chalicelib.errors import ApiError, conflict, forbidden, not_found, rate_limited, unauthorized
from chalicelib.ports import (
    NewRoom,
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
from chalicelib.settings import Settings, get_settings

log = logging.getLogger(__name__)

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
LEADERBOARD_DEFAULT = 20
LEADERBOARD_MAX = 100
PROFILE_RECENT_GAMES = 10
LOBBY_STATUSES = ("waiting", "playing", "finished", "closed")


# --- dependencies ----------------------------------------------------------------------------


class Deps(effects.Deps, Protocol):
    """What the service needs: the effects' ports and the dice (``chalicelib.wiring.Deps`` fits)."""

    @property
    def roller(self) -> Roller: ...


# --- callers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caller:
    """Who is calling, from a verified token."""

    user_id: str
    name: str
    guest: bool
    record: UserRecord | None = field(default=None, compare=False, repr=False)
    """The stored user, once ``Service.known`` has read it for this request."""


def caller_from_header(header: str | None) -> Caller | None:
    """Parse ``Authorization: Bearer <token>``; None when absent; 401 when refused."""
    if header is None or not header.strip():
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("use Authorization: Bearer <token>", "invalid_token")
    claims = auth.verify_token(token.strip())
    return Caller(claims.user_id, claims.name, claims.guest)


def require(caller: Caller | None) -> Caller:
    """A signed-in caller (registered or guest), else 401."""
    if caller is None:
        raise unauthorized()
    return caller


def require_registered(caller: Caller | None, what: str) -> Caller:
    """A registered caller, else 401 (signed out) or 403 (guest)."""
    c = require(caller)
    if c.guest:
        raise forbidden(f"guests cannot {what}; register first", "guest_not_allowed")
    return c


def source_key(ip: str) -> str:
    """The address a per-source limit counts: IPv4 as is, IPv6 by its /64 (one subscriber)."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64] or "unknown"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


def seconds_until_window_ends(window_seconds: int, now_ms: int) -> int:
    """Whole seconds (at least 1) until the fixed window ``Store.hit`` counts ``now_ms`` in ends.

    The limits count in windows aligned to the epoch (``now_ms // window``, as the stores
    count them): a refused attempt can succeed again once its window has ended.
    """
    span = window_seconds * 1000
    ends = (now_ms // span + 1) * span
    return max(1, -(-(ends - now_ms) // 1000))


# --- the service -----------------------------------------------------------------------------


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


class Service:
    """The use cases over one set of dependencies (the handlers pass them in)."""

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

    def _view(self, room: Room, version: int, user_id: str | None) -> JsonDict:
        """``wire.view`` stamped with the server's clock."""
        return wire.view(room, version, user_id, self.now())

    def _answer(self, done: Committed, user_id: str | None) -> JsonDict:
        """The caller's view of what a change committed."""
        return self._view(done.room, done.version, user_id)

    # --- accounts ---------------------------------------------------------------------

    def _session(self, user: UserRecord) -> JsonDict:
        ttl = None
        if user.guest:
            # A guest cannot sign in again: its token lives exactly as long as its record.
            ttl = min(self.cfg.token_ttl_seconds, self.cfg.guest_ttl_seconds)
        return wire.session(auth.issue_token(user, ttl_seconds=ttl), user)

    def _limit(
        self, key: str, limit: int, window: int, message: str, code: str = "rate_limited"
    ) -> None:
        """Count one attempt for ``key``; past ``limit`` per ``window`` seconds, a 429 whose
        ``Retry-After`` is the time left in the window."""
        now = self.now()
        if not self.store.hit(key, limit, window, now):
            raise rate_limited(message, code, retry_after=seconds_until_window_ends(window, now))

    def _per_source(self, kind: str, source: str, limit: int, window: int) -> None:
        """Count one ``kind`` from this address; 429 past ``limit`` per ``window`` seconds."""
        self._limit(
            f"{kind}-src:{source_key(source)}",
            limit,
            window,
            "too many new accounts from your address; try again later",
            "too_many_accounts",
        )

    def guest(self, name: str | None, source: str = "unknown") -> JsonDict:
        """Sign in as a new guest (limited per source address; the guest expires, see settings)."""
        shown = None
        if name is not None and name.strip():
            shown = text_rules.check_display_name(name, "name")
            self._refuse_lookalike(shown)
        self._per_source("guest", source, self.cfg.guest_per_source, self.cfg.guest_window_seconds)
        uid = "g" + secrets.token_hex(8)
        now = self.now()
        user = self.store.create_user(
            uid,
            None,
            None,
            True,
            shown or f"Guest {secrets.token_hex(2)}",
            now_ms=now,
            expires_at_s=now // 1000 + self.cfg.guest_ttl_seconds,
        )
        return self._session(user)

    def _refuse_lookalike(self, name: str) -> None:
        """400 ``name_taken`` for a guest name that reads as a registered username."""
        candidate = text_rules.username_lookalike(name)
        if candidate is not None and self.store.get_user_by_username(candidate) is not None:
            raise ApiError(
                400, "name_taken", "that name reads as a registered user's name", field="name"
            )

    def register(self, username: str, password: str, source: str = "unknown") -> JsonDict:
        """Create a registered account (409 ``username_taken``; limited per source address)."""
        text_rules.check_display_name(username, "username")
        self._per_source(
            "register", source, self.cfg.register_per_source, self.cfg.register_window_seconds
        )
        if self.store.get_user_by_username(username) is not None:
            raise ApiError(409, "username_taken", "that username is taken", field="username")
        uid = "u" + secrets.token_hex(8)
        user = self.store.create_user(
            uid, username, auth.hash_password(password), False, username, now_ms=self.now()
        )
        return self._session(user)

    def login(self, username: str, password: str, source: str = "unknown") -> JsonDict:
        """Sign in (401 on bad credentials, whatever the password's length).

        Wrong attempts are limited per username *and* source address, and per source address:
        they slow down that source only, so the owner can always sign in from elsewhere. A
        successful sign-in gives its attempt back.
        """
        now, window = self.now(), self.cfg.login_window_seconds
        src = source_key(source)
        pair, per_source = f"login:{username.lower()}:{src}", f"login-src:{src}"
        too_many = "too many sign-in attempts from your address; try again later"
        self._limit(pair, self.cfg.login_max_attempts, window, too_many)
        self._limit(per_source, self.cfg.login_source_max_attempts, window, too_many)
        user = self.store.get_user_by_username(username)
        if user is None or user.password_hash is None:
            auth.burn_password_check(password)
            raise unauthorized("wrong username or password", "bad_credentials")
        if not auth.verify_password(user.password_hash, password):
            raise unauthorized("wrong username or password", "bad_credentials")
        # Giving the attempts back is bookkeeping: a fault there must not refuse the owner.
        effects.run(
            self.deps, [effects.Refund(pair, window, now), effects.Refund(per_source, window, now)]
        )
        if auth.needs_rehash(user.password_hash):
            self.store.set_password_hash(user.id, auth.hash_password(password))
        return self._session(user)

    def _user(self, caller: Caller) -> UserRecord:
        return caller.record if caller.record is not None else self._stored_user(caller.user_id)

    def _stored_user(self, user_id: str) -> UserRecord:
        user = self.store.get_user(user_id)
        if user is None:
            raise unauthorized("this account no longer exists", "unknown_user")
        return user

    def known(self, caller: Caller) -> Caller:
        """The caller with their stored user; 401 ``unknown_user`` when the user is gone.

        A token outlives its user (a guest that expired, an account removed): every route
        that takes a token checks that its user still exists, with one read kept for the
        rest of the request.
        """
        return Caller(caller.user_id, caller.name, caller.guest, self._stored_user(caller.user_id))

    def me(self, caller: Caller) -> JsonDict:
        """Profile, rating, preferences and invitations."""
        user = self._user(caller)
        rating = None if user.guest else self.store.get_ratings([user.id])[user.id]
        return wire.me(user, rating, self._live_invitations(user.id))

    def _live_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations to rooms still waiting; stale ones are removed on the way.

        Invitations are removed when their room leaves waiting (``effects.plan``); this read
        repairs any that bookkeeping missed. At most ``invitations_per_user`` rooms are read.
        """
        live = []
        for inv in self.store.list_invitations(user_id):
            stored = self.store.get_room(str(inv["room_id"]))
            if stored is not None and stored.state.get("status") == Status.WAITING.value:
                live.append(inv)
            else:
                effects.run(self.deps, [effects.RemoveInvitation(user_id, str(inv["room_id"]))])
        return live

    def set_preferences(self, caller: Caller, mode: str, room_id: str | None) -> JsonDict:
        """Store the continue mode; apply it now in the caller's hosted rooms and ``room_id``."""
        self._user(caller)
        self._count_lobby_action(caller.user_id)  # always accepted once valid
        self.store.set_preferences(caller.user_id, mode)
        rooms = set(self.store.open_rooms(caller.user_id))
        if room_id:
            rooms.add(room_id)
        for rid in sorted(rooms):

            def change(room: Room) -> list[Event]:
                seat = room.player_of_user(caller.user_id)
                if seat is None or room.status not in (Status.WAITING, Status.PLAYING):
                    return []
                return game_flow.set_continue_mode(
                    room, seat.id, mode, self.deps.roller, self.now()
                )

            try:
                self.change_room(rid, change)
            except ApiError:
                continue
        return {"preferences": wire.preferences(mode)}

    def leaderboard(self, limit: str | None) -> JsonDict:
        """The top registered players by rating with at least five rated games."""
        n = LEADERBOARD_DEFAULT
        if limit is not None:
            if not (limit.isascii() and limit.isdigit()) or not 1 <= int(limit) <= LEADERBOARD_MAX:
                raise ApiError(
                    400,
                    "invalid_input",
                    f"limit must be a whole number from 1 to {LEADERBOARD_MAX}",
                    field="limit",
                )
            n = int(limit)
        rows = [r for r in self.store.leaderboard(n) if r["games"] >= LEADERBOARD_MIN_GAMES]
        return wire.leaderboard(LEADERBOARD_MIN_GAMES, rows)

    def profile(self, username: str) -> JsonDict:
        """A registered player's public profile: rating, games, wins, best finish, recent games.

        Only the player's own rated games are listed; guests have no profile.
        """
        user = self.store.get_user_by_username(username)
        if user is None or user.guest or user.username is None:
            raise not_found("no registered user has that username", "unknown_user")
        stats = self.store.get_player_stats(user.id)
        recent = self.store.list_rated_games(user.id, PROFILE_RECENT_GAMES)
        listed = stats.games >= LEADERBOARD_MIN_GAMES
        return wire.profile(user.username, user.name, stats, listed, recent)

    def ticket(self, caller: Caller) -> JsonDict:
        """A single-use WebSocket ticket (limited per user: each opens one connection)."""
        self._limit(
            f"ticket:{caller.user_id}",
            self.cfg.tickets_per_user,
            self.cfg.ticket_window_seconds,
            "too many WebSocket tickets; try again later",
        )
        t = auth.new_ticket(self.now())
        self.store.put_ticket(t.ticket, caller.user_id, t.expires_ms)
        return wire.ticket(t.ticket, t.expires_ms)

    # --- room plumbing ----------------------------------------------------------------

    def _load(self, room_id: str) -> tuple[Room, int]:
        stored = self.store.get_room(room_id)
        if stored is None:
            raise not_found("no such room", "unknown_room")
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
        try:
            return self.store.save_room(
                room.id,
                room.to_dict(),
                summary(room),
                version,
                expires_at_s=expires,
                ratings=ratings,
                rounds=rounds,
            )
        except (UnknownUser, TooManyRatingChanges):
            # Ratings that cannot be applied must not stop the game from finishing.
            log.exception("ratings of room %s cannot be applied; saving the room alone", room.id)
        return self.store.save_room(
            room.id, room.to_dict(), summary(room), version, expires_at_s=expires, rounds=rounds
        )

    def _within_cap(self, owner_id: str, create: Callable[[], T]) -> T:
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

    def _lost_race(self, current: StoredRoom | None, user_id: str | None) -> ApiError:
        """409 for a client whose write lost a race, carrying their view of the room now."""
        observability.conflict()
        shown = None
        if current is not None:
            shown = self._view(Room.from_dict(current.state), current.version, user_id)
        return conflict(
            "the room changed while your request was in flight; nothing was applied", shown
        )

    def change_room(
        self,
        room_id: str,
        change: RoomChange | None = None,
        *,
        caller: Caller | None = None,
        gather: Callable[[Room], None] | None = None,
        admit: Callable[[], None] | None = None,
    ) -> Committed:
        """The one room change: read, advance, ``gather``, ``change``, ``admit``, conditional
        write, effects.

        ``gather`` makes the reads and rate-limit counts the change needs, on the room as read
        with its deadlines applied, before the change runs; ``change`` itself does no I/O.
        ``admit`` counts a client's change against its rate limit once the rules accepted it,
        before the write: a change the rules refuse is not counted, and one the limit refuses
        (its ``ApiError``) writes nothing, not even the deadlines that passed.

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
                raise not_found("no such room", "unknown_room")
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
                        self._with_effects(
                            self._commit(room, version, before, advanced, invited, seen)
                        )
                else:
                    effects.run(self.deps, [effects.RepairWakeUp(room, version)])
                raise
            if admit is not None:
                admit()
            if caller is None and not events and room.to_dict() == stored.state:
                effects.run(self.deps, [effects.RepairWakeUp(room, version)])
                return Committed(room, version)
            try:
                return self._with_effects(
                    self._commit(room, version, before, events, invited, seen)
                )
            except VersionConflict as lost:
                if caller is not None:
                    raise self._lost_race(lost.current, caller.user_id) from None
                observability.conflict()
                stored = lost.current if lost.current is not None else self.store.get_room(room_id)
        raise conflict("the room is busy; try again")

    def _with_effects(self, done: Committed) -> Committed:
        """Run a committed change's effects; the committed value."""
        effects.run(self.deps, done.effects)
        return done

    # --- rooms ------------------------------------------------------------------------

    def list_rooms(self, status: str | None) -> JsonDict:
        """The lobby list."""
        wanted = status or "waiting"
        if wanted not in LOBBY_STATUSES:
            raise ApiError(
                400,
                "invalid_input",
                f"status must be one of: {', '.join(LOBBY_STATUSES)}",
                field="status",
            )
        return {"rooms": [wire.lobby_entry(s, wanted) for s in self.store.list_rooms(wanted)]}

    def _ref(self, caller: Caller) -> lobby.UserRef:
        user = self._user(caller)
        return lobby.UserRef(user.id, user.name, user.guest, user.continue_mode)

    def _count_room_creation(self, user_id: str) -> None:
        """One room creation (or recreation) of ``user_id``; 429 past the limit per window."""
        self._limit(
            f"rooms-created:{user_id}",
            self.cfg.room_creations_per_user,
            self.cfg.room_creation_window_seconds,
            "too many rooms created; try again later",
        )

    def _count_lobby_action(self, user_id: str) -> None:
        """One lobby action of ``user_id`` (a room change that is not a game move: ready,
        settings, bots, join, leave, requests, invitations, start, continue mode); 429 past
        the limit per window, in all rooms together.

        Each is a room write pushed to every watcher of the room, so an unbounded client
        would flood the whole table. A room's lobby routes count as ``change_room``'s
        ``admit``: once the rules accepted the change, before its write, so a request the
        rules refuse (which writes and pushes nothing) is not counted and one the limit
        refuses changes nothing. Game moves are bounded by turns and never counted.
        """
        self._limit(
            f"lobby:{user_id}",
            self.cfg.lobby_actions_per_user,
            self.cfg.lobby_window_seconds,
            "too many lobby actions; try again in a few seconds",
        )

    def _lobby(self, caller: Caller) -> Callable[[], None]:
        """``change_room``'s ``admit`` for a lobby action of ``caller``."""
        return functools.partial(self._count_lobby_action, caller.user_id)

    def create_room(self, caller: Caller, settings: JsonDict | None) -> JsonDict:
        """A new waiting room; the creator is host and ready."""
        user = self._ref(caller)
        self._count_room_creation(user.id)
        room = lobby.create_room(secrets.token_hex(8), user, settings, self.now())
        version = self._within_cap(
            user.id,
            lambda: self.store.create_room(
                room.id,
                room.to_dict(),
                summary(room),
                owner_id=user.id,
                max_open=self.cfg.max_rooms_per_user,
            ),
        )
        created = [{"type": "room_created", "at": self.now()}]
        effects.run(self.deps, effects.plan(room, version, created))
        return self._view(room, version, user.id)

    def get_room(self, room_id: str, caller: Caller | None) -> JsonDict:
        """The caller's view now: every passed deadline is applied (and saved) first.

        ``GET /rooms/{id}`` and ``POST /rooms/{id}/tick`` are this one use case; the timer
        handler and the WebSocket's subscribe and tick call ``change_room`` the same way.
        """
        return self._answer(self.change_room(room_id), caller.user_id if caller else None)

    def update_settings(self, caller: Caller, room_id: str, changes: JsonDict) -> JsonDict:
        """The host edits settings while waiting."""
        user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id,
            lambda r: _run(lobby.update_settings, r, user, changes),
            caller=caller,
            admit=self._lobby(caller),
        )
        return self._answer(done, caller.user_id)

    def join(self, caller: Caller, room_id: str, passcode: str | None) -> JsonDict:
        """Join (open), request (approval) or join with the passcode (attempts limited)."""
        user = self._ref(caller)
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
                refund.extend(self._count_passcode_attempt(room, user.id))

        def change(room: Room) -> list[Event]:
            outcome = lobby.join(room, user, passcode, max_players=self.cfg.max_players_per_room)
            kind = "join_requested" if outcome == "pending" else "player_joined"
            return [{"type": kind, "user_id": user.id, "at": self.now()}]

        def admit() -> None:
            try:
                self._count_lobby_action(user.id)
            except ApiError:
                # The rules let the join in, so any passcode was right: its attempt goes back.
                window = self.cfg.passcode_room_window_seconds
                effects.run(self.deps, [effects.Refund(k, window, self.now()) for k in refund])
                raise

        done = self.change_room(
            room_id, change, caller=caller, gather=count_passcode_attempt, admit=admit
        )
        # The right passcode gives its attempt back: the room's budget counts wrong ones.
        window = self.cfg.passcode_room_window_seconds
        then: list[effects.Effect] = [effects.Refund(key, window, self.now()) for key in refund]
        if done.room.player_of_user(user.id) is not None:
            then.append(effects.RemoveInvitation(user.id, room_id))
        effects.run(self.deps, then)
        return self._answer(done, user.id)

    def _count_passcode_attempt(self, room: Room, user_id: str) -> list[str]:
        """Count a passcode attempt per user and per room overall (429 past either limit).

        Both count per room *lineage* (the first room of a chain of recreations), so a
        recreated room with the same passcode keeps its count. Returns the room-wide key,
        to give the attempt back when the passcode was right.
        """
        lineage = room.lineage or room.id
        self._limit(
            f"passcode:{lineage}:{user_id}",
            self.cfg.passcode_max_attempts,
            self.cfg.passcode_window_seconds,
            "too many passcode attempts for this room; try again later",
        )
        room_key = f"passcode-room:{lineage}"
        self._limit(
            room_key,
            self.cfg.passcode_room_max_attempts,
            self.cfg.passcode_room_window_seconds,
            "too many passcode attempts for this room; ask the host for an invitation",
        )
        return [room_key]

    def leave(self, caller: Caller, room_id: str) -> JsonDict:
        """Leave a waiting room (or withdraw a request); the host hands over."""
        user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id, lambda r: _run(lobby.leave, r, user), caller=caller, admit=self._lobby(caller)
        )
        effects.run(self.deps, [effects.ReleaseRoom(user.id, room_id)])
        return self._answer(done, user.id)

    def set_ready(self, caller: Caller, room_id: str, ready: bool) -> JsonDict:
        """A member toggles ready."""
        user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id,
            lambda r: _run(lobby.set_ready, r, user, ready),
            caller=caller,
            admit=self._lobby(caller),
        )
        return self._answer(done, user.id)

    def approve(self, caller: Caller, room_id: str, user_id: str) -> JsonDict:
        """The host seats a pending requester."""
        host = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        requester = self.store.get_user(user_id)

        def change(room: Room) -> list[Event]:
            lobby.approve(room, host, user_id, max_players=self.cfg.max_players_per_room)
            seat = room.player_of_user(user_id)
            if seat is not None and requester is not None:
                seat.continue_mode = requester.continue_mode
            return [{"type": "player_joined", "user_id": user_id, "at": self.now()}]

        done = self.change_room(room_id, change, caller=caller, admit=self._lobby(caller))
        return self._answer(done, caller.user_id)

    def deny(self, caller: Caller, room_id: str, user_id: str) -> JsonDict:
        """The host turns a request down."""
        host = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id,
            lambda r: _run(lobby.deny, r, host, user_id),
            caller=caller,
            admit=self._lobby(caller),
        )
        return self._answer(done, caller.user_id)

    def invite(self, caller: Caller, room_id: str, username: str) -> JsonDict:
        """The host invites a registered user by username (404 for an unknown one)."""
        host = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        room, _ = self._load(room_id)
        seat = room.player_of_user(caller.user_id)
        if seat is None or seat.id != room.host_id:
            raise forbidden("only the host may invite", "not_host")
        invitee = self.store.get_user_by_username(username)
        if invitee is None or invitee.guest:
            raise not_found("no registered user has that username", "unknown_user")
        invitee_id = invitee.id
        held = self._live_invitations(invitee_id)
        if room_id not in {inv["room_id"] for inv in held} and (
            len(held) >= self.cfg.invitations_per_user
        ):
            raise ApiError(
                429,
                "too_many_invitations",
                "that user already holds the maximum number of invitations",
                field="username",
            )

        def change(r: Room) -> list[Event]:
            if invitee_id not in r.invited and len(r.invited) >= self.cfg.invitations_per_room:
                raise ApiError(
                    429,
                    "too_many_invitations",
                    f"a room holds at most {self.cfg.invitations_per_room} invitations",
                    field="username",
                )
            lobby.invite(r, host, invitee_id)
            return []

        done = self.change_room(room_id, change, caller=caller, admit=self._lobby(caller))
        host_seat = done.room.host
        host_name = host_seat.name if host_seat else caller.name
        # Required, after the room's write: a fault that remains is a 503, safe to repeat.
        effects.run(self.deps, [effects.AddInvitation(invitee_id, room_id, host_name, self.now())])
        rules = done.room.settings.rules
        effects.run(self.deps, [notify.invited_effect(invitee_id, room_id, rules, host_name)])
        return self._answer(done, caller.user_id)

    def add_bot(self, caller: Caller, room_id: str, level: str | None) -> JsonDict:
        """The host adds a bot."""
        user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id,
            lambda r: _run(
                functools.partial(lobby.add_bot, max_players=self.cfg.max_players_per_room),
                r,
                user,
                level,
            ),
            caller=caller,
            admit=self._lobby(caller),
        )
        return self._answer(done, user.id)

    def remove_bot(self, caller: Caller, room_id: str, player_id: str) -> JsonDict:
        """The host removes a bot."""
        user = lobby.UserRef(caller.user_id, caller.name, caller.guest)
        done = self.change_room(
            room_id,
            lambda r: _run(lobby.remove_bot, r, user, player_id),
            caller=caller,
            admit=self._lobby(caller),
        )
        return self._answer(done, user.id)

    def start(self, caller: Caller, room_id: str) -> JsonDict:
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
                    record = self.store.get_user(p.user_id) if p.user_id else None
                    if record is not None:
                        modes[record.id] = record.continue_mode

        def change(room: Room) -> list[Event]:
            for p in room.players:
                if p.user_id in modes:
                    p.continue_mode = modes[p.user_id]
            return lobby.start(room, user, self.deps.roller, self.now(), self.cfg.bot_think_ms)

        done = self.change_room(
            room_id, change, caller=caller, admit=self._lobby(caller), gather=read_continue_modes
        )
        return self._answer(done, user.id)

    def act(self, caller: Caller, room_id: str, action: Command | JsonDict) -> JsonDict:
        """A player's bid, Liar!, agree or resign (``turn`` guards bid and Liar!)."""

        def change(room: Room) -> list[Event]:
            seat = room.player_of_user(caller.user_id)
            if seat is None:
                raise NotAPlayer("you have no seat in this game")
            return game_flow.act(room, seat.id, action, self.deps.roller, self.now())

        done = self.change_room(room_id, change, caller=caller)
        return self._answer(done, caller.user_id)

    def recreate(self, caller: Caller, room_id: str) -> JsonDict:
        """A participant opens a new waiting room with the same settings; the old one points to it.

        The old room's pointer (``recreated_as``), the new room and the new room's place in
        the caller's open-room count are one atomic write (``Store.recreate_room``): a fault
        leaves either all three or none, so a failed recreate can simply be tried again.
        """
        user = self._ref(caller)
        # Passed deadlines are applied (and saved, with any ratings) first, as on any touch.
        current = self.change_room(room_id)
        room, version = current.room, current.version
        new = lobby.recreate(room, user, secrets.token_hex(8), self.now())
        self._count_room_creation(user.id)
        old_summary = summary(room)
        claim = NewRoom(new.id, new.to_dict(), summary(new), user.id)
        try:
            old_version = self._within_cap(
                user.id,
                lambda: self.store.recreate_room(
                    room.id,
                    room.to_dict(),
                    old_summary,
                    version,
                    claim,
                    max_open=self.cfg.max_rooms_per_user,
                ),
            )
        except VersionConflict as lost:
            raise self._lost_race(lost.current, user.id) from None
        recreated = [{"type": "room_recreated", "room_id": new.id, "at": self.now()}]
        effects.run(
            self.deps, effects.plan(room, old_version, recreated) + effects.plan(new, 1, [])
        )
        return self._view(new, 1, user.id)

    def history(self, room_id: str) -> JsonDict:
        """The hand history (``engine.records.history``): every round once the game is over.

        A pure read (the room, then its records): it never writes, so a fault is a 503 that
        changed nothing. Deadlines are applied by the room view, ticks and the timer. During
        play the document holds only what every viewer already sees (the latest reveal).
        """
        room, _ = self._load(room_id)
        finished = room.status in (Status.FINISHED, Status.CLOSED) and room.results is not None
        records = self.store.list_rounds(room_id) if finished else []
        return round_records.history(room, records, room_view(room)["results"])

    def elo_preview(self, caller: Caller, room_id: str, order: list[str]) -> JsonDict:
        """The rating changes a complete finishing order would produce (participants only)."""
        room = self.change_room(room_id).room
        if room.player_of_user(caller.user_id) is None:
            raise forbidden("only participants may preview ratings", "not_a_member")
        if room.game is None:
            raise ApiError(409, "not_started", "the game has not started")
        uids = [p.user_id for p in room.players if not p.is_bot and p.user_id]
        ratings = self.store.get_ratings(uids) if room.rated else {}
        return {"changes": elo.changes_for_order(room, order, ratings)}

    # --- chat -------------------------------------------------------------------------

    def chat(self, room_id: str, after: str | None) -> JsonDict:
        """Messages in order (the latest 50, or the 50 after ``after``)."""
        if after is not None and (len(after) > 64 or not after.isprintable()):
            raise ApiError(400, "invalid_input", "after must be a message id", field="after")
        self._load(room_id)
        return {
            "messages": [wire.chat_message(m) for m in self.store.list_chat(room_id, after, 50)]
        }

    def post_chat(self, caller: Caller, room_id: str, body: str) -> JsonDict:
        """A registered user posts (length and rate limited); pushed to everyone watching."""
        clean = text_rules.clean_chat(body)
        if not clean:
            raise ApiError(400, "invalid_input", "text must not be empty", field="text")
        if len(clean) > self.cfg.chat_max_length:
            raise ApiError(
                400,
                "too_long",
                f"text is limited to {self.cfg.chat_max_length} characters",
                field="text",
            )
        self._load(room_id)
        user = self._user(caller)
        self._limit(
            f"chat:{room_id}:{user.id}",
            self.cfg.chat_rate,
            self.cfg.chat_window_seconds,
            "you are sending messages too fast",
        )
        # ... and in all rooms together, so the limit is not multiplied by the rooms there are
        self._limit(
            f"chat-user:{user.id}",
            self.cfg.chat_user_rate,
            self.cfg.chat_window_seconds,
            "you are sending messages too fast",
        )
        stored = self.store.append_chat(room_id, user.id, user.name, clean, self.now())
        message = wire.chat_message(stored)
        effects.run(self.deps, [effects.PublishChat(room_id, message)])
        return message


def _run(fn: Callable[..., Any], *args: Any) -> list[Event]:
    """Run an engine call that returns nothing, as a change with no events."""
    fn(*args)
    return []
