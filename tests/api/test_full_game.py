"""A complete game over HTTP: accounts, lobby, bots, play to the end, results and ratings."""

from __future__ import annotations

import random

from tests.api.conftest import Env
from tests.api.helpers import play_to_end, setup_game


def test_registered_game_with_a_bot_finishes_and_rates_humans_once(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=1, settings={"starting_dice": 2})
    final = play_to_end(env, rid, tokens, random.Random(1))

    assert final["status"] == "finished"
    ranking = final["results"]["ranking"]
    assert sorted(r["rank"] for r in ranking) == [1, 2, 3]
    humans = {p["id"] for p in final["players"] if p["kind"] == "human"}
    human_rows = sorted((r for r in ranking if r["player_id"] in humans), key=lambda r: r["rank"])
    # two humans at 1500: the better-ranked gains K/(N-1) × 0.5 = 16, the other loses 16
    assert [r["rating_before"] for r in human_rows] == [1500.0, 1500.0]
    assert [r["rating_after"] for r in human_rows] == [1516.0, 1484.0]
    bot_rows = [r for r in ranking if r["player_id"] not in humans]
    assert bot_rows[0]["rating_before"] is None
    assert final["results"]["dice_progress"][0]["counts"] == {p["id"]: 2 for p in final["players"]}

    by_player = {p["id"]: p["user_id"] for p in final["players"]}
    me_by_user = {}
    for t in tokens:
        me = env.ok("GET", "/me", None, t)
        me_by_user[me["user"]["id"]] = me["rating"]["liars-lies"]
    for row in human_rows:
        assert me_by_user[by_player[row["player_id"]]] == row["rating_after"]

    # viewing, ticking and replaying never apply the ratings again
    for _ in range(3):
        env.clock.advance(60_000)
        env.ok("POST", f"/rooms/{rid}/tick", None)
        env.ok("GET", f"/rooms/{rid}", None, tokens[0])
    for t in tokens:
        me = env.ok("GET", "/me", None, t)
        assert me["rating"]["liars-lies"] == me_by_user[me["user"]["id"]]
    assert env.store.get_game_record(rid) is not None

    # the finished game's results are open to anyone, and the room leaves the waiting lobby
    assert env.ok("GET", f"/rooms/{rid}", None)["results"]["ranking"] == ranking
    assert rid in {r["id"] for r in env.ok("GET", "/rooms?status=finished", None)["rooms"]}


def test_guest_game_against_bots_is_unrated(api_env: Env) -> None:
    env = api_env
    token, _ = env.guest("Solo")
    room = env.ok("POST", "/rooms", {"settings": {"starting_dice": 1}}, token, 201)
    rid = room["id"]
    assert room["created_by_guest"] is True
    env.ok("PATCH", f"/rooms/{rid}/settings", {"turn_seconds": 15}, token)
    env.ok("POST", f"/rooms/{rid}/bots", {}, token, 201)
    env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, token, 201)
    env.ok("POST", f"/rooms/{rid}/start", None, token)
    final = play_to_end(env, rid, [token], random.Random(2))

    assert final["status"] == "finished"
    assert final["rated"] is False
    assert all(
        r["rating_before"] is None and r["rating_after"] is None
        for r in final["results"]["ranking"]
    )
    assert env.store.get_game_record(rid) is None
    me = env.ok("GET", "/me", None, token)
    assert me["rating"] is None
    order = [r["player_id"] for r in final["results"]["ranking"]]
    preview = env.call("POST", f"/rooms/{rid}/elo-preview", {"order": order}, token)
    assert preview.status_code == 409 and preview.json["error"]["code"] == "unrated"


def test_recreate_points_the_old_room_to_the_new_one(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, settings={"starting_dice": 1})
    play_to_end(env, rid, tokens, random.Random(3))
    new = env.ok("POST", f"/rooms/{rid}/recreate", None, tokens[1], 201)
    assert new["status"] == "waiting" and new["me"]["is_host"] and new["players"][0]["ready"]
    assert new["settings"]["starting_dice"] == 1
    assert env.ok("GET", f"/rooms/{rid}", None)["recreated_as"] == new["id"]
    again = env.call("POST", f"/rooms/{rid}/recreate", None, tokens[0])
    assert again.status_code == 409
    env.ok("POST", f"/rooms/{new['id']}/join", {}, tokens[0])


def test_recreate_seats_the_same_bots_with_their_levels_and_numbers(api_env: Env) -> None:
    env = api_env
    token, _ = env.guest("Solo")
    rid = env.ok("POST", "/rooms", {"settings": {"starting_dice": 1}}, token, 201)["id"]
    for level in ("easy", "strong", "easy"):
        env.ok("POST", f"/rooms/{rid}/bots", {"level": level}, token, 201)
    bot2 = next(p for p in env.ok("GET", f"/rooms/{rid}", None)["players"] if p["name"] == "Bot 2")
    env.ok("DELETE", f"/rooms/{rid}/bots/{bot2['id']}", None, token)
    env.ok("POST", f"/rooms/{rid}/bots", {"level": "strong"}, token, 201)  # takes number 2 again
    env.ok("POST", f"/rooms/{rid}/start", None, token)
    final = play_to_end(env, rid, [token], random.Random(4))
    old_bots = [(p["name"], p["level"]) for p in final["players"] if p["kind"] == "bot"]
    assert old_bots == [("Bot 1", "easy"), ("Bot 3", "easy"), ("Bot 2", "strong")]

    new = env.ok("POST", f"/rooms/{rid}/recreate", None, token, 201)
    players = new["players"]
    assert players[0]["kind"] == "human" and players[0]["ready"] and new["me"]["is_host"]
    assert [(p["name"], p["level"], p["ready"]) for p in players[1:]] == [
        (name, level, True) for name, level in old_bots
    ]
    assert all(p["dice_count"] == 0 and not p.get("rank") for p in players)
    # one click: the recreator starts the new game against the same bots at once
    started = env.ok("POST", f"/rooms/{new['id']}/start", None, token)
    assert started["status"] == "playing" and len(started["players"]) == 4
