"""The SQLite file's schema: the migrations, in order, and the step that runs them.

The file carries a schema version (``PRAGMA user_version``); opening a file runs the
migrations it lacks, in order, each in its own transaction. A file made by a newer program
is refused (``SchemaTooNew``) rather than misread. A new aggregate adds its tables as a new
step at the end of ``MIGRATIONS`` (see docs/STORAGE.md).
"""

from __future__ import annotations

import sqlite3

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
    # 5: quick play's tickets (issue 26).
    (
        """CREATE TABLE quickplay_tickets (
            user_id TEXT PRIMARY KEY,
            ticket_id TEXT NOT NULL,
            name TEXT NOT NULL,
            rules TEXT NOT NULL,
            since INTEGER NOT NULL,
            rating REAL NOT NULL,
            status TEXT NOT NULL,
            room_id TEXT,
            grp TEXT,
            gsize INTEGER NOT NULL DEFAULT 0,
            expires_at INTEGER NOT NULL
        )""",
        "CREATE INDEX quickplay_waiting ON quickplay_tickets (status, rules, since)",
        "CREATE INDEX quickplay_by_expiry ON quickplay_tickets (expires_at)",
    ),
    # 6: seats ("my games"), Web Push subscriptions and mobile devices (issue 27).
    (
        """CREATE TABLE seats (
        user_id TEXT NOT NULL,
        room_id TEXT NOT NULL,
        PRIMARY KEY (user_id, room_id)
    ) WITHOUT ROWID""",
        """CREATE TABLE push_subscriptions (
        endpoint TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        created_at INTEGER NOT NULL
    )""",
        "CREATE INDEX push_subscriptions_by_user ON push_subscriptions (user_id, created_at)",
        """CREATE TABLE devices (
        token TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        platform TEXT NOT NULL,
        endpoint_arn TEXT,
        created_at INTEGER NOT NULL
    )""",
        "CREATE INDEX devices_by_user ON devices (user_id, created_at)",
    ),
    # 7: a round a resignation abandoned keeps its own record, keyed by round and attempt;
    # the remembered interface language (issue 28).
    (
        """CREATE TABLE rounds_v6 (
            room_id TEXT NOT NULL,
            round INTEGER NOT NULL,
            attempt INTEGER NOT NULL DEFAULT 0,
            record TEXT NOT NULL,
            expires_at INTEGER,
            PRIMARY KEY (room_id, round, attempt)
        ) WITHOUT ROWID""",
        "INSERT INTO rounds_v6 (room_id, round, attempt, record, expires_at)"
        " SELECT room_id, round, 0, record, expires_at FROM rounds",
        "DROP TABLE rounds",
        "ALTER TABLE rounds_v6 RENAME TO rounds",
        "CREATE INDEX rounds_by_expiry ON rounds (expires_at) WHERE expires_at IS NOT NULL",
        "ALTER TABLE users ADD COLUMN language TEXT",
    ),
    # 8: each room's next deadline, for the sweeper's backstop of lost wake-ups (issue 30).
    (
        "ALTER TABLE rooms ADD COLUMN deadline_at INTEGER",
        "CREATE INDEX rooms_by_deadline ON rooms (deadline_at) WHERE deadline_at IS NOT NULL",
    ),
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
