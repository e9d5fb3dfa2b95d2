"""SQLite chat: a room's messages.

| table | key | columns |
|---|---|---|
| ``chat`` | ``room_id``, ``msg_id`` (time-ordered, see ``new_chat_id``) | ``user_id``, ``name``, ``text``, ``at`` (ms) |

A room's chat is deleted with the room when ``sweep`` removes it.
"""

from __future__ import annotations

from chalicelib.adapters.policy import new_chat_id
from chalicelib.adapters.sqlite._base import Database
from chalicelib.ports import ChatMessage


class SqliteChat(Database):
    """Chat messages (``ChatStore``)."""

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
