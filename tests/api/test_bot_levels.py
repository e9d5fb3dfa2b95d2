"""SPEC §8 and the API: a host picks each bot's level, easy, medium or strong."""

from __future__ import annotations

import random

from tests.api.conftest import Env
from tests.api.helpers import play_to_end


def test_a_host_adds_a_medium_bot_that_plays_a_game_to_the_end(api_env: Env) -> None:
    env = api_env
    token, _ = env.guest("Host")
    rid = env.ok("POST", "/rooms", {"settings": {"starting_dice": 2}}, token, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/bots", {"level": "medium"}, token, 201)
    env.ok("POST", f"/rooms/{rid}/bots", {"level": "strong"}, token, 201)
    room = env.ok("GET", f"/rooms/{rid}", None, token)
    bots = [p for p in room["players"] if p["kind"] == "bot"]
    assert sorted(p["level"] for p in bots) == ["medium", "strong"]
    env.ok("POST", f"/rooms/{rid}/start", None, token)
    final = play_to_end(env, rid, [token], random.Random(3))
    assert final["status"] == "finished"
    assert sorted(r["rank"] for r in final["results"]["ranking"]) == [1, 2, 3]


def test_a_bench_only_level_is_refused_and_adds_no_bot(api_env: Env) -> None:
    env = api_env
    token, _ = env.guest("Host")
    rid = env.ok("POST", "/rooms", {}, token, 201)["id"]
    for level in ("random", "naive", "honest-reader", "hard"):
        resp = env.call("POST", f"/rooms/{rid}/bots", {"level": level}, token)
        assert resp.status_code == 400
        assert resp.json["error"]["code"] == "invalid_input"
        assert resp.json["error"]["field"] == "level"
    room = env.ok("GET", f"/rooms/{rid}", None, token)
    assert [p["kind"] for p in room["players"]] == ["human"]
