"""Game records: ratings, rated games, profiles' counters, the leaderboard and round records.

| item              | pk              | sk               | main attributes                      |
|-------------------|-----------------|------------------|--------------------------------------|
| rated game        | GAME#<game_key> | GAME             | changes, record                      |
| user's rated game | USER#<user_id>  | RATED#<at>#<key> | row                                  |
| user (counters)   | USER#<user_id>  | PROFILE          | rating, games, rank<k>, lbpk         |
| round record(s)   | ROOM#<room_id>  | ROUND#<first 5d>[#<attempt>] | first, last, records or records_z |

The transaction items of a rated game's end (``rating_items``) and of completed rounds
(``round_items``) are built here and written either alone (``apply_ratings``) or with the room
update that ends the game or the round (``rooms.DynamoRooms.save_room``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from typing import Any

from chalicelib.adapters.dynamo._table import (
    Item,
    Table,
    cancellation_codes,
    compact,
    decode_json,
    encode_json,
    failed_at,
    key,
    n,
    s,
)
from chalicelib.adapters.policy import DEFAULT_RATING, MAX_RATING_CHANGES
from chalicelib.ports import (
    JsonDict,
    PlayerStats,
    RatedOutcome,
    RoundsWrite,
    Standing,
    TooManyRatingChanges,
    UnknownUser,
)

MAX_TRANSACTION_ITEMS = 100
"""DynamoDB's limit of items in one transaction: a finished game's write (the room, the game
record, one item per rating change) holds ``policy.MAX_RATING_CHANGES`` changes within it."""
LEADERBOARD_SHARDS = 8
"""The leaderboard index (``gsi2``) is spread over this many partitions (``LB#0`` … ``LB#7``)."""

log = logging.getLogger(__name__)


def leaderboard_shard(user_id: str) -> str:
    """The leaderboard index partition of a user: a stable hash of the id over the shards."""
    digest = hashlib.sha256(user_id.encode()).digest()
    return f"LB#{int.from_bytes(digest[:4], 'big') % LEADERBOARD_SHARDS}"


def rating_items(
    table_name: str,
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
                "TableName": table_name,
                "Item": {
                    **key(f"GAME#{game_key}", "GAME"),
                    "changes": s(compact(changes)),
                    "record": s(compact(record)),
                },
                # Exactly once: ratings move only together with the first game record.
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
    ]
    for uid, delta in changes.items():
        outcome = outcomes.get(uid)
        expression = "SET rating = if_not_exists(rating, :base) + :d"
        values: dict[str, Any] = {":base": n(DEFAULT_RATING), ":d": n(float(delta))}
        names: dict[str, str] = {}
        if outcome is not None:
            if outcome.listed:
                expression += ", lbpk = :lb"
                values[":lb"] = s(leaderboard_shard(uid))
            # Counters, not read-modify-write: two games ending at once both count.
            expression += " ADD games :one, #rk :one"
            values[":one"] = n(1)
            names["#rk"] = f"rank{int(outcome.rank)}"
        update: dict[str, Any] = {
            "TableName": table_name,
            "Key": key(f"USER#{uid}", "PROFILE"),
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
                "TableName": table_name,
                "Item": {
                    **key(f"USER#{uid}", f"RATED#{o.finished_at_ms:015d}#{game_key}"),
                    "row": s(compact(o.row)),
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


def _record_key(record: JsonDict) -> tuple[int, int]:
    """A round record's key: its round, then its attempt (0 when absent: the first deal)."""
    return int(record["round"]), int(record.get("attempt", 0))


def round_items(
    table_name: str, room_id: str, rounds: RoundsWrite, slots: int
) -> list[dict[str, Any]]:
    """Put-if-absent items of round records: one per round, or grouped to fit ``slots``.

    A change completes one round as a rule; a table of bots alone (or a room woken after
    a long sleep) can complete more rounds in one change than a transaction holds items,
    and then consecutive rounds share an item, keyed by the first of them.
    """
    records = sorted(rounds.records, key=_record_key)
    size = -(-len(records) // max(1, slots))
    items: list[dict[str, Any]] = []
    for start in range(0, len(records), size):
        group = records[start : start + size]
        (first, attempt), last = _record_key(group[0]), int(group[-1]["round"])
        name, value = encode_json("records", group)
        # A round dealt again after a resignation: its later attempts get keys of their own.
        sk = f"ROUND#{first:05d}" + (f"#{attempt}" if attempt else "")
        item: Item = {
            **key(f"ROOM#{room_id}", sk),
            "first": n(first),
            "last": n(last),
            name: value,
        }
        if rounds.expires_at_s is not None:
            item["expires_at"] = n(rounds.expires_at_s)
        items.append(
            {
                "Put": {
                    "TableName": table_name,
                    "Item": item,
                    # Once per round: a replayed record must not replace the first one.
                    "ConditionExpression": "attribute_not_exists(sk)",
                }
            }
        )
    return items


class DynamoRecords(Table):
    """Ratings, rated games, the leaderboard and round records (the UserStore's game records
    and the RoomStore's ``list_rounds``)."""

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order, then attempt (one Query, paged)."""
        found: dict[tuple[int, int], JsonDict] = {}
        for item in self._iter_query(f"ROOM#{room_id}", "ROUND#", None):
            for record in decode_json("records", item):
                found.setdefault(_record_key(record), record)
        return [found[r] for r in sorted(found)]

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
        strongly consistent, asking again for the UnprocessedKeys (``Table._batch``)."""
        for start in range(0, len(user_ids), 100):
            keys = [key(f"USER#{uid}", "PROFILE") for uid in user_ids[start : start + 100]]
            request: dict[str, Any] = {
                self.table_name: {
                    "Keys": keys,
                    "ConsistentRead": True,
                    "ProjectionExpression": projection,
                }
            }
            for answer in self._batch("batch_get_item", request):
                yield from answer.get("Responses", {}).get(self.table_name, [])

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record in one transaction; False if done before."""
        if len(changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(changes)} rating changes in one game")
        try:
            self._transact(rating_items(self.table_name, game_key, changes, record))
        except Exception as err:
            reasons = cancellation_codes(err)
            if failed_at(reasons, 0):
                return False
            if "ConditionalCheckFailed" in reasons[1:]:
                raise UnknownUser("a rated user does not exist") from None
            raise
        return True

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        item = self._get(f"GAME#{game_key}", "GAME")
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
        item = self._get(f"USER#{user_id}", "PROFILE") or {}
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
        items = self._query_newest(
            "pk = :pk AND begins_with(sk, :p)",
            {":pk": s(f"USER#{user_id}"), ":p": s("RATED#")},
            limit,
        )
        return [json.loads(it["row"]["S"]) for it in items]

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """The top ``limit`` listed users: one Query per shard of ``gsi2``, merged."""
        if limit <= 0:
            return []
        found: list[JsonDict] = []
        for shard in range(LEADERBOARD_SHARDS):
            items = self._query_newest(
                "lbpk = :s", {":s": s(f"LB#{shard}")}, limit, IndexName="gsi2"
            )
            for it in items:
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
