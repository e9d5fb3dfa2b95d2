"""Chat: a room's messages, in its partition, in time order.

| item         | pk             | sk            | main attributes          |
|--------------|----------------|---------------|--------------------------|
| chat message | ROOM#<room_id> | CHAT#<msg_id> | user_id, name, text, at  |

Messages come back as ``{"id", "user": {"id", "name"}, "text", "at"}`` (``chat_message``).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from chalicelib.adapters.dynamo._table import Item, Table, key, n, s
from chalicelib.ports import JsonDict


def chat_message(msg_id: str, user_id: str, name: str, text: str, at_ms: int) -> JsonDict:
    """A chat message as the API shows it (``at`` in ISO 8601 UTC with ``Z``)."""
    at = datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="milliseconds")
    return {
        "id": msg_id,
        "user": {"id": user_id, "name": name},
        "text": text,
        "at": at.replace("+00:00", "Z"),
    }


def new_chat_id(at_ms: int) -> str:
    """A message id that sorts by time (ties broken at random)."""
    return f"{at_ms:013d}-{secrets.token_hex(4)}"


class DynamoChat(Table):
    """The ChatStore port on the table."""

    def append_chat(self, room_id: str, user_id: str, name: str, text: str, at_ms: int) -> JsonDict:
        """Store a message; return ``{"id", "user": {"id", "name"}, "text", "at"}``."""
        msg_id = new_chat_id(at_ms)
        self.client.put_item(
            TableName=self.table_name,
            Item={
                **key(f"ROOM#{room_id}", f"CHAT#{msg_id}"),
                "user_id": s(user_id),
                "name": s(name),
                "text": s(text),
                "at": n(at_ms),
            },
            # A message id is used once: a collision must not replace another message.
            ConditionExpression="attribute_not_exists(sk)",
        )
        return chat_message(msg_id, user_id, name, text, at_ms)

    def list_chat(
        self, room_id: str, after_id: str | None = None, limit: int = 50
    ) -> list[JsonDict]:
        """Messages in order: the latest ``limit``, or the first ``limit`` after ``after_id``."""
        if limit <= 0:
            return []
        names = {"#sk": "sk", "#text": "text", "#name": "name", "#at": "at"}
        projection = "#sk, user_id, #name, #text, #at"
        if after_id is None:
            latest = self._query_newest(
                "pk = :pk AND begins_with(#sk, :p)",
                {":pk": s(f"ROOM#{room_id}"), ":p": s("CHAT#")},
                limit,
                ExpressionAttributeNames=names,
                ProjectionExpression=projection,
            )
            items = list(reversed(latest))
        else:
            answer = self.client.query(
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk AND #sk BETWEEN :lo AND :hi",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={
                    ":pk": s(f"ROOM#{room_id}"),
                    ":lo": s(f"CHAT#{after_id}"),
                    ":hi": s("CHAT#\U0010ffff"),
                },
                ProjectionExpression=projection,
                Limit=limit + 1,
            )
            items = [it for it in answer.get("Items", []) if it["sk"]["S"] != f"CHAT#{after_id}"]
            items = items[:limit]
        return [_message(it) for it in items]


def _message(item: Item) -> JsonDict:
    return chat_message(
        item["sk"]["S"][len("CHAT#") :],
        item["user_id"]["S"],
        item["name"]["S"],
        item["text"]["S"],
        int(item["at"]["N"]),
    )
