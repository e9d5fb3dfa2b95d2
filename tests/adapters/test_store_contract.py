"""One contract for both stores: SqliteStore and DynamoStore on moto behave the same."""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib.adapters.policy import MAX_RATING_CHANGES
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import (
    NewRoom,
    RatingsWrite,
    RoomExists,
    RoomLimitReached,
    Store,
    TooManyRatingChanges,
    UnknownUser,
    UserExists,
    UsernameTaken,
    VersionConflict,
)
from chalicelib.wire import chat_message

SUMMARY = {
    "status": "waiting",
    "host_name": "Alice",
    "players": 1,
    "humans": 1,
    "bots": 0,
    "created_at": 1_000,
    "created_by_guest": False,
    "settings": {"starting_dice": 5},
}


def _summary(**changes: object) -> dict[str, object]:
    return {**SUMMARY, **changes}


# --- rooms --------------------------------------------------------------------------------


def test_created_room_reads_back_at_version_one(store: Store) -> None:
    assert store.create_room("r1", {"phase": "waiting", "players": [1, 2]}, SUMMARY) == 1
    room = store.get_room("r1")
    assert room is not None
    assert (room.state, room.version) == ({"phase": "waiting", "players": [1, 2]}, 1)


def test_unknown_room_is_none(store: Store) -> None:
    assert store.get_room("nope") is None


def test_room_id_is_created_once(store: Store) -> None:
    store.create_room("r1", {"a": 1}, SUMMARY)
    with pytest.raises(RoomExists):
        store.create_room("r1", {"a": 2}, SUMMARY)
    room = store.get_room("r1")
    assert room is not None and room.state == {"a": 1}


def test_save_bumps_version_and_replaces_state(store: Store) -> None:
    store.create_room("r1", {"a": 1}, SUMMARY)
    assert store.save_room("r1", {"a": 2}, SUMMARY, expected_version=1) == 2
    assert store.save_room("r1", {"a": 3}, SUMMARY, expected_version=2) == 3
    room = store.get_room("r1")
    assert room is not None and (room.state, room.version) == ({"a": 3}, 3)


def test_stale_save_is_a_conflict_carrying_the_current_room(store: Store) -> None:
    store.create_room("r1", {"a": 1}, SUMMARY)
    store.save_room("r1", {"a": 2}, SUMMARY, expected_version=1)
    with pytest.raises(VersionConflict) as err:
        store.save_room("r1", {"a": "lost"}, SUMMARY, expected_version=1)
    assert err.value.current is not None
    assert (err.value.current.state, err.value.current.version) == ({"a": 2}, 2)
    room = store.get_room("r1")
    assert room is not None and room.state == {"a": 2}


def test_saving_a_missing_room_is_a_conflict_with_nothing_current(store: Store) -> None:
    with pytest.raises(VersionConflict) as err:
        store.save_room("ghost", {"a": 1}, SUMMARY, expected_version=1)
    assert err.value.current is None
    assert store.get_room("ghost") is None


def test_large_state_round_trips_through_compression(store: Store) -> None:
    state = {"log": [{"i": i, "dice": [1, 2, 3, 4, 5], "name": f"p{i}"} for i in range(200)]}
    store.create_room("big", state, SUMMARY)
    store.save_room("big", {**state, "x": 1}, SUMMARY, expected_version=1)
    room = store.get_room("big")
    assert room is not None and room.state == {**state, "x": 1}
    store.save_room("big", {"small": True}, SUMMARY, expected_version=2)
    room = store.get_room("big")
    assert room is not None and room.state == {"small": True}


def test_lobby_lists_by_status_newest_first(store: Store) -> None:
    store.create_room("old", {}, _summary(created_at=1_000))
    store.create_room("new", {}, _summary(created_at=2_000, host_name="Bob"))
    store.create_room("busy", {}, _summary(created_at=3_000, status="playing"))
    rooms = store.list_rooms("waiting")
    assert [r["id"] for r in rooms] == ["new", "old"]
    assert rooms[0]["host_name"] == "Bob" and rooms[0]["settings"] == {"starting_dice": 5}
    assert [r["id"] for r in store.list_rooms("waiting", limit=1)] == ["new"]
    store.save_room("old", {}, _summary(status="playing"), expected_version=1)
    assert [r["id"] for r in store.list_rooms("waiting")] == ["new"]
    assert {r["id"] for r in store.list_rooms("playing")} == {"busy", "old"}


def test_open_room_cap_counts_per_owner_and_releases(store: Store) -> None:
    for i in range(2):
        store.create_room(f"r{i}", {}, SUMMARY, owner_id="u1", max_open=2)
    with pytest.raises(RoomLimitReached):
        store.create_room("r2", {}, SUMMARY, owner_id="u1", max_open=2)
    assert store.get_room("r2") is None
    assert store.open_rooms("u1") == ["r0", "r1"]
    store.create_room("other", {}, SUMMARY, owner_id="u2", max_open=2)
    store.release_room("u1", "r0")
    store.release_room("u1", "r0")
    store.create_room("r2", {}, SUMMARY, owner_id="u1", max_open=2)
    assert store.open_rooms("u1") == ["r1", "r2"]


def test_existing_room_id_with_owner_is_room_exists_and_counts_nothing(store: Store) -> None:
    store.create_room("r1", {}, SUMMARY, owner_id="u1", max_open=5)
    with pytest.raises(RoomExists):
        store.create_room("r1", {}, SUMMARY, owner_id="u2", max_open=5)
    assert store.open_rooms("u2") == []


def _finished(store: Store) -> None:
    store.create_room("old", {"status": "finished"}, _summary(status="finished"))


def test_recreate_writes_old_room_new_room_and_count_together(store: Store) -> None:
    _finished(store)
    new = NewRoom("new", {"from": "old"}, SUMMARY, "u1")
    finished = _summary(status="finished")
    assert store.recreate_room("old", {"recreated_as": "new"}, finished, 1, new, max_open=5) == 2
    old, made = store.get_room("old"), store.get_room("new")
    assert old is not None and (old.state, old.version) == ({"recreated_as": "new"}, 2)
    assert made is not None and (made.state, made.version) == ({"from": "old"}, 1)
    assert store.open_rooms("u1") == ["new"]
    assert [r["id"] for r in store.list_rooms("waiting")] == ["new"]


def test_recreate_over_a_stale_version_writes_nothing(store: Store) -> None:
    _finished(store)
    store.save_room("old", {"moved": True}, _summary(status="finished"), 1)
    with pytest.raises(VersionConflict) as lost:
        store.recreate_room("old", {"x": 1}, SUMMARY, 1, NewRoom("new", {}, SUMMARY, "u1"))
    assert lost.value.current is not None and lost.value.current.version == 2
    assert store.get_room("new") is None and store.open_rooms("u1") == []
    old = store.get_room("old")
    assert old is not None and old.state == {"moved": True}


def test_recreate_at_the_cap_or_onto_an_existing_id_writes_nothing(store: Store) -> None:
    _finished(store)
    store.create_room("mine", {}, SUMMARY, owner_id="u1", max_open=1)
    with pytest.raises(RoomLimitReached):
        store.recreate_room(
            "old", {"x": 1}, SUMMARY, 1, NewRoom("new", {}, SUMMARY, "u1"), max_open=1
        )
    with pytest.raises(RoomExists):
        store.recreate_room("old", {"x": 1}, SUMMARY, 1, NewRoom("mine", {}, SUMMARY, "u2"))
    old = store.get_room("old")
    assert old is not None and (old.state, old.version) == ({"status": "finished"}, 1)
    assert store.get_room("new") is None
    assert store.open_rooms("u1") == ["mine"] and store.open_rooms("u2") == []


# --- users --------------------------------------------------------------------------------


def test_registered_user_round_trip_and_case_insensitive_username(store: Store) -> None:
    made = store.create_user("u1", "Alice", "hash1", False, "Alice", now_ms=5)
    assert store.get_user("u1") == made
    assert made.username == "Alice" and made.password_hash == "hash1" and not made.guest
    assert made.continue_mode == "auto"
    assert store.get_user_by_username("aLiCe") == made
    assert store.get_user_by_username("bob") is None


def test_username_is_unique_regardless_of_case(store: Store) -> None:
    store.create_user("u1", "Alice", "h", False, "Alice")
    with pytest.raises(UsernameTaken):
        store.create_user("u2", "ALICE", "h", False, "Other")
    assert store.get_user("u2") is None


def test_user_id_is_created_once(store: Store) -> None:
    store.create_user("g1", None, None, True, "Guest")
    with pytest.raises(UserExists):
        store.create_user("g1", None, None, True, "Guest again")
    with pytest.raises(UserExists):
        store.create_user("g1", "fresh", "h", False, "Fresh")
    assert store.get_user_by_username("fresh") is None


def test_guest_expiry_round_trips_and_registered_users_have_none(store: Store) -> None:
    guest = store.create_user("g1", None, None, True, "Visitor", now_ms=5_000, expires_at_s=90)
    assert guest.expires_at_s == 90
    found = store.get_user("g1")
    assert found is not None and found.expires_at_s == 90
    store.create_user("u1", "keeper", "hash", False, "keeper", now_ms=5_000)
    kept = store.get_user("u1")
    assert kept is not None and kept.expires_at_s is None


def test_guest_has_no_username(store: Store) -> None:
    guest = store.create_user("g1", None, None, True, "Guest 7")
    assert guest.guest and guest.username is None and guest.password_hash is None
    assert store.get_user("g1") == guest


def test_preferences_and_password_hash_update(store: Store) -> None:
    store.create_user("u1", "alice", "old", False, "Alice")
    store.set_preferences("u1", "manual")
    store.set_password_hash("u1", "new")
    user = store.get_user("u1")
    assert user is not None and (user.continue_mode, user.password_hash) == ("manual", "new")
    with pytest.raises(UnknownUser):
        store.set_preferences("nobody", "auto")
    assert store.get_user("nobody") is None


def test_language_is_stored_with_the_user(store: Store) -> None:
    # Issue 28: the interface language is remembered with the user (None until chosen).
    store.create_user("u1", "alice", "h", False, "Alice")
    store.create_user("u2", "bob", "h", False, "Bob")
    first = store.get_user("u1")
    assert first is not None and first.language is None
    store.set_language("u1", "pt-BR")
    store.set_preferences("u1", "manual")
    user = store.get_user("u1")
    assert user is not None and (user.language, user.continue_mode) == ("pt-BR", "manual")
    assert store.get_user_by_username("ALICE") == user
    other = store.get_user("u2")
    assert other is not None and other.language is None
    with pytest.raises(UnknownUser):
        store.set_language("nobody", "es")
    assert store.get_user("nobody") is None


def test_ratings_default_to_1500_and_apply_exactly_once(store: Store) -> None:
    store.create_user("a", "a", "h", False, "A")
    store.create_user("b", "b", "h", False, "B")
    assert store.get_ratings(["a", "b", "ghost"]) == {"a": 1500.0, "b": 1500.0, "ghost": 1500.0}
    record = {"ranking": [{"user_id": "a", "rank": 1}, {"user_id": "b", "rank": 2}]}
    assert store.apply_ratings("room1#1", {"a": 16.0, "b": -16.0}, record) is True
    assert store.apply_ratings("room1#1", {"a": 16.0, "b": -16.0}, record) is False
    assert store.get_ratings(["a", "b"]) == {"a": 1516.0, "b": 1484.0}
    assert store.get_game_record("room1#1") == record
    assert store.get_game_record("room1#2") is None
    assert store.apply_ratings("room1#2", {"a": 0.5}, {}) is True
    assert store.get_ratings(["a"]) == {"a": 1516.5}


def test_rating_change_for_unknown_user_applies_nothing(store: Store) -> None:
    store.create_user("a", "a", "h", False, "A")
    with pytest.raises(UnknownUser):
        store.apply_ratings("g", {"a": 10.0, "ghost": -10.0}, {})
    assert store.get_ratings(["a"]) == {"a": 1500.0}
    assert store.get_game_record("g") is None


def _two_players(store: Store) -> RatingsWrite:
    store.create_user("a", "a", "h", False, "A")
    store.create_user("b", "b", "h", False, "B")
    store.create_room("r1", {"phase": "playing"}, _summary(status="playing"))
    return RatingsWrite("r1", {"a": 16.0, "b": -16.0}, {"room_id": "r1", "results": {"x": 1}})


def test_save_with_ratings_writes_room_ratings_and_record_together(store: Store) -> None:
    ratings = _two_players(store)
    finished = _summary(status="finished")
    assert store.save_room("r1", {"phase": "finished"}, finished, 1, ratings=ratings) == 2
    room = store.get_room("r1")
    assert room is not None and (room.state, room.version) == ({"phase": "finished"}, 2)
    assert store.get_ratings(["a", "b"]) == {"a": 1516.0, "b": 1484.0}
    assert store.get_game_record("r1") == {"room_id": "r1", "results": {"x": 1}}
    assert [r["id"] for r in store.list_rooms("finished")] == ["r1"]
    # The record makes the ratings once-only for apply_ratings too.
    assert store.apply_ratings("r1", {"a": 16.0, "b": -16.0}, {}) is False


def test_lost_race_with_ratings_applies_none_and_carries_the_current_room(store: Store) -> None:
    ratings = _two_players(store)
    store.save_room("r1", {"phase": "other"}, SUMMARY, expected_version=1)
    with pytest.raises(VersionConflict) as err:
        store.save_room("r1", {"phase": "finished"}, SUMMARY, 1, ratings=ratings)
    assert err.value.current is not None
    assert (err.value.current.state, err.value.current.version) == ({"phase": "other"}, 2)
    assert store.get_ratings(["a", "b"]) == {"a": 1500.0, "b": 1500.0}
    assert store.get_game_record("r1") is None
    room = store.get_room("r1")
    assert room is not None and (room.state, room.version) == ({"phase": "other"}, 2)


def test_ratings_of_a_missing_room_apply_nothing(store: Store) -> None:
    ratings = _two_players(store)
    with pytest.raises(VersionConflict) as err:
        store.save_room("ghost", {}, SUMMARY, 1, ratings=ratings)
    assert err.value.current is None
    assert store.get_ratings(["a"]) == {"a": 1500.0} and store.get_game_record("r1") is None


def test_second_save_with_the_same_ratings_writes_the_room_only(store: Store) -> None:
    ratings = _two_players(store)
    store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=ratings)
    again = RatingsWrite("r1", {"a": 50.0, "b": -50.0}, {"room_id": "r1", "results": "later"})
    assert store.save_room("r1", {"n": 2}, SUMMARY, 2, ratings=again) == 3
    room = store.get_room("r1")
    assert room is not None and (room.state, room.version) == ({"n": 2}, 3)
    assert store.get_ratings(["a", "b"]) == {"a": 1516.0, "b": 1484.0}
    assert store.get_game_record("r1") == {"room_id": "r1", "results": {"x": 1}}
    with pytest.raises(VersionConflict):
        store.save_room("r1", {"n": "stale"}, SUMMARY, 2, ratings=again)


def test_ratings_for_an_unknown_user_write_neither_room_nor_ratings(store: Store) -> None:
    _two_players(store)
    bad = RatingsWrite("r1", {"a": 10.0, "ghost": -10.0}, {})
    with pytest.raises(UnknownUser):
        store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=bad)
    room = store.get_room("r1")
    assert room is not None and room.version == 1
    assert store.get_ratings(["a"]) == {"a": 1500.0} and store.get_game_record("r1") is None


def test_too_many_rating_changes_with_a_room_are_refused_before_writing(store: Store) -> None:
    _two_players(store)
    many = RatingsWrite("r1", {f"u{i}": 1.0 for i in range(99)}, {})
    with pytest.raises(TooManyRatingChanges):
        store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=many)
    room = store.get_room("r1")
    assert room is not None and room.version == 1


def test_one_game_rates_at_most_the_policy_limit_on_every_path(store: Store) -> None:
    # One rule for both stores and both writes (docs/STORAGE.md, "Store policy"): a game
    # with one rating change too many is refused by apply_ratings as by save_room.
    _two_players(store)
    many = {f"u{i}": 1.0 for i in range(MAX_RATING_CHANGES + 1)}
    with pytest.raises(TooManyRatingChanges):
        store.apply_ratings("g", many, {})
    with pytest.raises(TooManyRatingChanges):
        store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=RatingsWrite("r1", many, {}))
    room = store.get_room("r1")
    assert room is not None and room.version == 1
    assert store.get_game_record("g") is None and store.get_game_record("r1") is None


def test_invitations_list_oldest_first_and_can_be_removed(store: Store) -> None:
    store.add_invitation("u1", "r2", "Bob", now_ms=2_000)
    store.add_invitation("u1", "r1", "Alice", now_ms=1_000)
    store.add_invitation("u1", "r1", "Alice", now_ms=1_000)
    assert store.list_invitations("u1") == [
        {"room_id": "r1", "host_name": "Alice"},
        {"room_id": "r2", "host_name": "Bob"},
    ]
    store.remove_invitation("u1", "r1")
    store.remove_invitation("u1", "missing")
    assert store.list_invitations("u1") == [{"room_id": "r2", "host_name": "Bob"}]
    assert store.list_invitations("u2") == []


# --- chat ---------------------------------------------------------------------------------


def test_chat_messages_come_back_in_order(store: Store) -> None:
    sent = [store.append_chat("r1", "u1", "Alice", f"m{i}", 1_000 + i) for i in range(5)]
    assert chat_message(sent[0])["user"] == {"id": "u1", "name": "Alice"}
    assert chat_message(sent[0])["at"] == "1970-01-01T00:00:01.000Z"
    assert [m.id for m in sent] == sorted(m.id for m in sent)
    assert store.list_chat("r1") == sent
    assert store.list_chat("r1", limit=2) == sent[-2:]
    assert store.list_chat("r1", after_id=sent[1].id) == sent[2:]
    assert store.list_chat("r1", after_id=sent[1].id, limit=2) == sent[2:4]
    assert store.list_chat("r1", after_id=sent[-1].id) == []
    assert store.list_chat("other") == []


def test_chat_does_not_mix_with_subscriptions_of_the_same_room(store: Store) -> None:
    store.put_connection("c1", "u1", 0)
    store.subscribe("c1", "r1")
    msg = store.append_chat("r1", "u1", "Alice", "hi", 5)
    assert store.list_chat("r1", after_id="0") == [msg]
    assert store.subscribers("r1") == [("c1", "u1")]


# --- rate limits --------------------------------------------------------------------------


def test_rate_limit_allows_limit_hits_per_window(store: Store) -> None:
    now = 1_000_000
    assert [store.hit("chat:u1:r1", 3, 10, now + i) for i in range(5)] == [True] * 3 + [False] * 2
    assert store.hit("chat:u2:r1", 3, 10, now)
    assert store.hit("chat:u1:r1", 3, 10, now + 10_000)


def test_refund_gives_back_one_counted_attempt_and_never_goes_below_zero(store: Store) -> None:
    now = 2_000_000
    assert [store.hit("login:a", 2, 10, now) for _ in range(3)] == [True, True, False]
    store.refund("login:a", 10, now)
    assert store.hit("login:a", 2, 10, now)
    assert not store.hit("login:a", 2, 10, now)
    # nothing counted: a refund changes nothing (no credit for later attempts)
    store.refund("login:b", 10, now)
    store.refund("login:b", 10, now)
    assert [store.hit("login:b", 1, 10, now) for _ in range(2)] == [True, False]


# --- realtime -----------------------------------------------------------------------------


def test_connections_subscriptions_and_disconnect(store: Store) -> None:
    store.put_connection("c1", "u1", 1_000)
    store.put_connection("c2", None, 1_000)
    assert store.subscribe("c1", "r1") and store.subscribe("c1", "r2")
    assert store.subscribe("c2", "r1")
    assert not store.subscribe("ghost", "r1")
    assert sorted(store.subscribers("r1")) == [("c1", "u1"), ("c2", None)]
    conn = store.get_connection("c1")
    assert conn is not None and conn.user_id == "u1" and conn.rooms == {"r1", "r2"}
    store.unsubscribe("c2", "r1")
    store.unsubscribe("ghost", "r1")
    assert store.subscribers("r1") == [("c1", "u1")]
    store.delete_connection("c1")
    store.delete_connection("c1")
    assert store.get_connection("c1") is None
    assert store.subscribers("r1") == [] and store.subscribers("r2") == []
    assert store.get_connection("ghost") is None


def test_ticket_is_single_use(store: Store) -> None:
    ticket = secrets.token_urlsafe(32)
    store.put_ticket(ticket, "u1", expires_ms=60_000)
    assert store.consume_ticket(ticket, now_ms=1_000) == "u1"
    assert store.consume_ticket(ticket, now_ms=1_000) is None
    assert store.consume_ticket("never-issued", now_ms=1_000) is None


def test_expired_ticket_is_refused_and_gone(store: Store) -> None:
    store.put_ticket("t", "u1", expires_ms=60_000)
    assert store.consume_ticket("t", now_ms=60_000) is None
    assert store.consume_ticket("t", now_ms=1_000) is None


# --- races --------------------------------------------------------------------------------


def test_racing_writers_of_one_version_have_exactly_one_winner(store: Store) -> None:
    # moto is not thread-safe: serialize calls into it, or the test proves nothing.
    moto_lock = threading.Lock() if not isinstance(store, SqliteStore) else None
    store.create_room("r1", {"n": 0}, SUMMARY)

    def write(i: int) -> bool:
        try:
            if moto_lock is None:
                store.save_room("r1", {"n": i}, SUMMARY, expected_version=1)
            else:
                with moto_lock:
                    store.save_room("r1", {"n": i}, SUMMARY, expected_version=1)
        except VersionConflict:
            return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        wins = list(pool.map(write, range(16)))
    assert wins.count(True) == 1
    room = store.get_room("r1")
    assert room is not None and room.version == 2 and room.state == {"n": wins.index(True)}


def test_racing_ticket_consumers_have_exactly_one_winner(store: Store) -> None:
    moto_lock = threading.Lock() if not isinstance(store, SqliteStore) else None
    store.put_ticket("t", "u1", 10_000)

    def consume(_: int) -> str | None:
        if moto_lock is None:
            return store.consume_ticket("t", 1)
        with moto_lock:
            return store.consume_ticket("t", 1)

    with ThreadPoolExecutor(max_workers=8) as pool:
        users = list(pool.map(consume, range(16)))
    assert users.count("u1") == 1 and users.count(None) == 15


def test_dynamo_retries_a_rated_save_cancelled_by_a_concurrent_write(moto_aws: None) -> None:
    # DynamoDB only: a transaction that touched an item being written elsewhere is cancelled
    # with TransactionConflict and nothing applied, so trying it again is safe.
    from botocore.exceptions import ClientError

    from chalicelib.adapters.dynamo import DynamoStore, count_requests

    store = DynamoStore("liars-retry", "us-east-1")
    store.ensure_table()
    ratings = _two_players(store)
    real = store.client.transact_write_items
    calls: list[int] = []

    def conflict_once(**kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            reasons = [{"Code": "None"}, {"Code": "None"}, {"Code": "TransactionConflict"}]
            raise ClientError(
                {
                    "Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                    "CancellationReasons": reasons,
                },
                "TransactWriteItems",
            )
        return real(**kwargs)

    store.client.transact_write_items = conflict_once
    requests = count_requests(store)
    assert store.save_room("r1", {"n": 1}, SUMMARY, 1, ratings=ratings) == 2
    assert len(calls) == 2
    # Room, record and ratings went in that one transaction: no separate room write.
    assert dict(requests) == {"TransactWriteItems": 1}
    room = store.get_room("r1")
    assert room is not None and room.state == {"n": 1}
    assert store.get_ratings(["a", "b"]) == {"a": 1516.0, "b": 1484.0}


def _cancelled_once(store: object, operation: str = "transact_write_items") -> list[int]:
    """Make the store's next transaction fail once with TransactionConflict (DynamoDB only)."""
    from botocore.exceptions import ClientError

    client = store.client  # type: ignore[attr-defined]
    real = getattr(client, operation)
    calls: list[int] = []

    def conflict_once(**kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            reasons = [{"Code": "TransactionConflict"}, {"Code": "None"}]
            raise ClientError(
                {
                    "Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                    "CancellationReasons": reasons,
                },
                "TransactWriteItems",
            )
        return real(**kwargs)

    setattr(client, operation, conflict_once)
    return calls


def test_dynamo_retries_create_room_and_create_user_cancelled_by_a_concurrent_write(
    moto_aws: None,
) -> None:
    from chalicelib.adapters.dynamo import DynamoStore

    store = DynamoStore("liars-retry-create", "us-east-1")
    store.ensure_table()
    calls = _cancelled_once(store)
    assert store.create_room("r1", {"a": 1}, SUMMARY, owner_id="u1", max_open=5) == 1
    assert len(calls) == 2 and store.open_rooms("u1") == ["r1"]
    calls = _cancelled_once(store)
    store.create_user("u1", "alice", "hash", False, "alice")
    assert len(calls) == 2
    found = store.get_user_by_username("ALICE")
    assert found is not None and found.id == "u1"


def test_dynamo_transaction_conflict_that_persists_is_unavailable(moto_aws: None) -> None:
    from botocore.exceptions import ClientError

    from chalicelib import retry
    from chalicelib.adapters.dynamo import DynamoStore
    from chalicelib.ports import Unavailable

    store = DynamoStore("liars-retry-persist", "us-east-1")
    store.ensure_table()

    def always(**_: object) -> object:
        raise ClientError(
            {
                "Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                "CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}],
            },
            "TransactWriteItems",
        )

    store.client.transact_write_items = always
    saved, retry.sleep = retry.sleep, lambda _s: None
    try:
        with pytest.raises(Unavailable) as err:
            store.create_user("u1", "alice", "hash", False, "alice")
    finally:
        retry.sleep = saved
    assert err.value.reason == "conflict"
    assert store.get_user("u1") is None
