"""Poker: dice set out or taken back with a claim are announced, as with a reroll.

SPEC-VARIANTS: exposed dice "are not rerolled by later players unless they choose to take them
back into the cup, which they announce"; SPEC §3: every action is announced as an event of the
push that made it. A `reroll` announces its `exposed`/`unexposed` positions in `dice_rerolled`;
a `claim` may expose and take back dice too, and its `bid_placed` says which.
"""

from __future__ import annotations

from typing import Any

from chalicelib import schemas
from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller
from chalicelib.engine.room import create_room, join, set_ready, start
from chalicelib.engine.views import events_for, room_view
from tests.engine.helpers import T0, pid, user

FACES = {c: i + 1 for i, c in enumerate("9TJQKA")}


def poker_game(first_cup: str) -> tuple[Any, ScriptedRoller]:
    room = create_room("room1", user(1, "manual"), {"rules": "poker"}, T0)
    join(room, user(2, "manual"), None)
    set_ready(room, user(2), True)
    roller = ScriptedRoller([FACES[c] for c in first_cup], picks=[0])
    start(room, user(1), roller, T0)
    return room, roller


def act(room: Any, roller: ScriptedRoller, seat: int, **action: Any) -> list[dict[str, Any]]:
    events = game.act(room, pid(room, seat), {**action, "turn": room.game.turn}, roller, T0)
    return events_for(room, events)


def placed(events: list[dict[str, Any]]) -> dict[str, Any]:
    (event,) = [e for e in events if e["type"] == "bid_placed"]
    return event


def test_a_claim_that_exposes_dice_announces_their_positions() -> None:
    room, roller = poker_game("AAKQJ")
    event = placed(act(room, roller, 0, type="claim", hand="better", expose=[0, 1]))
    assert event["exposed"] == [0, 1]
    assert "unexposed" not in event
    assert room_view(room)["game"]["table"]["exposed"][:2] == ["A", "A"]


def test_a_claim_that_takes_dice_back_announces_their_positions() -> None:
    room, roller = poker_game("AAKQJ")
    act(room, roller, 0, type="claim", hand="better", expose=[0])
    act(room, roller, 1, type="accept")
    event = placed(act(room, roller, 1, type="claim", hand="better", unexpose=[0], expose=[2]))
    assert event["unexposed"] == [0]
    assert event["exposed"] == [2]
    assert room_view(room)["game"]["table"]["exposed"] == [None, None, "K", None, None]


def test_passing_unlooked_while_taking_dice_back_is_announced() -> None:
    room, roller = poker_game("AAKQJ")
    act(room, roller, 0, type="claim", hand="better", expose=[0])
    event = placed(act(room, roller, 1, type="claim", hand="better", unexpose=[0]))
    assert event["unexposed"] == [0]
    assert "exposed" not in event


def test_a_claim_that_moves_no_die_announces_none() -> None:
    room, roller = poker_game("AAKQJ")
    event = placed(act(room, roller, 0, type="claim", hand="better"))
    assert "exposed" not in event and "unexposed" not in event


def test_the_published_bid_placed_model_describes_the_moved_dice() -> None:
    fields = schemas.EVENT_OUT["bid_placed"].model_fields
    assert "exposed" in fields and "unexposed" in fields
