"""The store contract for round records (issue 18): every store, same behaviour.

Round records are written with the room write that completes the round, once per round
number, and never inside the room item.
"""

from __future__ import annotations

import pytest

from chalicelib.ports import RatingsWrite, RoundsWrite, Store, UnknownUser, VersionConflict

SUMMARY = {"status": "playing", "host_name": "A", "created_at": 1_000, "settings": {}}


def _record(n: int, note: str = "first") -> dict[str, object]:
    return {
        "round": n,
        "bids": [{"player_id": "p1", "quantity": n, "face": 3}],
        "reveal": {"round": n, "count": n % 4, "rows": [{"player_id": "p1", "dice": [3, "*"]}]},
        "note": note,
    }


def test_rounds_are_written_with_the_room_and_read_back_in_order(store: Store) -> None:
    store.create_room("r1", {"n": 0}, SUMMARY)
    assert store.list_rounds("r1") == []
    store.save_room("r1", {"n": 1}, SUMMARY, 1, rounds=RoundsWrite([_record(2), _record(1)]))
    store.save_room("r1", {"n": 2}, SUMMARY, 2, rounds=RoundsWrite([_record(3)], 99_999))
    assert store.list_rounds("r1") == [_record(1), _record(2), _record(3)]
    room = store.get_room("r1")
    # The records live beside the room, never inside its state.
    assert room is not None and (room.state, room.version) == ({"n": 2}, 3)


def test_a_replayed_round_record_changes_nothing(store: Store) -> None:
    store.create_room("r1", {"n": 0}, SUMMARY)
    store.save_room("r1", {"n": 1}, SUMMARY, 1, rounds=RoundsWrite([_record(1)]))
    again = RoundsWrite([_record(1, "replayed"), _record(2)])
    assert store.save_room("r1", {"n": 2}, SUMMARY, 2, rounds=again) == 3
    assert store.list_rounds("r1") == [_record(1), _record(2)]
    room = store.get_room("r1")
    assert room is not None and room.state == {"n": 2}


def test_a_lost_race_records_no_round(store: Store) -> None:
    store.create_room("r1", {"n": 0}, SUMMARY)
    store.save_room("r1", {"n": 1}, SUMMARY, 1)
    with pytest.raises(VersionConflict) as err:
        store.save_room("r1", {"n": "lost"}, SUMMARY, 1, rounds=RoundsWrite([_record(1)]))
    assert err.value.current is not None and err.value.current.version == 2
    assert store.list_rounds("r1") == []
    with pytest.raises(VersionConflict):
        store.save_room("ghost", {}, SUMMARY, 1, rounds=RoundsWrite([_record(1)]))
    assert store.list_rounds("ghost") == []


def test_a_round_abandoned_by_a_resignation_and_its_second_deal_are_both_kept(
    store: Store,
) -> None:
    # Issue 28: a resignation mid-round deals the round again under the same number; the
    # abandoned deal (attempt 0, no reveal) and the one completed (attempt 1) are two records.
    store.create_room("r1", {"n": 0}, SUMMARY)
    abandoned = {"round": 2, "attempt": 0, "bids": [], "reveal": None, "resigned_id": "p3"}
    store.save_room("r1", {"n": 1}, SUMMARY, 1, rounds=RoundsWrite([_record(1), abandoned]))
    second = {**_record(2, "second deal"), "attempt": 1}
    store.save_room("r1", {"n": 2}, SUMMARY, 2, rounds=RoundsWrite([second]))
    # Both in one write too (a resignation that ends the game records its round alone, but
    # a write may carry several), and a replay of either changes nothing.
    again = RoundsWrite([{**abandoned, "resigned_id": "replayed"}, {**second, "note": "x"}])
    store.save_room("r1", {"n": 3}, SUMMARY, 3, rounds=again)
    late = {"round": 3, "attempt": 0, "bids": [], "reveal": None, "resigned_id": "p2"}
    done = {**_record(3), "attempt": 1}
    store.save_room("r1", {"n": 4}, SUMMARY, 4, rounds=RoundsWrite([done, late]))
    assert store.list_rounds("r1") == [_record(1), abandoned, second, late, done]


def test_rounds_are_kept_per_room(store: Store) -> None:
    store.create_room("r1", {}, SUMMARY)
    store.create_room("r2", {}, SUMMARY)
    store.save_room("r1", {}, SUMMARY, 1, rounds=RoundsWrite([_record(1, "r1")]))
    store.save_room("r2", {}, SUMMARY, 1, rounds=RoundsWrite([_record(1, "r2")]))
    assert store.list_rounds("r1") == [_record(1, "r1")]
    assert store.list_rounds("r2") == [_record(1, "r2")]


def test_more_rounds_than_a_transaction_holds_are_all_kept_with_the_ratings(store: Store) -> None:
    # A table of bots alone completes many rounds in one change; a transaction holds 100 items.
    store.create_user("a", "a", "h", False, "A")
    store.create_user("b", "b", "h", False, "B")
    store.create_room("r1", {}, SUMMARY)
    ratings = RatingsWrite("r1", {"a": 8.0, "b": -8.0}, {"room_id": "r1"})
    many = [_record(n) for n in range(1, 251)]
    assert (
        store.save_room("r1", {"done": 1}, SUMMARY, 1, ratings=ratings, rounds=RoundsWrite(many))
        == 2
    )
    assert store.list_rounds("r1") == many
    assert store.get_ratings(["a", "b"]) == {"a": 1508.0, "b": 1492.0}


def test_rounds_with_ratings_of_an_unknown_user_write_nothing(store: Store) -> None:
    store.create_user("a", "a", "h", False, "A")
    store.create_room("r1", {}, SUMMARY)
    bad = RatingsWrite("r1", {"a": 8.0, "ghost": -8.0}, {})
    with pytest.raises(UnknownUser):
        store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=bad, rounds=RoundsWrite([_record(1)]))
    assert store.list_rounds("r1") == []
    room = store.get_room("r1")
    assert room is not None and room.version == 1


def test_dynamo_records_a_round_in_the_room_write_within_one_transaction(moto_aws: None) -> None:
    # DynamoDB only: one request per completed round's write, at most 100 items however many
    # rounds it completes, and a write that completes no round stays one UpdateItem.
    from chalicelib.adapters.dynamo import DynamoStore, count_requests

    store = DynamoStore("liars-rounds", "us-east-1")
    store.ensure_table()
    store.create_room("r1", {}, SUMMARY)
    sizes: list[int] = []
    real = store.client.transact_write_items

    def spy(**kwargs: object) -> object:
        items = kwargs["TransactItems"]
        assert isinstance(items, list)
        sizes.append(len(items))
        return real(**kwargs)

    store.client.transact_write_items = spy
    requests = count_requests(store)
    store.save_room("r1", {"n": 1}, SUMMARY, 1)
    store.save_room("r1", {"n": 2}, SUMMARY, 2, rounds=RoundsWrite([_record(1)]))
    assert dict(requests) == {"UpdateItem": 1, "TransactWriteItems": 1} and sizes == [2]
    store.save_room(
        "r1", {"n": 3}, SUMMARY, 3, rounds=RoundsWrite([_record(n) for n in range(2, 302)])
    )
    assert 2 < sizes[-1] <= 100
    assert len(store.list_rounds("r1")) == 301
