"""What the SQLite aggregates share: the connections, the transactions, expiry and faults.

Writes that depend on what is stored run in one ``BEGIN IMMEDIATE`` transaction, so the
version check and the write are one atomic step, and the multi-item changes (a room with its
owner's open-room set, a user with the username, a finished game with its ratings and record)
are all or nothing. Correctness needs no lock in Python: every thread has its own connection,
WAL lets readers run beside the one writer, and a writer that finds the file locked waits
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
while): every read of a table with ``expires_at`` filters with ``LIVE``, and ``sweep()``
deletes such rows for good. The clock is the store's ``clock``.
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
from pathlib import Path
from typing import Any

from chalicelib.adapters.policy import CONNECTION_TTL_SECONDS
from chalicelib.adapters.sqlite._schema import migrate, schema_version
from chalicelib.ports import Clock, Unavailable

log = logging.getLogger(__name__)

MEMORY = ":memory:"
BUSY_TIMEOUT_SECONDS = 30.0
#: The writers' lock file beside the database (``liars-lies.db.writer-lock``).
WRITER_LOCK_SUFFIX = ".writer-lock"
IN_CHUNK = 500  # ids per ``IN (...)`` query, well under SQLite's variable limit

#: The live-row filter: a row whose ``expires_at`` (epoch seconds, NULL = never) has come is
#: gone for every read. Its one parameter is the store's ``now_s()``.
LIVE = "(expires_at IS NULL OR expires_at > ?)"

#: The tables with an ``expires_at`` column, in the order ``sweep`` empties them.
EXPIRING_TABLES = (
    "users",
    "rooms",
    "rounds",
    "invitations",
    "rate_windows",
    "subscriptions",
    "connections",
    "tickets",
    "quickplay_tickets",
)


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


def compact(data: Any) -> str:
    """Compact JSON, as every JSON column is stored."""
    return _COMPACT(data)


class _WriterLock:
    """Orders writers across threads and processes: a mutex, then an OS lock on a file.

    ``flock`` (POSIX) on ``lock_path`` excludes the other processes on the same database,
    so a writer in another process waits in the kernel and wakes the moment the lock is
    free, instead of in SQLite's busy handler (sleeps of up to 100 ms). The mutex comes
    first: a ``flock`` held by one open file is granted again to any thread using that
    same file. Where ``fcntl`` is missing (Windows) only the mutex is used.

    A writer waits at most ``timeout`` seconds (the busy timeout) for both, then fails as a
    busy SQLite would (503 with Retry-After): a writer stuck elsewhere (a stopped process
    holding the lock) must not hold every other write forever. The file lock is first tried
    without waiting; when another process holds it, it is tried again every millisecond at
    most (``flock`` itself has no timeout), so a freed lock is taken about as soon as the
    kernel's queue would have granted it.
    """

    def __init__(self, lock_path: str | None, timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self._timeout = timeout
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
        self._exclusive, self._unlock = fcntl.LOCK_EX | fcntl.LOCK_NB, fcntl.LOCK_UN
        weakref.finalize(self, os.close, self._fd)

    def __enter__(self) -> None:
        deadline = time.monotonic() + self._timeout
        if not self._mutex.acquire(timeout=self._timeout):
            raise sqlite3.OperationalError("database is locked (a writer held it too long)")
        if self._fd is not None:
            try:
                self._lock_file(deadline)
            except BaseException:
                self._mutex.release()
                raise

    def _lock_file(self, deadline: float) -> None:
        pause = 0.0002
        while True:
            try:
                self._flock(self._fd, self._exclusive)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError(
                        "database is locked (another process held it too long)"
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.001)

    def __exit__(self, *exc: object) -> None:
        try:
            if self._fd is not None:
                self._flock(self._fd, self._unlock)
        finally:
            self._mutex.release()


class Database:
    """One SQLite file (or a private in-memory database): connections, transactions, expiry.

    Every aggregate of ``SqliteStore`` is a subclass; they share this state.
    """

    def __init__(
        self,
        path: str | Path = MEMORY,
        *,
        clock: Clock | None = None,
        connection_ttl_seconds: int = CONNECTION_TTL_SECONDS,
        busy_timeout_seconds: float = BUSY_TIMEOUT_SECONDS,
        serialize_writers: bool = True,
    ) -> None:
        self.path = str(path)
        self.clock: Clock = clock or _SystemClock()
        # Used by the connections aggregate; taken here so one constructor serves them all.
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
                self._writer = _WriterLock(None, busy_timeout_seconds)
        else:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            if serialize_writers:
                # beside the database, as SQLite's own -wal and -shm files are
                self._writer = _WriterLock(self.path + WRITER_LOCK_SUFFIX, busy_timeout_seconds)
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
        """Now in epoch seconds by the store's clock: the parameter of ``LIVE``."""
        return self.clock.now_ms() // 1000

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
            for table in EXPIRING_TABLES:
                deleted += db.execute(
                    f"DELETE FROM {table} WHERE expires_at <= ?", (now_s,)
                ).rowcount
            # Profile rows go with their (expired guest) user.
            db.execute("DELETE FROM rated_games WHERE user_id NOT IN (SELECT user_id FROM users)")
        return deleted


#: While writes fail on a full disk, the log says so at most once in this many seconds.
DISK_FULL_LOG_SECONDS = 60.0
_disk_full_logged_at = [float("-inf")]


def _log_disk_full(err: sqlite3.Error) -> None:
    now = time.monotonic()
    if now - _disk_full_logged_at[0] >= DISK_FULL_LOG_SECONDS:
        _disk_full_logged_at[0] = now
        log.error("the disk is full: writes answer 503 until space is freed (SQLite: %s)", err)


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
        if "full" in text:
            _log_disk_full(err)
        raise Unavailable(
            f"SQLite: {err}", reason="timeout" if busy else "failed", retry_after=1
        ) from err
    except sqlite3.DatabaseError as err:
        if type(err) is not sqlite3.DatabaseError:
            raise  # IntegrityError, ProgrammingError and the like: the program's bug
        # A damaged file ("database disk image is malformed", "file is not a database").
        log.error("SQLite file damaged: %s", err)
        raise Unavailable(f"SQLite: {err}", reason="refused", retry_after=5) from err
