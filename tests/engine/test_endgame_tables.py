"""Heads-up endgames: strong and medium play the solved tables (chalicelib/engine/endgames.py).

The tables come from tools/solver (CFR+; tests/solver checks the solver); here: a bot in a
table's position plays an action the table gives, legal for the engine, whatever its memory
holds; medium plays a coarser copy; the opener does not always bid its own face; reading the
tables needs no numpy.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from importlib import resources

import pytest

from chalicelib.engine import endgames, game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Player, Room, Settings
from chalicelib.engine.state import Bid
from chalicelib.engine.systems import rule_system
from chalicelib.engine.views import bot_view

TABLES = sorted(
    p.name.removesuffix(".bin")
    for p in (resources.files("chalicelib.engine") / "endgames").iterdir()
    if p.name.endswith(".bin")
)


def pattern(name: str) -> str:
    """The table name pattern the bots look up (``classic-{}v{}-w10`` for ``classic-2v1-w10``)."""
    return re.sub(r"\d+v\d+", "{}v{}", name, count=1)


def heads_up(name: str, seed: int) -> tuple[Room, str]:
    """A room in a random position of the named endgame, with a bot ("p1") to move."""
    t = endgames.table(name)
    assert t is not None
    system = name.split("-")[0]
    wild = int(name.split("-w")[1]) if system == "classic" else 0
    settings = Settings(
        rules=system, starting_dice=5, **({"wildcard_chance": wild} if system == "classic" else {})
    )
    room = Room(id="r", host_id="p1", created_by_guest=False, created_at=0, settings=settings)
    room.players.append(Player(id="p1", name="bot", kind="bot", level="strong"))
    room.players.append(Player(id="p2", name="person", kind="human"))
    roller = SeededRoller(seed)
    game.start_game(room, roller, 0)
    g = room.game
    assert g is not None
    g.extra.clear()
    seat = roller.below(2)
    opener, second = ("p1", "p2") if seat == 0 else ("p2", "p1")
    for pid, n in zip((opener, second), t.n, strict=True):
        p = room.player(pid)
        assert p is not None
        p.dice_count = n
        faces = list(t.hands[0 if pid == opener else 1])
        p.hand = list(faces[roller.below(len(faces))])
    # bids so far: the bot's own from its table (so the position is one it reaches), the
    # other player's at random
    bids: list[Bid] = []
    who = [opener, second]
    last = -1
    while len(bids) % 2 != seat or roller.below(3) == 0:
        if len(bids) % 2 == seat:
            g.round_bids, g.current_bid = list(bids), bids[-1] if bids else None
            g.turn_player, g.opener = "p1", opener
            found = endgames.policy(bot_view(room, "p1"), pattern(name))
            assert found is not None
            codes = [a for a, _ in found[1] if a != endgames.CALL]
            if not codes:
                break
            b = codes[roller.below(len(codes))]
        else:
            free = [
                b
                for b in range(last + 1, len(t.order))
                if bids or t.order[b][1] != 1 or system != "perudo"
            ]
            if not free:
                break
            b = free[roller.below(len(free))]
        bids.append(Bid(who[len(bids) % 2], *t.order[b]))
        last = b
        if last == len(t.order) - 1:
            break
    while len(bids) % 2 != seat:
        bids.pop()
    g.round_bids, g.current_bid = list(bids), bids[-1] if bids else None
    g.turn_player, g.opener = "p1", opener
    return room, system


@pytest.mark.parametrize("name", TABLES)
def test_strong_and_medium_play_the_table_legally_whatever_their_memory(name: str) -> None:
    checked = 0
    for seed in range(24):
        room, system = heads_up(name, seed)
        rules = rule_system(system)
        view = bot_view(room, "p1")
        found = endgames.policy(view, pattern(name))
        if found is None:  # a position the table does not reach
            continue
        spot, weights = found
        allowed = {a for a, w in weights if w}
        steered = {"p2": {"garbage": 1}, "w": 0, "anything": [1, 2, 3]}
        for level in ("strong", "medium"):
            for r in range(3):
                fresh = rules.bot_action(copy.deepcopy(view), level, {}, SeededRoller(r))
                learned = rules.bot_action(
                    copy.deepcopy(view), level, copy.deepcopy(steered), SeededRoller(r)
                )
                assert fresh == learned
                code = (
                    endgames.CALL
                    if fresh["type"] == "liar"
                    else spot.table.bids[(fresh["quantity"], fresh["face"])]
                )
                assert code in allowed
                game.act(copy.deepcopy(room), "p1", fresh, SeededRoller(1), 0)
        checked += 1
    assert checked >= 12


def test_medium_plays_a_coarser_copy_of_the_table() -> None:
    weights = [(0, 106), (1, 55), (2, 20), (3, 61)]
    coarse = endgames.coarse(weights)
    assert {a for a, _ in coarse} <= {a for a, _ in weights}
    assert coarse == [(0, 2), (1, 1), (3, 1)]
    assert endgames.coarse([(0, 20), (5, 10)]) == [(0, 1)]


@pytest.mark.parametrize("name", [n for n in TABLES if n.startswith("classic-1v1")])
def test_the_opener_does_not_always_bid_its_own_face(name: str) -> None:
    t = endgames.table(name)
    assert t is not None
    other_face = 0
    for dice, hand in t.hands[0].items():
        weights = t.weights(0, 0, hand)
        assert weights is not None
        bluff = sum(w for a, w in weights if t.order[a][1] not in dice)
        other_face += bluff > 0
    assert other_face >= len(t.hands[0]) - 1


def test_reading_the_tables_imports_no_numpy() -> None:
    code = (
        "import sys\n"
        "from chalicelib.engine import endgames\n"
        f"assert endgames.table({TABLES[0]!r}) is not None\n"
        "assert 'numpy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_table_outside_heads_up() -> None:
    room, _ = heads_up(TABLES[0], 1)
    room.players.append(Player(id="p3", name="third", kind="human"))
    p3 = room.player("p3")
    assert p3 is not None
    p3.dice_count, p3.hand = 1, [3]
    assert endgames.policy(bot_view(room, "p1"), pattern(TABLES[0])) is None
