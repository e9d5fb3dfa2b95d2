"""Privacy of timed-out turns: what the table hears of a move the server plays for a seat.

A timeout is announced to everyone watching (``turn_timed_out`` with the move played). In
Poker's five-aces rolls the move is "reroll every die that is not an ace": the cup positions
it rerolls are exactly where the holder's hidden non-aces lie, so the announcement must carry
how many dice were rerolled (which the rules announce anyway), never which.
"""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Env
from tests.api.helpers import player_to_act, setup_game


def _accept_five_aces(env: Env, rid: str, tokens: list[str]) -> list[str]:
    """The opener claims five aces and the next player accepts: the holder's cup (five-aces
    rolls), as only the holder sees it."""
    token, view = player_to_act(env, rid, tokens)
    turn = view["game"]["turn"]["number"]
    env.ok(
        "POST", f"/rooms/{rid}/actions", {"type": "claim", "hand": ["A"] * 5, "turn": turn}, token
    )
    token, view = player_to_act(env, rid, tokens)
    turn = view["game"]["turn"]["number"]
    view = env.ok("POST", f"/rooms/{rid}/actions", {"type": "accept", "turn": turn}, token)
    assert view["game"]["table"]["stage"] == "aces"
    cup: list[str] = view["me"]["dice"]
    return cup


def test_a_timed_out_five_aces_roll_does_not_say_where_the_non_aces_lie(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(
        env, humans=3, bots=0, settings={"rules": "poker", "lives": 2}, prefix="aces"
    )
    spectator, _ = env.register("acesspy")
    env.store.put_connection("spy", None, env.clock.now_ms())
    env.store.subscribe("spy", rid)
    cup = _accept_five_aces(env, rid, tokens)
    non_aces = [i for i, face in enumerate(cup) if face != "A"]
    assert non_aces and len(non_aces) < 5  # the seeded cup: the positions would tell something
    sent_before = len(env.notifier.sent)
    env.clock.advance(31_000)  # the holder lets the clock run out
    env.ok("POST", f"/rooms/{rid}/tick", None, spectator)
    heard: list[dict[str, Any]] = [
        e for conn, m in env.notifier.sent[sent_before:] if conn == "spy" for e in m["events"]
    ]
    timed_out = [e for e in heard if e["type"] == "turn_timed_out"]
    rerolled = [e for e in heard if e["type"] == "dice_rerolled"]
    assert timed_out and len(timed_out) == len(rerolled)
    # the first timeout rerolls every non-ace of the cup above: announced as a count only
    assert timed_out[0]["action"] == {"type": "reroll", "count": len(non_aces)}
    for timeout, reroll in zip(timed_out, rerolled, strict=True):
        assert "dice" not in timeout["action"]
        assert timeout["action"]["count"] == reroll["count"]
