"""The bot view lists the round's announced bids in order; no view or push for people does.

Bots may remember what was said at the table this round (``game.round_bids`` of
``views.bot_view``), as a person at the table would; people's views show only the current
bid, and each move reaches them once, as its event (docs/BOTS.md, "What a bot knows").
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Phase, Status
from chalicelib.engine.systems import SYSTEMS, rule_system
from chalicelib.engine.views import bot_view, events_for, room_view
from tests.engine.test_engine_properties import build

ROUND_ENDS = ("round_started", "round_restarted", "challenge_resolved")


def keys_in(node: Any) -> set[str]:
    """Every dict key anywhere inside ``node``."""
    if isinstance(node, list):
        return {k for v in node for k in keys_in(v)}
    if isinstance(node, dict):
        return {str(k) for k in node} | {k for v in node.values() for k in keys_in(v)}
    return set()


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("seed", [1, 2])
def test_the_bot_view_lists_the_rounds_bids_and_no_view_for_people_does(
    system: str, seed: int
) -> None:
    room = build({"rules": system, "starting_dice": 5, "lives": 3}, 3, 0, ["auto"], seed)
    rules = rule_system(system)
    roller = SeededRoller(seed)
    said: list[dict[str, Any]] = []
    checked = longest = 0
    for _ in range(400):
        if room.status != Status.PLAYING or room.game is None:
            break
        g = room.game
        if g.phase != Phase.BIDDING:
            events = game.advance(room, g.deadline or g.clock, roller)
        else:
            pid = g.turn_player
            assert pid is not None
            view = bot_view(room, pid)
            assert view["game"]["round_bids"] == said
            checked += 1
            longest = max(longest, len(said))
            for p in room.players:
                people = room_view(room, user_id=p.user_id) if p.user_id else None
                assert people is None or "round_bids" not in keys_in(people)
            assert "round_bids" not in keys_in(room_view(room))
            action = rules.bot_action(view, "random", {}, roller)
            events = game.act(room, pid, action, roller, g.clock)
        pushed = events_for(room, events)
        assert "round_bids" not in keys_in(pushed)
        for e in pushed:
            if e["type"] in ROUND_ENDS:
                said = []
            elif e["type"] == "bid_placed":
                # what the event announced, in the fields the bid view has
                assert g.current_bid is not None
                said.append({k: e[k] for k in rules.bid_view(g.current_bid)})
    assert checked >= 5 and longest >= 2
