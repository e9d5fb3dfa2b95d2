"""Seats ("my games"), Web Push subscriptions and mobile devices, kept in each user's partition.

| item         | pk                  | sk                 | main attributes                      |
|--------------|---------------------|--------------------|--------------------------------------|
| seat         | USER#<user_id>      | SEAT#<room_id>     | room_id                              |
| subscription | USER#<user_id>      | PUSH#<sha256(endpoint)> | endpoint, p256dh, auth, created_at |
| endpoint     | PUSHEP#<sha256>     | OWNER              | user_id (one owner per endpoint)     |
| device       | USER#<user_id>      | DEVICE#<sha256(token)> | platform, token, endpoint_arn, created_at |
| token        | DEVICETOKEN#<sha256>| OWNER              | user_id (one owner per token)        |

"My games" is one Query of ``USER#<id>`` / ``SEAT#`` and one BatchGetItem of those rooms: no
scan, no index, and no write on a move (a seat is written when a user sits down and deleted
when they leave or the room ends). A browser endpoint or device token has one owner: when
another user registers it, the previous owner's item goes in the same transaction, so a
shared browser never receives the last user's notifications.
"""

from __future__ import annotations

import hashlib
from typing import Any

from chalicelib.adapters.dynamo._table import Item, Table, conditional_check_failed, key, n, s
from chalicelib.adapters.dynamo.rooms import _stored
from chalicelib.ports import DeviceRecord, PushSubscriptionRecord, StoredRoom

_BATCH_GET = 100


def _h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class DynamoNotifications(Table):
    """The NotificationStore port on the table."""

    def seat(self, user_id: str, room_id: str) -> None:
        self.client.put_item(
            TableName=self.table_name,
            Item={**key(f"USER#{user_id}", f"SEAT#{room_id}"), "room_id": s(room_id)},
        )

    def unseat(self, user_id: str, room_id: str) -> None:
        self.client.delete_item(
            TableName=self.table_name, Key=key(f"USER#{user_id}", f"SEAT#{room_id}")
        )

    def seated_rooms(self, user_id: str) -> list[str]:
        items = self._query_all(f"USER#{user_id}", "SEAT#", "room_id")
        return sorted(item["room_id"]["S"] for item in items)

    def get_rooms(self, room_ids: list[str]) -> dict[str, StoredRoom]:
        found: dict[str, StoredRoom] = {}
        ids = list(dict.fromkeys(room_ids))
        for i in range(0, len(ids), _BATCH_GET):
            keys = [key(f"ROOM#{rid}", "ROOM") for rid in ids[i : i + _BATCH_GET]]
            request = {self.table_name: {"Keys": keys, "ConsistentRead": True}}
            for answer in self._batch("batch_get_item", request):
                for item in answer.get("Responses", {}).get(self.table_name, []):
                    stored = _stored(item)
                    if stored is not None:
                        found[item["pk"]["S"].removeprefix("ROOM#")] = stored
        return found

    def _move_owner(self, owner_pk: str, user_id: str, item_sk: str, new_item: Item) -> bool:
        """Make ``user_id`` the one owner of an endpoint/token; True when it was not theirs."""
        owner = self._get(owner_pk, "OWNER")
        previous = owner["user_id"]["S"] if owner else None
        writes: list[dict[str, Any]] = [
            {"Put": {"TableName": self.table_name, "Item": new_item}},
            {
                "Put": {
                    "TableName": self.table_name,
                    "Item": {**key(owner_pk, "OWNER"), "user_id": s(user_id)},
                }
            },
        ]
        if previous is not None and previous != user_id:
            writes.append(
                {
                    "Delete": {
                        "TableName": self.table_name,
                        "Key": key(f"USER#{previous}", item_sk),
                    }
                }
            )
        self._transact(writes)
        return previous != user_id

    def put_push_subscription(self, user_id: str, sub: PushSubscriptionRecord) -> bool:
        h = _h(sub.endpoint)
        item = {
            **key(f"USER#{user_id}", f"PUSH#{h}"),
            "endpoint": s(sub.endpoint),
            "p256dh": s(sub.p256dh),
            "auth": s(sub.auth),
            "created_at": n(sub.created_at),
        }
        return self._move_owner(f"PUSHEP#{h}", user_id, f"PUSH#{h}", item)

    def delete_push_subscription(self, user_id: str, endpoint: str) -> bool:
        h = _h(endpoint)
        answer = self.client.delete_item(
            TableName=self.table_name,
            Key=key(f"USER#{user_id}", f"PUSH#{h}"),
            ReturnValues="ALL_OLD",
        )
        if not answer.get("Attributes"):
            return False
        self._delete_owner(f"PUSHEP#{h}", user_id)
        return True

    def _delete_owner(self, owner_pk: str, user_id: str) -> None:
        try:
            self.client.delete_item(
                TableName=self.table_name,
                Key=key(owner_pk, "OWNER"),
                ConditionExpression="user_id = :u",
                ExpressionAttributeValues={":u": s(user_id)},
            )
        except Exception as err:  # another user owns it now: theirs stays
            if not conditional_check_failed(err):
                raise

    def push_subscriptions(self, user_id: str) -> list[PushSubscriptionRecord]:
        items = self._query_all(f"USER#{user_id}", "PUSH#")
        subs = [
            PushSubscriptionRecord(
                i["endpoint"]["S"], i["p256dh"]["S"], i["auth"]["S"], int(i["created_at"]["N"])
            )
            for i in items
        ]
        return sorted(subs, key=lambda x: (x.created_at, x.endpoint))

    def put_device(self, user_id: str, device: DeviceRecord) -> bool:
        h = _h(device.token)
        item = {
            **key(f"USER#{user_id}", f"DEVICE#{h}"),
            "platform": s(device.platform),
            "token": s(device.token),
            "created_at": n(device.created_at),
        }
        if device.endpoint_arn:
            item["endpoint_arn"] = s(device.endpoint_arn)
        return self._move_owner(f"DEVICETOKEN#{h}", user_id, f"DEVICE#{h}", item)

    def delete_device(self, user_id: str, token: str) -> DeviceRecord | None:
        h = _h(token)
        answer = self.client.delete_item(
            TableName=self.table_name,
            Key=key(f"USER#{user_id}", f"DEVICE#{h}"),
            ReturnValues="ALL_OLD",
        )
        old = answer.get("Attributes")
        if not old:
            return None
        self._delete_owner(f"DEVICETOKEN#{h}", user_id)
        return _device(old)

    def devices(self, user_id: str) -> list[DeviceRecord]:
        items = self._query_all(f"USER#{user_id}", "DEVICE#")
        return sorted((_device(i) for i in items), key=lambda d: (d.created_at, d.token))


def _device(item: Item) -> DeviceRecord:
    arn = item.get("endpoint_arn")
    return DeviceRecord(
        item["platform"]["S"],
        item["token"]["S"],
        arn["S"] if arn else None,
        int(item["created_at"]["N"]),
    )
