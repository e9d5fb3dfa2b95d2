"""Events say only what the table may hear, in every rule system.

Every event of a change is pushed to everyone watching, spectators included, before any
reveal. So no event may carry a list of dice or cup positions other than the public ones:
a Wild Stars bid's ``show`` (dice set out in the open), a Poker claim's ``hand`` (what was
said) and the exposed or unexposed positions of a Poker reroll (or of a timed-out claim,
which takes exposed dice back). Here every human turn times
out and the bots play, so every system's timeout moves (Poker's five-aces rolls included,
when a bot claims five aces) are announced.
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Status
from chalicelib.engine.systems import SYSTEMS
from tests.engine.test_engine_properties import build

PUBLIC_LISTS = {("show",), ("hand",), ("exposed",), ("unexposed",), ("action", "unexpose")}


def lists_in(node: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every list inside an event."""
    if isinstance(node, list):
        return [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in lists_in(v, (*path, str(k)))]
    return []


def timed_out_game(rules: str, seed: int, five_aces: bool = False) -> list[dict[str, Any]]:
    """A game of one human, who never acts, against three bots: every event it makes.

    ``five_aces`` (Poker): two humans alone; the one who holds the cup first claims
    five aces and the next accepts, so the five-aces rolls time out (until that hand's reveal).
    """
    humans, bots = (2, 0) if five_aces else (1, 3)
    room = build({"rules": rules, "starting_dice": 2, "lives": 2}, humans, bots, ["auto"], seed)
    dice = SeededRoller(seed * 7 + 1)
    events: list[dict[str, Any]] = []
    if five_aces:
        for action in ({"type": "claim", "hand": ["A"] * 5}, {"type": "accept"}):
            g = room.game
            assert g is not None and g.turn_player is not None
            action["turn"] = g.turn
            events += game.act(room, g.turn_player, action, dice, g.clock)
    for _ in range(5000):
        if five_aces and any(e["type"] == "challenge_resolved" for e in events):
            return events
        if room.status != Status.PLAYING:
            break
        assert room.game is not None and room.game.deadline is not None
        events += game.advance(room, room.game.deadline, dice)
    assert room.status == Status.FINISHED
    return events


@pytest.mark.parametrize("rules", sorted(SYSTEMS))
def test_no_event_names_a_hidden_die_or_cup_position(rules: str) -> None:
    timeouts: list[str] = []
    games = [timed_out_game(rules, seed) for seed in range(6)]
    if rules == "poker":
        games += [timed_out_game(rules, seed, five_aces=True) for seed in range(2)]
    for events in games:
        for event in events:
            assert set(lists_in(event)) <= PUBLIC_LISTS, event
            if event["type"] == "turn_timed_out":
                timeouts.append(event["action"]["type"])
    assert len(timeouts) > 6
    assert rules != "poker" or "reroll" in timeouts  # the five-aces rolls timed out
