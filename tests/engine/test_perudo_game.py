"""Perudo through the engine: rule sentences of the spec section on scripted tables."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import Conflict, DomainError, InvalidSetting, NoBidToChallenge
from chalicelib.engine.model import Phase, Room, Settings, Status
from chalicelib.engine.room import add_bot, create_room, start
from chalicelib.engine.systems.perudo import PERUDO
from chalicelib.engine.views import room_view
from tests.engine.helpers import T0, pid, user
from tests.engine.perudo_support import (
    bid,
    calza,
    dudo,
    next_round,
    perudo_game,
)


def refused(room: Any, fn: Any, *args: Any) -> str:
    """The code of a refused move, which must leave the room unchanged."""
    before = room.to_dict()
    with pytest.raises(DomainError) as err:
        fn(room, *args)
    assert room.to_dict() == before
    return err.value.code


def reveal(room: Any) -> dict[str, Any]:
    return room_view(room)["game"]["last_reveal"]


# -- settings and dice -------------------------------------------------------------------------


def test_rules_perudo_is_a_room_setting() -> None:
    assert Settings.parse({"rules": "perudo"}).rules == "perudo"
    with pytest.raises(InvalidSetting):
        Settings.parse({"rules": "dudo"})


def test_dice_are_fair_one_to_six_with_the_ace_shown_as_1() -> None:
    room, _ = perudo_game(["12345", "66661"])
    assert room_view(room, user_id="u1")["me"]["dice"] == [1, 2, 3, 4, 5]


def test_the_wildcard_chance_does_not_apply() -> None:
    room = create_room("r", user(1), {"rules": "perudo", "wildcard_chance": 10}, T0)
    add_bot(room, user(1))
    start(room, user(1), SeededRoller(5), T0)
    for _ in range(30):
        assert all(1 <= d <= 6 for p in room.players for d in p.hand)
        room.game.round += 1  # type: ignore[union-attr]

        PERUDO.deal(room, SeededRoller(room.game.round))  # type: ignore[union-attr]


def test_perudo_is_for_two_to_ten_players() -> None:
    room = create_room("r", user(1), {"rules": "perudo"}, T0)
    for _ in range(9):
        add_bot(room, user(1))
    room.players.append(room.players[-1].__class__(id="p99", name="extra", kind="bot"))
    with pytest.raises(Conflict) as err:
        start(room, user(1), SeededRoller(1), T0)
    assert err.value.code == "too_many_players"
    room.players.pop()
    start(room, user(1), SeededRoller(1), T0)
    assert room.status == Status.PLAYING


def test_starting_dice_as_in_classic() -> None:
    room, _ = perudo_game(["123", "456"])
    assert [p.dice_count for p in room.players] == [3, 3]


# -- bids --------------------------------------------------------------------------------------


def test_the_opening_bid_may_not_be_on_aces() -> None:
    room, roller = perudo_game(["23456", "23456"])
    assert refused(room, bid, roller, 0, 2, 1) == "opening_on_aces"
    bid(room, roller, 0, 2, 2)


def test_over_five_4s_three_aces_is_legal_and_two_aces_is_not() -> None:
    room, roller = perudo_game(["23456", "23456"])
    bid(room, roller, 0, 5, 4)
    assert refused(room, bid, roller, 1, 2, 1) == "aces_below_half"
    bid(room, roller, 1, 3, 1)
    assert room_view(room)["game"]["current_bid"] == {
        "player_id": pid(room, 1),
        "quantity": 3,
        "face": 1,
    }


def test_over_three_aces_seven_of_any_face() -> None:
    room, roller = perudo_game(["23456", "23456"])
    bid(room, roller, 0, 5, 4)
    bid(room, roller, 1, 3, 1)
    assert refused(room, bid, roller, 0, 6, 6) == "leaving_aces_too_low"
    bid(room, roller, 0, 7, 2)


def test_between_aces_bids_as_classic() -> None:
    room, roller = perudo_game(["23456", "23456"])
    bid(room, roller, 0, 3, 4)
    bid(room, roller, 1, 2, 1)
    assert refused(room, bid, roller, 0, 2, 1) == "illegal_bid"
    bid(room, roller, 0, 3, 1)


def test_bids_keep_the_classic_checks() -> None:
    room, roller = perudo_game(["23456", "23456"])
    bid(room, roller, 0, 3, 4)
    assert refused(room, bid, roller, 1, 3, 3) == "illegal_bid"
    assert refused(room, bid, roller, 1, 11, 5) == "illegal_bid"
    assert refused(room, bid, roller, 1, 3, "4") == "invalid_action"


# -- Dudo --------------------------------------------------------------------------------------


def test_dudo_counts_the_face_plus_aces() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 8, 4)
    dudo(room, roller, 1)
    r = reveal(room)
    assert r["count"] == 7
    assert r["rows"][0]["counted"] == [True, True, True, True, True]
    assert r["rows"][1]["counted"] == [True, True, False, False, False]


def test_dudo_on_aces_counts_aces_only() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 2, 4)
    bid(room, roller, 1, 3, 1)
    dudo(room, roller, 0)
    assert reveal(room)["count"] == 3


def test_dudo_fewer_than_bid_costs_the_bidder_a_die() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 8, 4)
    dudo(room, roller, 1)
    r = reveal(room)
    assert (r["loser_id"], r["winner_id"], r["kind"]) == (pid(room, 0), pid(room, 1), "dudo")
    assert [p.dice_count for p in room.players] == [4, 5]


def test_dudo_otherwise_costs_the_challenger_a_die() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 7, 4)
    dudo(room, roller, 1)
    assert reveal(room)["loser_id"] == pid(room, 1)
    assert [p.dice_count for p in room.players] == [5, 4]


def test_under_give_the_lost_die_passes_to_the_winner() -> None:
    room, roller = perudo_game(["11444", "14566"], settings={"penalty": "give"})
    bid(room, roller, 0, 6, 4)
    dudo(room, roller, 1)
    assert [p.dice_count for p in room.players] == [6, 4]


def test_dudo_needs_a_bid() -> None:
    room, roller = perudo_game(["23456", "23456"])
    assert refused(room, dudo, roller, 0) == "no_bid"


# -- Calza -------------------------------------------------------------------------------------


def three_players(hands: list[str] | None = None, **kw: Any) -> Any:
    return perudo_game(hands or ["1144", "1456", "2233"], **kw)


def test_calza_exactly_right_wins_the_caller_a_die_back() -> None:
    room, roller = three_players()
    room.players[1].dice_count = 3
    room.players[1].hand = [1, 4, 5]
    bid(room, roller, 0, 6, 4)
    events = calza(room, roller, 1)
    assert {"type": "calza_called", "player_id": pid(room, 1)}.items() <= events[0].items()
    r = reveal(room)
    assert r["count"] == 6
    assert (r["kind"], r["challenger_id"], r["loser_id"]) == ("calza", pid(room, 1), None)
    assert r["gained_id"] == pid(room, 1)
    assert [p.dice_count for p in room.players] == [4, 4, 4]


def test_calza_never_gains_above_the_starting_count() -> None:
    room, roller = three_players()
    bid(room, roller, 0, 6, 4)
    calza(room, roller, 1)
    r = reveal(room)
    assert r["count"] == 6 and r["loser_id"] is None and r["gained_id"] is None
    assert [p.dice_count for p in room.players] == [4, 4, 4]


def test_calza_otherwise_costs_the_caller_a_die() -> None:
    for quantity in (5, 7):
        room, roller = three_players()
        bid(room, roller, 0, quantity, 4)
        calza(room, roller, 1)
        r = reveal(room)
        assert (r["loser_id"], r["gained_id"]) == (pid(room, 1), None)
        assert [p.dice_count for p in room.players] == [4, 3, 4]


def test_calza_passes_no_die_under_give() -> None:
    room, roller = three_players(settings={"penalty": "give"})
    bid(room, roller, 0, 7, 4)
    calza(room, roller, 1)
    assert [p.dice_count for p in room.players] == [4, 3, 4]


def test_calza_is_not_offered_heads_up() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 6, 4)
    assert refused(room, calza, roller, 1) == "calza_heads_up"


def test_calza_is_not_offered_when_only_two_players_still_have_dice() -> None:
    room, roller = three_players()
    room.players[2].eliminated, room.players[2].dice_count, room.players[2].hand = True, 0, []
    bid(room, roller, 0, 3, 4)
    assert refused(room, calza, roller, 1) == "calza_heads_up"


def test_calza_needs_a_bid() -> None:
    room, roller = three_players()
    with pytest.raises(NoBidToChallenge):
        calza(room, roller, 0)


# -- next opener -------------------------------------------------------------------------------


def test_the_loser_of_a_dudo_opens_the_next_round() -> None:
    room, roller = perudo_game(["11444", "14566"])
    bid(room, roller, 0, 6, 4)
    dudo(room, roller, 1)
    assert room.game.phase == Phase.BREAK  # type: ignore[union-attr]
    assert room.game.opener == pid(room, 1)  # type: ignore[union-attr]


def test_the_calza_caller_opens_the_next_round_right_or_wrong() -> None:
    for quantity in (6, 7):
        room, roller = three_players()
        bid(room, roller, 0, quantity, 4)
        calza(room, roller, 1)
        assert room.game.opener == pid(room, 1)  # type: ignore[union-attr]


def test_an_eliminated_loser_passes_the_opening_to_the_next_surviving_player() -> None:
    room, roller = perudo_game(["4", "4", "5"])
    bid(room, roller, 0, 1, 6)
    bid(room, roller, 1, 3, 4)
    dudo(room, roller, 2)
    assert room.players[1].eliminated
    assert room.game.opener == pid(room, 2)  # type: ignore[union-attr]


# -- palifico ----------------------------------------------------------------------------------


def palifico_table() -> Any:
    """Seat 0 drops to one die; three players still have dice: the next round is palifico."""
    room, roller = three_players(["44", "55", "66"])
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    assert [p.dice_count for p in room.players] == [1, 2, 2]
    next_round(room, roller, "4" + "15" + "66")
    return room, roller


def test_the_round_after_a_first_drop_to_one_die_is_palifico_and_that_player_opens() -> None:
    room, _ = palifico_table()
    view = room_view(room, user_id="u2")
    assert view["game"]["table"] == {"palifico": True}
    assert view["game"]["turn"]["player_id"] == pid(room, 0)


def test_a_normal_round_says_it_is_not_palifico() -> None:
    room, _ = perudo_game(["23456", "23456"])
    assert room_view(room)["game"]["table"] == {"palifico": False}


def test_in_palifico_aces_may_be_opened_on() -> None:
    room, roller = palifico_table()
    bid(room, roller, 0, 1, 1)
    assert room.game.current_bid.face == 1  # type: ignore[union-attr]


def test_in_palifico_aces_are_not_wild() -> None:
    room, roller = palifico_table()
    bid(room, roller, 0, 2, 5)
    dudo(room, roller, 1)
    r = reveal(room)
    assert r["count"] == 1 and r["palifico"] is True
    assert r["rows"][1]["counted"] == [False, True]


def test_a_stored_palifico_reveal_still_counts_aces_as_not_wild() -> None:
    room, roller = palifico_table()
    bid(room, roller, 0, 2, 5)
    dudo(room, roller, 1)
    shown = reveal(room)
    stored = Room.from_dict(room.to_dict())
    assert room_view(stored)["game"]["last_reveal"] == shown
    assert shown["bid"]["face"] == 5 and shown["rows"][1]["counted"] == [False, True]


def test_in_palifico_the_face_is_fixed_for_a_player_with_more_dice() -> None:
    room, roller = palifico_table()
    bid(room, roller, 0, 1, 5)
    assert refused(room, bid, roller, 1, 2, 6) == "palifico_face_fixed"
    bid(room, roller, 1, 2, 5)


def test_in_palifico_a_player_who_also_holds_a_single_die_may_change_the_face() -> None:
    room, roller = three_players(["44", "55", "66"])
    room.players[2].dice_count, room.players[2].hand = 1, [6]
    room.game.extra["one"] = [pid(room, 2)]  # type: ignore[union-attr]
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    next_round(room, roller, "4" + "15" + "6")
    assert room.game.extra["pal"] == pid(room, 0)  # type: ignore[union-attr]
    bid(room, roller, 0, 1, 4)
    bid(room, roller, 1, 2, 4)
    bid(room, roller, 2, 2, 6)
    assert room.game.current_bid.face == 6  # type: ignore[union-attr]


def test_palifico_is_once_per_player_per_game() -> None:
    room, roller = three_players(["44", "55", "66"])
    room.players[0].dice_count, room.players[0].hand = 1, [4]
    room.game.extra["one"] = [pid(room, 0)]  # type: ignore[union-attr]
    room.players[0].dice_count, room.players[0].hand = 2, [4, 4]
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    next_round(room, roller, "4" + "55" + "66")
    assert room_view(room)["game"]["table"] == {"palifico": False}


def test_no_palifico_when_fewer_than_three_players_still_have_dice() -> None:
    room, roller = perudo_game(["44", "55"])
    bid(room, roller, 0, 3, 4)
    dudo(room, roller, 1)
    next_round(room, roller, "4" + "55")
    assert room_view(room)["game"]["table"] == {"palifico": False}


def test_the_round_after_palifico_is_normal_again() -> None:
    room, roller = palifico_table()
    bid(room, roller, 0, 1, 6)
    dudo(room, roller, 1)  # two 6s: seat 1 loses, drops to one die, a palifico of its own
    next_round(room, roller, "4" + "5" + "66")
    assert room.game.extra["pal"] == pid(room, 1)  # type: ignore[union-attr]
    bid(room, roller, 1, 1, 6)
    dudo(room, roller, 2)  # two 6s: seat 2 loses, drops to one die
    next_round(room, roller, "4" + "5" + "6")
    assert room.game.extra["pal"] == pid(room, 2)  # type: ignore[union-attr]
    bid(room, roller, 2, 2, 6)
    dudo(room, roller, 0)  # one 6: seat 2 is out, everyone else has been down to one
    next_round(room, roller, "4" + "5")
    assert room_view(room)["game"]["table"] == {"palifico": False}


def test_a_resigning_palifico_player_ends_the_palifico() -> None:
    room, roller = palifico_table()
    roller.add_dice("15" + "66")
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    assert room_view(room)["game"]["table"] == {"palifico": False}


# -- timeouts ----------------------------------------------------------------------------------


def test_timeout_opens_with_one_2() -> None:
    room, roller = perudo_game(["23456", "23456"])
    game.advance(room, T0 + 30_000, roller)
    b = room.game.current_bid  # type: ignore[union-attr]
    assert (b.quantity, b.face) == (1, 2)  # type: ignore[union-attr]


def test_timeout_in_palifico_opens_with_one_ace() -> None:
    room, roller = palifico_table()
    game.advance(room, T0 + 30_000, roller)
    b = room.game.current_bid  # type: ignore[union-attr]
    assert (b.quantity, b.face) == (1, 1)  # type: ignore[union-attr]


def test_timeout_calls_dudo_on_a_bid() -> None:
    room, roller = perudo_game(["23456", "23456"])
    bid(room, roller, 0, 3, 3)
    events = game.advance(room, T0 + 30_000, roller)
    assert events[0]["action"] == {"type": "liar"}
    assert reveal(room)["kind"] == "dudo"


# -- bots --------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "medium", "strong"])
def test_a_bot_table_plays_perudo_to_the_end(level: str) -> None:
    room = create_room("r", user(1), {"rules": "perudo"}, T0)
    for _ in range(4):
        add_bot(room, user(1), level)
    roller = SeededRoller(11)
    start(room, user(1), roller, T0)
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    assert room.game is not None and room.game.deadline is not None
    game.advance(room, room.game.deadline, roller)
    assert room.status == Status.FINISHED
    assert sorted(p.rank for p in room.players) == [1, 2, 3, 4, 5]
