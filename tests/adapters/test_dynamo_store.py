"""DynamoDB-only checks: request counts per operation, item size, keys, TTL and index."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from moto import mock_aws

from chalicelib.adapters.dynamo import DynamoStore, count_requests
from chalicelib.ports import VersionConflict

SUMMARY = {
    "status": "waiting",
    "host_name": "Alice",
    "players": 6,
    "humans": 4,
    "bots": 2,
    "created_at": 1_700_000_000_000,
    "created_by_guest": False,
    "settings": {
        "starting_dice": 5,
        "wildcard_chance": 5,
        "penalty": "discard",
        "turn_seconds": 30,
        "break_seconds": 60,
        "joining": "open",
        "rules": "classic",
    },
}


@pytest.fixture
def dynamo(aws_env: None) -> Iterator[DynamoStore]:
    with mock_aws():
        store = DynamoStore("liars-test", "us-east-1")
        store.ensure_table()
        yield store


def _game_state(size: int) -> dict[str, object]:
    """A plausible engine state of about ``size`` bytes of JSON (random, so it compresses badly)."""
    rng = random.Random(7)
    players = [
        {
            "id": f"p{i}",
            "user_id": f"user-{rng.getrandbits(64):016x}",
            "name": f"Player {i}",
            "dice": [rng.randint(1, 6) for _ in range(5)],
            "seat": i,
            "ready": True,
        }
        for i in range(6)
    ]
    state: dict[str, object] = {"players": players, "round": 3, "bids": []}
    bids: list[dict[str, object]] = []
    while len(str(state)) < size:
        bids.append(
            {
                "p": f"p{rng.randrange(6)}",
                "q": rng.randint(1, 30),
                "f": rng.randint(1, 6),
                "at": rng.getrandbits(40),
            }
        )
        state["bids"] = bids
    return state


def _item_size(item: dict[str, dict[str, object]]) -> int:
    """DynamoDB's item size rule: attribute name bytes plus value bytes."""
    total = 0
    for name, value in item.items():
        total += len(name.encode())
        ((kind, raw),) = value.items()
        if kind == "S":
            total += len(str(raw).encode())
        elif kind == "B":
            total += len(raw)  # type: ignore[arg-type]
        elif kind == "N":
            total += len(str(raw)) // 2 + 1
        else:
            total += 1
    return total


def test_room_item_for_a_2kb_state_stays_under_4kb(dynamo: DynamoStore) -> None:
    state = _game_state(2_400)  # about 2 KB of compact JSON
    dynamo.create_room("r1", state, SUMMARY)
    dynamo.save_room("r1", state, SUMMARY, expected_version=1)
    item = dynamo.client.get_item(
        TableName="liars-test", Key={"pk": {"S": "ROOM#r1"}, "sk": {"S": "ROOM"}}
    )["Item"]
    assert _item_size(item) < 4_096
    room = dynamo.get_room("r1")
    assert room is not None and room.state == state


def test_room_operations_cost_one_request_each(dynamo: DynamoStore) -> None:
    calls = count_requests(dynamo)
    dynamo.create_room("r1", {"a": 1}, SUMMARY)
    dynamo.get_room("r1")
    dynamo.save_room("r1", {"a": 2}, SUMMARY, expected_version=1)
    with pytest.raises(VersionConflict) as err:
        dynamo.save_room("r1", {"a": 3}, SUMMARY, expected_version=1)
    assert err.value.current is not None and err.value.current.version == 2
    assert calls == {"PutItem": 1, "GetItem": 1, "UpdateItem": 2}


def test_fan_out_reads_subscribers_with_one_query(dynamo: DynamoStore) -> None:
    for i in range(20):
        dynamo.put_connection(f"c{i}", f"u{i}", 0)
        dynamo.subscribe(f"c{i}", "r1")
    calls = count_requests(dynamo)
    assert len(dynamo.subscribers("r1")) == 20
    assert calls == {"Query": 1}


def test_ticket_consumption_is_one_conditional_delete(dynamo: DynamoStore) -> None:
    dynamo.put_ticket("t", "u1", 10_000)
    calls = count_requests(dynamo)
    assert dynamo.consume_ticket("t", 1) == "u1"
    assert dynamo.consume_ticket("t", 1) is None
    assert calls == {"DeleteItem": 2}


def test_tickets_are_stored_by_hash_not_in_clear(dynamo: DynamoStore) -> None:
    dynamo.put_ticket("secret-ticket", "u1", 10_000)
    items = dynamo.client.scan(TableName="liars-test")["Items"]
    assert items and all("secret-ticket" not in str(item) for item in items)


def test_table_has_ttl_and_lobby_index_without_state(dynamo: DynamoStore) -> None:
    ttl = dynamo.client.describe_time_to_live(TableName="liars-test")
    assert ttl["TimeToLiveDescription"]["AttributeName"] == "expires_at"
    table = dynamo.client.describe_table(TableName="liars-test")["Table"]
    index, board, due = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "gsi1" and board["IndexName"] == "gsi2"
    assert due["IndexName"] == "gsi3" and due["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert index["Projection"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["room_id", "summary"],
    }
    dynamo.ensure_table()  # a second call is harmless


def test_short_lived_items_carry_expires_at(dynamo: DynamoStore) -> None:
    dynamo.put_connection("c1", "u1", 1_000_000)
    dynamo.subscribe("c1", "r1")
    dynamo.put_ticket("t", "u1", 2_000_000)
    dynamo.hit("k", 5, 10, 1_000_000)
    dynamo.add_invitation("u2", "r1", "Alice", now_ms=1_000_000)
    items = dynamo.client.scan(TableName="liars-test")["Items"]
    by_pk = {
        item["pk"]["S"].split("#")[0] + "/" + item["sk"]["S"].split("#")[0]: item for item in items
    }
    assert by_pk["CONN/CONN"]["expires_at"]["N"] == str(1_000 + 3 * 3600)
    assert by_pk["ROOM/SUB"]["expires_at"]["N"] == str(1_000 + 3 * 3600)
    assert int(by_pk["TICKET/TICKET"]["expires_at"]["N"]) >= 2_000
    assert int(by_pk["RATE/W"]["expires_at"]["N"]) >= 1_010
    assert int(by_pk["USER/INVITE"]["expires_at"]["N"]) == 1_000 + 7 * 24 * 3600


def test_finished_room_can_be_given_an_expiry(dynamo: DynamoStore) -> None:
    dynamo.create_room("r1", {}, SUMMARY)
    dynamo.save_room("r1", {}, {**SUMMARY, "status": "finished"}, 1, expires_at_s=123)
    item = dynamo.client.get_item(
        TableName="liars-test", Key={"pk": {"S": "ROOM#r1"}, "sk": {"S": "ROOM"}}
    )["Item"]
    assert item["expires_at"] == {"N": "123"} and item["gsi1pk"] == {"S": "LOBBY#finished"}


def test_client_is_created_lazily(aws_env: None) -> None:
    store = DynamoStore("t", "us-east-1")
    assert not store._client.created
    with mock_aws():
        assert store.client is store.client
