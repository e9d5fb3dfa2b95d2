"""SQLite users: profiles, usernames, preferences, invitations.

| table | key | columns |
|---|---|---|
| ``users`` | ``user_id`` (``username_key``, the lowercased username, is unique) | ``name``, ``guest``, ``username``, ``password_hash``, ``continue_mode``, ``language``, ``created_at`` (ms), ``expires_at`` (guests); the rating columns belong to ``records`` |
| ``invitations`` | ``user_id``, ``room_id`` | ``host_name``, ``at`` (ms), ``expires_at`` |
"""

from __future__ import annotations

from typing import Any

from chalicelib.adapters.policy import INVITATION_TTL_SECONDS
from chalicelib.adapters.sqlite._base import LIVE, Database
from chalicelib.ports import JsonDict, UnknownUser, UserExists, UsernameTaken, UserRecord

_USER_COLUMNS = (
    "user_id, name, guest, username, password_hash, continue_mode, created_at, expires_at, language"
)


class SqliteUsers(Database):
    """Accounts and invitations (``UserStore``)."""

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
                f"SELECT {_USER_COLUMNS} FROM users WHERE user_id = ? AND {LIVE}",
                (user_id, self._now_s()),
            ).fetchone()
        return None if row is None else _user(row)

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username (case-insensitive)."""
        with self._read() as db:
            row = db.execute(
                f"SELECT {_USER_COLUMNS} FROM users WHERE username_key = ? AND {LIVE}",
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

    def set_language(self, user_id: str, language: str) -> None:
        """Store the user's interface language; raise UnknownUser."""
        self._update_user(user_id, "language", language)

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a user's password hash; raise UnknownUser."""
        self._update_user(user_id, "password_hash", password_hash)

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
                f"SELECT room_id, host_name FROM invitations WHERE user_id = ? AND {LIVE}"
                " ORDER BY at, room_id",
                (user_id, self._now_s()),
            ).fetchall()
        return [{"room_id": rid, "host_name": host} for rid, host in rows]

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        with self._write() as db:
            db.execute(
                "DELETE FROM invitations WHERE user_id = ? AND room_id = ?", (user_id, room_id)
            )


def _user(row: tuple[Any, ...]) -> UserRecord:
    uid, name, guest, username, password_hash, continue_mode, created_at, expires_at, lang = row
    return UserRecord(
        id=uid,
        name=name,
        guest=bool(guest),
        username=username,
        password_hash=password_hash,
        continue_mode=continue_mode or "auto",
        created_at_ms=int(created_at or 0),
        expires_at_s=None if expires_at is None else int(expires_at),
        language=lang,
    )
