"""A push's events come in the order things happened: the reveal, then who it eliminated."""

from __future__ import annotations

from typing import Any

from tests.engine.helpers import bid, liar, new_game, pid


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_the_reveal_is_announced_before_the_elimination_it_causes() -> None:
    room, roller = new_game(["1", "1", "1"], modes=["manual"] * 3)
    bid(room, roller, 0, 3, 6)
    events = liar(room, roller, 1)  # three 6s bid, none shown: seat 0 loses its last die
    types = _types(events)
    assert types.index("challenge_resolved") < types.index("player_eliminated")
    eliminated = next(e for e in events if e["type"] == "player_eliminated")
    assert eliminated["player_id"] == pid(room, 0)
    # and the break the reveal opens comes after both
    assert types.index("player_eliminated") < types.index("break_started")


def test_the_deciding_reveal_comes_before_the_last_elimination_and_the_final_reveal() -> None:
    room, roller = new_game(["1", "1"])
    bid(room, roller, 0, 2, 6)
    types = _types(liar(room, roller, 1))
    assert types.index("challenge_resolved") < types.index("player_eliminated")
    assert types.index("player_eliminated") < types.index("final_reveal_started")
