"""In-memory fakes of every port, with the same semantics as the AWS adapters.

``MemoryStore`` checks the same conditions as ``DynamoStore`` (version, uniqueness, caps,
single-use tickets) under one lock, and stores JSON copies so callers never share state
with the store. ``FakeNotifier``, ``FakeTimers`` and ``FakeClock`` record what they are asked.
Used by unit tests and, where useful, by the local server.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from decimal import Context, Decimal
from typing import TYPE_CHECKING, Any

from chalicelib.adapters.dynamo import (
    DEFAULT_RATING,
    MAX_RATING_CHANGES,
    chat_message,
    lobby_sort_key,
    new_chat_id,
    ticket_key,
)
from chalicelib.ports import (
    Connection,
    JsonDict,
    NewRoom,
    PlayerStats,
    RatingsWrite,
    RoomExists,
    RoomLimitReached,
    RoundsWrite,
    Standing,
    StoredRoom,
    TooManyRatingChanges,
    UnknownUser,
    UserExists,
    UsernameTaken,
    UserRecord,
    VersionConflict,
)

# DynamoDB numbers carry 38 significant digits; rating sums are done the same way here.
_DECIMAL = Context(prec=38)


def _copy(data: Any) -> Any:
    return json.loads(json.dumps(data))


@dataclass
class _Room:
    state: str
    version: int
    summary: JsonDict
    sort_key: str
    expires_at: int | None = None


@dataclass
class _User:
    record: UserRecord
    rating: Decimal | None = None
    games: int = 0
    finishes: dict[int, int] = field(default_factory=dict)
    listed: bool = False
    rated: dict[str, JsonDict] = field(default_factory=dict)
    """Profile rows by ``<finished at, 15 digits>#<game key>``."""


@dataclass
class _Conn:
    user_id: str | None
    connected_at_ms: int
    rooms: set[str] = field(default_factory=set)


class MemoryStore:
    """The Store port in process memory (thread-safe)."""

    def __init__(self, *, connection_ttl_seconds: int = 3 * 3600) -> None:
        self.connection_ttl_seconds = connection_ttl_seconds
        self._lock = threading.RLock()
        self._rooms: dict[str, _Room] = {}
        self._open: dict[str, set[str]] = {}
        self._users: dict[str, _User] = {}
        self._usernames: dict[str, str] = {}
        self._games: dict[str, JsonDict] = {}
        self._invitations: dict[str, dict[str, tuple[int, str]]] = {}
        self._chat: dict[str, dict[str, JsonDict]] = {}
        self._rates: dict[tuple[str, int], int] = {}
        self._conns: dict[str, _Conn] = {}
        self._subs: dict[str, dict[str, str | None]] = {}
        self._tickets: dict[str, tuple[str, int]] = {}
        self._rounds: dict[str, dict[int, JsonDict]] = {}

    def ensure_table(self) -> None:
        """Nothing to create; present so both stores set up alike."""

    # --- rooms ------------------------------------------------------------------------

    def create_room(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        *,
        owner_id: str | None = None,
        max_open: int | None = None,
    ) -> int:
        """Store a new room at version 1; raise RoomExists, or RoomLimitReached for the owner."""
        with self._lock:
            if room_id in self._rooms:
                raise RoomExists(f"room {room_id} exists")
            if owner_id is not None:
                rooms = self._open.setdefault(owner_id, set())
                if max_open is not None and len(rooms) >= max_open:
                    raise RoomLimitReached(f"user {owner_id} has {max_open} open rooms")
                rooms.add(room_id)
            created = summary.get("created_at")
            self._rooms[room_id] = _Room(
                state=json.dumps(state),
                version=1,
                summary=_copy(summary),
                sort_key=lobby_sort_key(created if isinstance(created, int) else 0, room_id),
            )
            return 1

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version, or None."""
        with self._lock:
            room = self._rooms.get(room_id)
            return None if room is None else StoredRoom(json.loads(room.state), room.version)

    def save_room(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        expected_version: int,
        *,
        expires_at_s: int | None = None,
        ratings: RatingsWrite | None = None,
        rounds: RoundsWrite | None = None,
    ) -> int:
        """Replace a room's state if still at ``expected_version``; return the new version.

        With ``ratings``, the deltas and the game record are applied in the same locked step
        (once per game key; the room alone is written when the record exists). With
        ``rounds``, each round number without a record gets its record in the same step.
        """
        if ratings is not None and len(ratings.changes) > MAX_RATING_CHANGES - 1:
            raise TooManyRatingChanges(f"{len(ratings.changes)} rating changes in one game")
        # Everything that can fail happens before the first change: all or nothing.
        state_text, summary_copy = json.dumps(state), _copy(summary)
        record: JsonDict = {} if ratings is None else _copy(ratings.record)
        records = [] if rounds is None else [_copy(r) for r in rounds.records]
        with self._lock:
            room = self._rooms.get(room_id)
            if room is None or room.version != expected_version:
                current = None if room is None else StoredRoom(json.loads(room.state), room.version)
                raise VersionConflict(room_id, expected_version, current)
            if ratings is not None and ratings.game_key not in self._games:
                if any(uid not in self._users for uid in ratings.changes):
                    raise UnknownUser("a rated user does not exist")
                self._add_ratings(ratings.game_key, ratings.changes, record)
                self._add_outcomes(ratings)
            kept = self._rounds.setdefault(room_id, {})
            for r in records:
                kept.setdefault(int(r["round"]), r)  # once per round: a replay changes nothing
            room.state = state_text
            room.version = expected_version + 1
            room.summary = summary_copy
            if expires_at_s is not None:
                room.expires_at = expires_at_s
            return room.version

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order."""
        with self._lock:
            kept = self._rounds.get(room_id, {})
            return [_copy(kept[n]) for n in sorted(kept)]

    def recreate_room(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        expected_version: int,
        new: NewRoom,
        *,
        max_open: int | None = None,
    ) -> int:
        """Replace ``room_id`` and create ``new`` (counted for its owner) in one locked step."""
        state_text, summary_copy = json.dumps(state), _copy(summary)
        with self._lock:
            room = self._rooms.get(room_id)
            if room is None or room.version != expected_version:
                current = None if room is None else StoredRoom(json.loads(room.state), room.version)
                raise VersionConflict(room_id, expected_version, current)
            if new.room_id in self._rooms:
                raise RoomExists(f"room {new.room_id} exists")
            counted = self._open.get(new.owner_id, set())
            if max_open is not None and len(counted) >= max_open:
                raise RoomLimitReached(f"user {new.owner_id} has {max_open} open rooms")
            # Every check passed: now both writes, so the step is all or nothing.
            self.create_room(new.room_id, new.state, new.summary, owner_id=new.owner_id)
            room.state = state_text
            room.version = expected_version + 1
            room.summary = summary_copy
            return room.version

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first, each with its ``id``."""
        with self._lock:
            found = [
                (room.sort_key, rid, room.summary)
                for rid, room in self._rooms.items()
                if str(room.summary.get("status", "")) == status
            ]
            found.sort(reverse=True)
            return [{"id": rid, **_copy(summary)} for _, rid, summary in found[:limit]]

    def open_rooms(self, user_id: str) -> list[str]:
        """Ids of the rooms counted against ``user_id``'s open-room cap."""
        with self._lock:
            return sorted(self._open.get(user_id, set()))

    def release_room(self, user_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` against ``user_id``'s cap (idempotent)."""
        with self._lock:
            self._open.get(user_id, set()).discard(room_id)

    # --- users ------------------------------------------------------------------------

    def create_user(
        self,
        user_id: str,
        username: str | None,
        password_hash: str | None,
        guest: bool,
        name: str,
        *,
        now_ms: int = 0,
        expires_at_s: int | None = None,
    ) -> UserRecord:
        """Create a user; raise UsernameTaken or UserExists."""
        with self._lock:
            if user_id in self._users:
                raise UserExists(f"user {user_id} exists")
            if username is not None and username.lower() in self._usernames:
                raise UsernameTaken(f"username {username!r} is taken")
            record = UserRecord(
                id=user_id,
                name=name,
                guest=guest,
                username=username,
                password_hash=password_hash,
                created_at_ms=now_ms,
                expires_at_s=expires_at_s,
            )
            self._users[user_id] = _User(record)
            if username is not None:
                self._usernames[username.lower()] = user_id
            return record

    def get_user(self, user_id: str) -> UserRecord | None:
        """Read a user by id."""
        with self._lock:
            user = self._users.get(user_id)
            return None if user is None else user.record

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username (case-insensitive)."""
        with self._lock:
            uid = self._usernames.get(username.lower())
            return None if uid is None else self._users[uid].record

    def _replace(self, user_id: str, **changes: Any) -> None:
        with self._lock:
            user = self._users.get(user_id)
            if user is None:
                raise UnknownUser(f"no user {user_id}")
            fields = {**user.record.__dict__, **changes}
            user.record = UserRecord(**fields)

    def set_preferences(self, user_id: str, continue_mode: str) -> None:
        """Store the user's continue mode; raise UnknownUser."""
        self._replace(user_id, continue_mode=continue_mode)

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a user's password hash; raise UnknownUser."""
        self._replace(user_id, password_hash=password_hash)

    def get_ratings(self, user_ids: list[str]) -> dict[str, float]:
        """Ratings of the given users (1500 for anyone without one)."""
        with self._lock:
            out: dict[str, float] = {}
            for uid in user_ids:
                user = self._users.get(uid)
                rating = None if user is None else user.rating
                out[uid] = float(DEFAULT_RATING) if rating is None else float(rating)
            return out

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record atomically, once; False if already applied."""
        if len(changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(changes)} rating changes in one game")
        with self._lock:
            if game_key in self._games:
                return False
            if any(uid not in self._users for uid in changes):
                raise UnknownUser("a rated user does not exist")
            self._add_ratings(game_key, changes, _copy(record))
            return True

    def _add_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> None:
        """Add each delta and keep ``record`` (the caller holds the lock and checked the users)."""
        for uid, delta in changes.items():
            user = self._users[uid]
            base = Decimal(DEFAULT_RATING) if user.rating is None else user.rating
            user.rating = _DECIMAL.add(base, Decimal(repr(float(delta))))
        self._games[game_key] = record

    def _add_outcomes(self, ratings: RatingsWrite) -> None:
        """Count each rated user's game and finish, list them, keep their profile row."""
        for uid, o in ratings.outcomes.items():
            if uid not in ratings.changes:
                continue
            user = self._users[uid]
            user.games += 1
            user.finishes[o.rank] = user.finishes.get(o.rank, 0) + 1
            user.listed = user.listed or o.listed
            user.rated[f"{o.finished_at_ms:015d}#{ratings.game_key}"] = _copy(o.row)

    def get_standings(self, user_ids: list[str]) -> dict[str, Standing]:
        """Rating, rated games and guest flag of each existing user."""
        with self._lock:
            return {
                uid: Standing(
                    float(DEFAULT_RATING if u.rating is None else u.rating),
                    u.games,
                    u.record.guest,
                )
                for uid in user_ids
                if (u := self._users.get(uid)) is not None
            }

    def get_player_stats(self, user_id: str) -> PlayerStats:
        """A user's rating, rated games and finishes."""
        with self._lock:
            u = self._users.get(user_id)
            if u is None:
                return PlayerStats(float(DEFAULT_RATING), 0, {})
            rating = float(DEFAULT_RATING if u.rating is None else u.rating)
            return PlayerStats(rating, u.games, dict(u.finishes))

    def list_rated_games(self, user_id: str, limit: int) -> list[JsonDict]:
        """The user's latest rated games, newest first."""
        with self._lock:
            u = self._users.get(user_id)
            if u is None or limit <= 0:
                return []
            return [_copy(u.rated[k]) for k in sorted(u.rated, reverse=True)[:limit]]

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """Listed users by rating, highest first."""
        with self._lock:
            found: list[JsonDict] = [
                {
                    "user_id": uid,
                    "name": u.record.name,
                    "rating": float(DEFAULT_RATING if u.rating is None else u.rating),
                    "games": u.games,
                }
                for uid, u in self._users.items()
                if u.listed
            ]
        found.sort(key=lambda r: (-r["rating"], r["name"].lower(), r["user_id"]))
        return found[: max(0, limit)]

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        with self._lock:
            record = self._games.get(game_key)
            return None if record is None else _copy(record)

    def add_invitation(
        self, user_id: str, room_id: str, host_name: str, *, now_ms: int | None = None
    ) -> None:
        """Invite ``user_id`` to ``room_id`` (repeating is harmless; nothing expires here)."""
        with self._lock:
            self._invitations.setdefault(user_id, {})[room_id] = (now_ms or 0, host_name)

    def list_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations ``[{"room_id", "host_name"}]``, oldest first."""
        with self._lock:
            found = sorted(
                (at, rid, host) for rid, (at, host) in self._invitations.get(user_id, {}).items()
            )
            return [{"room_id": rid, "host_name": host} for _, rid, host in found]

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        with self._lock:
            self._invitations.get(user_id, {}).pop(room_id, None)

    # --- chat -------------------------------------------------------------------------

    def append_chat(self, room_id: str, user_id: str, name: str, text: str, at_ms: int) -> JsonDict:
        """Store a message; return ``{"id", "user": {"id", "name"}, "text", "at"}``."""
        with self._lock:
            room_chat = self._chat.setdefault(room_id, {})
            msg_id = new_chat_id(at_ms)
            while msg_id in room_chat:
                msg_id = new_chat_id(at_ms)
            message = chat_message(msg_id, user_id, name, text, at_ms)
            room_chat[msg_id] = message
            return _copy(message)  # type: ignore[no-any-return]

    def list_chat(
        self, room_id: str, after_id: str | None = None, limit: int = 50
    ) -> list[JsonDict]:
        """Messages in order: the latest ``limit``, or the first ``limit`` after ``after_id``."""
        if limit <= 0:
            return []
        with self._lock:
            room_chat = self._chat.get(room_id, {})
            ids = sorted(room_chat)
            chosen = ids[-limit:] if after_id is None else [i for i in ids if i > after_id][:limit]
            return [_copy(room_chat[i]) for i in chosen]

    # --- rate limits --------------------------------------------------------------------

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt in the current fixed window; True while within ``limit``."""
        window = now_ms // (window_seconds * 1000)
        with self._lock:
            count = self._rates.get((key, window), 0)
            if count >= limit:
                return False
            self._rates[(key, window)] = count + 1
            return True

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted in the current window (never below zero)."""
        window = now_ms // (window_seconds * 1000)
        with self._lock:
            count = self._rates.get((key, window), 0)
            if count > 0:
                self._rates[(key, window)] = count - 1

    # --- realtime -----------------------------------------------------------------------

    def put_connection(self, connection_id: str, user_id: str | None, now_ms: int) -> None:
        """Record a new connection."""
        with self._lock:
            self._conns[connection_id] = _Conn(user_id, now_ms)

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection."""
        with self._lock:
            conn = self._conns.get(connection_id)
            if conn is None:
                return None
            return Connection(
                connection_id, conn.user_id, conn.connected_at_ms, frozenset(conn.rooms)
            )

    def delete_connection(self, connection_id: str) -> None:
        """Forget a connection and all its subscriptions (missing is fine)."""
        with self._lock:
            conn = self._conns.pop(connection_id, None)
            for room_id in conn.rooms if conn else ():
                self._subs.get(room_id, {}).pop(connection_id, None)

    def subscribe(self, connection_id: str, room_id: str) -> bool:
        """Subscribe a known connection to a room; False when the connection is unknown."""
        with self._lock:
            conn = self._conns.get(connection_id)
            if conn is None:
                return False
            conn.rooms.add(room_id)
            self._subs.setdefault(room_id, {})[connection_id] = conn.user_id
            return True

    def unsubscribe(self, connection_id: str, room_id: str) -> None:
        """Unsubscribe (missing is fine)."""
        with self._lock:
            self._subs.get(room_id, {}).pop(connection_id, None)
            conn = self._conns.get(connection_id)
            if conn is not None:
                conn.rooms.discard(room_id)

    def subscribers(self, room_id: str) -> list[tuple[str, str | None]]:
        """``(connection_id, user_id)`` of every connection watching the room."""
        with self._lock:
            return sorted(self._subs.get(room_id, {}).items())

    def put_ticket(self, ticket: str, user_id: str, expires_ms: int) -> None:
        """Store a WebSocket ticket for ``user_id`` valid until ``expires_ms``."""
        with self._lock:
            self._tickets[ticket_key(ticket)] = (user_id, expires_ms)

    def consume_ticket(self, ticket: str, now_ms: int) -> str | None:
        """Use a ticket once: its user id, or None if unknown, used or expired."""
        with self._lock:
            found = self._tickets.pop(ticket_key(ticket), None)
        if found is None or found[1] <= now_ms:
            return None
        return found[0]


# --- notifier, timers, clock --------------------------------------------------------------


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
    from chalicelib.ports import Clock, Notifier, Store, Timers

    _store: Store = MemoryStore()
    _notifier: Notifier = FakeNotifier()
    _timers: Timers = FakeTimers()
    _clock: Clock = FakeClock()
