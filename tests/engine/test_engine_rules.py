"""Example tests for every rule sentence of SPEC §3 (classic rules), named after the rule."""

from __future__ import annotations

import pytest

from chalicelib.engine import game
from chalicelib.engine.errors import (
    IllegalBid,
    InvalidAction,
    NoBidToChallenge,
    NotYourTurn,
    StaleTurn,
    WrongPhase,
)
from chalicelib.engine.model import Phase
from chalicelib.engine.views import room_view
from tests.engine.helpers import T0, bid, bids_in, liar, new_game, pid


def test_four_threes_counts_threes_and_wildcards() -> None:
    room, roller = new_game(["33*12", "45566"], modes=["manual", "manual"])
    bid(room, roller, 0, 4, 3)
    liar(room, roller, 1)
    reveal = room.game.last_reveal
    assert reveal.count == 3  # two 3s and one *; the 1 is not wild
    assert reveal.loser_id == pid(room, 0)  # four threes was a lie: the bidder loses


def test_exact_count_means_challenger_loses() -> None:
    room, roller = new_game(["33*12", "34566"], modes=["manual", "manual"])
    bid(room, roller, 0, 4, 3)
    liar(room, roller, 1)
    assert room.game.last_reveal.count == 4
    assert room.game.last_reveal.loser_id == pid(room, 1)


def test_normal_one_is_not_wild() -> None:
    room, roller = new_game(["11111", "22222"], modes=["manual", "manual"])
    bid(room, roller, 0, 1, 2)
    bid(room, roller, 1, 6, 2)
    liar(room, roller, 0)
    assert room.game.last_reveal.count == 5
    assert room.game.last_reveal.loser_id == pid(room, 1)


def test_wildcard_counts_for_every_face() -> None:
    room, roller = new_game(["*****", "66666"], modes=["manual", "manual"])
    bid(room, roller, 0, 10, 6)
    liar(room, roller, 1)
    assert room.game.last_reveal.count == 10
    assert room.game.last_reveal.loser_id == pid(room, 1)


@pytest.mark.parametrize(("quantity", "face"), [(4, 4), (5, 1), (4, 6), (9, 2)])
def test_after_four_threes_higher_bids_are_legal(quantity: int, face: int) -> None:
    room, roller = new_game(["12345", "12345"])
    bid(room, roller, 0, 4, 3)
    bid(room, roller, 1, quantity, face)
    assert room.game.current_bid.quantity == quantity


@pytest.mark.parametrize(("quantity", "face"), [(3, 6), (4, 2), (4, 3), (1, 1)])
def test_after_four_threes_lower_bids_are_illegal(quantity: int, face: int) -> None:
    room, roller = new_game(["12345", "12345"])
    bid(room, roller, 0, 4, 3)
    before = room.to_dict()
    with pytest.raises(IllegalBid):
        bid(room, roller, 1, quantity, face)
    assert room.to_dict() == before


@pytest.mark.parametrize(("quantity", "face"), [(0, 3), (11, 3), (3, 0), (3, 7)])
def test_faces_one_to_six_quantity_up_to_dice_in_play(quantity: int, face: int) -> None:
    room, roller = new_game(["12345", "12345"])
    with pytest.raises(IllegalBid) as err:
        bid(room, roller, 0, quantity, face)
    assert err.value.field in ("quantity", "face")


def test_quantity_may_reach_total_dice_in_play() -> None:
    room, roller = new_game(["12345", "12345"])
    bid(room, roller, 0, 10, 6)
    assert room.game.current_bid.quantity == 10


def test_liar_needs_a_current_bid() -> None:
    room, roller = new_game(["12345", "12345"])
    with pytest.raises(NoBidToChallenge):
        liar(room, roller, 0)


def test_only_the_player_to_act_may_bid() -> None:
    room, roller = new_game(["12345", "12345", "12345"])
    before = room.to_dict()
    with pytest.raises(NotYourTurn):
        bid(room, roller, 1, 1, 1)
    assert room.to_dict() == before


def test_stale_turn_is_refused_and_changes_nothing() -> None:
    room, roller = new_game(["12345", "12345"])
    old_turn = room.game.turn
    bid(room, roller, 0, 2, 2)
    before = room.to_dict()
    with pytest.raises(StaleTurn):
        game.act(room, pid(room, 1), {"type": "liar", "turn": old_turn}, roller, T0)
    assert room.to_dict() == before


def test_turns_move_clockwise_among_players_with_dice() -> None:
    room, roller = new_game(["12345", "12345", "12345"], opener=1)
    assert room.game.turn_player == pid(room, 1)
    bid(room, roller, 1, 1, 2)
    assert room.game.turn_player == pid(room, 2)
    bid(room, roller, 2, 1, 3)
    assert room.game.turn_player == pid(room, 0)


def test_discard_penalty_removes_the_die_from_play() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    assert [p.dice_count for p in room.players] == [4, 5]
    assert room.game.last_reveal.penalty == "discard"


def test_give_penalty_lets_the_winner_exceed_the_starting_count() -> None:
    room, roller = new_game(
        ["12345", "12345"], settings={"penalty": "give"}, modes=["manual", "manual"]
    )
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    assert [p.dice_count for p in room.players] == [4, 6]
    reveal = room.game.last_reveal
    assert (reveal.loser_id, reveal.winner_id) == (pid(room, 0), pid(room, 1))


def test_loser_opens_the_next_round() -> None:
    room, roller = new_game(["12345", "12345", "12345"], modes=["manual"] * 3)
    bid(room, roller, 0, 1, 2)
    liar(room, roller, 1)  # one 2 exists: the challenger (seat 1) loses
    assert room.game.phase == Phase.BREAK
    assert room.game.opener == pid(room, 1)


def test_eliminated_loser_lets_the_next_survivor_open() -> None:
    room, roller = new_game(["1", "2", "3"], modes=["manual"] * 3)
    bid(room, roller, 0, 1, 2)
    liar(room, roller, 1)  # seat 1 loses its only die
    assert room.players[1].eliminated
    assert room.game.opener == pid(room, 2)


def test_everyone_rerolls_every_remaining_die_each_round() -> None:
    room, roller = new_game(["11111", "22222"])
    roller.add_dice("6666" + "33333")
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)  # all Auto: the next round starts at once
    assert room.game.round == 2
    assert room.players[0].hand == [6, 6, 6, 6]
    assert room.players[1].hand == [3, 3, 3, 3, 3]


def test_reveal_lists_every_hand_counted_dice_and_bids_in_order() -> None:
    room, roller = new_game(["13*55", "23456", "66666"], modes=["manual"] * 3)
    bid(room, roller, 0, 2, 3)
    bid(room, roller, 1, 3, 3)
    bid(room, roller, 2, 4, 3)
    bid(room, roller, 0, 5, 3)
    liar(room, roller, 1)
    rows = {r.player_id: r for r in room.game.last_reveal.rows}
    assert rows[pid(room, 0)].counted == [False, True, True, False, False]
    assert rows[pid(room, 0)].bids == [(2, 3), (5, 3)]
    assert rows[pid(room, 1)].bids == [(3, 3)]
    assert rows[pid(room, 2)].bids == [(4, 3)]
    view = room_view(room)["game"]["last_reveal"]
    assert view["rows"][0]["dice"] == [1, 3, "*", 5, 5]
    assert view["challenger_id"] == pid(room, 1)


def test_player_without_bids_shows_an_empty_list() -> None:
    room, roller = new_game(["12345", "12345", "12345"], modes=["manual"] * 3)
    bid(room, roller, 0, 1, 2)
    liar(room, roller, 1)
    rows = room_view(room)["game"]["last_reveal"]["rows"]
    assert rows[2]["bids"] == []


def test_latest_reveal_stays_available_during_the_next_round() -> None:
    room, roller = new_game(["12345", "12345"])
    roller.add_dice("1234" + "12345")
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    assert room.game.round == 2 and room.game.phase == Phase.BIDDING
    view = room_view(room, user_id="u1")
    assert view["game"]["last_reveal"]["round"] == 1
    assert view["me"]["dice"] == [1, 2, 3, 4]


def test_hidden_bid_history_only_the_current_bid_is_shown() -> None:
    room, roller = new_game(["12345", "12345", "12345"])
    bid(room, roller, 0, 1, 2)
    bid(room, roller, 1, 2, 2)
    for viewer in ("u1", "u2", "u3", None):
        view = room_view(room, user_id=viewer)
        assert view["game"]["current_bid"] == {"player_id": pid(room, 1), "quantity": 2, "face": 2}
        assert bids_in(view) == [(2, 2)]


def test_a_player_sees_own_dice_and_only_counts_of_others() -> None:
    room, _ = new_game(["12345", "66666"])
    mine = room_view(room, user_id="u1")
    assert mine["me"]["dice"] == [1, 2, 3, 4, 5]
    assert all("dice" not in p for p in mine["players"])
    assert [p["dice_count"] for p in mine["players"]] == [5, 5]
    spectator = room_view(room)
    assert spectator["me"]["dice"] is None
    assert "66666" not in str(mine) and "6, 6, 6" not in str(mine)


def test_liar_only_while_bidding() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    bid(room, roller, 0, 9, 6)
    turn = room.game.turn
    liar(room, roller, 1)
    with pytest.raises(WrongPhase):
        game.act(room, pid(room, 0), {"type": "liar", "turn": turn}, roller, T0)


def test_last_player_with_dice_wins_after_a_three_second_final_reveal() -> None:
    room, roller = new_game(["1", "2"])
    bid(room, roller, 0, 2, 6)
    liar(room, roller, 1)
    assert room.game.phase == Phase.FINAL_REVEAL
    assert room.game.deadline == T0 + 3000
    assert room.game.last_reveal.final
    game.advance(room, T0 + 2999, roller)
    assert room.game.phase == Phase.FINAL_REVEAL
    game.advance(room, T0 + 3000, roller)
    assert room.game.phase == Phase.FINISHED
    assert room.status == "finished"
    assert [p.rank for p in room.players] == [2, 1]


@pytest.mark.parametrize("extra", [{"show": [0]}, {"reroll": True}])
def test_classic_bids_have_no_show_or_reroll(extra: dict[str, object]) -> None:
    room, roller = new_game(["12345", "12345"])
    before = room.to_dict()
    with pytest.raises(InvalidAction) as err:
        game.act(
            room,
            pid(room, 0),
            {"type": "bid", "quantity": 1, "face": 2, "turn": room.game.turn, **extra},
            roller,
            T0,
        )
    assert err.value.field in extra
    assert room.to_dict() == before
