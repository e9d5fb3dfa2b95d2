"""Rooms: one versioned item each, the lobby index and the open-room cap.

| item       | pk             | sk        | main attributes                                      |
|------------|----------------|-----------|------------------------------------------------------|
| room       | ROOM#<room_id> | ROOM      | state or state_z, version, summary, status, gsi1pk/sk, dlpk/dlsk (only while a deadline is pending) |
| open rooms | USER#<user_id> | OPENROOMS | rooms (string set)                                   |

The room's engine state is compact JSON in ``state`` (S), or zlib-compressed JSON in
``state_z`` (B) once the JSON passes ``COMPRESS_ABOVE`` bytes, so the hot item stays small;
new writes compress with a preset dictionary of typical states (``room_state.zdict``), which
halves the compressed size, and states written without it still read.
"""

from __future__ import annotations

import functools
import json
import logging
import zlib
from pathlib import Path
from typing import Any

from chalicelib.adapters.dynamo._table import (
    COMPRESS_ABOVE,
    Item,
    Table,
    cancellation_codes,
    compact,
    conditional_check_failed,
    failed_at,
    key,
    n,
    s,
)
from chalicelib.adapters.dynamo.records import MAX_TRANSACTION_ITEMS, rating_items, round_items
from chalicelib.adapters.policy import (
    DUE_SHARDS,
    MAX_RATING_CHANGES,
    OVERDUE_WINDOW_MS,
    lobby_sort_key,
)
from chalicelib.ports import (
    JsonDict,
    NewRoom,
    RatingsWrite,
    RoomExists,
    RoomLimitReached,
    RoundsWrite,
    StoredRoom,
    TooManyRatingChanges,
    UnknownUser,
    VersionConflict,
)

log = logging.getLogger(__name__)

STATE_DICTIONARY_FILE = Path(__file__).parent.with_name("room_state.zdict")
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
    text = compact(state)
    raw = text.encode()
    if len(raw) > COMPRESS_ABOVE:
        return "state_z", {"B": _deflate(raw)}
    return "state", {"S": text}


def decode_state(item: Item) -> JsonDict:
    """The engine state held by a stored room item."""
    if "state_z" in item:
        data: JsonDict = json.loads(_inflate(item["state_z"]["B"]).decode())
        return data
    text: JsonDict = json.loads(item["state"]["S"])
    return text


def _stored(item: Item | None) -> StoredRoom | None:
    if not item:
        return None
    return StoredRoom(state=decode_state(item), version=int(item["version"]["N"]))


MINUTE_MS = 60_000


def due_bucket(room_id: str, deadline_ms: int) -> str:
    """The deadline index's partition key: the deadline's minute and the room's shard."""
    shard = zlib.crc32(room_id.encode()) % DUE_SHARDS
    return f"DUE#{deadline_ms // MINUTE_MS}#{shard}"


def _is_this_write(old: Item | None, update: dict[str, Any], expected_version: int) -> bool:
    """Whether the room item a failed condition returned (``ALL_OLD``) is ``update`` itself:
    the version it writes and the very state and summary it sets."""
    if not old or old.get("version") != n(expected_version + 1):
        return False
    values = update["ExpressionAttributeValues"]
    state_name = update["ExpressionAttributeNames"]["#cur"]
    return bool(old.get(state_name) == values[":cur"] and old.get("summary") == values[":summary"])


class DynamoRooms(Table):
    """The RoomStore port (but ``list_rounds``, in ``records``) on the table."""

    def _room_item(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        version: int,
        deadline_ms: int | None = None,
    ) -> Item:
        status = str(summary.get("status", ""))
        created_at = summary.get("created_at")
        name, value = encode_state(state)
        due = (
            {}
            if deadline_ms is None
            else {
                "dlpk": s(due_bucket(room_id, deadline_ms)),
                "dlsk": n(deadline_ms),
            }
        )
        return {
            **due,
            **key(f"ROOM#{room_id}", "ROOM"),
            "room_id": s(room_id),
            name: value,
            "version": n(version),
            "summary": s(compact(summary)),
            "status": s(status),
            "gsi1pk": s(f"LOBBY#{status}"),
            "gsi1sk": s(lobby_sort_key(created_at if isinstance(created_at, int) else 0, room_id)),
        }

    def _room_put(
        self, room_id: str, state: JsonDict, summary: JsonDict, deadline_ms: int | None = None
    ) -> dict[str, Any]:
        """The put of a new room at version 1 (with its first deadline, if it has one)."""
        return {
            "TableName": self.table_name,
            "Item": self._room_item(room_id, state, summary, 1, deadline_ms),
            # A room id is created once: never overwrite an existing room.
            "ConditionExpression": "attribute_not_exists(pk)",
        }

    def _open_rooms_add(self, owner_id: str, room_id: str, max_open: int | None) -> dict[str, Any]:
        """The update counting ``room_id`` against ``owner_id``'s cap (conditional on the cap)."""
        update: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": key(f"USER#{owner_id}", "OPENROOMS"),
            "UpdateExpression": "ADD #rooms :room",
            "ExpressionAttributeNames": {"#rooms": "rooms"},
            "ExpressionAttributeValues": {":room": {"SS": [room_id]}},
        }
        if max_open is not None:
            # The open-room cap: admit a new room only while the owner has fewer than max.
            update["ConditionExpression"] = "attribute_not_exists(#rooms) OR size(#rooms) < :max"
            update["ExpressionAttributeValues"][":max"] = n(max_open)
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
        put = self._room_put(room_id, state, summary)
        if owner_id is None:
            try:
                self.client.put_item(**put)
            except Exception as err:
                if conditional_check_failed(err):
                    raise RoomExists(f"room {room_id} exists") from None
                raise
            return 1
        update = self._open_rooms_add(owner_id, room_id, max_open)
        try:
            self._transact([{"Put": put}, {"Update": update}])
        except Exception as err:
            reasons = cancellation_codes(err)
            if failed_at(reasons, 0):
                raise RoomExists(f"room {room_id} exists") from None
            if failed_at(reasons, 1):
                raise RoomLimitReached(f"user {owner_id} has {max_open} open rooms") from None
            raise
        return 1

    def get_room(self, room_id: str) -> StoredRoom | None:
        """Read a room's state and version with one strongly consistent GetItem."""
        item = self._get(
            f"ROOM#{room_id}",
            "ROOM",
            ProjectionExpression="#state, state_z, version",
            ExpressionAttributeNames={"#state": "state"},
        )
        return _stored(item)

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
        deadline_ms: int | None = None,
    ) -> int:
        """Replace a room's state if still at ``expected_version`` (one conditional UpdateItem).

        With ``ratings``: one TransactWriteItems holding the room update, the game record and
        each rating update, so a finished rated game never exists without its ratings. With
        ``rounds``: the round records join that one transaction, put only where absent, so a
        completed round never exists without its record and a lost race records nothing.
        """
        update = self._room_update(
            room_id, state, summary, expected_version, expires_at_s, deadline_ms
        )
        if ratings is not None or (rounds is not None and rounds.records):
            return self._save_room_together(room_id, expected_version, update, ratings, rounds)
        return self._update_room(room_id, expected_version, update)

    def _update_room(self, room_id: str, expected_version: int, update: dict[str, Any]) -> int:
        try:
            self.client.update_item(**update)
        except Exception as err:
            if not conditional_check_failed(err):
                raise
            old = getattr(err, "response", {}).get("Item")
            if _is_this_write(old, update, expected_version):
                # The write landed but its answer was lost (a timeout, a dropped connection)
                # and botocore sent it again: the retry found the room as this write left it.
                log.info(
                    "room %s v%d: the write landed before a retry", room_id, expected_version + 1
                )
                return expected_version + 1
            raise VersionConflict(room_id, expected_version, _stored(old)) from None
        return expected_version + 1

    def _room_update(
        self,
        room_id: str,
        state: JsonDict,
        summary: JsonDict,
        expected_version: int,
        expires_at_s: int | None,
        deadline_ms: int | None = None,
    ) -> dict[str, Any]:
        name, value = encode_state(state)
        other = "state" if name == "state_z" else "state_z"
        status = str(summary.get("status", ""))
        sets = "#cur = :cur, version = :new, summary = :summary, #status = :status, gsi1pk = :g"
        values: dict[str, Any] = {
            ":cur": value,
            ":new": n(expected_version + 1),
            ":expected": n(expected_version),
            ":summary": s(compact(summary)),
            ":status": s(status),
            ":g": s(f"LOBBY#{status}"),
        }
        if expires_at_s is not None:
            sets += ", expires_at = :exp"
            values[":exp"] = n(expires_at_s)
        removes = "#other"
        if deadline_ms is not None:
            # The sparse deadline index (gsi3), set in this same write: no write of its own.
            sets += ", dlpk = :dlpk, dlsk = :dlsk"
            values[":dlpk"] = s(due_bucket(room_id, deadline_ms))
            values[":dlsk"] = n(deadline_ms)
        else:
            removes += ", dlpk, dlsk"
        return {
            "TableName": self.table_name,
            "Key": key(f"ROOM#{room_id}", "ROOM"),
            "UpdateExpression": f"SET {sets} REMOVE {removes}",
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
        if ratings is not None and len(ratings.changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(ratings.changes)} rating changes in one game")
        rating_writes = (
            rating_items(
                self.table_name,
                ratings.game_key,
                ratings.changes,
                ratings.record,
                ratings.outcomes,
                reserve=2 if rounds is not None and rounds.records else 1,
            )
            if ratings is not None
            else []
        )
        round_writes = (
            round_items(
                self.table_name, room_id, rounds, MAX_TRANSACTION_ITEMS - 1 - len(rating_writes)
            )
            if rounds is not None
            else []
        )
        while True:
            if not rating_writes and not round_writes:
                return self._update_room(room_id, expected_version, update)
            try:
                self._transact([{"Update": update}, *rating_writes, *round_writes])
                return expected_version + 1
            except Exception as err:
                reasons = cancellation_codes(err)
                if failed_at(reasons, 0):
                    raise self._lost_race(room_id, expected_version, err) from None
                count = len(rating_writes)
                if count and failed_at(reasons, 1):
                    # Applied before (a retried write): the ratings must not move twice.
                    assert ratings is not None
                    log.warning(
                        "ratings of game %s already applied; saving room only", ratings.game_key
                    )
                    rating_writes = []
                    continue
                if "ConditionalCheckFailed" in reasons[2 : 1 + count]:
                    raise UnknownUser("a rated user does not exist") from None
                recorded = reasons[1 + count :]
                if "ConditionalCheckFailed" in recorded:
                    # Those rounds are recorded already: a replayed record changes nothing.
                    round_writes = [
                        item
                        for item, code in zip(round_writes, recorded, strict=False)
                        if code != "ConditionalCheckFailed"
                    ]
                    continue
                raise

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
        put = self._room_put(new.room_id, new.state, new.summary)
        count = self._open_rooms_add(new.owner_id, new.room_id, max_open)
        # Item order matters: the cancellation reasons below are read by position.
        try:
            self._transact([{"Update": update}, {"Put": put}, {"Update": count}])
        except Exception as err:
            reasons = cancellation_codes(err)
            if failed_at(reasons, 0):
                raise self._lost_race(room_id, expected_version, err) from None
            if failed_at(reasons, 1):
                raise RoomExists(f"room {new.room_id} exists") from None
            if failed_at(reasons, 2):
                raise RoomLimitReached(f"user {new.owner_id} has {max_open} open rooms") from None
            raise
        return expected_version + 1

    def _lost_race(self, room_id: str, expected_version: int, err: Exception) -> VersionConflict:
        """The conflict of a transaction cancelled by the room's version condition, with the
        room as it is now: from the cancellation reason, else one read."""
        reasons = getattr(err, "response", {}).get("CancellationReasons") or []
        old = reasons[0].get("Item") if reasons else None
        current = _stored(old) if old else self.get_room(room_id)
        return VersionConflict(room_id, expected_version, current)

    def list_rooms(self, status: str, limit: int = 50) -> list[JsonDict]:
        """Lobby summaries of rooms with ``status``, newest first (one GSI Query)."""
        items = self._query_newest(
            "gsi1pk = :g", {":g": s(f"LOBBY#{status}")}, limit, IndexName="gsi1"
        )
        return [{"id": item["room_id"]["S"], **json.loads(item["summary"]["S"])} for item in items]

    def overdue_rooms(
        self, before_ms: int, limit: int = 100, *, after_ms: int | None = None
    ) -> list[str]:
        """Ids of rooms whose pending deadline is in ``[after_ms, before_ms]``, earliest
        minute first: one Query of the sparse index ``gsi3`` per minute bucket and shard, never
        a scan (eventually consistent: a room saved a moment ago may be missing or stale)."""
        low = before_ms - OVERDUE_WINDOW_MS if after_ms is None else after_ms
        found: list[str] = []
        for minute in range(low // MINUTE_MS, before_ms // MINUTE_MS + 1):
            for shard in range(DUE_SHARDS):
                params: dict[str, Any] = {
                    "TableName": self.table_name,
                    "IndexName": "gsi3",
                    "KeyConditionExpression": "dlpk = :p AND dlsk BETWEEN :lo AND :hi",
                    "ExpressionAttributeValues": {
                        ":p": s(f"DUE#{minute}#{shard}"),
                        ":lo": n(low),
                        ":hi": n(before_ms),
                    },
                }
                while len(found) < limit:
                    answer = self.client.query(**params, Limit=limit - len(found))
                    found += [item["pk"]["S"].removeprefix("ROOM#") for item in answer["Items"]]
                    if "LastEvaluatedKey" not in answer:
                        break
                    params["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
                if len(found) >= limit:
                    return found
        return found

    def open_rooms(self, user_id: str) -> list[str]:
        """Ids of the rooms counted against ``user_id``'s open-room cap."""
        item = self._get(f"USER#{user_id}", "OPENROOMS") or {}
        return sorted(item.get("rooms", {}).get("SS", []))

    def release_room(self, user_id: str, room_id: str) -> None:
        """Stop counting ``room_id`` against ``user_id``'s cap (idempotent)."""
        self.client.update_item(
            TableName=self.table_name,
            Key=key(f"USER#{user_id}", "OPENROOMS"),
            UpdateExpression="DELETE #rooms :room",
            ExpressionAttributeNames={"#rooms": "rooms"},
            ExpressionAttributeValues={":room": {"SS": [room_id]}},
        )
