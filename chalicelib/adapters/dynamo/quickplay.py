"""Quick play: one ticket per user, a queue per rule system, matches claimed in one transaction.

| item         | pk               | sk                     | main attributes                       |
|--------------|------------------|------------------------|---------------------------------------|
| user ticket  | USER#<user_id>   | QUICKPLAY              | ticket_id, rules, since, rating, name, |
|              |                  |                        | status, room_id, grp, gsize, expires_at |
| queue entry  | QUEUE#<rules>    | <since 15 digits>#<id> | the same, while the ticket waits      |

The user's ticket item is the truth: it makes "one ticket per user" a key, and every write
that moves a ticket is conditional on it (``status = waiting AND ticket_id = <id>``). The
queue entry is an index of the waiting tickets of one system, in arrival order, read with a
strongly consistent Query (no GSI, so no eventually consistent read feeds the matcher); it
is written and deleted in the same transactions as the user item.

``claim_match`` is ONE TransactWriteItems: per ticket, the user item's conditional update to
``matched`` and the delete of its queue entry, the put of the requesting user's own ticket
when their request completed the table (conditional as ``queue_ticket``'s), then the room's
put (``attribute_not_exists``).
DynamoDB applies all of it or nothing; a concurrent claim of any of the tickets cancels it
(``ConditionalCheckFailed`` on that ticket: ``MatchLost``), so a ticket is matched at most once
and no room is made without its players, whatever the number of Lambdas matching at once.
Both items carry ``expires_at`` (TTL): a waiting ticket nobody matched, a matched one some
hours after its table was made. Reads hide expired items at once (TTL deletes late).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from chalicelib.adapters.dynamo._table import (
    Item,
    cancellation_codes,
    conditional_check_failed,
    failed_at,
    key,
    n,
    s,
)
from chalicelib.adapters.dynamo.rooms import DynamoRooms
from chalicelib.ports import JsonDict, MatchLost, QueueTicket, RoomExists, TicketHeld

TICKET_SK = "QUICKPLAY"


def queue_sort_key(since_ms: int, ticket_id: str) -> str:
    """A queue entry's sort key: arrival time (zero-padded ms), then the ticket id."""
    return f"{since_ms:015d}#{ticket_id}"


def _attrs(t: QueueTicket) -> Item:
    item: Item = {
        "ticket_id": s(t.id),
        "user_id": s(t.user_id),
        "name": s(t.name),
        "rules": s(t.rules),
        "since": n(t.since_ms),
        "rating": n(float(t.rating)),
        "status": s(t.status),
        "expires_at": n(t.expires_at_s),
        "gsize": n(t.group_size),
    }
    if t.room_id is not None:
        item["room_id"] = s(t.room_id)
    if t.group is not None:
        item["grp"] = s(t.group)
    return item


def _ticket(item: Item) -> QueueTicket:
    return QueueTicket(
        id=item["ticket_id"]["S"],
        user_id=item["user_id"]["S"],
        name=item["name"]["S"],
        rules=item["rules"]["S"],
        since_ms=int(item["since"]["N"]),
        rating=float(item["rating"]["N"]),
        expires_at_s=int(item["expires_at"]["N"]),
        status=item["status"]["S"],
        room_id=item["room_id"]["S"] if "room_id" in item else None,
        group=item["grp"]["S"] if "grp" in item else None,
        group_size=int(item.get("gsize", {}).get("N", "0")),
    )


class DynamoQuickplay(DynamoRooms):
    """The QueueStore port on the table (a claim's room put is the rooms' own)."""

    def _user_put(self, ticket: QueueTicket, now_ms: int) -> dict[str, Any]:
        """The put of a user's ticket item, unless a live waiting ticket is there."""
        return {
            "TableName": self.table_name,
            "Item": {**key(f"USER#{ticket.user_id}", TICKET_SK), **_attrs(ticket)},
            "ConditionExpression": (
                "attribute_not_exists(pk) OR #st <> :waiting OR expires_at <= :now"
            ),
            "ExpressionAttributeNames": {"#st": "status"},
            "ExpressionAttributeValues": {":waiting": s("waiting"), ":now": n(now_ms // 1000)},
        }

    def queue_ticket(self, ticket: QueueTicket, now_ms: int) -> None:
        """Put the user item (unless a live waiting ticket is there) and the queue entry."""
        user_put = self._user_put(ticket, now_ms)
        entry_put = {
            "TableName": self.table_name,
            "Item": {
                **key(f"QUEUE#{ticket.rules}", queue_sort_key(ticket.since_ms, ticket.id)),
                **_attrs(ticket),
            },
        }
        try:
            self._transact([{"Put": user_put}, {"Put": entry_put}])
        except Exception as err:
            if failed_at(cancellation_codes(err), 0):
                raise TicketHeld(self.user_ticket(ticket.user_id, now_ms)) from None
            raise

    def user_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """The user's ticket (one strongly consistent GetItem), unless expired."""
        item = self._get(f"USER#{user_id}", TICKET_SK)
        if not item or int(item["expires_at"]["N"]) <= now_ms // 1000:
            return None
        return _ticket(item)

    def waiting_tickets(self, rules: str, now_ms: int, limit: int = 200) -> list[QueueTicket]:
        """One strongly consistent Query of the system's queue, oldest first."""
        answer = self.client.query(
            TableName=self.table_name,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": s(f"QUEUE#{rules}")},
            ConsistentRead=True,
            Limit=limit,
        )
        now = now_ms // 1000
        return [
            _ticket(item) for item in answer.get("Items", []) if int(item["expires_at"]["N"]) > now
        ]

    def waiting_counts(self, rules: list[str], now_ms: int) -> dict[str, int]:
        """One Query per system (eventually consistent; the lobby's figures)."""
        now = now_ms // 1000
        counts = {}
        for name in rules:
            answer = self.client.query(
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk",
                FilterExpression="expires_at > :now",
                ExpressionAttributeValues={":pk": s(f"QUEUE#{name}"), ":now": n(now)},
                Select="COUNT",
            )
            counts[name] = int(answer.get("Count", 0))
        return counts

    def cancel_ticket(self, user_id: str, now_ms: int) -> QueueTicket | None:
        """Delete a waiting ticket with its queue entry (conditional on it still waiting)."""
        for _ in range(3):
            current = self.user_ticket(user_id, now_ms)
            if current is None or current.status != "waiting":
                return current
            try:
                self._transact(
                    [
                        {
                            "Delete": {
                                "TableName": self.table_name,
                                "Key": key(f"USER#{user_id}", TICKET_SK),
                                "ConditionExpression": "#st = :waiting AND ticket_id = :id",
                                "ExpressionAttributeNames": {"#st": "status"},
                                "ExpressionAttributeValues": {
                                    ":waiting": s("waiting"),
                                    ":id": s(current.id),
                                },
                            }
                        },
                        {"Delete": self._entry_delete(current)},
                    ]
                )
            except Exception as err:
                if failed_at(cancellation_codes(err), 0):
                    continue  # matched (or replaced) meanwhile: read it again
                raise
            return current
        return self.user_ticket(user_id, now_ms)

    def _entry_delete(self, t: QueueTicket) -> dict[str, Any]:
        return {
            "TableName": self.table_name,
            "Key": key(f"QUEUE#{t.rules}", queue_sort_key(t.since_ms, t.id)),
        }

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
        """One TransactWriteItems over every ticket taken (and ``new``) and the new room."""
        items: list[dict[str, Any]] = []
        for t in tickets:
            items.append(
                {
                    "Update": {
                        "TableName": self.table_name,
                        "Key": key(f"USER#{t.user_id}", TICKET_SK),
                        "UpdateExpression": "SET #st = :matched, room_id = :room, expires_at = :exp",
                        "ConditionExpression": "#st = :waiting AND ticket_id = :id",
                        "ExpressionAttributeNames": {"#st": "status"},
                        "ExpressionAttributeValues": {
                            ":matched": s("matched"),
                            ":waiting": s("waiting"),
                            ":room": s(room_id),
                            ":exp": n(matched_expires_at_s),
                            ":id": s(t.id),
                        },
                    }
                }
            )
            items.append({"Delete": self._entry_delete(t)})
        if new is not None:
            matched = replace(
                new, status="matched", room_id=room_id, expires_at_s=matched_expires_at_s
            )
            items.append({"Put": self._user_put(matched, now_ms)})
        items.append({"Put": self._room_put(room_id, state, summary, deadline_ms)})
        try:
            self._transact(items)
        except Exception as err:
            reasons = cancellation_codes(err)
            if any(failed_at(reasons, 2 * i) for i in range(len(tickets))):
                raise MatchLost(
                    f"a ticket of room {room_id}'s match is no longer waiting"
                ) from None
            if new is not None and failed_at(reasons, 2 * len(tickets)):
                raise TicketHeld(self.user_ticket(new.user_id, now_ms)) from None
            if failed_at(reasons, len(items) - 1):
                raise RoomExists(f"room {room_id} exists") from None
            if conditional_check_failed(err):
                raise MatchLost(str(err)) from None
            raise
