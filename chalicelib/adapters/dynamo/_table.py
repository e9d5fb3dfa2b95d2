"""What every aggregate of the DynamoDB store shares: the table, keys, values and retries.

``Table`` holds the table name and the boto3 client (made on first use, ``LazyClient``), and
the few calls every aggregate makes the same way: a strongly consistent GetItem by key, a
paged Query of one partition's sort-key prefix, and a TransactWriteItems tried again when a
concurrent write cancelled it. Each aggregate module (``rooms``, ``users``, ``records``,
``chat``, ``limits``, ``connections``) is a ``Table`` with its port's methods; ``DynamoStore``
is all of them on one client.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from chalicelib import retry
from chalicelib.adapters._aws import RETRY_AFTER_SECONDS, LazyClient, error_code
from chalicelib.ports import Unavailable
from chalicelib.retry import with_backoff

COMPRESS_ABOVE = 256
"""JSON attributes longer than this many bytes are stored zlib-compressed (``<name>_z``, B)."""
TRANSACTION_ATTEMPTS = 3  # a transaction cancelled by a concurrent write is tried again
BATCH_ATTEMPTS = 5
"""Calls of a batch that hand everything left back (throttled) before it is ``Unavailable``."""

Item = dict[str, Any]


def s(value: str) -> dict[str, str]:
    """A DynamoDB string value."""
    return {"S": value}


def n(value: int | float) -> dict[str, str]:
    """A DynamoDB number value (floats keep their exact repr)."""
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def key(pk: str, sk: str) -> Item:
    """The primary key of the item ``pk`` / ``sk``."""
    return {"pk": s(pk), "sk": s(sk)}


def compact(data: Any) -> str:
    """Compact JSON (no spaces, UTF-8 kept)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def encode_json(name: str, data: Any) -> tuple[str, dict[str, Any]]:
    """``name`` with compact JSON, or ``name_z`` with zlib JSON once over ``COMPRESS_ABOVE``."""
    raw = compact(data).encode()
    if len(raw) > COMPRESS_ABOVE:
        return f"{name}_z", {"B": zlib.compress(raw, 6)}
    return name, {"S": raw.decode()}


def decode_json(name: str, item: Item) -> Any:
    """The JSON stored by ``encode_json`` under ``name`` in ``item``."""
    if f"{name}_z" in item:
        return json.loads(zlib.decompress(item[f"{name}_z"]["B"]).decode())
    return json.loads(item[name]["S"])


def conditional_check_failed(err: Exception) -> bool:
    """Whether ``err`` is a single write's condition turning out false."""
    return error_code(err) == "ConditionalCheckFailedException"


def cancellation_codes(err: Exception) -> list[str]:
    """The reason code of each item of a cancelled transaction (empty for other errors)."""
    if error_code(err) != "TransactionCanceledException":
        return []
    reasons = getattr(err, "response", {}).get("CancellationReasons") or []
    return [str(r.get("Code", "")) for r in reasons]


def failed_at(reasons: list[str], index: int) -> bool:
    """Whether the transaction item at ``index`` failed its condition."""
    return len(reasons) > index and reasons[index] == "ConditionalCheckFailed"


def _batch_size(request: dict[str, Any]) -> int:
    """How many keys (BatchGetItem) or write requests (BatchWriteItem) ``request`` holds."""
    return sum(len(v["Keys"]) if isinstance(v, dict) else len(v) for v in request.values())


class Table:
    """One DynamoDB table and its client: the base of every aggregate of the store."""

    def __init__(self, table_name: str, region: str | None = None, *, client: Any = None) -> None:
        self.table_name = table_name
        self.region = region
        self._client = LazyClient("dynamodb", client=client, region_name=region)

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client, created on first use."""
        return self._client.get()

    def ensure_table(self) -> None:
        """Create the table with its GSIs and TTL if missing (local server and tests)."""
        c = self.client
        try:
            c.create_table(
                TableName=self.table_name,
                BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[
                    *(
                        {"AttributeName": name, "AttributeType": "S"}
                        for name in ("pk", "sk", "gsi1pk", "gsi1sk", "lbpk", "dlpk")
                    ),
                    {"AttributeName": "rating", "AttributeType": "N"},
                    {"AttributeName": "dlsk", "AttributeType": "N"},
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
                    {
                        # Pending deadlines: sparse (only rooms with one carry dlpk), by
                        # minute and shard; the sweeper's backstop of lost wake-ups.
                        "IndexName": "gsi3",
                        "KeySchema": [
                            {"AttributeName": "dlpk", "KeyType": "HASH"},
                            {"AttributeName": "dlsk", "KeyType": "RANGE"},
                        ],
                        "Projection": {"ProjectionType": "KEYS_ONLY"},
                    },
                ],
            )
        except Exception as err:
            if error_code(err) == "ResourceInUseException":
                return
            raise
        c.get_waiter("table_exists").wait(
            TableName=self.table_name, WaiterConfig={"Delay": 1, "MaxAttempts": 60}
        )
        c.update_time_to_live(
            TableName=self.table_name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"},
        )

    def _get(self, pk: str, sk: str, **params: Any) -> Item | None:
        """The item ``pk`` / ``sk`` (one strongly consistent GetItem), or None."""
        answer = self.client.get_item(
            TableName=self.table_name, Key=key(pk, sk), ConsistentRead=True, **params
        )
        item: Item | None = answer.get("Item") or None
        return item

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

    def _batch(self, operation: str, request: dict[str, Any]) -> Iterator[Item]:
        """Each answer of the batch ``operation`` (``batch_get_item``, ``batch_write_item``)
        until DynamoDB hands nothing back.

        A throttled batch is no error: its answer hands the keys back (``UnprocessedKeys``,
        ``UnprocessedItems``). They are asked for again after a backoff pause; after
        ``BATCH_ATTEMPTS`` answers in a row that processed nothing, ``Unavailable``.
        """
        leftover = "UnprocessedKeys" if operation == "batch_get_item" else "UnprocessedItems"
        idle = 0
        while request:
            answer: Item = getattr(self.client, operation)(RequestItems=request)
            yield answer
            left: dict[str, Any] = answer.get(leftover) or {}
            if not left:
                return
            # Progress is fewer items handed back than sent (their order may differ).
            idle = idle + 1 if _batch_size(left) >= _batch_size(request) else 1
            if idle >= BATCH_ATTEMPTS:
                raise Unavailable(
                    f"{operation} left items unprocessed {idle} times",
                    reason="throttled",
                    retry_after=RETRY_AFTER_SECONDS["throttled"],
                )
            retry.sleep(retry.delay(idle))
            request = left

    def _query_newest(
        self, condition: str, values: dict[str, Any], limit: int, **params: Any
    ) -> list[Item]:
        """One Query (no paging): the first ``limit`` items matching ``condition``, highest
        sort key first; ``params`` adds the index, names or projection."""
        answer = self.client.query(
            TableName=self.table_name,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ScanIndexForward=False,
            Limit=limit,
            **params,
        )
        items: list[Item] = answer.get("Items", [])
        return items

    def _query_all(self, pk: str, prefix: str, projection: str | None = None) -> list[Item]:
        return list(self._iter_query(pk, prefix, projection))

    def _iter_query(self, pk: str, prefix: str, projection: str | None) -> Iterator[Item]:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :p)",
            "ExpressionAttributeValues": {":pk": s(pk), ":p": s(prefix)},
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


def count_requests(store: Table) -> Counter[str]:
    """Count the store's DynamoDB calls by operation name from now on (for benchmarks, tests)."""
    counts: Counter[str] = Counter()

    def on_call(model: Any, **_: Any) -> None:
        counts[model.name] += 1

    store.client.meta.events.register("before-call.dynamodb", on_call)
    return counts
