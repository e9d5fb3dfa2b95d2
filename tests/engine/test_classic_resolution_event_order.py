"""A challenge is announced before what it causes: the reveal, then the elimination.

SPEC §3: the challenge reveals every hand and decides who loses a die; "a player with zero
dice is eliminated". API: a push's events are "everything the change did, in order", and a
client plays them one after another. So ``challenge_resolved`` (who lost) comes before the
``player_eliminated`` it causes, then the break or the final reveal.
"""

from __future__ import annotations

from tests.engine.helpers import bid, liar, new_game, pid


def _types(events: list[dict[str, object]]) -> list[object]:
    return [e["type"] for e in events]


def test_the_deciding_challenge_is_resolved_before_the_loser_is_out() -> None:
    # two players with one die each: the opener bids two 6s, the other calls; there is one 6
    room, roller = new_game(["6", "3"], settings={"wildcard_chance": 0})
    bid(room, roller, 0, 2, 6)
    events = liar(room, roller, 1)
    assert _types(events) == [
        "liar_called",
        "challenge_resolved",
        "player_eliminated",
        "final_reveal_started",
    ]
    resolved, eliminated = events[1], events[2]
    assert resolved["loser_id"] == eliminated["player_id"] == pid(room, 0)


def test_a_challenge_that_puts_one_of_three_out_is_resolved_before_the_elimination() -> None:
    room, roller = new_game(["6", "3", "2"], settings={"wildcard_chance": 0})
    roller.add_dice("45")  # the next round's hands
    bid(room, roller, 0, 1, 3)
    events = liar(room, roller, 1)  # there is a 3: the caller loses their only die
    kinds = _types(events)
    assert kinds[:4] == ["liar_called", "challenge_resolved", "player_eliminated", "break_started"]
    assert events[1]["loser_id"] == events[2]["player_id"] == pid(room, 1)
