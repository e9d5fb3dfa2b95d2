"""SQLite realtime: WebSocket connections, their room subscriptions, one-use tickets.

| table | key | columns |
|---|---|---|
| ``connections`` | ``connection_id`` | ``user_id`` (NULL for signed-out spectators), ``connected_at`` (ms), ``expires_at`` (``connection_ttl_seconds``) |
| ``subscriptions`` | ``room_id``, ``connection_id`` (index by connection) | ``user_id``, ``expires_at`` (the connection's) |
| ``tickets`` | ``ticket_hash`` (SHA-256, see ``ticket_key``) | ``user_id``, ``expires_ms``, ``expires_at`` (expiry + 60 s) |
"""

from __future__ import annotations

from chalicelib.adapters.policy import ticket_expires_at, ticket_key
from chalicelib.adapters.sqlite._base import LIVE, Database
from chalicelib.ports import Connection


class SqliteConnections(Database):
    """Connections, subscriptions and tickets (``RealtimeStore``)."""

    def put_connection(
        self, connection_id: str, user_id: str | None, now_ms: int, channels: tuple[str, ...] = ()
    ) -> None:
        """Record a new connection (kept ``connection_ttl_seconds`` without a disconnect),
        subscribed to ``channels`` in the same transaction."""
        expires = now_ms // 1000 + self.connection_ttl_seconds
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO connections (connection_id, user_id, connected_at,"
                " expires_at) VALUES (?, ?, ?, ?)",
                (connection_id, user_id, now_ms, expires),
            )
            for channel in channels:
                db.execute(
                    "INSERT OR REPLACE INTO subscriptions (room_id, connection_id, user_id,"
                    " expires_at) VALUES (?, ?, ?, ?)",
                    (channel, connection_id, user_id, expires),
                )

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection and the rooms it watches."""
        with self._read_tx() as db:
            row = db.execute(
                f"SELECT user_id, connected_at FROM connections WHERE connection_id = ? AND {LIVE}",
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
                f"SELECT user_id, expires_at FROM connections WHERE connection_id = ? AND {LIVE}",
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
                f"SELECT connection_id, user_id FROM subscriptions WHERE room_id = ? AND {LIVE}"
                " ORDER BY connection_id",
                (room_id, self._now_s()),
            ).fetchall()
        return [(cid, uid) for cid, uid in rows]

    def put_ticket(self, ticket: str, user_id: str, expires_ms: int) -> None:
        """Store a WebSocket ticket (by hash) for ``user_id`` until ``expires_ms``."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO tickets (ticket_hash, user_id, expires_ms, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (ticket_key(ticket), user_id, expires_ms, ticket_expires_at(expires_ms)),
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
