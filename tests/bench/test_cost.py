"""bench/cost.py at tiny size: one whole game is counted call by call, the billing rules follow
DynamoDB's and API Gateway's, and docs/DEPLOY.md holds the bench's own table format."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import cost  # noqa: E402


def _item(size: int) -> dict[str, dict[str, str]]:
    """An item of exactly ``size`` bytes by DynamoDB's rules (names plus values)."""
    return {"pk": {"S": "x"}, "sk": {"S": "y"}, "d": {"S": "z" * (size - 7)}}


def test_item_size_counts_names_and_values_by_dynamodbs_rules() -> None:
    assert cost.item_size(_item(1000)) == 1000
    assert cost.item_size({"n": {"N": "12345"}}) == 1 + 4  # 5 digits: 3 bytes + 1
    assert cost.item_size({"b": {"B": b"\x00" * 10}, "t": {"BOOL": True}}) == 1 + 10 + 1 + 1
    assert cost.item_size({"s": {"SS": ["ab", "c"]}}) == 1 + 3


def test_write_units_are_per_started_kilobyte_of_the_larger_version() -> None:
    assert cost.write_units(_item(1024), _item(1024)) == 1
    assert cost.write_units(_item(1000), _item(1025)) == 2  # just over 1 KB bills 2
    assert cost.write_units(_item(2100), None) == 3  # a delete bills the old item
    assert cost.write_units(None, None) == 1  # at least one unit


def test_read_units_are_per_started_4_kb_and_half_when_eventually_consistent() -> None:
    assert cost.read_units(100, consistent=True) == 1
    assert cost.read_units(4097, consistent=True) == 2
    assert cost.read_units(4097, consistent=False) == 1
    assert cost.read_units(0, consistent=False) == 0.5


def test_the_index_is_written_only_when_its_entry_changes() -> None:
    room = {**_item(600), "gsi1pk": {"S": "LOBBY#playing"}, "gsi1sk": {"S": "1#r"}}
    same_entry = {**room, "d": {"S": "other state"}}  # state is not projected
    moved = {**room, "gsi1pk": {"S": "LOBBY#finished"}}
    assert cost.index_write_units(room, same_entry) == 0
    assert cost.index_write_units(room, moved) == 2  # delete the old entry, put the new
    assert cost.index_write_units(None, room) == 1


def test_the_sparse_deadline_index_costs_writes_only_when_the_deadline_moves() -> None:
    room = {**_item(600), "dlpk": {"S": "DUE#100#1"}, "dlsk": {"N": "6000010"}}
    assert cost.index_write_units(room, {**room, "d": {"S": "other"}}) == 0
    # The deadline is the entry's key: a new one deletes the old entry and puts the new.
    assert cost.index_write_units(room, {**room, "dlsk": {"N": "6000020"}}) == 2
    assert cost.index_write_units(room, {**room, "dlpk": {"S": "DUE#101#1"}}) == 2
    without = {k: v for k, v in room.items() if k not in ("dlpk", "dlsk")}
    assert cost.index_write_units(room, without) == 1  # the entry goes with the deadline


@pytest.fixture(scope="module")
def tiny() -> cost.ShapeResult:
    shape = cost.Shape("2 players: 1 human + 1 bot", humans=1, bots=1, dice=1)
    (result,) = cost.run((shape,), games=1)
    return result


def test_a_whole_game_is_counted_request_by_request(tiny: cost.ShapeResult) -> None:
    c = tiny.per_game
    assert c.player_actions > 0
    # create, ticket, page load, one bot, start, then the human's moves
    assert c.rest_requests == 5 + c.player_actions
    # connect, subscribe, a tick when the final reveal ends, disconnect: one connection
    assert c.ws_connects == 1 and c.ws_messages_in == 2
    assert c.by_handler == {
        "api_handler": c.rest_requests,
        "ws_connect": 1,
        "ws_message": 2,
        "ws_disconnect": 1,
    }
    assert c.lambda_invocations == c.rest_requests + 4
    # every room change is one conditional write, pushed once to the one subscriber
    assert c.room_writes >= c.player_actions + 3
    assert c.subscriber_queries == c.room_writes  # each committed change looks for watchers
    assert c.ws_pushes >= c.room_writes - 1  # all but the creation reach the one subscriber
    assert c.wru >= c.room_wru >= c.room_writes
    assert c.connection_minutes > 0 and c.lambda_ms > 0 and c.bytes_out > 0
    assert c.scheduler_invocations == 0  # the client's tick ended the final reveal


def test_the_cost_is_the_priced_sum_of_the_counted_items(tiny: cost.ShapeResult) -> None:
    prices = cost.load_prices()
    rows = {label: (q, usd) for label, q, usd, _ in tiny.rows}
    q, usd = rows["REST API requests"]
    assert q == tiny.per_game.rest_requests
    assert usd == pytest.approx(q * 1000 * 3.50 / 1e6)
    assert tiny.total == pytest.approx(sum(usd for _, usd in rows.values()))
    assert prices["region"] and prices["as_of"]


def test_docs_deploy_holds_the_cost_table_in_the_bench_format(tiny: cost.ShapeResult) -> None:
    doc = (ROOT / "docs" / "DEPLOY.md").read_text()
    assert cost.doc_problems(doc) == []
    # the check can fail: a table from another set of shapes does not match
    other = cost.markdown([tiny], cost.load_prices(), "python bench/cost.py")
    assert cost.doc_problems(other) != []


def test_each_human_action_reads_the_room_once_and_writes_it_once_conditionally(
    tiny: cost.ShapeResult,
) -> None:
    actions = [i for i in tiny.invocations if i.kind == "action"]
    assert len(actions) == tiny.per_game.player_actions > 0
    for invocation in actions:
        assert (invocation.room_reads, invocation.room_writes) == (1, 1), invocation
        assert invocation.unconditional_room_writes == 0
        assert invocation.billed_ms >= invocation.code_ms > 0
    # the other invocations are there too (sign-up is not counted, the room's creation is)
    assert any(i.kind == "POST /rooms" for i in tiny.invocations)
    # (twice: the process's first action is left out of the warm ones)
    lines = cost.duration_lines([tiny, tiny], [], "")
    assert any("1.00 reads, 1.00 conditional writes" in line for line in lines)
    assert any(line.strip().startswith("warm: median") for line in lines)


def test_room_io_counts_reads_and_conditional_writes_of_the_room_item_only() -> None:
    meter = cost.Meter(raw_dynamodb=None, table="t")
    room = {"pk": {"S": "ROOM#r1"}, "sk": {"S": "ROOM"}}
    seat = {"pk": {"S": "USER#u1"}, "sk": {"S": "SEAT#r1"}}
    meter._note_room_io("GetItem", {"Key": room})
    meter._note_room_io("GetItem", {"Key": seat})
    meter._note_room_io(
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Update": {"Key": room, "ConditionExpression": "version = :expected"}},
                {"Put": {"Item": {**seat, "x": {"S": "y"}}}},
            ]
        },
    )
    meter._note_room_io("UpdateItem", {"Key": room})  # not conditional
    assert meter.room_io == {"read": 1, "write": 1, "unconditional": 1}
    assert cost.is_room_key(room) and not cost.is_room_key(seat)


def test_a_fresh_interpreter_serves_the_first_action_with_one_read_and_one_write() -> None:
    shape = cost.Shape("2 players: 1 human + 1 bot", humans=1, bots=1, dice=1)
    (probe,) = cost.measure_cold(shape, runs=1)
    assert probe["status"] == 200
    assert (probe["room_reads"], probe["room_writes"]) == (1, 1)
    assert probe["init_ms"] > 0 and probe["first_ms"] > 0
    assert probe["billed_ms"] >= probe["init_ms"] + probe["first_ms"]
    assert probe["calls"]["dynamodb"] >= 2  # the read and the write at least
    lines = cost.duration_lines([], [probe], shape.label)
    assert any("cold (2 players" in line and "room reads [1]" in line for line in lines)


def test_the_same_handler_on_the_local_store_is_printed_beside_the_lambdas(
    tiny: cost.ShapeResult,
) -> None:
    shape = cost.Shape("2 players: 1 human + 1 bot", humans=1, bots=1, dice=1)
    (local,) = cost.run((shape,), games=1, storage="sqlite")
    actions = [i for i in local.invocations if i.kind == "action"]
    assert len(actions) == local.per_game.player_actions > 0
    assert local.per_game.room_writes == 0  # no DynamoDB: nothing of the room counted there
    lines = cost.duration_lines([tiny, tiny], [], "", [local, local])
    assert any(line.strip().startswith("local, beside it:") for line in lines)
    assert not any("local" in line for line in cost.duration_lines([tiny, tiny], [], ""))
