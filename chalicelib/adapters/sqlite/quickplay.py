"""SQLite quick play: the QueueStore port.

| table | key | columns |
|---|---|---|
| ``quickplay_tickets`` | ``user_id`` (one ticket per user) | ``ticket_id``, ``name``, ``rules``, ``since`` (ms), ``rating``, ``status``, ``room_id``, ``grp``, ``gsize``, ``expires_at`` |

The waiting tickets are found by the index ``(status, rules, since)``. Every write that moves a ticket
runs in one ``BEGIN IMMEDIATE`` transaction that checks and writes together: ``claim_match``
updates each ticket ``WHERE status = 'waiting' AND ticket_id = ?`` and inserts the room; if
any ticket's update touches no row, the whole transaction rolls back (``MatchLost``). SQLite
admits one writer at a time (across the local server's worker processes too), so the check
and the write cannot interleave with another claim: the same argument as DynamoDB's
conditional transaction (docs/ARCHITECTURE.md, "Quick play").
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import Any

from chalicelib.adapters.sqlite._base import Database
from chalicelib.adapters.sqlite.rooms import _insert_room
from chalicelib.ports import JsonDict, MatchLost, QueueTicket, TicketHeld

_COLUMNS = "ticket_id, user_id, name, rules, since, rating, expires_at, status, room_id, grp, gsize"


def _ticket(row: tuple[Any, ...]) -> QueueTicket:
    tid, uid, name, rules, since, rating, expires, status, room_id, grp, gsize = row
    return QueueTicket(
        id=tid,
        user_id=uid,
        name=name,
        rules=rules,
        since_ms=int(since),
        rating=float(rating),
        expires_at_s=int(expires),
        status=status,
        room_id=room_id,
        group=grp,
        group_size=int(gsize),
    )


class SqliteQuickplay(Database):
    """Quick play's tickets (``QueueStore``)."""

    @staticmethod
    def _held(db: sqlite3.Connection, user_id: str, now_s: int) -> QueueTicket | None:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM quickplay_tickets WHERE user_id = ? AND expires_at > ?",
            (user_id, now_s),
        ).fetchone()
        return None if row is None else _ticket(row)

    def queue_ticket(self, ticket: QueueTicket, now_ms: int) -> None:
        """Store a waiting ticket unless the user holds a live waiting one (TicketHeld)."""
        t = ticket
        with self._write() as db:
            held = self._held(db, t.user_id, now_ms // 1000)
            if held is not None and held.status == "waiting":
                raise TicketHeld(held)
            self._put(db, t)

    @staticmethod
    def _put(db: sqlite3.Connection, t: QueueTicket) -> None:
        db.execute(
            f"INSERT OR REPLACE INTO quickplay_tickets ({_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                t.id,
                t.user_id,
                t.name,
                t.rules,
                t.since_ms,
                float(t.rating),
                t.expires_at_s,
                t.status,
                t.room_id,
                t.group,
                t.group_size,
            ),
        )

    def user_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """The user's unexpired ticket, or None."""
        with self._read() as db:
            return self._held(db, user_id, now_ms // 1000)

    def waiting_tickets(self, rules: str, now_ms: int, limit: int = 200) -> list[QueueTicket]:
        """Waiting, unexpired tickets for ``rules``, oldest first."""
        with self._read() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM quickplay_tickets WHERE status = 'waiting'"
                " AND rules = ? AND expires_at > ? ORDER BY since, ticket_id LIMIT ?",
                (rules, now_ms // 1000, limit),
            ).fetchall()
        return [_ticket(r) for r in rows]

    def waiting_counts(self, rules: list[str], now_ms: int) -> dict[str, int]:
        """How many unexpired tickets wait for each of ``rules``."""
        with self._read() as db:
            rows = db.execute(
                "SELECT rules, count(*) FROM quickplay_tickets WHERE status = 'waiting'"
                " AND expires_at > ? GROUP BY rules",
                (now_ms // 1000,),
            ).fetchall()
        found = {str(r): int(c) for r, c in rows}
        return {name: found.get(name, 0) for name in rules}

    def cancel_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """Delete the user's waiting ticket; a matched one is left and returned."""
        with self._write() as db:
            held = self._held(db, user_id, now_ms // 1000)
            if held is not None and held.status == "waiting":
                db.execute("DELETE FROM quickplay_tickets WHERE user_id = ?", (user_id,))
            return held

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
        """One transaction: every ticket still waiting with its id becomes matched, ``new`` is
        stored matched, and the room is inserted; otherwise nothing (MatchLost, TicketHeld,
        RoomExists)."""
        with self._write() as db:
            if new is not None:
                held = self._held(db, new.user_id, now_ms // 1000)
                if held is not None and held.status == "waiting":
                    raise TicketHeld(held)
                matched = replace(
                    new, status="matched", room_id=room_id, expires_at_s=matched_expires_at_s
                )
                self._put(db, matched)
            for t in tickets:
                changed = db.execute(
                    "UPDATE quickplay_tickets SET status = 'matched', room_id = ?, expires_at = ?"
                    " WHERE user_id = ? AND ticket_id = ? AND status = 'waiting'",
                    (room_id, matched_expires_at_s, t.user_id, t.id),
                ).rowcount
                if changed != 1:
                    raise MatchLost(f"ticket {t.id} is no longer waiting")
            _insert_room(db, room_id, state, summary, None, None, deadline_ms)
