"""Poker Liar Dice contract: no peeking before accepting, one clock per holder, documented reveals."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import schemas
from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.room import create_room, join, set_ready, start
from chalicelib.engine.systems.poker.hands import ALL_HANDS, FACE_NAMES
from chalicelib.engine.systems.poker.rules import NOT_ACCEPTED
from chalicelib.engine.views import room_view
from chalicelib.errors import domain_status
from tests.engine.helpers import T0, pid, user

TURN_MS = 30_000

PROBES: list[dict[str, Any]] = [
    # the probe of the issue: a claim exposing a die of a cup the receiver has not looked at
    {"type": "claim", "hand": list("99KJT"), "expose": [0]},
    *({"type": "claim", "hand": "better", "expose": [i]} for i in range(5)),
    {"type": "claim", "hand": {"category": "pair", "faces": ["A"]}, "expose": [0, 1]},
    {"type": "claim", "hand": list("AAAAA"), "expose": [0, 1, 2, 3, 4]},
    {"type": "reroll", "dice": [0]},
    {"type": "reroll", "dice": [], "expose": [2]},
    {"type": "stop"},
]


def cups() -> list[str]:
    """Every distinct poker hand, in canonical and in reversed order (504 cups)."""
    out = []
    for hand in ALL_HANDS:
        text = "".join(FACE_NAMES[d - 1] for d in hand)
        out += [text, text[::-1]]
    return out


def poker_game(cup: str, players: int = 2, **settings: Any) -> tuple[Any, ScriptedRoller]:
    cfg = {"rules": "poker", "turn_seconds": TURN_MS // 1000, **settings}
    room = create_room("room1", user(1, "manual"), cfg, T0)
    for i in range(2, players + 1):
        join(room, user(i, "manual"), None)
        set_ready(room, user(i), True)
    roller = ScriptedRoller([FACE_NAMES.index(c) + 1 for c in cup], picks=[0])
    start(room, user(1), roller, T0)
    return room, roller


def act(room: Any, roller: Any, seat: int, at: int = T0, **action: Any) -> None:
    game.act(room, pid(room, seat), {**action, "turn": room.game.turn}, roller, at)


def answer(room: Any, roller: Any, seat: int, action: dict[str, Any]) -> tuple[Any, ...]:
    try:
        act(room, roller, seat, **action)
    except DomainError as err:
        return type(err).__name__, domain_status(err), err.code, err.message, err.field
    return ("accepted",)


def test_probing_the_cup_before_accepting_answers_identically_for_every_hand() -> None:
    seen: dict[int, set[tuple[Any, ...]]] = {i: set() for i in range(len(PROBES))}
    for cup in cups():
        room, roller = poker_game(cup)
        act(room, roller, 0, type="claim", hand="better")  # legal over any cup
        before = room.to_dict()
        for i, probe in enumerate(PROBES):
            seen[i].add(answer(room, roller, 1, probe))
            assert room.to_dict() == before  # refused: nothing changed
    for i, answers in seen.items():
        assert len(answers) == 1, (PROBES[i], answers)
        (only,) = answers
        assert only[:3] == ("WrongPhase", 409, "not_accepted") and only[3] == NOT_ACCEPTED


def test_a_malformed_probe_is_refused_by_its_shape_identically_for_every_hand() -> None:
    # A claim naming cup positions to reroll is no claim: its shape is refused (as the request
    # body would be) before any rule, so the answer cannot depend on the cup either.
    probe = {"type": "claim", "hand": "better", "dice": [0]}
    seen = set()
    for cup in cups()[::7]:
        room, roller = poker_game(cup)
        act(room, roller, 0, type="claim", hand="better")
        before = room.to_dict()
        seen.add(answer(room, roller, 1, probe))
        assert room.to_dict() == before
    assert len(seen) == 1
    assert next(iter(seen))[:3] == ("InvalidAction", 400, "invalid_action")


def test_before_accepting_liar_accept_and_an_unlooked_pass_still_work() -> None:
    room, roller = poker_game("KKAQ9", players=3)
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    act(room, roller, 1, type="claim", hand="better", expose=[])  # naming no die is fine
    assert room.game.extra["st"] == "respond" and room.game.turn_player == pid(room, 2)
    act(room, roller, 2, type="accept")
    assert room.game.extra["st"] == "reroll"


def test_one_clock_per_holder_accept_reroll_and_claim_share_one_deadline() -> None:
    room, roller = poker_game("KKAQ9", players=3)
    act(room, roller, 0, at=T0 + 1_000, type="claim", hand={"category": "pair"})
    deadline = T0 + 1_000 + TURN_MS
    assert room.game.deadline == deadline and room.game.turn_player == pid(room, 1)
    act(room, roller, 1, at=T0 + 20_000, type="accept")
    assert room.game.deadline == deadline  # not a fresh 30 s for the next stage
    roller.add_dice([1])
    act(room, roller, 1, at=T0 + 25_000, type="reroll", dice=[4])
    assert room.game.extra["st"] == "claim" and room.game.deadline == deadline
    # the holder's one clock runs out: the server passes the cup as "better"
    game.advance(room, deadline, roller)
    assert room.game.turn_player == pid(room, 2) and room.game.extra["st"] == "respond"
    assert room.game.deadline == deadline + TURN_MS  # the next holder gets their own clock


def test_the_five_aces_rolls_share_the_holders_clock() -> None:
    room, roller = poker_game("AAAAA", players=3)
    act(room, roller, 0, at=T0, type="claim", hand=list("AAAAA"))
    deadline = T0 + TURN_MS
    roller.add_dice([6, 6, 5, 1, 6])
    act(room, roller, 1, at=T0 + 10_000, type="accept")
    assert room.game.extra["st"] == "aces" and room.game.deadline == deadline
    roller.add_dice([6, 1])
    act(room, roller, 1, at=T0 + 20_000, type="reroll", dice=[2, 3])
    assert room.game.extra["st"] == "aces" and room.game.deadline == deadline


@pytest.mark.parametrize("made", [True, False])
def test_poker_reveals_carry_only_documented_values(made: bool) -> None:
    room, roller = poker_game("AAAAA", players=3)
    act(room, roller, 0, type="claim", hand=list("AAAAA"))
    roller.add_dice([6, 6, 6, 6, 6] if made else [6, 6, 6, 1, 2])
    act(room, roller, 1, type="accept")
    if not made:
        act(room, roller, 1, type="stop")
    reveal = room_view(room)["game"]["last_reveal"]
    parsed = schemas.RevealOut.model_validate(reveal)
    assert parsed.penalty == "life"
    assert parsed.loser_id == (None if made else pid(room, 1))
    with pytest.raises(ValueError):
        schemas.RevealOut.model_validate({**reveal, "penalty": "lives"})
    documented = schemas.RevealOut.model_json_schema()["properties"]["penalty"]["enum"]
    assert documented == ["discard", "give", "life"]
