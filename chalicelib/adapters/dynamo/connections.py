"""Realtime bookkeeping: WebSocket connections, room subscriptions and connection tickets.

| item         | pk              | sk            | main attributes                          |
|--------------|-----------------|---------------|------------------------------------------|
| connection   | CONN#<conn_id>  | CONN          | user_id, connected_at, rooms, expires_at |
| subscription | ROOM#<room_id>  | SUB#<conn_id> | user_id, expires_at                      |
| ticket       | TICKET#<sha256> | TICKET        | user_id, expires_ms, expires_at          |
"""

from __future__ import annotations

from typing import Any

from chalicelib.adapters.dynamo._table import Item, Table, conditional_check_failed, key, n, s
from chalicelib.adapters.policy import CONNECTION_TTL_SECONDS, ticket_expires_at, ticket_key
from chalicelib.ports import Connection


class DynamoConnections(Table):
    """The RealtimeStore port on the table."""

    def __init__(
        self,
        table_name: str,
        region: str | None = None,
        *,
        client: Any = None,
        connection_ttl_seconds: int = CONNECTION_TTL_SECONDS,
    ) -> None:
        super().__init__(table_name, region, client=client)
        self.connection_ttl_seconds = connection_ttl_seconds

    def put_connection(
        self, connection_id: str, user_id: str | None, now_ms: int, channels: tuple[str, ...] = ()
    ) -> None:
        """Record a new connection (kept ``connection_ttl_seconds`` without a disconnect).

        With ``channels``: the connection's item and one subscription item per channel in one
        TransactWriteItems, so a fault leaves neither.
        """
        item: Item = {
            **key(f"CONN#{connection_id}", "CONN"),
            "connected_at": n(now_ms),
            "expires_at": n(now_ms // 1000 + self.connection_ttl_seconds),
        }
        if user_id is not None:
            item["user_id"] = s(user_id)
        if not channels:
            self.client.put_item(TableName=self.table_name, Item=item)
            return
        item["rooms"] = {"SS": list(channels)}
        subs: list[Item] = []
        for channel in channels:
            sub: Item = {
                **key(f"ROOM#{channel}", f"SUB#{connection_id}"),
                "expires_at": item["expires_at"],
            }
            if user_id is not None:
                sub["user_id"] = s(user_id)
            subs.append(sub)
        self.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": self.table_name, "Item": it}} for it in (item, *subs)
            ]
        )

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection (one GetItem)."""
        item = self._get(f"CONN#{connection_id}", "CONN")
        if not item:
            return None
        return Connection(
            connection_id=connection_id,
            user_id=item["user_id"]["S"] if "user_id" in item else None,
            connected_at_ms=int(item["connected_at"]["N"]),
            rooms=frozenset(item.get("rooms", {}).get("SS", [])),
        )

    def delete_connection(self, connection_id: str) -> None:
        """Forget a connection and its subscriptions (one DeleteItem, one BatchWriteItem)."""
        answer = self.client.delete_item(
            TableName=self.table_name,
            Key=key(f"CONN#{connection_id}", "CONN"),
            ReturnValues="ALL_OLD",
        )
        rooms = sorted(answer.get("Attributes", {}).get("rooms", {}).get("SS", []))
        deletes = [
            {"DeleteRequest": {"Key": key(f"ROOM#{r}", f"SUB#{connection_id}")}} for r in rooms
        ]
        for start in range(0, len(deletes), 25):
            request: dict[str, Any] = {self.table_name: deletes[start : start + 25]}
            for _answer in self._batch("batch_write_item", request):
                pass

    def subscribe(self, connection_id: str, room_id: str) -> bool:
        """Subscribe a known connection to a room; False when the connection is unknown."""
        try:
            answer = self.client.update_item(
                TableName=self.table_name,
                Key=key(f"CONN#{connection_id}", "CONN"),
                UpdateExpression="ADD #rooms :room",
                # Only live connections subscribe: a late subscribe must not resurrect one.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#rooms": "rooms"},
                ExpressionAttributeValues={":room": {"SS": [room_id]}},
                ReturnValues="ALL_NEW",
            )
        except Exception as err:
            if conditional_check_failed(err):
                return False
            raise
        conn = answer["Attributes"]
        item: Item = {
            **key(f"ROOM#{room_id}", f"SUB#{connection_id}"),
            "expires_at": conn["expires_at"],
        }
        if "user_id" in conn:
            item["user_id"] = conn["user_id"]
        self.client.put_item(TableName=self.table_name, Item=item)
        return True

    def unsubscribe(self, connection_id: str, room_id: str) -> None:
        """Unsubscribe (missing is fine)."""
        self.client.delete_item(
            TableName=self.table_name, Key=key(f"ROOM#{room_id}", f"SUB#{connection_id}")
        )
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key=key(f"CONN#{connection_id}", "CONN"),
                UpdateExpression="DELETE #rooms :room",
                # Only live connections: do not create an empty connection item.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#rooms": "rooms"},
                ExpressionAttributeValues={":room": {"SS": [room_id]}},
            )
        except Exception as err:
            if not conditional_check_failed(err):
                raise

    def subscribers(self, room_id: str) -> list[tuple[str, str | None]]:
        """``(connection_id, user_id)`` of every connection watching the room (one Query)."""
        return [
            (it["sk"]["S"][len("SUB#") :], it["user_id"]["S"] if "user_id" in it else None)
            for it in self._query_all(f"ROOM#{room_id}", "SUB#", projection="sk, user_id")
        ]

    def put_ticket(self, ticket: str, user_id: str, expires_ms: int) -> None:
        """Store a WebSocket ticket (by hash) for ``user_id`` until ``expires_ms``."""
        self.client.put_item(
            TableName=self.table_name,
            Item={
                **key(f"TICKET#{ticket_key(ticket)}", "TICKET"),
                "user_id": s(user_id),
                "expires_ms": n(expires_ms),
                "expires_at": n(ticket_expires_at(expires_ms)),
            },
        )

    def consume_ticket(self, ticket: str, now_ms: int) -> str | None:
        """Use a ticket once (conditional delete): its user id, or None if unknown/used/expired."""
        try:
            answer = self.client.delete_item(
                TableName=self.table_name,
                Key=key(f"TICKET#{ticket_key(ticket)}", "TICKET"),
                # Single use: only the one caller that deletes the stored ticket gets its user.
                ConditionExpression="attribute_exists(pk)",
                ReturnValues="ALL_OLD",
            )
        except Exception as err:
            if conditional_check_failed(err):
                return None
            raise
        old = answer.get("Attributes") or {}
        if not old or int(old["expires_ms"]["N"]) <= now_ms:
            return None
        return str(old["user_id"]["S"])
