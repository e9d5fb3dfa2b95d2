"""Perudo's rules as pure functions: one test per sentence and example of the spec section."""

from __future__ import annotations

import pytest

from chalicelib.engine.errors import IllegalBid
from chalicelib.engine.systems.perudo import moves


def code_of(quantity: int, face: int, current: tuple[int, int] | None, **kw: object) -> str:
    with pytest.raises(IllegalBid) as err:
        moves.check_bid(quantity, face, current, total=kw.pop("total", 20), **kw)  # type: ignore[arg-type]
    return err.value.code


# -- Dice: aces are wild and count toward any face, except in a palifico round ----------------


def test_aces_count_toward_any_face() -> None:
    assert moves.count([[1, 4, 4], [1, 2, 6]], 4) == 4
    assert moves.count([[1, 4, 4], [1, 2, 6]], 6) == 3


def test_in_palifico_aces_are_not_wild() -> None:
    assert moves.count([[1, 4, 4], [1, 2, 6]], 4, palifico=True) == 2


def test_a_bid_on_aces_counts_aces_only() -> None:
    assert moves.count([[1, 4, 4], [1, 1, 6]], 1) == 3
    assert moves.count([[1, 4, 4], [1, 1, 6]], 1, palifico=True) == 3


def test_an_unseen_die_counts_toward_a_face_one_time_in_three_and_toward_aces_one_in_six() -> None:
    assert moves.chance_per_die(4) == pytest.approx(1 / 3)
    assert moves.chance_per_die(1) == pytest.approx(1 / 6)
    assert moves.chance_per_die(4, palifico=True) == pytest.approx(1 / 6)


# -- Bids: as classic, plus the ace rules ------------------------------------------------------


def test_between_face_bids_a_raise_is_as_classic() -> None:
    moves.check_bid(4, 4, (4, 3), total=20)
    moves.check_bid(5, 2, (4, 3), total=20)
    assert code_of(3, 6, (4, 3)) == "illegal_bid"
    assert code_of(4, 2, (4, 3)) == "illegal_bid"
    assert code_of(4, 3, (4, 3)) == "illegal_bid"


def test_quantity_runs_from_one_to_the_dice_in_play_and_faces_from_one_to_six() -> None:
    assert code_of(11, 4, None, total=10) == "illegal_bid"
    assert code_of(0, 4, None) == "illegal_bid"
    assert code_of(2, 7, None) == "illegal_bid"
    assert code_of(2, 0, None) == "illegal_bid"


def test_over_five_4s_three_aces_is_legal_two_aces_is_not() -> None:
    moves.check_bid(3, 1, (5, 4), total=20)
    assert code_of(2, 1, (5, 4)) == "aces_below_half"


def test_going_to_aces_drops_to_half_rounded_up() -> None:
    assert [moves.aces_over(q) for q in (1, 2, 3, 4, 5, 6, 7)] == [1, 1, 2, 2, 3, 3, 4]
    moves.check_bid(3, 1, (6, 6), total=20)
    assert code_of(3, 1, (7, 2)) == "aces_below_half"


def test_going_to_aces_may_jump_higher_than_half() -> None:
    moves.check_bid(9, 1, (5, 4), total=20)


def test_over_three_aces_seven_of_any_face() -> None:
    for face in (2, 3, 4, 5, 6):
        moves.check_bid(7, face, (3, 1), total=20)
        assert code_of(6, face, (3, 1)) == "leaving_aces_too_low"


def test_leaving_aces_needs_twice_the_ace_quantity_plus_one() -> None:
    assert [moves.leaving_aces(k) for k in (1, 2, 3, 4)] == [3, 5, 7, 9]


def test_between_aces_bids_as_classic() -> None:
    moves.check_bid(4, 1, (3, 1), total=20)
    assert code_of(3, 1, (3, 1)) == "illegal_bid"
    assert code_of(2, 1, (3, 1)) == "illegal_bid"


def test_the_opening_bid_may_not_be_on_aces() -> None:
    assert code_of(2, 1, None) == "opening_on_aces"
    moves.check_bid(1, 2, None, total=20)


def test_in_palifico_the_opening_bid_may_be_on_aces() -> None:
    moves.check_bid(2, 1, None, total=20, palifico=True)


def test_bid_order_puts_k_aces_above_2k_dice_and_below_2k_plus_one() -> None:
    assert moves.bid_key(6, 6) < moves.bid_key(3, 1) < moves.bid_key(7, 2)
    for current in [(5, 4), (3, 1), (7, 2), (1, 2)]:
        for bid in moves.legal_bids(current, 20):
            assert moves.bid_key(*bid) > moves.bid_key(*current)


def test_legal_bids_are_exactly_the_bids_check_bid_accepts() -> None:
    for current in [None, (5, 4), (3, 1), (4, 6)]:
        for pal, single in [(False, False), (True, False), (True, True)]:
            legal = set(moves.legal_bids(current, 12, palifico=pal, single_die=single))
            for q in range(0, 14):
                for f in range(0, 8):
                    try:
                        moves.check_bid(q, f, current, total=12, palifico=pal, single_die=single)
                        accepted = True
                    except IllegalBid:
                        accepted = False
                    assert accepted == ((q, f) in legal), (current, pal, single, q, f)


# -- Dudo ------------------------------------------------------------------------------------


def test_dudo_fewer_than_bid_costs_the_bidder() -> None:
    assert moves.dudo_loses((5, 4), 4) == "bidder"


def test_dudo_meeting_the_bid_costs_the_caller() -> None:
    assert moves.dudo_loses((5, 4), 5) == "caller"
    assert moves.dudo_loses((5, 4), 8) == "caller"


# -- Calza -----------------------------------------------------------------------------------


def test_calza_is_right_only_on_exactly_the_bid() -> None:
    assert moves.calza_exact((5, 4), 5)
    assert not moves.calza_exact((5, 4), 6)
    assert not moves.calza_exact((5, 4), 4)


def test_calza_gains_a_die_never_above_the_starting_count() -> None:
    assert moves.calza_gains(4, 5)
    assert not moves.calza_gains(5, 5)


def test_calza_is_not_offered_when_only_two_players_have_dice() -> None:
    assert not moves.calza_offered(2)
    assert moves.calza_offered(3)


# -- Palifico --------------------------------------------------------------------------------


def test_palifico_follows_a_first_drop_to_one_die_with_three_players_left() -> None:
    assert moves.palifico_follows(2, 1, False, 3)


def test_no_palifico_with_only_two_players_left() -> None:
    assert not moves.palifico_follows(2, 1, False, 2)


def test_palifico_comes_once_per_player_per_game() -> None:
    assert not moves.palifico_follows(2, 1, True, 4)


def test_palifico_raises_raise_the_quantity_only() -> None:
    moves.check_bid(3, 4, (2, 4), total=20, palifico=True)
    assert code_of(2, 5, (2, 4), palifico=True) == "palifico_face_fixed"
    assert code_of(3, 5, (2, 4), palifico=True) == "palifico_face_fixed"
    assert code_of(2, 4, (2, 4), palifico=True) == "illegal_bid"


def test_palifico_a_player_with_a_single_die_may_change_the_face() -> None:
    moves.check_bid(2, 5, (2, 4), total=20, palifico=True, single_die=True)
    moves.check_bid(3, 2, (2, 4), total=20, palifico=True, single_die=True)
    assert code_of(2, 3, (2, 4), palifico=True, single_die=True) == "illegal_bid"


def test_palifico_aces_are_an_ordinary_face_without_halving() -> None:
    assert code_of(2, 1, (3, 4), palifico=True, single_die=True) == "illegal_bid"
    moves.check_bid(4, 1, (3, 4), total=20, palifico=True, single_die=True)
    moves.check_bid(3, 4, (2, 1), total=20, palifico=True, single_die=True)


# -- Timeout ----------------------------------------------------------------------------------


def test_the_lowest_legal_opening_is_one_2_and_one_ace_in_palifico() -> None:
    assert moves.lowest_opening(False) == (1, 2)
    assert moves.lowest_opening(True) == (1, 1)
    moves.check_bid(*moves.lowest_opening(False), None, total=2)
    moves.check_bid(*moves.lowest_opening(True), None, total=2, palifico=True)
