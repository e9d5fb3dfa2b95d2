"""Over HTTP, a receiver who has not accepted learns nothing about the cup from any answer."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Env
from tests.api.helpers import player_to_act, setup_game

PROBE: dict[str, Any] = {"type": "claim", "hand": ["9", "9", "K", "J", "T"], "expose": [0]}


def test_the_expose_probe_gets_the_same_answer_over_many_cups(api_env: Env) -> None:
    env = api_env
    answers = set()
    cups = set()
    for game_no in range(8):
        rid, tokens = setup_game(
            env, humans=2, bots=0, settings={"rules": "poker"}, prefix=f"g{game_no}p"
        )
        holder, view = player_to_act(env, rid, tokens)
        cups.add(tuple(view["me"]["dice"]))
        turn = view["game"]["turn"]["number"]
        env.ok(
            "POST",
            f"/rooms/{rid}/actions",
            {"type": "claim", "hand": "better", "turn": turn},
            holder,
        )
        receiver, seen = player_to_act(env, rid, tokens)
        assert seen["me"]["dice"] is None  # has not looked
        before = env.ok("GET", f"/rooms/{rid}", None, receiver)
        resp = env.call(
            "POST",
            f"/rooms/{rid}/actions",
            {**PROBE, "turn": seen["game"]["turn"]["number"]},
            receiver,
        )
        answers.add((resp.status_code, repr(sorted(resp.json["error"].items()))))
        assert env.ok("GET", f"/rooms/{rid}", None, receiver) == before
    assert len(cups) > 1  # different hidden dice ...
    assert len(answers) == 1  # ... one answer
    ((status, error),) = answers
    assert status == 409 and "not_accepted" in error
