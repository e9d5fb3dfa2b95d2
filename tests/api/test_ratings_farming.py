"""Ratings cannot be farmed: leaving without a move of one's own rates nobody (SPEC §6, §10)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Env
from tests.api.helpers import player_to_act, setup_game


def _rating(env: Env, token: str) -> float:
    value: float = env.ok("GET", "/me", None, token)["rating"]["liars-lies"]
    return value


def _rows(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player_id"]: r for r in view["results"]["ranking"]}


def test_fresh_accounts_that_join_and_resign_at_once_move_no_rating(api_env: Env) -> None:
    env = api_env
    farmer, _ = env.register("farmer")
    for i in range(3):
        fresh, _ = env.register(f"fresh{i}")
        rid = env.ok("POST", "/rooms", {}, farmer, 201)["id"]
        env.ok("POST", f"/rooms/{rid}/join", {}, fresh)
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, fresh)
        env.ok("POST", f"/rooms/{rid}/start", None, farmer)
        done = env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, fresh)
        assert done["status"] == "finished"
        quitter = done["me"]["player_id"]
        rows = _rows(done)
        assert rows[quitter]["rating_before"] is None and rows[quitter]["rating_after"] is None
        assert _rating(env, fresh) == 1500.0
    assert _rating(env, farmer) == 1500.0


def test_a_player_who_made_a_move_is_rated_when_resigning(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0)
    host, other = tokens
    moved: set[str] = set()
    while other not in moved:
        token, view = player_to_act(env, rid, tokens)
        game = view["game"]
        bid = game["current_bid"]
        quantity = 1 if bid is None else bid["quantity"] + 1
        action = {"type": "bid", "quantity": quantity, "face": 2, "turn": game["turn"]["number"]}
        env.ok("POST", f"/rooms/{rid}/actions", action, token)
        moved.add(token)
    done = env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, other)
    assert done["status"] == "finished"
    assert _rating(env, host) == 1516.0 and _rating(env, other) == 1484.0


def test_a_timeout_is_not_a_move_of_ones_own(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, settings={"turn_seconds": 15})
    token, _ = player_to_act(env, rid, tokens)
    # the player to act lets the clock run out (the server plays for them), then resigns
    env.clock.advance(16_000)
    ticked = env.ok("POST", f"/rooms/{rid}/tick", None, token)
    assert ticked["status"] == "playing" and ticked["game"]["current_bid"] is not None
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, token)
    final = env.ok("GET", f"/rooms/{rid}", None, tokens[0])
    assert final["status"] == "finished"
    assert [_rating(env, t) for t in tokens] == [1500.0, 1500.0]
