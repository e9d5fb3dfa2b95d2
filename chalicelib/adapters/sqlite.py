"""SQLite store: the Store port in one SQLite file (standard library ``sqlite3``, WAL mode).

Same semantics as ``DynamoStore`` (one contract test runs against both): writes that depend
on what is stored run in one ``BEGIN IMMEDIATE`` transaction, so the version check and the
write are one atomic step, and the multi-item changes (a room with its owner's open-room
set, a user with the username, a finished game with its ratings and record) are all or
nothing. Correctness needs no lock in Python: every thread has its own connection, WAL
lets readers run beside the one writer, and a writer that finds the file locked waits
(``busy_timeout``) instead of failing; two processes (or two store objects) on one file are
as safe as two threads. Within one store object, write transactions also queue on a mutex
(``serialize_writers``, on by default): SQLite admits one writer at a time anyway, but its
busy handler waits by sleeping in growing steps (up to 100 ms), so under contention a writer
could sleep long after the file became free; the mutex wakes the next writer at once. On a
file the writers of every process are ordered the same way: with the mutex a writer takes an
OS lock (``flock``, POSIX) on a lock file beside the database (``WRITER_LOCK_SUFFIX``), so
the local server's worker processes queue in the kernel, not in the busy handler. Reads
never take either.

``SqliteStore(":memory:")`` is the fake for unit tests: one private in-memory database,
one connection, shared by all threads under one lock (an in-memory database cannot be
opened twice).

Expiry mirrors DynamoDB's TTL attribute ``expires_at`` (epoch seconds): an item whose time
has come is invisible to every read at once (unlike DynamoDB, which may show it for a
while), and ``sweep()`` deletes such rows for good. The clock is the store's ``clock``.

The file carries a schema version (``PRAGMA user_version``); opening a file runs the
migrations it lacks, in order, each in its own transaction. A file made by a newer
program is refused (``SchemaTooNew``) rather than misread.

Tables (see docs/STORAGE.md): ``rooms``, ``rounds``, ``open_rooms``, ``users`` (the unique
``username_key`` is the lowercased username), ``games``, ``invitations``, ``chat``,
``rate_windows``, ``connections``, ``subscriptions``, ``tickets`` (by SHA-256),
``rated_games`` (profile rows).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from decimal import Context, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chalicelib.adapters.dynamo.chat import new_chat_id
from chalicelib.adapters.dynamo.connections import ticket_key
from chalicelib.adapters.dynamo.records import DEFAULT_RATING, MAX_RATING_CHANGES
from chalicelib.adapters.dynamo.rooms import lobby_sort_key
from chalicelib.adapters.dynamo.users import INVITATION_TTL_SECONDS
from chalicelib.adapters.sqlite_notifications import MIGRATION as SQLITE_NOTIFICATIONS_MIGRATION
from chalicelib.adapters.sqlite_notifications import SqliteNotifications
from chalicelib.ports import (
    ChatMessage,
    Clock,
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
    Unavailable,
    UnknownUser,
    UserExists,
    UsernameTaken,
    UserRecord,
    VersionConflict,
)

log = logging.getLogger(__name__)

MEMORY = ":memory:"
BUSY_TIMEOUT_SECONDS = 30.0
#: The writers' lock file beside the database (``liars-lies.db.writer-lock``).
WRITER_LOCK_SUFFIX = ".writer-lock"
_IN_CHUNK = 500  # ids per ``IN (...)`` query, well under SQLite's variable limit

# DynamoDB numbers carry 38 significant digits; rating sums are done the same way here.
_DECIMAL = Context(prec=38)

# --- schema ----------------------------------------------------------------------------
# MIGRATIONS[i] takes a file from schema version i to i + 1. Never edit a released step:
# append a new one (a file made by an older server runs only the steps it lacks).

MIGRATIONS: list[tuple[str, ...]] = [
    # 1: the tables.
    (
        """CREATE TABLE rooms (
            room_id TEXT PRIMARY KEY,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            summary TEXT NOT NULL,
            status TEXT NOT NULL,
            sort_key TEXT NOT NULL,
            expires_at INTEGER
        )""",
        """CREATE TABLE open_rooms (
            user_id TEXT NOT NULL,
            room_id TEXT NOT NULL,
            PRIMARY KEY (user_id, room_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE users (
            user_id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            guest INTEGER NOT NULL,
            username TEXT,
            username_key TEXT UNIQUE,
            password_hash TEXT,
            continue_mode TEXT NOT NULL DEFAULT 'auto',
            rating TEXT,
            created_at INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE games (
            game_key TEXT PRIMARY KEY,
            changes TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        """CREATE TABLE invitations (
            user_id TEXT NOT NULL,
            room_id TEXT NOT NULL,
            host_name TEXT NOT NULL,
            at INTEGER NOT NULL,
            expires_at INTEGER,
            PRIMARY KEY (user_id, room_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE chat (
            room_id TEXT NOT NULL,
            msg_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            text TEXT NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (room_id, msg_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE rate_windows (
            key TEXT NOT NULL,
            window INTEGER NOT NULL,
            n INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (key, window)
        ) WITHOUT ROWID""",
        """CREATE TABLE connections (
            connection_id TEXT PRIMARY KEY,
            user_id TEXT,
            connected_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        )""",
        """CREATE TABLE subscriptions (
            room_id TEXT NOT NULL,
            connection_id TEXT NOT NULL,
            user_id TEXT,
            expires_at INTEGER NOT NULL,
            PRIMARY KEY (room_id, connection_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE tickets (
            ticket_hash TEXT PRIMARY KEY,
            user_id TEXT NOT NULL,
            expires_ms INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        )""",
    ),
    # 2: indexes for the lobby list, a connection's subscriptions and the expiry sweep.
    (
        "CREATE INDEX rooms_by_status ON rooms (status, sort_key)",
        "CREATE INDEX rooms_by_expiry ON rooms (expires_at) WHERE expires_at IS NOT NULL",
        "CREATE INDEX subscriptions_by_connection ON subscriptions (connection_id)",
        "CREATE INDEX connections_by_expiry ON connections (expires_at)",
        "CREATE INDEX tickets_by_expiry ON tickets (expires_at)",
        "CREATE INDEX rate_windows_by_expiry ON rate_windows (expires_at)",
    ),
    # 3: guests expire (issue 11): the profile's TTL, as DynamoDB's expires_at.
    (
        "ALTER TABLE users ADD COLUMN expires_at INTEGER",
        "CREATE INDEX users_by_expiry ON users (expires_at) WHERE expires_at IS NOT NULL",
    ),
    # 4: round records, rated-game counters, profile rows and the leaderboard (issue 18).
    (
        """CREATE TABLE rounds (
            room_id TEXT NOT NULL,
            round INTEGER NOT NULL,
            record TEXT NOT NULL,
            expires_at INTEGER,
            PRIMARY KEY (room_id, round)
        ) WITHOUT ROWID""",
        "CREATE INDEX rounds_by_expiry ON rounds (expires_at) WHERE expires_at IS NOT NULL",
        "ALTER TABLE users ADD COLUMN games INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN finishes TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE users ADD COLUMN listed INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX users_listed ON users (listed) WHERE listed = 1",
        """CREATE TABLE rated_games (
            user_id TEXT NOT NULL,
            sort_key TEXT NOT NULL,
            row TEXT NOT NULL,
            PRIMARY KEY (user_id, sort_key)
        ) WITHOUT ROWID""",
    ),
    # 5: seats ("my games"), Web Push subscriptions and mobile devices (issue 27).
    SQLITE_NOTIFICATIONS_MIGRATION,
]

SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNew(Exception):
    """The file was written by a newer program, with a schema this one does not know."""

    code = "schema_too_new"


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in an open database."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Run the migrations the database lacks, up to ``target``; return the version reached.

    Each step runs in its own ``BEGIN IMMEDIATE`` transaction that re-reads the version, so
    two processes opening one old file at once migrate it once.
    """
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = schema_version(conn)
            if version > SCHEMA_VERSION:
                raise SchemaTooNew(
                    f"the data file has schema version {version}; this program knows up to "
                    f"{SCHEMA_VERSION}: use a newer liars-dice or another --data file"
                )
            if version >= target:
                conn.execute("COMMIT")
                return version
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


class _Connection(sqlite3.Connection):
    """A connection that a weak reference can point to (the base class allows none)."""


def connect(path: str, timeout: float = BUSY_TIMEOUT_SECONDS) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL for files."""
    conn = sqlite3.connect(
        path,
        timeout=timeout,
        isolation_level=None,
        check_same_thread=False,
        factory=_Connection,
    )
    if path != MEMORY:
        conn.execute("PRAGMA journal_mode = WAL")
        # WAL with synchronous=NORMAL never corrupts; a power cut may lose the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = OFF")
    return conn


class _SystemClock:
    def now_ms(self) -> int:
        return int(time.time() * 1000)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""``json.dumps(data, separators=(",", ":"), ensure_ascii=False)`` without a new encoder each time."""


def _compact(data: Any) -> str:
    return _COMPACT(data)


class _WriterLock:
    """Orders writers across threads and processes: a mutex, then an OS lock on a file.

    ``flock`` (POSIX) on ``lock_path`` excludes the other processes on the same database,
    so a writer in another process waits in the kernel and wakes the moment the lock is
    free, instead of in SQLite's busy handler (sleeps of up to 100 ms). The mutex comes
    first: a ``flock`` held by one open file is granted again to any thread using that
    same file. Where ``fcntl`` is missing (Windows) only the mutex is used.
    """

    def __init__(self, lock_path: str | None) -> None:
        self._mutex = threading.Lock()
        self._fd: int | None = None
        self._flock: Any = None
        if lock_path is None:
            return
        try:
            import fcntl
        except ImportError:  # not POSIX: SQLite's own locking orders the processes
            return
        import os

        self._fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._flock = fcntl.flock
        self._exclusive, self._unlock = fcntl.LOCK_EX, fcntl.LOCK_UN
        weakref.finalize(self, os.close, self._fd)

    def __enter__(self) -> None:
        self._mutex.acquire()
        if self._fd is not None:
            try:
                self._flock(self._fd, self._exclusive)  # blocks without the GIL
            except BaseException:
                self._mutex.release()
                raise

    def __exit__(self, *exc: object) -> None:
        try:
            if self._fd is not None:
                self._flock(self._fd, self._unlock)
        finally:
            self._mutex.release()


class SqliteStore(SqliteNotifications):
    """The Store port on one SQLite file (or a private in-memory database)."""

    def __init__(
        self,
        path: str | Path = MEMORY,
        *,
        clock: Clock | None = None,
        connection_ttl_seconds: int = 3 * 3600,
        busy_timeout_seconds: float = BUSY_TIMEOUT_SECONDS,
        serialize_writers: bool = True,
    ) -> None:
        self.path = str(path)
        self.clock: Clock = clock or _SystemClock()
        self.connection_ttl_seconds = connection_ttl_seconds
        self._timeout = busy_timeout_seconds
        self._local = threading.local()
        # Weak: a thread's connection closes when the thread ends (worker pools retire idle
        # threads); close() closes those still open.
        self._all: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()
        self._all_lock = threading.Lock()
        self._shared: sqlite3.Connection | None = None
        # Only the in-memory database is shared, so only it needs a lock.
        self._guard: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        self._writer: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        if self.path == MEMORY:
            self._shared = connect(MEMORY, self._timeout)
            self._all.add(self._shared)
            self._guard = threading.RLock()
            if serialize_writers:
                self._writer = _WriterLock(None)
        else:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            if serialize_writers:
                # beside the database, as SQLite's own -wal and -shm files are
                self._writer = _WriterLock(self.path + WRITER_LOCK_SUFFIX)
        migrate(self._conn())

    def ensure_table(self) -> None:
        """Nothing to create (opening migrated the file); present so all stores set up alike."""

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        with self._guard:
            return schema_version(self._conn())

    @property
    def open_connections(self) -> int:
        """How many connections of this store are open (one per thread that used it)."""
        with self._all_lock:
            return len(self._all)

    def close(self) -> None:
        """Close every connection this store opened (the store is unusable afterwards)."""
        with self._all_lock:
            conns, self._all = list(self._all), weakref.WeakSet()
        for conn in conns:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    # --- connections and transactions --------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._shared is not None:
            return self._shared
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, self._timeout)
            self._local.conn = conn
            with self._all_lock:
                self._all.add(conn)
        return conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads; one statement sees one consistent snapshot."""
        with _faults_unavailable(), self._guard:
            yield self._conn()

    @contextlib.contextmanager
    def _read_tx(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several statements see one snapshot."""
        with _faults_unavailable(), self._guard:
            conn = self._conn()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: checks and writes inside it are one atomic step.

        ``BEGIN IMMEDIATE`` takes the write lock at once (waiting up to the busy timeout),
        so nothing read inside can change before the commit. Any exception rolls back.
        The writer lock orders this store's writers and, on a file, those of every other
        process using it (see the module docstring)."""
        with _faults_unavailable(), self._guard, self._writer:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _now_s(self) -> int:
        return self.clock.now_ms() // 1000

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
        with self._write() as db:
            self._insert_room(db, room_id, state, summary, owner_id, max_open)
        return 1

    @staticmethod
    def _insert_room(
        db: sqlite3.Connection,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        owner_id: str | None,
        max_open: int | None,
    ) -> None:
        """Check the id and the owner's cap, then insert (inside the caller's write)."""
        status = str(summary.get("status", ""))
        created = summary.get("created_at")
        sort_key = lobby_sort_key(created if isinstance(created, int) else 0, room_id)
        if db.execute("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)).fetchone():
            raise RoomExists(f"room {room_id} exists")
        if owner_id is not None:
            if max_open is not None:
                (count,) = db.execute(
                    "SELECT count(*) FROM open_rooms WHERE user_id = ?", (owner_id,)
                ).fetchone()
                if count >= max_open:
                    raise RoomLimitReached(f"user {owner_id} has {max_open} open rooms")
            db.execute(
                "INSERT OR IGNORE INTO open_rooms (user_id, room_id) VALUES (?, ?)",
                (owner_id, room_id),
            )
        db.execute(
            "INSERT INTO rooms (room_id, state, version, summary, status, sort_key)"
            " VALUES (?, ?, 1, ?, ?, ?)",
            (room_id, _compact(state), _compact(summary), status, sort_key),
        )

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version, or None (also once it has expired)."""
        with self._read() as db:
            row = db.execute(
                "SELECT state, version FROM rooms WHERE room_id = ?"
                " AND (expires_at IS NULL OR expires_at > ?)",
                (room_id, self._now_s()),
            ).fetchone()
        return None if row is None else StoredRoom(json.loads(row[0]), int(row[1]))

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

        With ``ratings``, the deltas, the outcomes and the game record go in the same
        transaction (once per game key; only the room is written when the record exists).
        With ``rounds``, each round number without a record gets its record in the same
        transaction (put-if-absent: a replayed record changes nothing).
        """
        if ratings is not None and len(ratings.changes) > MAX_RATING_CHANGES - 1:
            raise TooManyRatingChanges(f"{len(ratings.changes)} rating changes in one game")
        state_text, summary_text = _compact(state), _compact(summary)
        status = str(summary.get("status", ""))
        records = [] if rounds is None else [(int(r["round"]), _compact(r)) for r in rounds.records]
        rounds_expire = None if rounds is None else rounds.expires_at_s
        with self._write() as db:
            stored_status = self._check_version(db, room_id, expected_version)
            if ratings is not None and not self._game_exists(db, ratings.game_key):
                self._add_ratings(db, ratings.game_key, ratings.changes, ratings.record)
                self._add_outcomes(db, ratings)
            for number, text in records:
                db.execute(
                    "INSERT OR IGNORE INTO rounds (room_id, round, record, expires_at)"
                    " VALUES (?, ?, ?, ?)",
                    (room_id, number, text, rounds_expire),
                )
            if status == stored_status and expires_at_s is None:
                # The indexed columns keep their values: leaving them out of the UPDATE spares
                # the lobby and expiry indexes a rewrite (one page less per commit in the WAL).
                db.execute(
                    "UPDATE rooms SET state = ?, version = ?, summary = ? WHERE room_id = ?",
                    (state_text, expected_version + 1, summary_text, room_id),
                )
            else:
                db.execute(
                    "UPDATE rooms SET state = ?, version = ?, summary = ?, status = ?,"
                    " expires_at = coalesce(?, expires_at) WHERE room_id = ?",
                    (state_text, expected_version + 1, summary_text, status, expires_at_s, room_id),
                )
        return expected_version + 1

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order (empty when none)."""
        with self._read() as db:
            rows = db.execute(
                "SELECT record FROM rounds WHERE room_id = ?"
                " AND (expires_at IS NULL OR expires_at > ?) ORDER BY round",
                (room_id, self._now_s()),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

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
        """Replace ``room_id`` (as ``save_room``) and create ``new`` in one transaction.

        Raises VersionConflict, RoomExists (the new id) or RoomLimitReached; then nothing is
        written. Returns the old room's new version.
        """
        state_text, summary_text = _compact(state), _compact(summary)
        status = str(summary.get("status", ""))
        with self._write() as db:
            self._check_version(db, room_id, expected_version)
            self._insert_room(db, new.room_id, new.state, new.summary, new.owner_id, max_open)
            db.execute(
                "UPDATE rooms SET state = ?, version = ?, summary = ?, status = ? WHERE room_id = ?",
                (state_text, expected_version + 1, summary_text, status, room_id),
            )
        return expected_version + 1

    def _check_version(self, db: sqlite3.Connection, room_id: str, expected_version: int) -> str:
        """Raise VersionConflict (with the room as stored) unless it is at ``expected_version``;
        the stored status.

        Only the version and status are read first (the state, a few KB, only on a conflict):
        inside the caller's write transaction both reads see the same row.
        """
        now_s = self._now_s()
        found = db.execute(
            "SELECT version, status FROM rooms WHERE room_id = ?"
            " AND (expires_at IS NULL OR expires_at > ?)",
            (room_id, now_s),
        ).fetchone()
        if found is not None and int(found[0]) == expected_version:
            return str(found[1])
        row = db.execute(
            "SELECT state, version FROM rooms WHERE room_id = ?"
            " AND (expires_at IS NULL OR expires_at > ?)",
            (room_id, now_s),
        ).fetchone()
        current = None if row is None else StoredRoom(json.loads(row[0]), int(row[1]))
        raise VersionConflict(room_id, expected_version, current)

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first, each with its ``id``."""
        with self._read() as db:
            rows = db.execute(
                "SELECT room_id, summary FROM rooms WHERE status = ?"
                " AND (expires_at IS NULL OR expires_at > ?) ORDER BY sort_key DESC LIMIT ?",
                (status, self._now_s(), max(0, limit)),
            ).fetchall()
        return [{"id": rid, **json.loads(summary)} for rid, summary in rows]

    def open_rooms(self, user_id: str) -> list[str]:
        """Ids of the rooms counted against ``user_id``'s open-room cap."""
        with self._read() as db:
            rows = db.execute(
                "SELECT room_id FROM open_rooms WHERE user_id = ? ORDER BY room_id", (user_id,)
            ).fetchall()
        return [r[0] for r in rows]

    def release_room(self, user_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` against ``user_id``'s cap (idempotent)."""
        with self._write() as db:
            db.execute(
                "DELETE FROM open_rooms WHERE user_id = ? AND room_id = ?", (user_id, room_id)
            )

    # --- users ------------------------------------------------------------------------

    _USER_COLUMNS = (
        "user_id, name, guest, username, password_hash, continue_mode, created_at, expires_at"
    )
    _LIVE_USER = "(expires_at IS NULL OR expires_at > ?)"

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
        """Create a user; raise UsernameTaken or UserExists (``expires_at_s``: guests' TTL)."""
        key = None if username is None else username.lower()
        with self._write() as db:
            if (
                key is not None
                and db.execute("SELECT 1 FROM users WHERE username_key = ?", (key,)).fetchone()
            ):
                raise UsernameTaken(f"username {username!r} is taken")
            if db.execute("SELECT 1 FROM users WHERE user_id = ?", (user_id,)).fetchone():
                raise UserExists(f"user {user_id} exists")
            db.execute(
                "INSERT INTO users (user_id, name, guest, username, username_key, password_hash,"
                " continue_mode, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, 'auto', ?, ?)",
                (user_id, name, int(guest), username, key, password_hash, now_ms, expires_at_s),
            )
        return UserRecord(
            id=user_id,
            name=name,
            guest=guest,
            username=username,
            password_hash=password_hash,
            created_at_ms=now_ms,
            expires_at_s=expires_at_s,
        )

    def get_user(self, user_id: str) -> UserRecord | None:
        """Read a user by id."""
        with self._read() as db:
            row = db.execute(
                f"SELECT {self._USER_COLUMNS} FROM users WHERE user_id = ? AND {self._LIVE_USER}",
                (user_id, self._now_s()),
            ).fetchone()
        return None if row is None else _user(row)

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username (case-insensitive)."""
        with self._read() as db:
            row = db.execute(
                f"SELECT {self._USER_COLUMNS} FROM users WHERE username_key = ?"
                f" AND {self._LIVE_USER}",
                (username.lower(), self._now_s()),
            ).fetchone()
        return None if row is None else _user(row)

    def _update_user(self, user_id: str, column: str, value: str) -> None:
        with self._write() as db:
            changed = db.execute(
                f"UPDATE users SET {column} = ? WHERE user_id = ?", (value, user_id)
            ).rowcount
            if changed == 0:
                raise UnknownUser(f"no user {user_id}")

    def set_preferences(self, user_id: str, continue_mode: str) -> None:
        """Store the user's continue mode; raise UnknownUser."""
        self._update_user(user_id, "continue_mode", continue_mode)

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a user's password hash; raise UnknownUser."""
        self._update_user(user_id, "password_hash", password_hash)

    def get_ratings(self, user_ids: list[str]) -> dict[str, float]:
        """Ratings of the given users (1500 for anyone without one)."""
        wanted = list(dict.fromkeys(user_ids))
        ratings = {uid: float(DEFAULT_RATING) for uid in wanted}
        with self._read_tx() as db:
            for start in range(0, len(wanted), _IN_CHUNK):
                chunk = wanted[start : start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                for uid, rating in db.execute(
                    f"SELECT user_id, rating FROM users WHERE user_id IN ({marks})"
                    " AND rating IS NOT NULL",
                    chunk,
                ):
                    ratings[uid] = float(Decimal(rating))
        return ratings

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record atomically, once; False if already applied."""
        if len(changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(changes)} rating changes in one game")
        with self._write() as db:
            if self._game_exists(db, game_key):
                return False
            self._add_ratings(db, game_key, changes, record)
        return True

    @staticmethod
    def _game_exists(db: sqlite3.Connection, game_key: str) -> bool:
        found = db.execute("SELECT 1 FROM games WHERE game_key = ?", (game_key,)).fetchone()
        return found is not None

    @staticmethod
    def _add_ratings(
        db: sqlite3.Connection, game_key: str, changes: dict[str, float], record: JsonDict
    ) -> None:
        """Add each delta and keep ``record`` (inside the caller's write transaction)."""
        for uid, delta in changes.items():
            row = db.execute("SELECT rating FROM users WHERE user_id = ?", (uid,)).fetchone()
            if row is None:
                raise UnknownUser("a rated user does not exist")  # rolls everything back
            base = Decimal(DEFAULT_RATING) if row[0] is None else Decimal(row[0])
            new = _DECIMAL.add(base, Decimal(repr(float(delta))))
            db.execute("UPDATE users SET rating = ? WHERE user_id = ?", (str(new), uid))
        db.execute(
            "INSERT INTO games (game_key, changes, record) VALUES (?, ?, ?)",
            (game_key, _compact(changes), _compact(record)),
        )

    @staticmethod
    def _add_outcomes(db: sqlite3.Connection, ratings: RatingsWrite) -> None:
        """Count each rated user's game and finish, list them, keep their profile row."""
        for uid, o in ratings.outcomes.items():
            if uid not in ratings.changes:
                continue
            row = db.execute("SELECT finishes FROM users WHERE user_id = ?", (uid,)).fetchone()
            if row is None:
                raise UnknownUser("a rated user does not exist")  # rolls everything back
            finishes: dict[str, int] = json.loads(row[0])
            finishes[str(o.rank)] = finishes.get(str(o.rank), 0) + 1
            db.execute(
                "UPDATE users SET games = games + 1, finishes = ?, listed = max(listed, ?)"
                " WHERE user_id = ?",
                (_compact(finishes), int(o.listed), uid),
            )
            db.execute(
                "INSERT OR REPLACE INTO rated_games (user_id, sort_key, row) VALUES (?, ?, ?)",
                (uid, f"{o.finished_at_ms:015d}#{ratings.game_key}", _compact(o.row)),
            )

    def get_standings(self, user_ids: list[str]) -> dict[str, Standing]:
        """Rating (1500 default), rated games and guest flag of each existing user given."""
        wanted = list(dict.fromkeys(user_ids))
        found: dict[str, Standing] = {}
        with self._read_tx() as db:
            for start in range(0, len(wanted), _IN_CHUNK):
                chunk = wanted[start : start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                for uid, rating, games, guest in db.execute(
                    f"SELECT user_id, rating, games, guest FROM users WHERE user_id IN ({marks})"
                    f" AND {self._LIVE_USER}",
                    [*chunk, self._now_s()],
                ):
                    found[uid] = Standing(_rating(rating), int(games), bool(guest))
        return {uid: found[uid] for uid in user_ids if uid in found}

    def get_player_stats(self, user_id: str) -> PlayerStats:
        """A user's rating, rated games and finishes (zeros for a user never rated)."""
        with self._read() as db:
            row = db.execute(
                f"SELECT rating, games, finishes FROM users WHERE user_id = ? AND {self._LIVE_USER}",
                (user_id, self._now_s()),
            ).fetchone()
        if row is None:
            return PlayerStats(float(DEFAULT_RATING), 0, {})
        finishes = {int(rank): int(n) for rank, n in json.loads(row[2]).items()}
        return PlayerStats(_rating(row[0]), int(row[1]), finishes)

    def list_rated_games(self, user_id: str, limit: int) -> list[JsonDict]:
        """The ``row`` of the user's latest rated games, newest first."""
        if limit <= 0:
            return []
        with self._read() as db:
            rows = db.execute(
                "SELECT row FROM rated_games WHERE user_id = ? ORDER BY sort_key DESC LIMIT ?",
                (user_id, limit),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """Listed users by rating, highest first: ``{"user_id", "name", "rating", "games"}``.

        Read through the partial index of listed users (never the whole table).
        """
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id, name, rating, games FROM users INDEXED BY users_listed"
                f" WHERE listed = 1 AND {self._LIVE_USER}",
                (self._now_s(),),
            ).fetchall()
        found: list[JsonDict] = [
            {"user_id": uid, "name": name, "rating": _rating(rating), "games": int(games)}
            for uid, name, rating, games in rows
        ]
        found.sort(key=lambda r: (-r["rating"], r["name"].lower(), r["user_id"]))
        return found[: max(0, limit)]

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        with self._read() as db:
            row = db.execute("SELECT record FROM games WHERE game_key = ?", (game_key,)).fetchone()
        if row is None:
            return None
        record: JsonDict = json.loads(row[0])
        return record

    def add_invitation(
        self, user_id: str, room_id: str, host_name: str, *, now_ms: int | None = None
    ) -> None:
        """Invite ``user_id`` to ``room_id`` (kept 7 days when ``now_ms`` is given)."""
        expires = None if now_ms is None else now_ms // 1000 + INVITATION_TTL_SECONDS
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO invitations (user_id, room_id, host_name, at, expires_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (user_id, room_id, host_name, now_ms or 0, expires),
            )

    def list_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations ``[{"room_id", "host_name"}]``, oldest first."""
        with self._read() as db:
            rows = db.execute(
                "SELECT room_id, host_name FROM invitations WHERE user_id = ?"
                " AND (expires_at IS NULL OR expires_at > ?) ORDER BY at, room_id",
                (user_id, self._now_s()),
            ).fetchall()
        return [{"room_id": rid, "host_name": host} for rid, host in rows]

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        with self._write() as db:
            db.execute(
                "DELETE FROM invitations WHERE user_id = ? AND room_id = ?", (user_id, room_id)
            )

    # --- chat -------------------------------------------------------------------------

    def append_chat(
        self, room_id: str, user_id: str, name: str, text: str, at_ms: int
    ) -> ChatMessage:
        """Store a message and return it."""
        with self._write() as db:
            while True:
                msg_id = new_chat_id(at_ms)
                # A message id is used once: a collision draws another id.
                inserted = db.execute(
                    "INSERT OR IGNORE INTO chat (room_id, msg_id, user_id, name, text, at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (room_id, msg_id, user_id, name, text, at_ms),
                ).rowcount
                if inserted:
                    break
        return ChatMessage(msg_id, user_id, name, text, at_ms)

    def list_chat(
        self, room_id: str, after_id: str | None = None, limit: int = 50
    ) -> list[ChatMessage]:
        """Messages in order: the latest ``limit``, or the first ``limit`` after ``after_id``."""
        if limit <= 0:
            return []
        with self._read() as db:
            if after_id is None:
                rows = db.execute(
                    "SELECT msg_id, user_id, name, text, at FROM chat WHERE room_id = ?"
                    " ORDER BY msg_id DESC LIMIT ?",
                    (room_id, limit),
                ).fetchall()
                rows.reverse()
            else:
                rows = db.execute(
                    "SELECT msg_id, user_id, name, text, at FROM chat WHERE room_id = ?"
                    " AND msg_id > ? ORDER BY msg_id LIMIT ?",
                    (room_id, after_id, limit),
                ).fetchall()
        return [ChatMessage(mid, uid, name, text, int(at)) for mid, uid, name, text, at in rows]

    # --- rate limits --------------------------------------------------------------------

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt in the current fixed window; True while within ``limit``."""
        if limit <= 0:
            return False
        window = now_ms // (window_seconds * 1000)
        expires = (window + 1) * window_seconds + 60
        with self._write() as db:
            # One statement: count the attempt only while the window has room for it.
            counted = db.execute(
                "INSERT INTO rate_windows (key, window, n, expires_at) VALUES (?, ?, 1, ?)"
                " ON CONFLICT (key, window) DO UPDATE SET n = n + 1 WHERE n < ?",
                (key, window, expires, limit),
            ).rowcount
        return counted > 0

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted in the current window (never below zero)."""
        window = now_ms // (window_seconds * 1000)
        with self._write() as db:
            db.execute(
                "UPDATE rate_windows SET n = n - 1 WHERE key = ? AND window = ? AND n > 0",
                (key, window),
            )

    # --- realtime -----------------------------------------------------------------------

    def put_connection(self, connection_id: str, user_id: str | None, now_ms: int) -> None:
        """Record a new connection (kept ``connection_ttl_seconds`` without a disconnect)."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO connections (connection_id, user_id, connected_at,"
                " expires_at) VALUES (?, ?, ?, ?)",
                (connection_id, user_id, now_ms, now_ms // 1000 + self.connection_ttl_seconds),
            )

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection and the rooms it watches."""
        with self._read_tx() as db:
            row = db.execute(
                "SELECT user_id, connected_at FROM connections WHERE connection_id = ?"
                " AND expires_at > ?",
                (connection_id, self._now_s()),
            ).fetchone()
            if row is None:
                return None
            rooms = db.execute(
                "SELECT room_id FROM subscriptions WHERE connection_id = ?", (connection_id,)
            ).fetchall()
        return Connection(connection_id, row[0], int(row[1]), frozenset(r[0] for r in rooms))

    def delete_connection(self, connection_id: str) -> None:
        """Forget a connection and all its subscriptions (missing is fine)."""
        with self._write() as db:
            db.execute("DELETE FROM subscriptions WHERE connection_id = ?", (connection_id,))
            db.execute("DELETE FROM connections WHERE connection_id = ?", (connection_id,))

    def subscribe(self, connection_id: str, room_id: str) -> bool:
        """Subscribe a known connection to a room; False when the connection is unknown."""
        with self._write() as db:
            row = db.execute(
                "SELECT user_id, expires_at FROM connections WHERE connection_id = ?"
                " AND expires_at > ?",
                (connection_id, self._now_s()),
            ).fetchone()
            if row is None:
                return False
            db.execute(
                "INSERT OR REPLACE INTO subscriptions (room_id, connection_id, user_id,"
                " expires_at) VALUES (?, ?, ?, ?)",
                (room_id, connection_id, row[0], row[1]),
            )
        return True

    def unsubscribe(self, connection_id: str, room_id: str) -> None:
        """Unsubscribe (missing is fine)."""
        with self._write() as db:
            db.execute(
                "DELETE FROM subscriptions WHERE room_id = ? AND connection_id = ?",
                (room_id, connection_id),
            )

    def subscribers(self, room_id: str) -> list[tuple[str, str | None]]:
        """``(connection_id, user_id)`` of every connection watching the room."""
        with self._read() as db:
            rows = db.execute(
                "SELECT connection_id, user_id FROM subscriptions WHERE room_id = ?"
                " AND expires_at > ? ORDER BY connection_id",
                (room_id, self._now_s()),
            ).fetchall()
        return [(cid, uid) for cid, uid in rows]

    def put_ticket(self, ticket: str, user_id: str, expires_ms: int) -> None:
        """Store a WebSocket ticket (by hash) for ``user_id`` until ``expires_ms``."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO tickets (ticket_hash, user_id, expires_ms, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (ticket_key(ticket), user_id, expires_ms, expires_ms // 1000 + 60),
            )

    def consume_ticket(self, ticket: str, now_ms: int) -> str | None:
        """Use a ticket once: its user id, or None if unknown, used or expired."""
        with self._write() as db:
            # Single use: only the one caller whose DELETE removes the row gets its user.
            row = db.execute(
                "DELETE FROM tickets WHERE ticket_hash = ? RETURNING user_id, expires_ms",
                (ticket_key(ticket),),
            ).fetchone()
        if row is None or int(row[1]) <= now_ms:
            return None
        return str(row[0])

    # --- expiry -------------------------------------------------------------------------

    def sweep(self, now_ms: int | None = None) -> int:
        """Delete every row whose ``expires_at`` has come (what DynamoDB's TTL does); count them.

        The chat of a deleted room goes with it.
        """
        now_s = (self.clock.now_ms() if now_ms is None else now_ms) // 1000
        deleted = 0
        with self._write() as db:
            db.execute(
                "DELETE FROM chat WHERE room_id IN"
                " (SELECT room_id FROM rooms WHERE expires_at <= ?)",
                (now_s,),
            )
            for table in (
                "users",
                "rooms",
                "rounds",
                "invitations",
                "rate_windows",
                "subscriptions",
                "connections",
                "tickets",
            ):
                deleted += db.execute(
                    f"DELETE FROM {table} WHERE expires_at <= ?", (now_s,)
                ).rowcount
            # Profile rows go with their (expired guest) user.
            db.execute("DELETE FROM rated_games WHERE user_id NOT IN (SELECT user_id FROM users)")
        return deleted


@contextlib.contextmanager
def _faults_unavailable() -> Iterator[None]:
    """An operational failure (file locked past the busy timeout, disk full or failing) or a
    damaged file is ``Unavailable``: the API answers 503 with Retry-After, and the transaction
    wrote nothing."""
    try:
        yield
    except sqlite3.OperationalError as err:
        text = str(err).lower()
        busy = "locked" in text or "busy" in text
        raise Unavailable(
            f"SQLite: {err}", reason="timeout" if busy else "failed", retry_after=1
        ) from err
    except sqlite3.DatabaseError as err:
        if type(err) is not sqlite3.DatabaseError:
            raise  # IntegrityError, ProgrammingError and the like: the program's bug
        # A damaged file ("database disk image is malformed", "file is not a database").
        log.error("SQLite file damaged: %s", err)
        raise Unavailable(f"SQLite: {err}", reason="refused", retry_after=5) from err


def _rating(stored: str | None) -> float:
    return float(DEFAULT_RATING if stored is None else Decimal(stored))


def _user(row: tuple[Any, ...]) -> UserRecord:
    uid, name, guest, username, password_hash, continue_mode, created_at, expires_at = row
    return UserRecord(
        id=uid,
        name=name,
        guest=bool(guest),
        username=username,
        password_hash=password_hash,
        continue_mode=continue_mode or "auto",
        created_at_ms=int(created_at or 0),
        expires_at_s=None if expires_at is None else int(expires_at),
    )


if TYPE_CHECKING:  # mypy proves the adapter fits the port
    from chalicelib.ports import Store

    _store: Store = SqliteStore()
