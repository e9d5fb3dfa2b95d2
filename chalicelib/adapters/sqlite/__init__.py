"""SQLite store: the Store port in one SQLite file (standard library ``sqlite3``, WAL mode).

Same semantics as ``DynamoStore`` (one contract test runs against both), and laid out the
same way: one module per aggregate, each a class with the methods of its port and the table
of its rows in its docstring (see docs/STORAGE.md):

- ``rooms``: rooms (versioned), the lobby list, the open-room cap;
- ``users``: profiles, usernames, preferences, invitations;
- ``records``: ratings, rated games, the leaderboard and round records;
- ``chat``: chat messages;
- ``limits``: rate-limit windows;
- ``connections``: WebSocket connections, subscriptions and tickets;
- ``notifications``: each user's seats ("my games"), push subscriptions and devices;
- ``quickplay``: quick play's tickets, a match claimed in one transaction;
- ``_base``: what they share (the connections per thread, the read and write transactions,
  the writers' lock, the live-row filter ``LIVE``, ``sweep``, faults as ``Unavailable``);
- ``_schema``: the tables as migrations, and the schema version of a file.

``SqliteStore`` is all of them on one database. ``SqliteStore(":memory:")`` is the store
fake of unit tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.adapters.sqlite._base import (
    BUSY_TIMEOUT_SECONDS,
    LIVE,
    MEMORY,
    WRITER_LOCK_SUFFIX,
    Database,
    connect,
)
from chalicelib.adapters.sqlite._schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    SchemaTooNew,
    migrate,
    schema_version,
)
from chalicelib.adapters.sqlite.chat import SqliteChat
from chalicelib.adapters.sqlite.connections import SqliteConnections
from chalicelib.adapters.sqlite.limits import SqliteLimits
from chalicelib.adapters.sqlite.notifications import SqliteNotifications
from chalicelib.adapters.sqlite.quickplay import SqliteQuickplay
from chalicelib.adapters.sqlite.records import SqliteRecords
from chalicelib.adapters.sqlite.rooms import SqliteRooms
from chalicelib.adapters.sqlite.users import SqliteUsers


class SqliteStore(
    SqliteQuickplay,
    SqliteRooms,
    SqliteUsers,
    SqliteRecords,
    SqliteChat,
    SqliteLimits,
    SqliteConnections,
    SqliteNotifications,
):
    """The Store port on one SQLite file (or a private in-memory database).

    Constructed as ``SqliteStore(path=":memory:", *, clock=None, connection_ttl_seconds=3 *
    3600, busy_timeout_seconds=30.0, serialize_writers=True)``: the constructor of
    ``Database``, which every aggregate shares.
    """


__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "LIVE",
    "MEMORY",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "WRITER_LOCK_SUFFIX",
    "Database",
    "SchemaTooNew",
    "SqliteStore",
    "connect",
    "migrate",
    "schema_version",
]

if TYPE_CHECKING:  # mypy proves each aggregate fits its port, and the whole the Store
    from chalicelib.ports import ChatStore, RateLimiter, RealtimeStore, Store

    _store: Store = SqliteStore()
    _chat: ChatStore = SqliteChat()
    _limits: RateLimiter = SqliteLimits()
    _connections: RealtimeStore = SqliteConnections()
