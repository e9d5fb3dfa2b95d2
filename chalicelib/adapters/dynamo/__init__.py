"""DynamoDB store: everything in ONE table (single-table design, see docs/STORAGE.md).

Keys are strings ``pk`` and ``sk``; ``expires_at`` (epoch seconds) is the TTL attribute; one
global secondary index ``gsi1`` (``gsi1pk`` = ``LOBBY#<status>``, ``gsi1sk`` =
zero-padded created-at ms + room id, projecting only ``room_id`` and ``summary``) serves the
lobby list.

| item              | pk                   | sk              | main attributes                     |
|-------------------|----------------------|-----------------|-------------------------------------|
| room              | ROOM#<room_id>       | ROOM            | state or state_z, version, summary  |
| round record(s)   | ROOM#<room_id>       | ROUND#<first 5d>| first, last, records or records_z   |
| subscription      | ROOM#<room_id>       | SUB#<conn_id>   | user_id, expires_at                 |
| chat message      | ROOM#<room_id>       | CHAT#<msg_id>   | user_id, name, text, at             |
| user              | USER#<user_id>       | PROFILE         | name, guest, username, password_hash, continue_mode, rating, expires_at (guests) |
| open rooms        | USER#<user_id>       | OPENROOMS       | rooms (string set)                  |
| invitation        | USER#<user_id>       | INVITE#<room_id>| host_name, at, expires_at           |
| username          | USERNAME#<lowercase> | USERNAME        | user_id                             |
| rated game        | GAME#<game_key>      | GAME            | changes, record                     |
| user's rated game | USER#<user_id>       | RATED#<at>#<key>| row                                 |
| rate-limit window | RATE#<key>           | W#<window no.>  | n, expires_at                       |
| connection        | CONN#<conn_id>       | CONN            | user_id, connected_at, rooms, expires_at |
| ticket            | TICKET#<sha256>      | TICKET          | user_id, expires_ms, expires_at     |

The room's engine state is compact JSON in ``state`` (S), or zlib-compressed JSON in
``state_z`` (B) once the JSON passes ``COMPRESS_ABOVE`` bytes, so the hot item stays small;
new writes compress with a preset dictionary of typical states (``room_state.zdict``), which
halves the compressed size, and states written without it still read.

Only this module and its siblings import boto3; the client is made on first use, and is
exposed as ``DynamoStore.client`` so a benchmark can hook its events (``count_requests``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import secrets
import zlib
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chalicelib.adapters._aws import LazyClient
from chalicelib.ports import (
    Connection,
    JsonDict,
    NewRoom,
    PlayerStats,
    RatedOutcome,
    RatingsWrite,
    RoomExists,
    RoomLimitReached,
    RoundsWrite,
    Standing,
    StoredRoom,
    TooManyRatingChanges,
    UnknownUser,
    UserExists,
    UsernameTaken,
    UserRecord,
    VersionConflict,
)
from chalicelib.retry import with_backoff

COMPRESS_ABOVE = 256
DEFAULT_RATING = 1500
INVITATION_TTL_SECONDS = 7 * 24 * 3600
MAX_RATING_CHANGES = 99  # a transaction holds 100 items: the changes plus the game record
MAX_TRANSACTION_ITEMS = 100
LEADERBOARD_SHARDS = 8
"""The leaderboard index (``gsi2``) is spread over this many partitions (``LB#0`` … ``LB#7``)."""
TRANSACTION_ATTEMPTS = 3  # a transaction cancelled by a concurrent write is tried again

log = logging.getLogger(__name__)

Item = dict[str, Any]


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: int | float) -> dict[str, str]:
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def _code(err: Exception) -> str:
    response = getattr(err, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


STATE_DICTIONARY_FILE = Path(__file__).with_name("room_state.zdict")
"""zlib preset dictionary of typical room states (``bench/state_dictionary.py``); frozen."""


@functools.cache
def _current_dictionary() -> bytes:
    return STATE_DICTIONARY_FILE.read_bytes()


def state_dictionaries() -> dict[int, bytes]:
    """Every preset dictionary a stored state may use, by its zlib id (Adler-32)."""
    data = _current_dictionary()
    return {zlib.adler32(data): data}


def _deflate(raw: bytes) -> bytes:
    """zlib with the preset dictionary: about half the bytes of plain zlib on a room state,
    which keeps a room item under the 1 KB that one write unit buys."""
    packer = zlib.compressobj(6, zdict=_current_dictionary())
    return packer.compress(raw) + packer.flush()


def _inflate(data: bytes) -> bytes:
    """Plain zlib, or zlib with the preset dictionary its header names (FDICT flag)."""
    if len(data) >= 6 and data[1] & 0x20:
        zdict = state_dictionaries()[int.from_bytes(data[2:6], "big")]
        unpacker = zlib.decompressobj(zdict=zdict)
        return unpacker.decompress(data) + unpacker.flush()
    return zlib.decompress(data)


def encode_state(state: JsonDict) -> tuple[str, dict[str, Any]]:
    """The attribute name and value holding ``state``: plain JSON or zlib-compressed JSON."""
    text = _compact(state)
    raw = text.encode()
    if len(raw) > COMPRESS_ABOVE:
        return "state_z", {"B": _deflate(raw)}
    return "state", {"S": text}


def _encode_json(name: str, data: Any) -> tuple[str, dict[str, Any]]:
    """``name`` with compact JSON, or ``name_z`` with zlib JSON once over ``COMPRESS_ABOVE``."""
    raw = _compact(data).encode()
    if len(raw) > COMPRESS_ABOVE:
        return f"{name}_z", {"B": zlib.compress(raw, 6)}
    return name, {"S": raw.decode()}


def _decode_json(name: str, item: Item) -> Any:
    if f"{name}_z" in item:
        return json.loads(zlib.decompress(item[f"{name}_z"]["B"]).decode())
    return json.loads(item[name]["S"])


def decode_state(item: Item) -> JsonDict:
    """The engine state held by a stored room item."""
    if "state_z" in item:
        data: JsonDict = json.loads(_inflate(item["state_z"]["B"]).decode())
        return data
    text: JsonDict = json.loads(item["state"]["S"])
    return text


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


def ticket_key(ticket: str) -> str:
    """Tickets are stored by hash: a table reader cannot replay one."""
    return hashlib.sha256(ticket.encode()).hexdigest()


def lobby_sort_key(created_at_ms: int, room_id: str) -> str:
    """GSI sort key: creation time (zero-padded ms), then room id."""
    return f"{created_at_ms:015d}#{room_id}"


def leaderboard_shard(user_id: str) -> str:
    """The leaderboard index partition of a user: a stable hash of the id over the shards."""
    digest = hashlib.sha256(user_id.encode()).digest()
    return f"LB#{int.from_bytes(digest[:4], 'big') % LEADERBOARD_SHARDS}"


def count_requests(store: DynamoStore) -> Counter[str]:
    """Count the store's DynamoDB calls by operation name from now on (for benchmarks, tests)."""
    counts: Counter[str] = Counter()

    def on_call(model: Any, **_: Any) -> None:
        counts[model.name] += 1

    store.client.meta.events.register("before-call.dynamodb", on_call)
    return counts


class DynamoStore:
    """The Store port on one DynamoDB table."""

    def __init__(
        self,
        table_name: str,
        region: str | None = None,
        *,
        client: Any = None,
        connection_ttl_seconds: int = 3 * 3600,
    ) -> None:
        self.table_name = table_name
        self.region = region
        self.connection_ttl_seconds = connection_ttl_seconds
        self._client = LazyClient("dynamodb", client=client, region_name=region)

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client, created on first use."""
        return self._client.get()

    # --- table ------------------------------------------------------------------------

    def ensure_table(self) -> None:
        """Create the table with its GSI and TTL if missing (local server and tests)."""
        c = self.client
        try:
            c.create_table(
                TableName=self.table_name,
                BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[
                    *(
                        {"AttributeName": name, "AttributeType": "S"}
                        for name in ("pk", "sk", "gsi1pk", "gsi1sk", "lbpk")
                    ),
                    {"AttributeName": "rating", "AttributeType": "N"},
                ],
                KeySchema=[
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                GlobalSecondaryIndexes=[
                    {
                        "IndexName": "gsi1",
                        "KeySchema": [
                            {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                            {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                        ],
                        "Projection": {
                            "ProjectionType": "INCLUDE",
                            "NonKeyAttributes": ["room_id", "summary"],
                        },
                    },
                    {
                        # The leaderboard: sparse (only listed users have lbpk), sharded.
                        "IndexName": "gsi2",
                        "KeySchema": [
                            {"AttributeName": "lbpk", "KeyType": "HASH"},
                            {"AttributeName": "rating", "KeyType": "RANGE"},
                        ],
                        "Projection": {
                            "ProjectionType": "INCLUDE",
                            "NonKeyAttributes": ["user_id", "name", "games"],
                        },
                    },
                ],
            )
        except Exception as err:
            if _code(err) == "ResourceInUseException":
                return
            raise
        c.get_waiter("table_exists").wait(
            TableName=self.table_name, WaiterConfig={"Delay": 1, "MaxAttempts": 60}
        )
        c.update_time_to_live(
            TableName=self.table_name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"},
        )

    # --- rooms ------------------------------------------------------------------------

    def _room_item(self, room_id: str, state: JsonDict, summary: JsonDict, version: int) -> Item:
        status = str(summary.get("status", ""))
        created_at = summary.get("created_at")
        name, value = encode_state(state)
        return {
            "pk": _s(f"ROOM#{room_id}"),
            "sk": _s("ROOM"),
            "room_id": _s(room_id),
            name: value,
            "version": _n(version),
            "summary": _s(_compact(summary)),
            "status": _s(status),
            "gsi1pk": _s(f"LOBBY#{status}"),
            "gsi1sk": _s(lobby_sort_key(created_at if isinstance(created_at, int) else 0, room_id)),
        }

    def _open_rooms_add(self, owner_id: str, room_id: str, max_open: int | None) -> dict[str, Any]:
        """The update counting ``room_id`` against ``owner_id``'s cap (conditional on the cap)."""
        update: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": {"pk": _s(f"USER#{owner_id}"), "sk": _s("OPENROOMS")},
            "UpdateExpression": "ADD #rooms :room",
            "ExpressionAttributeNames": {"#rooms": "rooms"},
            "ExpressionAttributeValues": {":room": {"SS": [room_id]}},
        }
        if max_open is not None:
            # The open-room cap: admit a new room only while the owner has fewer than max.
            update["ConditionExpression"] = "attribute_not_exists(#rooms) OR size(#rooms) < :max"
            update["ExpressionAttributeValues"][":max"] = _n(max_open)
        return update

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
        item = self._room_item(room_id, state, summary, 1)
        put = {
            "TableName": self.table_name,
            "Item": item,
            # A room id is created once: never overwrite an existing room.
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        if owner_id is None:
            try:
                self.client.put_item(**put)
            except Exception as err:
                if _code(err) == "ConditionalCheckFailedException":
                    raise RoomExists(f"room {room_id} exists") from None
                raise
            return 1
        update = self._open_rooms_add(owner_id, room_id, max_open)
        try:
            self._transact([{"Put": put}, {"Update": update}])
        except Exception as err:
            reasons = _cancellation_codes(err)
            if reasons and reasons[0] == "ConditionalCheckFailed":
                raise RoomExists(f"room {room_id} exists") from None
            if len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
                raise RoomLimitReached(f"user {owner_id} has {max_open} open rooms") from None
            raise
        return 1

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version with one strongly consistent GetItem."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"ROOM#{room_id}"), "sk": _s("ROOM")},
            ConsistentRead=True,
            ProjectionExpression="#state, state_z, version",
            ExpressionAttributeNames={"#state": "state"},
        )
        item = answer.get("Item")
        if not item:
            return None
        return StoredRoom(state=decode_state(item), version=int(item["version"]["N"]))

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
    ) -> int:
        """Replace a room's state if still at ``expected_version`` (one conditional UpdateItem).

        With ``ratings``: one TransactWriteItems holding the room update, the game record and
        each rating update, so a finished rated game never exists without its ratings. With
        ``rounds``: the round records join that one transaction, put only where absent, so a
        completed round never exists without its record and a lost race records nothing.
        """
        update = self._room_update(room_id, state, summary, expected_version, expires_at_s)
        if ratings is not None or (rounds is not None and rounds.records):
            return self._save_room_together(room_id, expected_version, update, ratings, rounds)
        return self._update_room(room_id, expected_version, update)

    def _update_room(self, room_id: str, expected_version: int, update: dict[str, Any]) -> int:
        try:
            self.client.update_item(**update)
        except Exception as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise
            old = getattr(err, "response", {}).get("Item")
            raise VersionConflict(room_id, expected_version, _stored(old)) from None
        return expected_version + 1

    def _room_update(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        expected_version: int,
        expires_at_s: int | None,
    ) -> dict[str, Any]:
        name, value = encode_state(state)
        other = "state" if name == "state_z" else "state_z"
        status = str(summary.get("status", ""))
        sets = "#cur = :cur, version = :new, summary = :summary, #status = :status, gsi1pk = :g"
        values: dict[str, Any] = {
            ":cur": value,
            ":new": _n(expected_version + 1),
            ":expected": _n(expected_version),
            ":summary": _s(_compact(summary)),
            ":status": _s(status),
            ":g": _s(f"LOBBY#{status}"),
        }
        if expires_at_s is not None:
            sets += ", expires_at = :exp"
            values[":exp"] = _n(expires_at_s)
        return {
            "TableName": self.table_name,
            "Key": {"pk": _s(f"ROOM#{room_id}"), "sk": _s("ROOM")},
            "UpdateExpression": f"SET {sets} REMOVE #other",
            # Optimistic concurrency: write only over the version this change was based on.
            "ConditionExpression": "version = :expected",
            "ExpressionAttributeNames": {"#cur": name, "#other": other, "#status": "status"},
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    def _save_room_together(
        self,
        room_id: str,
        expected_version: int,
        update: dict[str, Any],
        ratings: RatingsWrite | None,
        rounds: RoundsWrite | None,
    ) -> int:
        """One TransactWriteItems: the room (item 0), the ratings, then the round records."""
        if ratings is not None and len(ratings.changes) > MAX_RATING_CHANGES - 1:
            raise TooManyRatingChanges(f"{len(ratings.changes)} rating changes in one game")
        rating_items = (
            self._rating_items(
                ratings.game_key,
                ratings.changes,
                ratings.record,
                ratings.outcomes,
                reserve=2 if rounds is not None and rounds.records else 1,
            )
            if ratings is not None
            else []
        )
        round_items = (
            self._round_items(room_id, rounds, MAX_TRANSACTION_ITEMS - 1 - len(rating_items))
            if rounds is not None
            else []
        )
        while True:
            if not rating_items and not round_items:
                return self._update_room(room_id, expected_version, update)
            try:
                self._transact([{"Update": update}, *rating_items, *round_items])
                return expected_version + 1
            except Exception as err:
                reasons = _cancellation_codes(err)
                if reasons and reasons[0] == "ConditionalCheckFailed":
                    raise VersionConflict(
                        room_id, expected_version, self._current_room(room_id, err)
                    ) from None
                n = len(rating_items)
                if n and len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
                    # Applied before (a retried write): the ratings must not move twice.
                    assert ratings is not None
                    log.warning(
                        "ratings of game %s already applied; saving room only", ratings.game_key
                    )
                    rating_items = []
                    continue
                if "ConditionalCheckFailed" in reasons[2 : 1 + n]:
                    raise UnknownUser("a rated user does not exist") from None
                recorded = reasons[1 + n :]
                if "ConditionalCheckFailed" in recorded:
                    # Those rounds are recorded already: a replayed record changes nothing.
                    round_items = [
                        item
                        for item, code in zip(round_items, recorded, strict=False)
                        if code != "ConditionalCheckFailed"
                    ]
                    continue
                raise

    def _transact(self, items: list[dict[str, Any]]) -> None:
        """One TransactWriteItems; a cancellation by a concurrent write is tried again.

        Such a cancellation (only TransactionConflict reasons) writes nothing, so trying again
        is safe; the guarded client raises it as ``Unavailable(reason="conflict")``, which is
        what remains after the last try (a 503 for a client).
        """
        with_backoff(
            lambda: self.client.transact_write_items(TransactItems=items),
            attempts=TRANSACTION_ATTEMPTS,
            retry_if=lambda err: err.reason == "conflict",
            what="transaction",
        )

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
        """The old room's update, the new room and its cap count in one TransactWriteItems."""
        update = self._room_update(room_id, state, summary, expected_version, None)
        put = {
            "TableName": self.table_name,
            "Item": self._room_item(new.room_id, new.state, new.summary, 1),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        count = self._open_rooms_add(new.owner_id, new.room_id, max_open)
        # Item order matters: the cancellation reasons below are read by position.
        try:
            self._transact([{"Update": update}, {"Put": put}, {"Update": count}])
        except Exception as err:
            reasons = _cancellation_codes(err)
            if reasons and reasons[0] == "ConditionalCheckFailed":
                raise VersionConflict(
                    room_id, expected_version, self._current_room(room_id, err)
                ) from None
            if len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
                raise RoomExists(f"room {new.room_id} exists") from None
            if len(reasons) > 2 and reasons[2] == "ConditionalCheckFailed":
                raise RoomLimitReached(f"user {new.owner_id} has {max_open} open rooms") from None
            raise
        return expected_version + 1

    def _round_items(self, room_id: str, rounds: RoundsWrite, slots: int) -> list[dict[str, Any]]:
        """Put-if-absent items of round records: one per round, or grouped to fit ``slots``.

        A change completes one round as a rule; a table of bots alone (or a room woken after
        a long sleep) can complete more rounds in one change than a transaction holds items,
        and then consecutive rounds share an item, keyed by the first of them.
        """
        records = sorted(rounds.records, key=lambda r: int(r["round"]))
        size = -(-len(records) // max(1, slots))
        items: list[dict[str, Any]] = []
        for start in range(0, len(records), size):
            group = records[start : start + size]
            first, last = int(group[0]["round"]), int(group[-1]["round"])
            name, value = _encode_json("records", group)
            item: Item = {
                "pk": _s(f"ROOM#{room_id}"),
                "sk": _s(f"ROUND#{first:05d}"),
                "first": _n(first),
                "last": _n(last),
                name: value,
            }
            if rounds.expires_at_s is not None:
                item["expires_at"] = _n(rounds.expires_at_s)
            items.append(
                {
                    "Put": {
                        "TableName": self.table_name,
                        "Item": item,
                        # Once per round: a replayed record must not replace the first one.
                        "ConditionExpression": "attribute_not_exists(sk)",
                    }
                }
            )
        return items

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order (one Query, paged)."""
        found: dict[int, JsonDict] = {}
        for item in self._iter_query(f"ROOM#{room_id}", "ROUND#", None):
            for record in _decode_json("records", item):
                found.setdefault(int(record["round"]), record)
        return [found[n] for n in sorted(found)]

    def _current_room(self, room_id: str, err: Exception) -> StoredRoom | None:
        """The room as it is now: from the cancelled transaction's reason, else one read."""
        reasons = getattr(err, "response", {}).get("CancellationReasons") or []
        old = reasons[0].get("Item") if reasons else None
        return _stored(old) if old else self.get_room(room_id)

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first (one GSI Query)."""
        answer = self.client.query(
            TableName=self.table_name,
            IndexName="gsi1",
            KeyConditionExpression="gsi1pk = :g",
            ExpressionAttributeValues={":g": _s(f"LOBBY#{status}")},
            ScanIndexForward=False,
            Limit=limit,
        )
        return [
            {"id": item["room_id"]["S"], **json.loads(item["summary"]["S"])}
            for item in answer.get("Items", [])
        ]

    def open_rooms(self, user_id: str) -> list[str]:
        """Ids of the rooms counted against ``user_id``'s open-room cap."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USER#{user_id}"), "sk": _s("OPENROOMS")},
            ConsistentRead=True,
        )
        return sorted(answer.get("Item", {}).get("rooms", {}).get("SS", []))

    def release_room(self, user_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` against ``user_id``'s cap (idempotent)."""
        self.client.update_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USER#{user_id}"), "sk": _s("OPENROOMS")},
            UpdateExpression="DELETE #rooms :room",
            ExpressionAttributeNames={"#rooms": "rooms"},
            ExpressionAttributeValues={":room": {"SS": [room_id]}},
        )

    # --- users ------------------------------------------------------------------------

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
        """Create a user; raise UsernameTaken or UserExists (``expires_at_s``: the TTL)."""
        item: Item = {
            "pk": _s(f"USER#{user_id}"),
            "sk": _s("PROFILE"),
            "user_id": _s(user_id),
            "name": _s(name),
            "guest": {"BOOL": guest},
            "continue_mode": _s("auto"),
            "created_at": _n(now_ms),
        }
        if username is not None:
            item["username"] = _s(username)
        if password_hash is not None:
            item["password_hash"] = _s(password_hash)
        if expires_at_s is not None:
            item["expires_at"] = _n(expires_at_s)
        put_user = {
            "TableName": self.table_name,
            "Item": item,
            # A user id is created once: never overwrite a profile.
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        try:
            if username is None:
                self.client.put_item(**put_user)
            else:
                put_name = {
                    "TableName": self.table_name,
                    "Item": {
                        "pk": _s(f"USERNAME#{username.lower()}"),
                        "sk": _s("USERNAME"),
                        "user_id": _s(user_id),
                    },
                    # Username uniqueness (case-insensitive): the name is claimed once.
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
                self._transact([{"Put": put_user}, {"Put": put_name}])
        except Exception as err:
            if _code(err) == "ConditionalCheckFailedException":
                raise UserExists(f"user {user_id} exists") from None
            reasons = _cancellation_codes(err)
            if len(reasons) > 1 and reasons[1] == "ConditionalCheckFailed":
                raise UsernameTaken(f"username {username!r} is taken") from None
            if reasons and reasons[0] == "ConditionalCheckFailed":
                raise UserExists(f"user {user_id} exists") from None
            raise
        return _user_from_item(item)

    def get_user(self, user_id: str) -> UserRecord | None:
        """Read a user by id (one GetItem)."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USER#{user_id}"), "sk": _s("PROFILE")},
            ConsistentRead=True,
        )
        item = answer.get("Item")
        return _user_from_item(item) if item else None

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username, case-insensitively (two GetItems)."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USERNAME#{username.lower()}"), "sk": _s("USERNAME")},
            ConsistentRead=True,
        )
        item = answer.get("Item")
        return self.get_user(item["user_id"]["S"]) if item else None

    def _update_profile(self, user_id: str, attribute: str, value: str) -> None:
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={"pk": _s(f"USER#{user_id}"), "sk": _s("PROFILE")},
                UpdateExpression="SET #a = :v",
                # Only existing users: an update must not create a stray profile.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#a": attribute},
                ExpressionAttributeValues={":v": _s(value)},
            )
        except Exception as err:
            if _code(err) == "ConditionalCheckFailedException":
                raise UnknownUser(f"no user {user_id}") from None
            raise

    def set_preferences(self, user_id: str, continue_mode: str) -> None:
        """Store the user's continue mode; raise UnknownUser."""
        self._update_profile(user_id, "continue_mode", continue_mode)

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a user's password hash; raise UnknownUser."""
        self._update_profile(user_id, "password_hash", password_hash)

    def get_ratings(self, user_ids: list[str]) -> dict[str, float]:
        """Ratings of the given users (1500 for anyone without one), by BatchGetItem."""
        wanted = list(dict.fromkeys(user_ids))
        ratings = {uid: float(DEFAULT_RATING) for uid in wanted}
        for item in self._profiles(wanted, "user_id, rating"):
            if "rating" in item:
                ratings[item["user_id"]["S"]] = float(item["rating"]["N"])
        return ratings

    def _profiles(self, user_ids: list[str], projection: str) -> Iterator[Item]:
        """The profile items of distinct ``user_ids`` that exist: BatchGetItem per 100 keys,
        strongly consistent, following UnprocessedKeys until none are left."""
        for start in range(0, len(user_ids), 100):
            keys = [
                {"pk": _s(f"USER#{uid}"), "sk": _s("PROFILE")}
                for uid in user_ids[start : start + 100]
            ]
            request: dict[str, Any] = {
                self.table_name: {
                    "Keys": keys,
                    "ConsistentRead": True,
                    "ProjectionExpression": projection,
                }
            }
            while request:
                answer = self.client.batch_get_item(RequestItems=request)
                yield from answer.get("Responses", {}).get(self.table_name, [])
                request = answer.get("UnprocessedKeys") or {}

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record in one transaction; False if done before."""
        if len(changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(changes)} rating changes in one game")
        try:
            self._transact(self._rating_items(game_key, changes, record))
        except Exception as err:
            reasons = _cancellation_codes(err)
            if reasons and reasons[0] == "ConditionalCheckFailed":
                return False
            if "ConditionalCheckFailed" in reasons[1:]:
                raise UnknownUser("a rated user does not exist") from None
            raise
        return True

    def _rating_items(
        self,
        game_key: str,
        changes: dict[str, float],
        record: JsonDict,
        outcomes: dict[str, RatedOutcome] | None = None,
        *,
        reserve: int = 0,
    ) -> list[dict[str, Any]]:
        """Transaction items: the game record (first, once only), one update per user, then
        each user's profile row (when they fit beside ``reserve`` other items)."""
        outcomes = outcomes or {}
        items: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.table_name,
                    "Item": {
                        "pk": _s(f"GAME#{game_key}"),
                        "sk": _s("GAME"),
                        "changes": _s(_compact(changes)),
                        "record": _s(_compact(record)),
                    },
                    # Exactly once: ratings move only together with the first game record.
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
        ]
        for uid, delta in changes.items():
            outcome = outcomes.get(uid)
            expression = "SET rating = if_not_exists(rating, :base) + :d"
            values: dict[str, Any] = {":base": _n(DEFAULT_RATING), ":d": _n(float(delta))}
            names: dict[str, str] = {}
            if outcome is not None:
                if outcome.listed:
                    expression += ", lbpk = :lb"
                    values[":lb"] = _s(leaderboard_shard(uid))
                # Counters, not read-modify-write: two games ending at once both count.
                expression += " ADD games :one, #rk :one"
                values[":one"] = _n(1)
                names["#rk"] = f"rank{int(outcome.rank)}"
            update: dict[str, Any] = {
                "TableName": self.table_name,
                "Key": {"pk": _s(f"USER#{uid}"), "sk": _s("PROFILE")},
                "UpdateExpression": expression,
                # Only existing users: never create a profile out of a rating.
                "ConditionExpression": "attribute_exists(pk)",
                "ExpressionAttributeValues": values,
            }
            if names:
                update["ExpressionAttributeNames"] = names
            items.append({"Update": update})
        rows = [
            {
                "Put": {
                    "TableName": self.table_name,
                    "Item": {
                        "pk": _s(f"USER#{uid}"),
                        "sk": _s(f"RATED#{o.finished_at_ms:015d}#{game_key}"),
                        "row": _s(_compact(o.row)),
                    },
                }
            }
            for uid, o in outcomes.items()
            if uid in changes
        ]
        if len(items) + len(rows) + reserve <= MAX_TRANSACTION_ITEMS:
            items += rows
        elif rows:
            log.warning("game %s: too many players to list it on their profiles", game_key)
        return items

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"GAME#{game_key}"), "sk": _s("GAME")},
            ConsistentRead=True,
        )
        item = answer.get("Item")
        if not item:
            return None
        data: JsonDict = json.loads(item["record"]["S"])
        return data

    def get_standings(self, user_ids: list[str]) -> dict[str, Standing]:
        """Rating, rated games and guest flag of each existing user (BatchGetItem per 100)."""
        wanted = list(dict.fromkeys(user_ids))
        out: dict[str, Standing] = {}
        for item in self._profiles(wanted, "user_id, rating, games, guest"):
            out[item["user_id"]["S"]] = Standing(
                rating=float(item.get("rating", {}).get("N", DEFAULT_RATING)),
                games=int(item.get("games", {}).get("N", "0")),
                guest=bool(item.get("guest", {}).get("BOOL", False)),
            )
        return out

    def get_player_stats(self, user_id: str) -> PlayerStats:
        """A user's rating, rated games and finishes (one GetItem)."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USER#{user_id}"), "sk": _s("PROFILE")},
            ConsistentRead=True,
        )
        item = answer.get("Item") or {}
        finishes = {
            int(name[4:]): int(value["N"])
            for name, value in item.items()
            if name.startswith("rank") and name[4:].isdigit() and int(value["N"]) > 0
        }
        return PlayerStats(
            rating=float(item.get("rating", {}).get("N", DEFAULT_RATING)),
            games=int(item.get("games", {}).get("N", "0")),
            finishes=finishes,
        )

    def list_rated_games(self, user_id: str, limit: int) -> list[JsonDict]:
        """The user's latest rated games, newest first (one Query)."""
        if limit <= 0:
            return []
        answer = self.client.query(
            TableName=self.table_name,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :p)",
            ExpressionAttributeValues={":pk": _s(f"USER#{user_id}"), ":p": _s("RATED#")},
            ScanIndexForward=False,
            Limit=limit,
        )
        return [json.loads(it["row"]["S"]) for it in answer.get("Items", [])]

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """The top ``limit`` listed users: one Query per shard of ``gsi2``, merged."""
        if limit <= 0:
            return []
        found: list[JsonDict] = []
        for shard in range(LEADERBOARD_SHARDS):
            answer = self.client.query(
                TableName=self.table_name,
                IndexName="gsi2",
                KeyConditionExpression="lbpk = :s",
                ExpressionAttributeValues={":s": _s(f"LB#{shard}")},
                ScanIndexForward=False,
                Limit=limit,
            )
            for it in answer.get("Items", []):
                found.append(
                    {
                        "user_id": it["user_id"]["S"],
                        "name": it["name"]["S"],
                        "rating": float(it["rating"]["N"]),
                        "games": int(it.get("games", {}).get("N", "0")),
                    }
                )
        found.sort(key=lambda r: (-r["rating"], r["name"].lower(), r["user_id"]))
        return found[:limit]

    def add_invitation(
        self, user_id: str, room_id: str, host_name: str, *, now_ms: int | None = None
    ) -> None:
        """Invite ``user_id`` to ``room_id`` (kept 7 days when ``now_ms`` is given)."""
        item: Item = {
            "pk": _s(f"USER#{user_id}"),
            "sk": _s(f"INVITE#{room_id}"),
            "room_id": _s(room_id),
            "host_name": _s(host_name),
            "at": _n(now_ms or 0),
        }
        if now_ms is not None:
            item["expires_at"] = _n(now_ms // 1000 + INVITATION_TTL_SECONDS)
        self.client.put_item(TableName=self.table_name, Item=item)

    def list_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations ``[{"room_id", "host_name"}]``, oldest first."""
        items = self._query_all(f"USER#{user_id}", "INVITE#")
        items.sort(key=lambda it: (int(it["at"]["N"]), it["room_id"]["S"]))
        return [{"room_id": it["room_id"]["S"], "host_name": it["host_name"]["S"]} for it in items]

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        self.client.delete_item(
            TableName=self.table_name,
            Key={"pk": _s(f"USER#{user_id}"), "sk": _s(f"INVITE#{room_id}")},
        )

    # --- chat -------------------------------------------------------------------------

    def append_chat(self, room_id: str, user_id: str, name: str, text: str, at_ms: int) -> JsonDict:
        """Store a message; return ``{"id", "user": {"id", "name"}, "text", "at"}``."""
        msg_id = new_chat_id(at_ms)
        self.client.put_item(
            TableName=self.table_name,
            Item={
                "pk": _s(f"ROOM#{room_id}"),
                "sk": _s(f"CHAT#{msg_id}"),
                "user_id": _s(user_id),
                "name": _s(name),
                "text": _s(text),
                "at": _n(at_ms),
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
        names = {"#sk": "sk", "#text": "text", "#name": "name"}
        projection = "#sk, user_id, #name, #text, #at"
        names["#at"] = "at"
        if after_id is None:
            answer = self.client.query(
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk AND begins_with(#sk, :p)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={":pk": _s(f"ROOM#{room_id}"), ":p": _s("CHAT#")},
                ProjectionExpression=projection,
                ScanIndexForward=False,
                Limit=limit,
            )
            items = list(reversed(answer.get("Items", [])))
        else:
            answer = self.client.query(
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk AND #sk BETWEEN :lo AND :hi",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={
                    ":pk": _s(f"ROOM#{room_id}"),
                    ":lo": _s(f"CHAT#{after_id}"),
                    ":hi": _s("CHAT#\U0010ffff"),
                },
                ProjectionExpression=projection,
                Limit=limit + 1,
            )
            items = [it for it in answer.get("Items", []) if it["sk"]["S"] != f"CHAT#{after_id}"]
            items = items[:limit]
        return [
            chat_message(
                it["sk"]["S"][len("CHAT#") :],
                it["user_id"]["S"],
                it["name"]["S"],
                it["text"]["S"],
                int(it["at"]["N"]),
            )
            for it in items
        ]

    # --- rate limits --------------------------------------------------------------------

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt in the current fixed window; True while within ``limit``."""
        window = now_ms // (window_seconds * 1000)
        expires = (window + 1) * window_seconds + 60
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={"pk": _s(f"RATE#{key}"), "sk": _s(f"W#{window}")},
                UpdateExpression="ADD n :one SET expires_at = :exp",
                # The limit: count an attempt only while the window has room for it.
                ConditionExpression="attribute_not_exists(n) OR n < :limit",
                ExpressionAttributeValues={
                    ":one": _n(1),
                    ":exp": _n(expires),
                    ":limit": _n(limit),
                },
            )
        except Exception as err:
            if _code(err) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted in the current window (never below zero)."""
        window = now_ms // (window_seconds * 1000)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={"pk": _s(f"RATE#{key}"), "sk": _s(f"W#{window}")},
                UpdateExpression="ADD n :minus",
                # Only a counted attempt is given back: the window item exists and n > 0.
                ConditionExpression="n > :zero",
                ExpressionAttributeValues={":minus": _n(-1), ":zero": _n(0)},
            )
        except Exception as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise

    # --- realtime -----------------------------------------------------------------------

    def put_connection(self, connection_id: str, user_id: str | None, now_ms: int) -> None:
        """Record a new connection (kept ``connection_ttl_seconds`` without a disconnect)."""
        item: Item = {
            "pk": _s(f"CONN#{connection_id}"),
            "sk": _s("CONN"),
            "connected_at": _n(now_ms),
            "expires_at": _n(now_ms // 1000 + self.connection_ttl_seconds),
        }
        if user_id is not None:
            item["user_id"] = _s(user_id)
        self.client.put_item(TableName=self.table_name, Item=item)

    def get_connection(self, connection_id: str) -> Connection | None:
        """Read a connection (one GetItem)."""
        answer = self.client.get_item(
            TableName=self.table_name,
            Key={"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")},
            ConsistentRead=True,
        )
        item = answer.get("Item")
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
            Key={"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")},
            ReturnValues="ALL_OLD",
        )
        rooms = sorted(answer.get("Attributes", {}).get("rooms", {}).get("SS", []))
        deletes = [
            {"DeleteRequest": {"Key": {"pk": _s(f"ROOM#{r}"), "sk": _s(f"SUB#{connection_id}")}}}
            for r in rooms
        ]
        for start in range(0, len(deletes), 25):
            request: dict[str, Any] = {self.table_name: deletes[start : start + 25]}
            while request:
                result = self.client.batch_write_item(RequestItems=request)
                request = result.get("UnprocessedItems") or {}

    def subscribe(self, connection_id: str, room_id: str) -> bool:
        """Subscribe a known connection to a room; False when the connection is unknown."""
        try:
            answer = self.client.update_item(
                TableName=self.table_name,
                Key={"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")},
                UpdateExpression="ADD #rooms :room",
                # Only live connections subscribe: a late subscribe must not resurrect one.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#rooms": "rooms"},
                ExpressionAttributeValues={":room": {"SS": [room_id]}},
                ReturnValues="ALL_NEW",
            )
        except Exception as err:
            if _code(err) == "ConditionalCheckFailedException":
                return False
            raise
        conn = answer["Attributes"]
        item: Item = {
            "pk": _s(f"ROOM#{room_id}"),
            "sk": _s(f"SUB#{connection_id}"),
            "expires_at": conn["expires_at"],
        }
        if "user_id" in conn:
            item["user_id"] = conn["user_id"]
        self.client.put_item(TableName=self.table_name, Item=item)
        return True

    def unsubscribe(self, connection_id: str, room_id: str) -> None:
        """Unsubscribe (missing is fine)."""
        self.client.delete_item(
            TableName=self.table_name,
            Key={"pk": _s(f"ROOM#{room_id}"), "sk": _s(f"SUB#{connection_id}")},
        )
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")},
                UpdateExpression="DELETE #rooms :room",
                # Only live connections: do not create an empty connection item.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#rooms": "rooms"},
                ExpressionAttributeValues={":room": {"SS": [room_id]}},
            )
        except Exception as err:
            if _code(err) != "ConditionalCheckFailedException":
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
                "pk": _s(f"TICKET#{ticket_key(ticket)}"),
                "sk": _s("TICKET"),
                "user_id": _s(user_id),
                "expires_ms": _n(expires_ms),
                "expires_at": _n(expires_ms // 1000 + 60),
            },
        )

    def consume_ticket(self, ticket: str, now_ms: int) -> str | None:
        """Use a ticket once (conditional delete): its user id, or None if unknown/used/expired."""
        try:
            answer = self.client.delete_item(
                TableName=self.table_name,
                Key={"pk": _s(f"TICKET#{ticket_key(ticket)}"), "sk": _s("TICKET")},
                # Single use: only the one caller that deletes the stored ticket gets its user.
                ConditionExpression="attribute_exists(pk)",
                ReturnValues="ALL_OLD",
            )
        except Exception as err:
            if _code(err) == "ConditionalCheckFailedException":
                return None
            raise
        old = answer.get("Attributes") or {}
        if not old or int(old["expires_ms"]["N"]) <= now_ms:
            return None
        return str(old["user_id"]["S"])

    # --- helpers ------------------------------------------------------------------------

    def _query_all(self, pk: str, prefix: str, projection: str | None = None) -> list[Item]:
        return list(self._iter_query(pk, prefix, projection))

    def _iter_query(self, pk: str, prefix: str, projection: str | None) -> Iterator[Item]:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :p)",
            "ExpressionAttributeValues": {":pk": _s(pk), ":p": _s(prefix)},
        }
        if projection:
            params["ProjectionExpression"] = projection
        while True:
            answer = self.client.query(**params)
            yield from answer.get("Items", [])
            last = answer.get("LastEvaluatedKey")
            if not last:
                return
            params["ExclusiveStartKey"] = last


def _stored(item: Item | None) -> StoredRoom | None:
    if not item:
        return None
    return StoredRoom(state=decode_state(item), version=int(item["version"]["N"]))


def _cancellation_codes(err: Exception) -> list[str]:
    if _code(err) != "TransactionCanceledException":
        return []
    reasons = getattr(err, "response", {}).get("CancellationReasons") or []
    return [str(r.get("Code", "")) for r in reasons]


def _user_from_item(item: Item) -> UserRecord:
    return UserRecord(
        id=item["user_id"]["S"],
        name=item["name"]["S"],
        guest=bool(item["guest"]["BOOL"]),
        username=item["username"]["S"] if "username" in item else None,
        password_hash=item["password_hash"]["S"] if "password_hash" in item else None,
        continue_mode=item.get("continue_mode", {}).get("S", "auto"),
        created_at_ms=int(item.get("created_at", {}).get("N", "0")),
        expires_at_s=int(item["expires_at"]["N"]) if "expires_at" in item else None,
    )


if TYPE_CHECKING:  # mypy proves the adapter fits the port
    from chalicelib.ports import Store

    _store: Store = DynamoStore("table")
