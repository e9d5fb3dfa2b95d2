"""Wild Stars (SPEC-VARIANTS.md) behind the same room, timer and view machinery as classic."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import Conflict, IllegalBid, InvalidAction
from chalicelib.engine.model import WILD, Phase, Status
from chalicelib.engine.room import add_bot, create_room, start
from chalicelib.engine.views import room_view
from tests.engine.helpers import T0, dice_lists_in, liar, new_game, pid, user

WS = {"rules": "wild-stars"}


def ws_game(hands: list[str], **kw: Any):  # type: ignore[no-untyped-def]
    """A Wild Stars game; ``*`` (or 1) in a hand is a star."""
    settings = {**WS, **kw.pop("settings", {})}
    return new_game(hands, settings=settings, modes=kw.pop("modes", ["manual"] * len(hands)), **kw)


def ws_bid(room, roller, seat, quantity, face, **extra):  # type: ignore[no-untyped-def]
    return game.act(
        room,
        pid(room, seat),
        {"type": "bid", "quantity": quantity, "face": face, "turn": room.game.turn, **extra},
        roller,
        T0,
    )


def test_a_rolled_one_is_a_star() -> None:
    room, _ = ws_game(["12345", "66661"])
    assert room.players[0].hand == [WILD, 2, 3, 4, 5]
    assert room_view(room, user_id="u1")["me"]["dice"] == ["*", 2, 3, 4, 5]


def test_over_four_threes_three_stars_is_legal_and_two_stars_is_not() -> None:
    room, roller = ws_game(["23456", "23456"])
    ws_bid(room, roller, 0, 4, 3)
    with pytest.raises(IllegalBid):
        ws_bid(room, roller, 1, 2, "*")
    ws_bid(room, roller, 1, 3, "*")
    assert room_view(room)["game"]["current_bid"] == {
        "player_id": pid(room, 1),
        "quantity": 3,
        "face": "*",
    }


def test_one_star_sits_between_one_and_two() -> None:
    room, roller = ws_game(["23456", "23456"])
    ws_bid(room, roller, 0, 1, 6)
    ws_bid(room, roller, 1, 1, "*")
    with pytest.raises(IllegalBid):
        ws_bid(room, roller, 0, 1, 6)
    ws_bid(room, roller, 0, 2, 2)


def test_same_number_space_needs_a_higher_face_and_faces_are_2_to_6_or_star() -> None:
    room, roller = ws_game(["23456", "23456"])
    ws_bid(room, roller, 0, 3, 4)
    with pytest.raises(IllegalBid):
        ws_bid(room, roller, 1, 3, 4)
    with pytest.raises(IllegalBid):
        ws_bid(room, roller, 1, 3, 1)
    ws_bid(room, roller, 1, 3, 5)


def test_number_bids_count_stars_and_star_bids_count_only_stars() -> None:
    room, roller = ws_game(["**333", "34566"])
    ws_bid(room, roller, 0, 3, "*")
    liar(room, roller, 1)
    assert room.game.last_reveal.count == 2
    room2, roller2 = ws_game(["**333", "34566"])
    ws_bid(room2, roller2, 0, 6, 3)
    liar(room2, roller2, 1)
    assert room2.game.last_reveal.count == 6


def test_short_bid_costs_the_bidder_the_difference() -> None:
    room, roller = ws_game(["22222", "33333"])
    ws_bid(room, roller, 0, 8, 4)
    liar(room, roller, 1)
    assert [p.dice_count for p in room.players] == [0, 5]
    assert room.status == Status.PLAYING and room.game.phase == Phase.FINAL_REVEAL


def test_an_over_count_costs_the_challenger_the_difference() -> None:
    room, roller = ws_game(["22222", "2*333"])
    ws_bid(room, roller, 0, 4, 2)
    liar(room, roller, 1)
    assert room.game.last_reveal.count == 7
    assert [p.dice_count for p in room.players] == [5, 2]
    assert room.game.last_reveal.extra["lost"] == {pid(room, 1): 3}
    assert room.game.opener == pid(room, 0)  # the winner opens


def test_perfect_bid_costs_everyone_but_the_bidder_one_die_with_die_hard() -> None:
    room, roller = ws_game(["22", "33", "44", "55"])
    room.players[2].dice_count, room.players[2].hand = 1, [4]
    room.players[3].dice_count, room.players[3].hand = 1, [5]
    ws_bid(room, roller, 0, 2, 2)
    liar(room, roller, 1)
    reveal = room.game.last_reveal
    assert reveal.count == 2 and reveal.extra["perfect"] is True
    assert [p.dice_count for p in room.players] == [2, 1, 1, 1]
    assert reveal.extra["die_hard"] == [pid(room, 2), pid(room, 3)]
    assert room.game.opener == pid(room, 0)  # on a perfect bid the bidder opens


def test_a_challenger_down_to_one_die_gets_no_die_hard() -> None:
    room, roller = ws_game(["22", "33"])
    room.players[1].dice_count, room.players[1].hand = 1, [3]
    ws_bid(room, roller, 0, 2, 2)
    liar(room, roller, 1)
    assert room.players[1].eliminated


def test_timeout_opening_bids_one_two() -> None:
    room, roller = ws_game(["23456", "23456"])
    game.advance(room, T0 + 30_000, roller)
    assert (room.game.current_bid.quantity, room.game.current_bid.face) == (1, 2)


def test_show_and_reroll_sets_dice_out_in_the_open_for_everyone() -> None:
    room, roller = ws_game(["2*345", "66666"])
    roller.add_dice("666")
    ws_bid(room, roller, 0, 3, 2, show=[0, 1])
    assert room.players[0].hand == [6, 6, 6]
    assert room.players[0].dice_count == 5
    for viewer in ("u1", "u2", None):
        view = room_view(room, user_id=viewer)
        assert view["game"]["table"]["shown"] == {pid(room, 0): [2, "*"]}
    # the other player still sees no cup dice of seat 0
    assert dice_lists_in(room_view(room, user_id="u2")) == [[6, 6, 6, 6, 6]]
    liar(room, roller, 1)
    reveal = room_view(room)["game"]["last_reveal"]
    row = reveal["rows"][0]
    assert row["dice"] == [6, 6, 6, 2, "*"]
    assert reveal["shown"][pid(room, 0)] == [False, False, False, True, True]
    assert reveal["count"] == 2


def test_shown_dice_stay_shown_and_count() -> None:
    room, roller = ws_game(["23456", "22222"])
    roller.add_dice("3333")
    ws_bid(room, roller, 0, 1, 2, show=[0])
    ws_bid(room, roller, 1, 2, 2)
    roller.add_dice("333")
    ws_bid(room, roller, 0, 3, 2, show=[0])
    assert room_view(room)["game"]["table"]["shown"][pid(room, 0)] == [2, 3]


@pytest.mark.parametrize(
    "extra",
    [
        {"show": [0, 1, 2, 3, 4]},
        {"show": [0, 0]},
        {"show": [9]},
        {"show": "0"},
        {"reroll": "y"},
        {"show": [0], "reroll": False},
    ],
)
def test_show_must_keep_a_die_in_the_cup_and_name_cup_positions(extra: dict[str, Any]) -> None:
    room, roller = ws_game(["23456", "22222"])
    before = room.to_dict()
    with pytest.raises(InvalidAction):
        ws_bid(room, roller, 0, 1, 2, **extra)
    assert room.to_dict() == before


def test_wild_stars_is_for_two_to_six_players() -> None:
    room = create_room("r", user(1), WS, T0)
    for _ in range(6):
        add_bot(room, user(1))
    with pytest.raises(Conflict):
        start(room, user(1), SeededRoller(1), T0)


def test_a_bot_table_plays_wild_stars_to_the_end() -> None:
    room = create_room("r", user(1), WS, T0)
    for _ in range(5):
        add_bot(room, user(1))
    roller = SeededRoller(7)
    start(room, user(1), roller, T0)
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    assert room.game is not None and room.game.deadline is not None
    # with no human left the bots play on at once; only the final reveal waits
    assert room.game.deadline == room.game.last_reveal.at + 3000
    game.advance(room, room.game.deadline, roller)
    assert room.status == Status.FINISHED
    assert sorted(p.rank for p in room.players) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("level", ["easy", "strong"])
def test_wild_stars_bot_decisions_are_always_legal(level: str) -> None:
    """Seats driven by the Wild Stars policy never need the engine's timeout fallback."""
    from chalicelib.engine.systems.wild_stars.rules import decide
    from chalicelib.engine.views import bot_view

    for seed in range(25):
        room = create_room("r", user(1), {**WS, "starting_dice": 1 + seed % 5}, T0)
        for i in range(2, 3 + seed % 4):
            from chalicelib.engine.room import join, set_ready

            join(room, user(i), None)
            set_ready(room, user(i), True)
        roller = SeededRoller(seed)
        start(room, user(1), roller, T0)
        steps = 0
        while room.status == Status.PLAYING and steps < 2000:
            steps += 1
            g = room.game
            if g.phase != Phase.BIDDING:
                game.advance(room, g.deadline, roller)
                continue
            action = decide(bot_view(room, g.turn_player), level)
            game.act(room, g.turn_player, action, roller, T0)  # raises if illegal
        assert room.status in (Status.PLAYING, Status.FINISHED)
        if room.status == Status.PLAYING:
            game.advance(room, room.game.deadline or T0, roller)
        assert room.status == Status.FINISHED


def test_a_reroll_with_nothing_shown_is_not_a_move() -> None:
    room, roller = ws_game(["23456", "22222"])
    roller.add_dice("66666")
    before = room.to_dict()
    for extra in ({"reroll": True}, {"reroll": True, "show": []}):
        with pytest.raises(InvalidAction) as refused:
            ws_bid(room, roller, 0, 1, 2, **extra)
        assert refused.value.field == "show"
        assert room.to_dict() == before
    ws_bid(room, roller, 0, 1, 2)
    assert room.players[0].hand == [2, 3, 4, 5, 6]
    assert room_view(room)["game"]["table"] == {"shown": {}}
