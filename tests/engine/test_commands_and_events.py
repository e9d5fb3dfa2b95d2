"""Typed commands and past-tense events at the engine boundary (issue 12 point 2).

A body's command says exactly what the body said (so the engine answers a command as it
answered the body's plain form), each system's bodies build commands of their own action
type, and every event the engine returns is the one serialization of an event dataclass.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib import schemas
from chalicelib.engine import events, game
from chalicelib.engine.commands import Agree, CallLiar, Command, PlaceBid
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.room import UserRef, add_bot, create_room, join, set_ready, start
from chalicelib.engine.systems import ACTION_BODIES, SYSTEMS, rule_system
from chalicelib.engine.systems.poker.commands import MakeClaim, PartialHand, RerollDice
from chalicelib.engine.views import bot_view

BODIES: list[dict[str, Any]] = [
    {"type": "bid", "quantity": 3, "face": 4, "turn": 7},
    {"type": "bid", "quantity": 2, "face": "*", "turn": 1, "show": [0, 2], "reroll": True},
    {"type": "bid", "quantity": 2, "face": 5, "turn": 1, "reroll": False},
    {"type": "liar", "turn": 0},
    {"type": "claim", "turn": 3, "hand": ["9", "9", "T", "J", "A"]},
    {"type": "claim", "turn": 3, "hand": "better", "expose": [1], "unexpose": [0, 4]},
    {"type": "claim", "turn": 3, "hand": {"category": "two_pairs", "faces": ["J"]}},
    {"type": "claim", "turn": 3, "hand": {"category": "pair"}},
    {"type": "accept", "turn": 2},
    {"type": "reroll", "turn": 2},
    {"type": "reroll", "turn": 2, "dice": [0, 3], "expose": [1]},
    {"type": "stop", "turn": 9},
    {"type": "agree"},
    {"type": "resign"},
]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: str(b["type"]))
def test_a_bodys_command_says_exactly_what_the_body_said(body: dict[str, Any]) -> None:
    parsed = schemas.ActionBody.model_validate(body).root
    command = parsed.command()
    assert isinstance(command, Command)
    assert body["type"] == command.TYPE
    assert command.as_action() == parsed.model_dump(exclude_none=True)
    assert type(command).__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_commands_are_typed_values_not_dicts() -> None:
    claim = schemas.ActionBody.model_validate(BODIES[6]).root.command()
    assert claim == MakeClaim(3, PartialHand("two_pairs", ("J",)))
    bid = schemas.ActionBody.model_validate(BODIES[1]).root.command()
    assert bid == PlaceBid(2, "*", 1, (0, 2), True)
    assert schemas.ActionBody.model_validate(BODIES[10]).root.command() == RerollDice(
        2, (0, 3), (1,)
    )
    assert hash(CallLiar(0)) == hash(CallLiar(0)) and Agree() == Agree()


def test_every_system_declares_bodies_whose_commands_are_of_its_own_actions() -> None:
    for name, system in SYSTEMS.items():
        for body in system.action_bodies:
            kind = body.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
            assert kind in system.turn_actions, (name, kind)
    assert len(ACTION_BODIES) == len({b.model_fields["type"].annotation for b in ACTION_BODIES})


def _table(rules: str, seed: int) -> tuple[Any, SeededRoller]:
    host = UserRef("u1", "h1", continue_mode="manual")
    room = create_room("r", host, {"rules": rules, "starting_dice": 3, "lives": 2}, 0)
    other = UserRef("u2", "h2", continue_mode="manual")
    join(room, other, None)
    set_ready(room, other, True)
    add_bot(room, host)
    roller = SeededRoller(seed)
    start(room, host, roller, 0)
    return room, roller


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(list(SYSTEMS)), seed=st.integers(0, 10**6), moves=st.integers(1, 30))
def test_the_engine_answers_a_command_as_it_answers_the_same_action_in_plain_form(
    rules: str, seed: int, moves: int
) -> None:
    room, roller = _table(rules, seed)
    system = rule_system(rules)
    for _ in range(moves):
        g = room.game
        if g is None or g.phase != "bidding" or g.turn_player is None:
            break
        pid = g.turn_player
        plain = system.bot_action(bot_view(room, pid), "random", {}, SeededRoller(seed))
        plain.setdefault("turn", g.turn)
        body = schemas.ActionBody.model_validate(plain).root
        twin, twin_roller, now = copy.deepcopy(room), copy.deepcopy(roller), g.clock
        try:
            by_command = game.act(room, pid, body.command(), roller, now)
        except DomainError as error:
            with pytest.raises(type(error)):
                game.act(twin, pid, body.model_dump(exclude_none=True), twin_roller, now)
            break
        by_plain = game.act(twin, pid, body.model_dump(exclude_none=True), twin_roller, now)
        assert by_command == by_plain
        assert room.to_dict() == twin.to_dict()


def test_an_event_record_is_its_type_then_its_fields_in_order_then_the_stamp() -> None:
    assert events.record(events.RoundRestarted(4, "p2", 10)) == {
        "type": "round_restarted",
        "round": 4,
        "opener_id": "p2",
        "at": 10,
    }
    assert list(events.record(events.GameFinished(5, None))) == ["type", "at", "winner_id"]
    moved = events.record(events.LiarCalled("p1"), round=2, by="bot", at=7)
    assert list(moved.items()) == [
        ("type", "liar_called"),
        ("player_id", "p1"),
        ("round", 2),
        ("by", "bot"),
        ("at", 7),
    ]
    said = {"player_id": "p1", "quantity": 2, "face": 3}
    assert events.record(events.BidPlaced(said)) == {"type": "bid_placed", **said}
    action = {"type": "liar"}
    timed_out = events.record(events.TurnTimedOut("p1", 3, 1, action, "timeout", 9))
    assert timed_out["action"] == action and timed_out["action"] is not action


def test_every_engine_event_class_is_documented_on_the_wire_and_named_in_the_past_tense() -> None:
    # (a slotted dataclass replaces its class: the class object left behind is a twin)
    named = {(c.TYPE, c.__module__, c.__qualname__) for c in _event_classes(events.Event)}
    types = [t for t, _, _ in named if t]
    assert len(types) == len(set(types)), "one class per event type"
    documented = {m.model_fields["type"].annotation.__args__[0] for m in schemas.EVENT_MODELS}  # type: ignore[union-attr]
    assert set(types) <= documented
    assert all(any(w.endswith("ed") for w in t.split("_")) for t in types)
    # the engine's own events: the lobby's are the service's (room_created, player_joined, …)
    assert {"bid_placed", "dice_rerolled", "turn_timed_out", "game_finished"} <= set(types)


def _event_classes(cls: type) -> list[type[events.Event]]:
    out: list[type[events.Event]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_event_classes(sub))
    return out
