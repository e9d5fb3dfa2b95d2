"""Ports: the small interfaces the service layer talks to.

Why it is over 600 lines: it is declarations only (each port's protocol and record types),
kept in one file so that an adapter's author reads one contract.

Each port has an AWS adapter under ``chalicelib/adapters/`` (the only place boto3 is
imported) and a second implementation for tests and the local server: the Store on SQLite
(``adapters.sqlite``), the notifier, timers and clock as recording fakes (``adapters.fakes``)
or the local server's own. The service layer depends on these Protocols only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class Notifier(Protocol):
    """Pushes JSON messages to WebSocket connections."""

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Send one message; return False when the connection is gone (410), True when it was
        delivered (or dropped as too large); raise when it failed otherwise (the caller logs
        it and goes on: a failed push never fails the change that pushed)."""
        ...


class TextNotifier(Notifier, Protocol):
    """A notifier that also takes a message already encoded (the local server's).

    ``send_text(connection_id, text)`` with ``text == wire.push_text(message)`` (compact JSON,
    ASCII escapes) sends exactly what ``send(connection_id, message)`` would: a push encoded
    once serves every connection that gets the same message.
    """

    def send_text(self, connection_id: str, text: str) -> bool:
        """Send one encoded message; False when the connection is gone, True otherwise."""
        ...


class OrderedNotifier(TextNotifier, Protocol):
    """A text notifier that keeps each room's messages in version order (the local server's).

    ``send_room_text(connection_id, text, room_id, version, answer)`` sends ``text`` as
    ``send_text`` does, but a push that arrives before the room's push at ``version - 1``
    (whose fan-out, on another thread or process, is still running) waits for it, briefly.
    ``answer`` marks the answer to subscribe or tick: never held; pushes continue from it.
    """

    def send_room_text(
        self, connection_id: str, text: str, room_id: str, version: int, answer: bool = False
    ) -> bool:
        """Send one encoded room message in the room's order; False when the connection is gone."""
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


# --- Store -------------------------------------------------------------------------------
# The store keeps everything that is not a pushed message or a timer: rooms (one small item
# each, guarded by a version), users, ratings, chat, rate-limit counters and the realtime
# bookkeeping. Two implementations share one test module: ``adapters.dynamo.DynamoStore``
# and ``adapters.sqlite.SqliteStore``.

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class StoredRoom:
    """A room's engine state as stored, with the version that guards its next write."""

    state: JsonDict
    version: int


@dataclass(frozen=True)
class UserRecord:
    """A stored user: registered (with username and password hash) or guest."""

    id: str
    name: str
    guest: bool
    username: str | None = None
    password_hash: str | None = None
    continue_mode: str = "auto"
    created_at_ms: int = 0
    expires_at_s: int | None = None
    """When the record expires (epoch s; guests only, the DynamoDB TTL attribute)."""
    language: str | None = None
    """The interface language the user chose (``en``, ``es``, ``pt-BR``); None if never."""


@dataclass(frozen=True)
class Connection:
    """A WebSocket connection: its user (None for a signed-out spectator) and rooms watched."""

    connection_id: str
    user_id: str | None
    connected_at_ms: int
    rooms: frozenset[str] = field(default_factory=frozenset)


class Unavailable(Exception):
    """The infrastructure failed in a way worth retrying later (throttled, down, timed out).

    Adapters raise it for AWS errors that botocore's own retries did not absorb; the API
    answers 503 ``unavailable`` with ``Retry-After: retry_after`` (``chalicelib.errors``).
    ``reason`` is ``throttled``, ``conflict`` (a transaction cancelled by a concurrent one,
    worth retrying at once), ``failed`` (a server error), ``timeout``, or ``refused`` (an
    AWS error no retry within the request mends: permissions, credentials, a missing table).
    """

    code = "unavailable"

    def __init__(self, message: str, *, reason: str = "failed", retry_after: int = 1) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after


class StoreError(Exception):
    """Base class of the store's domain errors; ``code`` is stable and snake_case."""

    code = "store_error"


class RoomExists(StoreError):
    """A room with this id already exists (ids collide only by a bug or a retry)."""

    code = "room_exists"


class VersionConflict(StoreError):
    """The room changed since it was read; ``current`` is what is stored now (None if gone)."""

    code = "version_conflict"

    def __init__(self, room_id: str, expected_version: int, current: StoredRoom | None) -> None:
        super().__init__(
            f"room {room_id} is no longer at version {expected_version}"
            + (f" (now {current.version})" if current is not None else " (gone)")
        )
        self.room_id = room_id
        self.expected_version = expected_version
        self.current = current


class RoomLimitReached(StoreError):
    """The user already has the maximum number of open rooms."""

    code = "room_limit_reached"


class UsernameTaken(StoreError):
    """Another user already registered this username (compared case-insensitively)."""

    code = "username_taken"


class UserExists(StoreError):
    """A user with this id already exists."""

    code = "user_exists"


class UnknownUser(StoreError):
    """No user has this id."""

    code = "unknown_user"


class TooManyRatingChanges(StoreError):
    """More rating changes than one game may make (``adapters.policy.MAX_RATING_CHANGES``)."""

    code = "too_many_rating_changes"


@dataclass(frozen=True)
class RatedOutcome:
    """One user's result in a finished rated game, kept on their profile.

    ``rank`` counts towards the user's finishes; ``row`` (JSON: room id, finish time, rank,
    ratings) is listed on their profile; ``listed`` puts them on the leaderboard from now on
    (registered and at least five rated games with this one).
    """

    rank: int
    finished_at_ms: int
    row: JsonDict
    listed: bool = False


@dataclass(frozen=True)
class Standing:
    """A user's rating, rated games and whether they are a guest (for rating a game)."""

    rating: float
    games: int
    guest: bool


@dataclass(frozen=True)
class PlayerStats:
    """A user's rating, rated games and finishes (rank → how often)."""

    rating: float
    games: int
    finishes: dict[int, int]


@dataclass(frozen=True)
class RatingsWrite:
    """A finished rated game's rating deltas and record, written with the room that ends it.

    ``outcomes`` (user id → RatedOutcome) are applied with the deltas, in the same write.
    """

    game_key: str
    changes: dict[str, float]
    record: JsonDict
    outcomes: dict[str, RatedOutcome] = field(default_factory=dict)


@dataclass(frozen=True)
class RoundsWrite:
    """Records of rounds a room write completes, written with it, once per round and attempt.

    Each record is a JSON object with an int ``round`` and an int ``attempt`` (0 when absent;
    a round a resignation abandoned and the round dealt again share the number); they are kept in their own items in the
    room's partition (never in the room item), expiring at ``expires_at_s`` (epoch s) if given.
    """

    records: list[JsonDict]
    expires_at_s: int | None = None


@dataclass(frozen=True)
class NewRoom:
    """A room to create at version 1, counted against ``owner_id``'s open-room cap."""

    room_id: str
    state: JsonDict
    summary: JsonDict
    owner_id: str


class RoomStore(Protocol):
    """Rooms: one versioned item each, written only under a version condition."""

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
        ...

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version (strongly consistent), or None."""
        ...

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
        deadline_ms: int | None = None,
    ) -> int:
        """Replace a room's state if still at ``expected_version``; return the new version.

        With ``ratings``, the same atomic write also applies the deltas and stores the game
        record, once per ``game_key``: if that record exists, only the room is written. With
        ``rounds``, the same atomic write stores each round record whose round (and attempt) has no
        record yet (a replayed record changes nothing). ``deadline_ms``: the room's next
        deadline (None when none is pending), kept in the same write so ``overdue_rooms``
        finds a room whose wake-up was lost. Raises VersionConflict (nothing written),
        UnknownUser or TooManyRatingChanges.
        """
        ...

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order (empty when none)."""
        ...

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
        """Replace ``room_id`` (as ``save_room``) and create ``new`` in ONE atomic write.

        The new room is stored at version 1 and counted against ``new.owner_id``'s cap
        (``max_open``, as in ``create_room``); returns the old room's new version. Raises
        VersionConflict, RoomExists (the new id) or RoomLimitReached, and then writes nothing.
        """
        ...

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first, each with its ``id``."""
        ...

    def overdue_rooms(
        self, before_ms: int, limit: int = 100, *, after_ms: int | None = None
    ) -> list[str]:
        """Ids of rooms whose pending deadline (``save_room``'s ``deadline_ms``) is in
        ``[after_ms, before_ms]``, earliest first, at most ``limit``; ``after_ms`` defaults to
        ``before_ms - OVERDUE_WINDOW_MS``. The sweeper's backstop for lost wake-ups: the
        answer may lag a write by a moment (an index), and waking a listed room is harmless.
        """
        ...

    def open_rooms(self, user_id: str) -> list[str]:
        """Ids of the rooms counted against ``user_id``'s open-room cap."""
        ...

    def release_room(self, user_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` against ``user_id``'s cap (idempotent)."""
        ...


class UserStore(Protocol):
    """Users, usernames, preferences, ratings, rated-game records and invitations."""

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
        """Create a user; raise UsernameTaken or UserExists.

        ``expires_at_s`` (epoch seconds; guests) is when the store may forget the user.
        """
        ...

    def get_user(self, user_id: str) -> UserRecord | None:
        """Read a user by id."""
        ...

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username (case-insensitive)."""
        ...

    def set_preferences(self, user_id: str, continue_mode: str) -> None:
        """Store the user's continue mode; raise UnknownUser."""
        ...

    def set_language(self, user_id: str, language: str) -> None:
        """Store the user's interface language; raise UnknownUser."""
        ...

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a registered user's password hash (after a rehash); raise UnknownUser."""
        ...

    def get_ratings(self, user_ids: list[str]) -> dict[str, float]:
        """Ratings of the given users (1500 for anyone without one)."""
        ...

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record atomically, once; False if already applied."""
        ...

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        ...

    def get_standings(self, user_ids: list[str]) -> dict[str, Standing]:
        """Rating (1500 default), rated games and guest flag of each existing user given."""
        ...

    def get_player_stats(self, user_id: str) -> PlayerStats:
        """A user's rating, rated games and finishes (zeros for a user never rated)."""
        ...

    def list_rated_games(self, user_id: str, limit: int) -> list[JsonDict]:
        """The ``row`` of the user's latest rated games, newest first."""
        ...

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """Listed users by rating, highest first: ``{"user_id", "name", "rating", "games"}``.

        Served from an index (no scan): only users a RatedOutcome listed are in it.
        """
        ...

    def add_invitation(
        self, user_id: str, room_id: str, host_name: str, *, now_ms: int | None = None
    ) -> None:
        """Invite ``user_id`` to ``room_id`` (repeating is harmless; kept 7 days from now_ms)."""
        ...

    def list_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations: ``[{"room_id", "host_name"}]``, oldest first."""
        ...

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        ...


@dataclass(frozen=True)
class ChatMessage:
    """A stored chat message; ``id`` sorts by time (``chalicelib.wire`` makes its wire shape)."""

    id: str
    user_id: str
    name: str
    text: str
    at_ms: int


class ChatStore(Protocol):
    """Chat messages of a room, stored in order."""

    def append_chat(
        self, room_id: str, user_id: str, name: str, text: str, at_ms: int
    ) -> ChatMessage:
        """Store a message and return it (with its new id)."""
        ...

    def list_chat(
        self, room_id: str, after_id: str | None = None, limit: int = 50
    ) -> list[ChatMessage]:
        """Messages in order: the latest ``limit``, or the first ``limit`` after ``after_id``."""
        ...


class RateLimiter(Protocol):
    """Fixed-window counters."""

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt for ``key``; True when it is within ``limit`` for this window."""
        ...

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted for ``key`` in this window (never below zero)."""
        ...


class RealtimeStore(Protocol):
    """WebSocket connections, room subscriptions and single-use connection tickets."""

    def put_connection(
        self, connection_id: str, user_id: str | None, now_ms: int, channels: tuple[str, ...] = ()
    ) -> None:
        """Record a new connection, subscribed to ``channels`` in the same write (all or
        nothing: a refused handshake leaves no connection behind)."""
        ...

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection."""
        ...

    def delete_connection(self, connection_id: str) -> None:
        """Forget a connection and all its subscriptions (missing is fine)."""
        ...

    def subscribe(self, connection_id: str, room_id: str) -> bool:
        """Subscribe a known connection to a room; False when the connection is unknown."""
        ...

    def unsubscribe(self, connection_id: str, room_id: str) -> None:
        """Unsubscribe (missing is fine)."""
        ...

    def subscribers(self, room_id: str) -> list[tuple[str, str | None]]:
        """``(connection_id, user_id)`` of every connection watching the room."""
        ...

    def put_ticket(self, ticket: str, user_id: str, expires_ms: int) -> None:
        """Store a WebSocket ticket for ``user_id`` valid until ``expires_ms``."""
        ...

    def consume_ticket(self, ticket: str, now_ms: int) -> str | None:
        """Use a ticket once: its user id, or None if unknown, used or expired."""
        ...


@dataclass(frozen=True)
class PushSubscriptionRecord:
    """A browser's Web Push subscription, as its user registered it."""

    endpoint: str
    p256dh: str
    auth: str
    created_at: int = 0


@dataclass(frozen=True)
class DeviceRecord:
    """A mobile app's push token and, on AWS, its SNS platform endpoint."""

    platform: str
    token: str
    endpoint_arn: str | None = None
    created_at: int = 0


class NotificationStore(Protocol):
    """Each user's seats ("my games" index), Web Push subscriptions and mobile devices.

    Everything is keyed by the user, so no read ever crosses users (and a user's listing is
    one query of their own partition on DynamoDB, never a scan).
    """

    def seat(self, user_id: str, room_id: str) -> None:
        """Record that ``user_id`` sits in ``room_id`` (idempotent)."""
        ...

    def unseat(self, user_id: str, room_id: str) -> None:
        """Forget that seat (missing is fine)."""
        ...

    def seated_rooms(self, user_id: str) -> list[str]:
        """The ids of the rooms ``user_id`` sits in (as recorded), in id order."""
        ...

    def get_rooms(self, room_ids: list[str]) -> dict[str, StoredRoom]:
        """The stored rooms among ``room_ids`` (unknown ids are left out)."""
        ...

    def put_push_subscription(self, user_id: str, sub: PushSubscriptionRecord) -> bool:
        """Store (or refresh) a subscription of ``user_id``; True when its endpoint was new
        for that user. An endpoint another user registered moves to this one."""
        ...

    def delete_push_subscription(self, user_id: str, endpoint: str) -> bool:
        """Forget ``user_id``'s subscription at ``endpoint``; True when there was one."""
        ...

    def push_subscriptions(self, user_id: str) -> list[PushSubscriptionRecord]:
        """``user_id``'s subscriptions, oldest first."""
        ...

    def put_device(self, user_id: str, device: DeviceRecord) -> bool:
        """Store (or refresh) a device of ``user_id``; True when its token was new for that
        user. A token another user registered moves to this one."""
        ...

    def delete_device(self, user_id: str, token: str) -> DeviceRecord | None:
        """Forget ``user_id``'s device with ``token``; the record forgotten, if any."""
        ...

    def devices(self, user_id: str) -> list[DeviceRecord]:
        """``user_id``'s devices, oldest first."""
        ...


class PushNotifier(Protocol):
    """Tells a user something on every browser and device they registered (after a commit)."""

    def notify(self, user_id: str, message: JsonDict, *, ttl: int, urgency: str) -> int:
        """Send ``message`` (docs/API.md, "Notifications"); how many accepted it. Forgets
        every subscription or device its push service reports as gone."""
        ...


class MobilePush(Protocol):
    """Mobile push tokens (APNs, FCM): SNS platform endpoints on AWS, recorded locally."""

    def register(self, platform: str, token: str) -> str | None:
        """Make the platform endpoint for ``token``; its id (an SNS endpoint ARN), if any."""
        ...

    def send(self, device: DeviceRecord, message: JsonDict, ttl: int) -> str:
        """Deliver ``message``: ``sent``, ``gone`` (forget the device) or ``failed``."""
        ...

    def unregister(self, device: DeviceRecord) -> None:
        """Drop the device's platform endpoint (missing is fine)."""
        ...


@dataclass(frozen=True)
class QueueTicket:
    """A quick-play ticket: a registered user waiting for a table, or seated by a match.

    A user holds at most one (the store keys it by user). ``status`` is ``waiting`` until a
    match claims it, then ``matched`` with the ``room_id`` of the table.
    """

    id: str
    user_id: str
    name: str
    rules: str
    """A rule system's name or ``"any"``."""
    since_ms: int
    rating: float
    expires_at_s: int
    """When the store may forget the ticket (the DynamoDB TTL attribute)."""
    status: str = "waiting"
    room_id: str | None = None
    group: str | None = None
    """The play-again group (the finished quick-play room's id), or None."""
    group_size: int = 0


class TicketHeld(StoreError):
    """The user already holds a waiting ticket (``current``); nothing was written."""

    code = "ticket_held"

    def __init__(self, current: QueueTicket | None) -> None:
        super().__init__("the user already holds a waiting ticket")
        self.current = current


class MatchLost(StoreError):
    """A ticket of a claimed match was no longer waiting (matched or cancelled meanwhile);
    nothing was written, neither the tickets nor the room."""

    code = "match_lost"


class QueueStore(Protocol):
    """Quick play's tickets: at most one per user, claimed by a match exactly once.

    ``now_ms`` (the service's clock) decides what has expired: a ticket past its
    ``expires_at_s`` is invisible to every read, and a waiting one no longer holds the user.
    """

    def queue_ticket(self, ticket: QueueTicket, now_ms: int) -> None:
        """Store a waiting ticket for ``ticket.user_id``, replacing a matched or expired one.

        Raises TicketHeld (with the ticket held) when the user holds a waiting ticket.
        """
        ...

    def user_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """The user's ticket (strongly consistent), or None (none, or expired)."""
        ...

    def waiting_tickets(self, rules: str, now_ms: int, limit: int = 200) -> list[QueueTicket]:
        """Waiting tickets for ``rules`` (a system or ``"any"``), oldest first, unexpired.

        A strongly consistent read, but only a snapshot: a claim checks every ticket again.
        """
        ...

    def waiting_counts(self, rules: list[str], now_ms: int) -> dict[str, int]:
        """How many unexpired tickets wait for each of ``rules``."""
        ...

    def cancel_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """Delete the user's ticket if it is waiting; return the ticket as it was.

        A matched ticket is left as it is and returned (the caller sees ``matched``); None
        when the user holds no ticket.
        """
        ...

    def claim_match(
        self,
        tickets: list[QueueTicket],
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        matched_expires_at_s: int,
        *,
        new: QueueTicket | None = None,
        now_ms: int = 0,
        deadline_ms: int | None = None,
    ) -> None:
        """In ONE atomic write: mark each ticket matched to ``room_id`` (only if it is still
        waiting with its id) and create the room at version 1.

        ``new`` is a ticket that never waited (its user's request completed the table): it is
        stored matched in the same write, unless its user holds a live waiting ticket
        (TicketHeld, as ``queue_ticket``). Raises MatchLost when any ticket is no longer
        waiting, RoomExists for a taken id; whatever is raised, nothing is written.
        """
        ...


class Store(
    RoomStore,
    UserStore,
    ChatStore,
    RateLimiter,
    RealtimeStore,
    QueueStore,
    NotificationStore,
    Protocol,
):
    """Everything the service layer stores; one DynamoDB table in AWS."""
