"""SQLite rooms: the versioned room rows, the lobby list and the open-room cap.

| table | key | columns |
|---|---|---|
| ``rooms`` | ``room_id`` | ``state`` (JSON), ``version``, ``summary`` (JSON), ``status`` and ``sort_key`` (the lobby index ``rooms_by_status``), ``expires_at``, ``deadline_at`` (the next deadline, ms; index ``rooms_by_deadline``) |
| ``open_rooms`` | ``user_id``, ``room_id`` | (a row counts the room against its owner's cap) |

A room's write may carry a finished game's ratings and round records: they go in the same
transaction, written by ``records``.
"""

from __future__ import annotations

import json
import sqlite3

from chalicelib.adapters.policy import MAX_RATING_CHANGES, OVERDUE_WINDOW_MS, lobby_sort_key
from chalicelib.adapters.sqlite._base import LIVE, Database, compact
from chalicelib.adapters.sqlite.records import add_outcomes, add_ratings, add_rounds, game_exists
from chalicelib.ports import (
    JsonDict,
    NewRoom,
    RatingsWrite,
    RoomExists,
    RoomLimitReached,
    RoundsWrite,
    StoredRoom,
    TooManyRatingChanges,
    VersionConflict,
)


class SqliteRooms(Database):
    """Rooms (``RoomStore``): create, read, conditional save, recreate, lobby, open rooms."""

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
            _insert_room(db, room_id, state, summary, owner_id, max_open)
        return 1

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version, or None (also once it has expired)."""
        with self._read() as db:
            row = db.execute(
                f"SELECT state, version FROM rooms WHERE room_id = ? AND {LIVE}",
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
        deadline_ms: int | None = None,
    ) -> int:
        """Replace a room's state if still at ``expected_version``; return the new version.

        With ``ratings``, the deltas, the outcomes and the game record go in the same
        transaction (once per game key; only the room is written when the record exists).
        With ``rounds``, each round (and attempt) without a record gets its record in the same
        transaction (put-if-absent: a replayed record changes nothing).
        """
        if ratings is not None and len(ratings.changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(ratings.changes)} rating changes in one game")
        state_text, summary_text = compact(state), compact(summary)
        status = str(summary.get("status", ""))
        records = (
            []
            if rounds is None
            else [(int(r["round"]), int(r.get("attempt", 0)), compact(r)) for r in rounds.records]
        )
        rounds_expire = None if rounds is None else rounds.expires_at_s
        with self._write() as db:
            stored_status, stored_deadline = self._check_version(db, room_id, expected_version)
            if ratings is not None and not game_exists(db, ratings.game_key):
                add_ratings(db, ratings.game_key, ratings.changes, ratings.record)
                add_outcomes(db, ratings)
            add_rounds(db, room_id, records, rounds_expire)
            if status == stored_status and expires_at_s is None and deadline_ms == stored_deadline:
                # The indexed columns keep their values: leaving them out of the UPDATE spares
                # the lobby and expiry indexes a rewrite (one page less per commit in the WAL).
                db.execute(
                    "UPDATE rooms SET state = ?, version = ?, summary = ? WHERE room_id = ?",
                    (state_text, expected_version + 1, summary_text, room_id),
                )
            else:
                db.execute(
                    "UPDATE rooms SET state = ?, version = ?, summary = ?, status = ?,"
                    " expires_at = coalesce(?, expires_at), deadline_at = ? WHERE room_id = ?",
                    (
                        state_text,
                        expected_version + 1,
                        summary_text,
                        status,
                        expires_at_s,
                        deadline_ms,
                        room_id,
                    ),
                )
        return expected_version + 1

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
        state_text, summary_text = compact(state), compact(summary)
        status = str(summary.get("status", ""))
        with self._write() as db:
            self._check_version(db, room_id, expected_version)
            _insert_room(db, new.room_id, new.state, new.summary, new.owner_id, max_open)
            db.execute(
                "UPDATE rooms SET state = ?, version = ?, summary = ?, status = ?, deadline_at = NULL"
                " WHERE room_id = ?",
                (state_text, expected_version + 1, summary_text, status, room_id),
            )
        return expected_version + 1

    def _check_version(
        self, db: sqlite3.Connection, room_id: str, expected_version: int
    ) -> tuple[str, int | None]:
        """Raise VersionConflict (with the room as stored) unless it is at ``expected_version``;
        the stored status and deadline.

        Only the version and status are read first (the state, a few KB, only on a conflict):
        inside the caller's write transaction both reads see the same row.
        """
        now_s = self._now_s()
        found = db.execute(
            f"SELECT version, status, deadline_at FROM rooms WHERE room_id = ? AND {LIVE}",
            (room_id, now_s),
        ).fetchone()
        if found is not None and int(found[0]) == expected_version:
            return str(found[1]), None if found[2] is None else int(found[2])
        row = db.execute(
            f"SELECT state, version FROM rooms WHERE room_id = ? AND {LIVE}", (room_id, now_s)
        ).fetchone()
        current = None if row is None else StoredRoom(json.loads(row[0]), int(row[1]))
        raise VersionConflict(room_id, expected_version, current)

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first, each with its ``id``."""
        with self._read() as db:
            rows = db.execute(
                f"SELECT room_id, summary FROM rooms WHERE status = ? AND {LIVE}"
                " ORDER BY sort_key DESC LIMIT ?",
                (status, self._now_s(), max(0, limit)),
            ).fetchall()
        return [{"id": rid, **json.loads(summary)} for rid, summary in rows]

    def overdue_rooms(
        self, before_ms: int, limit: int = 100, *, after_ms: int | None = None
    ) -> list[str]:
        """Ids of rooms whose pending deadline is in ``[after_ms, before_ms]``, earliest first
        (the partial index ``rooms_by_deadline``)."""
        low = before_ms - OVERDUE_WINDOW_MS if after_ms is None else after_ms
        with self._read() as db:
            rows = db.execute(
                "SELECT room_id FROM rooms WHERE deadline_at IS NOT NULL AND deadline_at BETWEEN ? AND ?"
                f" AND {LIVE} ORDER BY deadline_at LIMIT ?",
                (low, before_ms, self._now_s(), max(0, limit)),
            ).fetchall()
        return [r[0] for r in rows]

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


def _insert_room(
    db: sqlite3.Connection,
    room_id: str,
    state: JsonDict,
    summary: JsonDict,
    owner_id: str | None,
    max_open: int | None,
    deadline_ms: int | None = None,
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
        "INSERT INTO rooms (room_id, state, version, summary, status, sort_key, deadline_at)"
        " VALUES (?, ?, 1, ?, ?, ?, ?)",
        (room_id, compact(state), compact(summary), status, sort_key, deadline_ms),
    )
