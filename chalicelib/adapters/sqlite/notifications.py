"""SQLite seats ("my games"), Web Push subscriptions and mobile devices.

| table | key | columns |
|---|---|---|
| ``seats`` | ``user_id``, ``room_id`` | (the rooms a user sits in while they are open) |
| ``push_subscriptions`` | ``endpoint`` (one owner: a browser subscribed again by another user moves to them) | ``user_id`` (indexed), ``p256dh``, ``auth``, ``created_at`` (ms) |
| ``devices`` | ``token`` (one owner) | ``user_id`` (indexed), ``platform``, ``endpoint_arn``, ``created_at`` (ms) |

The tables are schema step 6 of ``_schema.MIGRATIONS``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from chalicelib.adapters.sqlite._base import LIVE, Database
from chalicelib.ports import DeviceRecord, PushSubscriptionRecord, StoredRoom

_IN_CHUNK = 500


class SqliteNotifications(Database):
    """Seats, push subscriptions and devices (the NotificationStore port)."""

    def seat(self, user_id: str, room_id: str) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO seats (user_id, room_id) VALUES (?, ?)", (user_id, room_id)
            )

    def unseat(self, user_id: str, room_id: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM seats WHERE user_id = ? AND room_id = ?", (user_id, room_id))

    def seated_rooms(self, user_id: str) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT room_id FROM seats WHERE user_id = ? ORDER BY room_id", (user_id,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def get_rooms(self, room_ids: list[str]) -> dict[str, StoredRoom]:
        found: dict[str, StoredRoom] = {}
        ids = list(dict.fromkeys(room_ids))
        with self._read() as db:
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                rows = db.execute(
                    f"SELECT room_id, state, version FROM rooms WHERE room_id IN ({marks})"
                    f" AND {LIVE}",
                    (*chunk, self._now_s()),
                ).fetchall()
                for rid, state, version in rows:
                    found[str(rid)] = StoredRoom(json.loads(state), int(version))
        return found

    def put_push_subscription(self, user_id: str, sub: PushSubscriptionRecord) -> bool:
        with self._write() as db:
            row = db.execute(
                "SELECT user_id FROM push_subscriptions WHERE endpoint = ?", (sub.endpoint,)
            ).fetchone()
            db.execute(
                "INSERT OR REPLACE INTO push_subscriptions"
                " (endpoint, user_id, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)",
                (sub.endpoint, user_id, sub.p256dh, sub.auth, sub.created_at),
            )
        return row is None or row[0] != user_id

    def delete_push_subscription(self, user_id: str, endpoint: str) -> bool:
        with self._write() as db:
            cur = db.execute(
                "DELETE FROM push_subscriptions WHERE endpoint = ? AND user_id = ?",
                (endpoint, user_id),
            )
            return cur.rowcount > 0

    def push_subscriptions(self, user_id: str) -> list[PushSubscriptionRecord]:
        with self._read() as db:
            rows = db.execute(
                "SELECT endpoint, p256dh, auth, created_at FROM push_subscriptions"
                " WHERE user_id = ? ORDER BY created_at, endpoint",
                (user_id,),
            ).fetchall()
        return [PushSubscriptionRecord(e, p, a, int(c)) for e, p, a, c in rows]

    def put_device(self, user_id: str, device: DeviceRecord) -> bool:
        with self._write() as db:
            row = db.execute(
                "SELECT user_id FROM devices WHERE token = ?", (device.token,)
            ).fetchone()
            db.execute(
                "INSERT OR REPLACE INTO devices (token, user_id, platform, endpoint_arn, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (device.token, user_id, device.platform, device.endpoint_arn, device.created_at),
            )
        return row is None or row[0] != user_id

    def delete_device(self, user_id: str, token: str) -> DeviceRecord | None:
        with self._write() as db:
            row = db.execute(
                "SELECT platform, token, endpoint_arn, created_at FROM devices"
                " WHERE token = ? AND user_id = ?",
                (token, user_id),
            ).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM devices WHERE token = ?", (token,))
        return _device(row)

    def devices(self, user_id: str) -> list[DeviceRecord]:
        with self._read() as db:
            rows = db.execute(
                "SELECT platform, token, endpoint_arn, created_at FROM devices"
                " WHERE user_id = ? ORDER BY created_at, token",
                (user_id,),
            ).fetchall()
        return [_device(r) for r in rows]


def _device(row: Any) -> DeviceRecord:
    platform, token, arn, created = row
    return DeviceRecord(str(platform), str(token), arn, int(created))


def _chunks(ids: list[str]) -> Iterator[list[str]]:
    for i in range(0, len(ids), _IN_CHUNK):
        yield ids[i : i + _IN_CHUNK]
