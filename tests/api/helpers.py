"""Helpers shared by the API tests: set up rooms and drive whole games over HTTP."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

from tests.api.conftest import Env


def setup_game(
    env: Env,
    *,
    humans: int = 2,
    bots: int = 1,
    settings: dict[str, Any] | None = None,
    prefix: str = "user",
) -> tuple[str, list[str]]:
    """Register ``humans`` users, seat them, add ``bots`` bots, start; (room id, tokens)."""
    tokens = [env.register(f"{prefix}{i}")[0] for i in range(humans)]
    room = env.ok("POST", "/rooms", {"settings": settings or {}}, tokens[0], 201)
    rid = room["id"]
    for t in tokens[1:]:
        env.ok("POST", f"/rooms/{rid}/join", {}, t)
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, t)
    for _ in range(bots):
        env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, tokens[0], 201)
    env.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
    return rid, tokens


def play_to_end(
    env: Env,
    rid: str,
    tokens: list[str],
    rng: random.Random,
    on_view: Any = None,
    max_steps: int = 2000,
) -> dict[str, Any]:
    """Play the humans' turns (random legal bids or Liar!) until the game is finished."""
    for _ in range(max_steps):
        views = [env.ok("GET", f"/rooms/{rid}", None, t) for t in tokens]
        if on_view is not None:
            for t, v in zip(tokens, views, strict=True):
                on_view(t, v)
        game = views[0]["game"]
        if views[0]["status"] == "finished":
            return views[0]
        if game["phase"] in ("final_reveal", "break"):
            # breaks end at once for Auto players; the final reveal lasts three seconds
            env.clock.advance(3001 if game["phase"] == "final_reveal" else 120_000)
            env.ok("POST", f"/rooms/{rid}/tick", None)
            continue
        turn = game["turn"]
        mover = next(
            (t, v)
            for t, v in zip(tokens, views, strict=True)
            if v["me"]["player_id"] == turn["player_id"]
        )
        token = mover[0]
        bid = game["current_bid"]
        if bid is not None and (rng.random() < 0.5 or bid["quantity"] >= game["total_dice"]):
            action = {"type": "liar", "turn": turn["number"]}
        elif bid is None:
            action = {
                "type": "bid",
                "quantity": 1,
                "face": rng.randint(1, 6),
                "turn": turn["number"],
            }
        elif bid["face"] < 6:
            action = {
                "type": "bid",
                "quantity": bid["quantity"],
                "face": bid["face"] + 1,
                "turn": turn["number"],
            }
        else:
            action = {
                "type": "bid",
                "quantity": bid["quantity"] + 1,
                "face": rng.randint(1, 6),
                "turn": turn["number"],
            }
        env.ok("POST", f"/rooms/{rid}/actions", action, token)
    raise AssertionError("the game did not end")


def player_to_act(env: Env, rid: str, tokens: list[str]) -> tuple[str, dict[str, Any]]:
    """The token of the player whose turn it is, and that player's view."""
    views = [env.ok("GET", f"/rooms/{rid}", None, t) for t in tokens]
    turn = views[0]["game"]["turn"]
    return next(
        (t, v)
        for t, v in zip(tokens, views, strict=True)
        if v["me"]["player_id"] == turn["player_id"]
    )


def assert_action_bodies_never_5xx(
    env: Env, room_id: str, tokens: list[str], bodies: SearchStrategy[dict[str, Any]]
) -> None:
    """Every player sends random action bodies: each answer is below 500, a 4xx names a code."""

    @settings(
        max_examples=60,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(body=bodies)
    def check(body: dict[str, Any]) -> None:
        for token in tokens:
            resp = env.call("POST", f"/rooms/{room_id}/actions", raw=json.dumps(body), token=token)
            assert resp.status_code < 500, (body, resp.status_code, resp.json)
            if resp.status_code >= 400:
                assert resp.json["error"]["code"]

    check()
