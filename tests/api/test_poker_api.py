"""Poker Liar Dice over HTTP: a whole game with bots, secrecy across viewers, bad input."""

from __future__ import annotations

import random
from typing import Any

import pytest

from chalicelib import schemas
from tests.api.conftest import Env
from tests.api.helpers import player_to_act, setup_game

POKER = {"rules": "poker", "lives": 2}


def test_a_human_and_two_bots_play_poker_to_the_end(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=1, bots=2, settings={**POKER, "dogs_life": True})
    token = tokens[0]
    rng = random.Random(3)
    reveals: dict[int, dict[str, Any]] = {}
    stages: set[str] = set()
    for _ in range(1000):
        view = env.ok("GET", f"/rooms/{rid}", None, token)
        schemas.RoomView.model_validate(view)
        assert view["settings"]["lives"] == 2 and view["settings"]["dogs_life"] is True
        game = view["game"]
        if game["last_reveal"] is not None:
            reveals[game["last_reveal"]["round"]] = game["last_reveal"]
        if view["status"] == "finished":
            break
        if game["phase"] in ("final_reveal", "break"):
            env.clock.advance(3001 if game["phase"] == "final_reveal" else 120_000)
            env.ok("POST", f"/rooms/{rid}/tick", None)
            continue
        table, turn = game["table"], game["turn"]
        assert turn["player_id"] == view["me"]["player_id"] == table["holder_id"]
        assert all(p["dice_count"] <= 3 for p in view["players"])
        stage = table["stage"]
        stages.add(stage)
        action: dict[str, Any] = {"turn": turn["number"]}
        if stage == "claim":
            assert len(view["me"]["dice"]) == 5
            action.update(type="claim", hand=rng.choice(["better", {"category": "pair"}]))
        elif stage == "respond":
            assert view["me"]["dice"] is None
            action.update(type=rng.choice(["liar", "accept"]))
        elif stage == "reroll":
            hidden = [i for i, f in enumerate(table["exposed"]) if f is None]
            action.update(type="reroll", dice=[i for i in hidden if rng.random() < 0.5])
        else:
            action.update(type="stop")
        resp = env.call("POST", f"/rooms/{rid}/actions", action, token)
        if resp.status_code == 422 and stage == "claim":
            action.update(hand="better")
            resp = env.call("POST", f"/rooms/{rid}/actions", action, token)
        assert resp.status_code == 200, resp.json
        schemas.RoomView.model_validate(resp.json)
    else:
        raise AssertionError("the poker game did not end")
    assert view["status"] == "finished"
    assert sorted(r["rank"] for r in view["results"]["ranking"]) == [1, 2, 3]
    assert {"claim", "respond"} <= stages
    assert reveals
    for reveal in reveals.values():
        assert len(reveal["cup"]) == 5 and reveal["penalty"] == "life"
        assert set(reveal["lost"]) <= {p["id"] for p in view["players"]}
        for row in reveal["rows"]:
            assert all(len(b["hand"]) == 5 for b in row["bids"])


def test_only_the_cup_holder_sees_the_cup(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=3, bots=0, settings=POKER, prefix="cup")
    spectator, _ = env.register("watcher")
    token, view = player_to_act(env, rid, tokens)
    cup = view["me"]["dice"]
    assert len(cup) == 5 and set(cup) <= set("9TJQKA")
    for t in [*tokens, spectator, None]:
        seen = env.ok("GET", f"/rooms/{rid}", None, t)
        assert seen["game"]["table"]["stage"] == "claim"
        assert (seen["me"]["dice"] == cup) if t == token else seen["me"]["dice"] is None
    env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "claim", "hand": "better", "expose": [0], "turn": view["game"]["turn"]["number"]},
        token,
    )
    receiver, view2 = player_to_act(env, rid, tokens)
    for t in [*tokens, spectator, None]:
        seen = env.ok("GET", f"/rooms/{rid}", None, t)
        assert seen["me"]["dice"] is None
        assert seen["game"]["table"]["exposed"] == [cup[0], None, None, None, None]
        assert len(seen["game"]["current_bid"]["hand"]) == 5
    env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "accept", "turn": view2["game"]["turn"]["number"]},
        receiver,
    )
    for t in [*tokens, spectator, None]:
        seen = env.ok("GET", f"/rooms/{rid}", None, t)
        assert seen["game"]["table"]["stage"] == "reroll"
        assert (seen["me"]["dice"] == cup) if t == receiver else seen["me"]["dice"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"type": "claim", "hand": "worse", "turn": 1},
        {"type": "claim", "hand": ["A", "A"], "turn": 1},
        {"type": "claim", "hand": ["A", "A", "A", "A", "1"], "turn": 1},
        {"type": "claim", "hand": {"category": "straight"}, "turn": 1},
        {"type": "claim", "hand": {"category": "pair", "faces": ["Z"]}, "turn": 1},
        {"type": "claim", "hand": "better", "expose": [7], "turn": 1},
        {"type": "claim", "hand": "better", "unexpose": [0], "turn": 1},
        {"type": "reroll", "dice": [0, 0], "turn": 1},
        {"type": "reroll", "dice": "all", "turn": 1},
        {"type": "accept", "turn": 1},
        {"type": "stop", "turn": 1},
        {"type": "liar", "turn": 1},
        {"type": "bid", "quantity": 1, "face": 2, "turn": 1},
        {"type": "accept"},
        {"type": "dogs_life"},
        [1, 2],
    ],
)
def test_bad_poker_input_is_refused_never_a_server_error(api_env: Env, body: Any) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, settings=POKER, prefix="bad")
    token, view = player_to_act(env, rid, tokens)
    if isinstance(body, dict) and "turn" in body:
        body = {**body, "turn": view["game"]["turn"]["number"]}
    before = env.ok("GET", f"/rooms/{rid}", None, token)
    resp = env.call("POST", f"/rooms/{rid}/actions", body, token)
    assert 400 <= resp.status_code < 500, resp.json
    after = env.ok("GET", f"/rooms/{rid}", None, token)
    assert after["version"] == before["version"]


def test_poker_settings_are_validated(api_env: Env) -> None:
    env = api_env
    token, _ = env.register("host")
    for bad in ({"lives": 0}, {"lives": 6}, {"dogs_life": 1}, {"rules": "x"}):
        resp = env.call("POST", "/rooms", {"settings": bad}, token)
        assert resp.status_code in (400, 422), resp.json
    room = env.ok("POST", "/rooms", {"settings": {**POKER, "dogs_life": True}}, token, 201)
    assert room["settings"]["rules"] == "poker" and room["settings"]["lives"] == 2
