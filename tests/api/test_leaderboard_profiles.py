"""GET /leaderboard and GET /users/{username} (issue 18): order, filters and whose games show."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Env


def _rated_game(env: Env, host: str, other: str, loser: str) -> str:
    """A two-human rated game (classic) that ends when ``loser`` resigns; the room id."""
    rid = env.ok("POST", "/rooms", {"settings": {}}, host, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, other)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other)
    view = env.ok("POST", f"/rooms/{rid}/start", None, host)
    # Each makes a move of their own (a walk-out without one is not rated), then one resigns.
    for _ in range(2):
        turn = view["game"]["turn"]
        mover = (
            host
            if env.ok("GET", f"/rooms/{rid}", None, host)["me"]["player_id"] == turn["player_id"]
            else other
        )
        bid = view["game"]["current_bid"]
        quantity = 1 if bid is None else bid["quantity"] + 1
        action = {"type": "bid", "quantity": quantity, "face": 3, "turn": turn["number"]}
        view = env.ok("POST", f"/rooms/{rid}/actions", action, mover)
    view = env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, loser)
    assert view["status"] == "finished"
    env.clock.advance(60_000)
    return rid


def _league(env: Env) -> dict[str, Any]:
    ann, _ = env.register("ann")
    bob, _ = env.register("bob")
    cat, _ = env.register("cat")
    dan, _ = env.register("dan")
    ann_games = [_rated_game(env, ann, bob, bob) for _ in range(5)]  # ann 5 wins, bob 5 losses
    cat_games = [_rated_game(env, cat, dan, dan) for _ in range(4)]  # cat, dan: 4 games only
    # A guest plays (unrated: guests play only in their own rooms, against bots) many games.
    guest, _ = env.guest("Gus")
    guest_games = []
    for _ in range(5):
        rid = env.ok("POST", "/rooms", {"settings": {}}, guest, 201)["id"]
        env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, guest, 201)
        env.ok("POST", f"/rooms/{rid}/start", None, guest)
        env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, guest)
        guest_games.append(rid)
    return {"ann": ann_games, "cat": cat_games, "guest": guest_games}


def test_leaderboard_orders_by_rating_and_needs_five_games_and_an_account(api_env: Env) -> None:
    _league(api_env)
    board = api_env.ok("GET", "/leaderboard")
    assert board["min_games"] == 5
    rows = board["players"]
    # cat is rated above bob but has four games; the guest has played five but no account.
    assert [(r["rank"], r["name"], r["games"]) for r in rows] == [(1, "ann", 5), (2, "bob", 5)]
    assert rows[0]["rating"] > 1500 > rows[1]["rating"]
    cat = api_env.ok("GET", "/users/cat")
    assert cat["rating"] > rows[1]["rating"] and cat["listed"] is False
    assert [r["name"] for r in api_env.ok("GET", "/leaderboard?limit=1")["players"]] == ["ann"]


def test_a_fifth_rated_game_puts_a_player_on_the_leaderboard(api_env: Env) -> None:
    a, _ = api_env.register("ivy")
    b, _ = api_env.register("joe")
    for n in range(1, 6):
        _rated_game(api_env, a, b, b)
        names = [r["name"] for r in api_env.ok("GET", "/leaderboard")["players"]]
        assert names == ([] if n < 5 else ["ivy", "joe"]), n


def test_bad_leaderboard_limits_are_400(api_env: Env) -> None:
    for bad in ("0", "101", "abc", "-1", "1.5"):
        resp = api_env.call("GET", f"/leaderboard?limit={bad}")
        assert resp.status_code == 400, bad
        assert resp.json["error"]["code"] == "invalid_input"
        assert resp.json["error"]["field"] == "limit"


def test_profile_shows_rating_games_wins_best_finish_and_own_games(api_env: Env) -> None:
    games = _league(api_env)
    ann = api_env.ok("GET", "/users/ann")
    assert (ann["username"], ann["rated_games"], ann["wins"], ann["best_finish"]) == (
        "ann",
        5,
        5,
        1,
    )
    assert ann["listed"] is True
    assert [g["room_id"] for g in ann["recent"]] == list(reversed(games["ann"]))
    first = ann["recent"][-1]
    assert (first["rank"], first["rating_before"], first["players"]) == (1, 1500.0, 2)
    assert first["rating_after"] == first["rating_before"] + first["delta"]
    assert ann["rating"] == ann["recent"][0]["rating_after"]
    bob = api_env.ok("GET", "/users/BOB")  # usernames are case-insensitive
    assert (bob["wins"], bob["best_finish"], bob["rated_games"]) == (0, 2, 5)
    # Each profile lists the player's own games only: never the guest's, nor other pairs'.
    dan = api_env.ok("GET", "/users/dan")
    assert [g["room_id"] for g in dan["recent"]] == list(reversed(games["cat"]))
    assert (dan["wins"], dan["best_finish"], dan["listed"]) == (0, 2, False)
    assert {g["room_id"] for g in api_env.ok("GET", "/users/cat")["recent"]} == set(games["cat"])
    listed = {
        g["room_id"]
        for name in ("ann", "bob", "cat", "dan")
        for g in api_env.ok("GET", f"/users/{name}")["recent"]
    }
    assert not listed & set(games["guest"])


def test_profiles_of_unknown_users_and_guests_are_404(api_env: Env) -> None:
    _, guest = api_env.guest("Gus")
    for name in ("nobody", "Gus", guest["id"]):
        resp = api_env.call("GET", f"/users/{name}")
        assert resp.status_code == 404 and resp.json["error"]["code"] == "unknown_user", name


def test_games_against_bots_or_walk_outs_do_not_count(api_env: Env) -> None:
    solo, _ = api_env.register("solo")
    walker, _ = api_env.register("walker")
    for _ in range(5):
        rid = api_env.ok("POST", "/rooms", {"settings": {}}, solo, 201)["id"]
        api_env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, solo, 201)
        api_env.ok("POST", f"/rooms/{rid}/start", None, solo)
        api_env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, solo)
    rid = api_env.ok("POST", "/rooms", {"settings": {}}, solo, 201)["id"]
    api_env.ok("POST", f"/rooms/{rid}/join", {}, walker)
    api_env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, walker)
    api_env.ok("POST", f"/rooms/{rid}/start", None, solo)
    api_env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, walker)
    for name in ("solo", "walker"):
        assert api_env.ok("GET", f"/users/{name}")["rated_games"] == 0, name
    assert api_env.ok("GET", "/leaderboard")["players"] == []


def test_a_new_player_has_an_empty_profile(api_env: Env) -> None:
    api_env.register("newbie")
    assert api_env.ok("GET", "/users/newbie") == {
        "username": "newbie",
        "name": "newbie",
        "rating": 1500.0,
        "rated_games": 0,
        "wins": 0,
        "best_finish": None,
        "listed": False,
        "recent": [],
    }
