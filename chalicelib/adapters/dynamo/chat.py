"""Chat: a room's messages, in its partition, in time order.

| item         | pk             | sk            | main attributes          |
|--------------|----------------|---------------|--------------------------|
| chat message | ROOM#<room_id> | CHAT#<msg_id> | user_id, name, text, at  |

The store returns ``ports.ChatMessage`` records; ``chalicelib.wire.chat_message`` makes the
shape clients see.
"""

from __future__ import annotations

from chalicelib.adapters.dynamo._table import Item, Table, key, n, s
from chalicelib.adapters.policy import new_chat_id
from chalicelib.ports import ChatMessage


class DynamoChat(Table):
    """The ChatStore port on the table."""

    def append_chat(
        self, room_id: str, user_id: str, name: str, text: str, at_ms: int
    ) -> ChatMessage:
        """Store a message (one conditional PutItem) and return it."""
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
        return ChatMessage(msg_id, user_id, name, text, at_ms)

    def list_chat(
        self, room_id: str, after_id: str | None = None, limit: int = 50
    ) -> list[ChatMessage]:
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


def _message(item: Item) -> ChatMessage:
    return ChatMessage(
        id=item["sk"]["S"][len("CHAT#") :],
        user_id=item["user_id"]["S"],
        name=item["name"]["S"],
        text=item["text"]["S"],
        at_ms=int(item["at"]["N"]),
    )
