"""The store contract for profiles and the leaderboard (issue 18): every store, same behaviour."""

from __future__ import annotations

from chalicelib.ports import PlayerStats, RatedOutcome, RatingsWrite, Standing, Store

SUMMARY = {"status": "playing", "host_name": "A", "created_at": 1_000, "settings": {}}


def _users(store: Store, *names: str, guest: str | None = None) -> None:
    for name in names:
        store.create_user(name, name, "h", False, name.title())
    if guest is not None:
        store.create_user(guest, None, None, True, "Guesty")


def _game(
    store: Store,
    key: str,
    ranks: dict[str, int],
    deltas: dict[str, float],
    listed: set[str],
    at: int,
) -> None:
    store.create_room(key, {}, SUMMARY)
    outcomes = {
        uid: RatedOutcome(
            rank, at, {"room_id": key, "rank": rank, "delta": deltas[uid]}, uid in listed
        )
        for uid, rank in ranks.items()
    }
    ratings = RatingsWrite(key, deltas, {"room_id": key}, outcomes)
    assert store.save_room(key, {"done": 1}, SUMMARY, 1, ratings=ratings) == 2


def test_outcomes_count_games_and_finishes_and_keep_profile_rows(store: Store) -> None:
    _users(store, "ann", "bob")
    _game(store, "g1", {"ann": 1, "bob": 2}, {"ann": 16.0, "bob": -16.0}, set(), 1_000)
    _game(store, "g2", {"ann": 2, "bob": 1}, {"ann": -15.0, "bob": 15.0}, set(), 2_000)
    _game(store, "g3", {"ann": 1, "bob": 2}, {"ann": 14.0, "bob": -14.0}, set(), 3_000)
    assert store.get_player_stats("ann") == PlayerStats(1515.0, 3, {1: 2, 2: 1})
    assert store.get_player_stats("bob") == PlayerStats(1485.0, 3, {1: 1, 2: 2})
    assert [r["room_id"] for r in store.list_rated_games("ann", 10)] == ["g3", "g2", "g1"]
    assert [r["room_id"] for r in store.list_rated_games("ann", 2)] == ["g3", "g2"]
    assert store.list_rated_games("nobody", 5) == []
    assert store.get_player_stats("nobody") == PlayerStats(1500.0, 0, {})


def test_standings_give_rating_games_and_guest_flag(store: Store) -> None:
    _users(store, "ann", guest="gst")
    _game(store, "g1", {"ann": 1, "gst": 2}, {"ann": 16.0, "gst": -16.0}, set(), 1_000)
    assert store.get_standings(["ann", "gst", "ghost"]) == {
        "ann": Standing(1516.0, 1, False),
        "gst": Standing(1484.0, 1, True),
    }


def test_leaderboard_lists_only_listed_users_by_rating(store: Store) -> None:
    _users(store, "ann", "bob", "cat", "dan")
    _game(store, "g1", {"ann": 1, "bob": 2}, {"ann": 30.0, "bob": -30.0}, {"ann", "bob"}, 1)
    _game(store, "g2", {"cat": 1, "dan": 2}, {"cat": 50.0, "dan": -50.0}, {"cat"}, 2)
    board = store.leaderboard(10)
    assert [(r["user_id"], r["rating"], r["games"]) for r in board] == [
        ("cat", 1550.0, 1),
        ("ann", 1530.0, 1),
        ("bob", 1470.0, 1),
    ]
    assert board[0]["name"] == "Cat"
    assert [r["user_id"] for r in store.leaderboard(2)] == ["cat", "ann"]
    # Once listed, a later game keeps the user listed and moves them.
    _game(store, "g3", {"bob": 1, "ann": 2}, {"bob": 100.0, "ann": -100.0}, set(), 3)
    assert [r["user_id"] for r in store.leaderboard(10)] == ["bob", "cat", "ann"]


def test_a_replayed_rated_game_counts_nothing_twice(store: Store) -> None:
    _users(store, "ann", "bob")
    _game(store, "g1", {"ann": 1, "bob": 2}, {"ann": 16.0, "bob": -16.0}, {"ann"}, 1)
    outcomes = {"ann": RatedOutcome(1, 1, {"room_id": "g1", "again": True}, True)}
    again = RatingsWrite("g1", {"ann": 16.0}, {}, outcomes)
    store.save_room("g1", {"n": 2}, SUMMARY, 2, ratings=again)
    assert store.get_player_stats("ann") == PlayerStats(1516.0, 1, {1: 1})
    assert store.list_rated_games("ann", 5) == [{"room_id": "g1", "rank": 1, "delta": 16.0}]
