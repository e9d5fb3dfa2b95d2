"""The Perudo bots: they know aces-wild odds, when halving to aces pays, calza's value, palifico."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller, SeededRoller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.model import Bid
from chalicelib.engine.systems.perudo import bot, moves
from chalicelib.engine.views import bot_view
from tests.engine.helpers import pid
from tests.engine.perudo_support import bid, dudo, next_round, perudo_game


def table(hands: list[str], current: tuple[int, int, int] | None = None, **kw: Any) -> Any:
    """A table whose seat 0 is to act; ``current`` = (bidder seat, quantity, face)."""
    room, roller = perudo_game(hands, **kw)
    if current is not None:
        seat, q, f = current
        room.game.current_bid = Bid(pid(room, seat), q, f)
        room.game.round_bids = [room.game.current_bid]
    return room, roller


def decide(room: Any, level: str = "strong", seat: int = 0, memory: Any = None) -> dict[str, Any]:
    view = bot_view(room, pid(room, seat))
    return bot.decide(view, level, {} if memory is None else memory, ScriptedRoller())


def test_aces_are_wild_in_the_bots_odds() -> None:
    # Seat 0 holds four dice counting toward 4 (two aces): four 4s are certain for it.
    room, _ = table(["11445", "23566"], (1, 4, 4))
    seat = bot.read_view(bot_view(room, pid(room, 0)))
    assert seat.mine(4) == 4 and seat.mine(1) == 2
    assert bot.Beliefs(seat, {}).p_true(4, 4) == 1.0
    assert decide(room)["type"] == "bid"


def test_the_bot_calls_dudo_on_a_bid_it_knows_is_false() -> None:
    # Seat 0 holds no 6 and no ace: ten 6s would need every die in play.
    room, _ = table(["23452", "23456"], (1, 7, 6))
    assert decide(room)["type"] == "liar"


def test_halving_to_aces_pays_when_the_bot_holds_aces() -> None:
    # Over five 5s, three aces in hand make three aces certain; six 5s would need three more.
    room, _ = table(["11123", "23456"], (1, 5, 5))
    action = decide(room)
    assert (action["type"], action.get("face")) == ("bid", 1)
    assert action["quantity"] >= moves.aces_over(5)


def test_the_bot_does_not_open_on_aces() -> None:
    room, _ = table(["11111", "23456"])
    for level in ("easy", "medium", "strong", "naive", "random"):
        action = decide(room, level)
        assert action["type"] == "bid" and action["face"] != 1, level


def test_calza_when_its_expected_value_beats_every_other_option() -> None:
    # Three players, three dice: two 4s is true with 5/9 and exact with 4/9.
    room, _ = table(["46", "23", "56"], (2, 2, 4))
    for p, die in zip(room.players, (4, 2, 5), strict=True):
        p.dice_count, p.hand = 1, [die]
    assert decide(room)["type"] == "calza"


def test_no_calza_at_the_starting_count_where_it_can_win_nothing() -> None:
    room, _ = table(["4", "2", "5"], (2, 2, 4), settings={"starting_dice": 1})
    assert decide(room)["type"] != "calza"


def test_no_calza_heads_up() -> None:
    room, _ = table(["4", "5"], (1, 1, 4))
    for level in ("strong", "medium", "random"):
        for seed in range(20):
            view = bot_view(room, pid(room, 0))
            assert bot.decide(view, level, {}, SeededRoller(seed))["type"] != "calza"


def test_in_palifico_a_bot_with_more_dice_keeps_the_locked_face() -> None:
    room, roller = perudo_game(["44", "55", "66"])
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    next_round(room, roller, "6" + "15" + "33")
    bid(room, roller, 0, 1, 6)
    seat = bot.read_view(bot_view(room, pid(room, 1)))
    assert seat.palifico and seat.mine(6) == 0  # the ace is no 6 in palifico
    for level in ("easy", "medium", "strong", "naive", "random"):
        for seed in range(10):
            action = bot.decide(bot_view(room, pid(room, 1)), level, {}, SeededRoller(seed))
            assert action["type"] != "bid" or action["face"] == 6, (level, action)


def test_the_palifico_opener_opens_on_its_own_face() -> None:
    room, roller = perudo_game(["44", "55", "66"])
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    next_round(room, roller, "3" + "15" + "66")
    action = decide(room, "strong", 0)
    assert (action["type"], action["face"]) == ("bid", 3)


def test_observe_learns_a_bluffer_from_reveals() -> None:
    room, roller = perudo_game(["22222", "33333"])
    memory: dict[str, Any] = {}
    bid(room, roller, 0, 4, 6)
    dudo(room, roller, 1)
    bot.observe(memory, room.game.last_reveal)
    stats = memory["pe"][pid(room, 0)]
    assert stats[bot.BIDS] == 1 and stats[bot.BLUFFS] == 1
    assert bot.call_rates(memory, pid(room, 1)) != bot.DEFAULT_CALL_RATE


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    dice=st.integers(1, 5),
    level=st.sampled_from(["easy", "medium", "strong", "naive", "random"]),
)
def test_every_bot_action_is_legal(seed: int, players: int, dice: int, level: str) -> None:
    roller = SeededRoller(seed)
    hands = ["".join(str(1 + roller.below(6)) for _ in range(dice)) for _ in range(players)]
    room, script = perudo_game(hands)
    script.add_dice("".join(str(1 + roller.below(6)) for _ in range(200)))
    for _ in range(12):
        g = room.game
        assert g is not None and g.turn_player is not None
        action = bot.decide(bot_view(room, g.turn_player), level, room.bot_memory, roller)
        try:
            game.act(room, g.turn_player, action, script, 0)
        except DomainError as err:
            raise AssertionError(f"{level} played an illegal {action}: {err.code}") from err
        if action["type"] != "bid":
            break
