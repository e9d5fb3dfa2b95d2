"""SPEC §4–§5: timers and continuation, resignation, ranks, end of game, dice progress."""

from __future__ import annotations

import pytest

from chalicelib.engine import game
from chalicelib.engine.errors import StaleTurn, WrongPhase
from chalicelib.engine.model import Phase, Status
from chalicelib.engine.views import room_view
from tests.engine.helpers import T0, bid, liar, new_game, pid

TURN = 30_000
BREAK = 60_000


# -- timers -----------------------------------------------------------------------------------


def test_every_turn_has_a_deadline_of_the_room_turn_length() -> None:
    room, roller = new_game(["12345", "12345"])
    assert room.game.deadline == T0 + TURN
    bid(room, roller, 0, 1, 2, now=T0 + 5000)
    assert room.game.deadline == T0 + 5000 + TURN


def test_timeout_opening_bids_one_1() -> None:
    room, roller = new_game(["12345", "12345"])
    events = game.advance(room, T0 + TURN, roller)
    assert room.game.current_bid.to_dict() == {"player_id": pid(room, 0), "quantity": 1, "face": 1}
    assert events[0]["type"] == "turn_timed_out"


def test_timeout_with_a_bid_calls_liar() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    bid(room, roller, 0, 9, 6)
    game.advance(room, T0 + TURN, roller)
    assert room.game.phase == Phase.BREAK
    assert room.game.last_reveal.challenger_id == pid(room, 1)


def test_nothing_happens_before_the_deadline() -> None:
    room, roller = new_game(["12345", "12345"])
    before = room.to_dict()
    assert game.advance(room, T0 + TURN - 1, roller) == []
    assert room.to_dict() == before


def test_each_deadline_applies_at_its_own_time() -> None:
    room, roller = new_game(["12345", "12345", "12345"], modes=["manual"] * 3)
    # Three turns pass unanswered: bid 1×1 at +30 s, then Liar! at +60 s (the second turn's
    # deadline counts from the first deadline, not from when the server noticed).
    game.advance(room, T0 + 2 * TURN + 10, roller)
    reveal = room.game.last_reveal
    assert reveal.at == T0 + 2 * TURN
    assert room.game.phase == Phase.BREAK
    assert room.game.deadline == T0 + 2 * TURN + BREAK


def test_a_late_advance_equals_punctual_ones() -> None:
    hands = ["12345", "23456", "34561"] + ["1234"] * 10
    punctual, r1 = new_game(hands[:3], modes=["manual"] * 3)
    late, r2 = new_game(hands[:3], modes=["manual"] * 3)
    for r in (r1, r2):
        r.add_dice("".join(hands[3:]))
    for k in range(1, 11):
        game.advance(punctual, T0 + k * TURN, r1)
    game.advance(late, T0 + 10 * TURN, r2)
    assert punctual.to_dict() == late.to_dict()


def test_a_duplicate_advance_changes_nothing() -> None:
    room, roller = new_game(["12345", "12345"])
    game.advance(room, T0 + TURN, roller)
    once = room.to_dict()
    assert game.advance(room, T0 + TURN, roller) == []
    assert room.to_dict() == once


# -- breaks and continuation ------------------------------------------------------------------


def test_auto_players_agree_at_once_so_the_next_round_starts() -> None:
    room, roller = new_game(["12345", "12345"])
    roller.add_dice("1234" + "12345")
    bid(room, roller, 0, 9, 6)
    events = liar(room, roller, 1)
    assert [e["type"] for e in events][-2:] == ["break_started", "round_started"]
    assert room.game.phase == Phase.BIDDING and room.game.round == 2


def test_manual_players_are_offered_agree_and_unanimity_starts_early() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "auto"])
    roller.add_dice("1234" + "12345")
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    assert room.game.phase == Phase.BREAK
    assert room.game.agreed == [pid(room, 1)]
    game.act(room, pid(room, 0), {"type": "agree"}, roller, T0 + 1000)
    assert room.game.phase == Phase.BIDDING
    assert room.game.deadline == T0 + 1000 + TURN


def test_break_timer_starts_the_round_without_unanimity() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    roller.add_dice("1234" + "12345")
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    game.advance(room, T0 + BREAK - 1, roller)
    assert room.game.phase == Phase.BREAK
    game.advance(room, T0 + BREAK, roller)
    assert room.game.phase == Phase.BIDDING and room.game.round == 2
    assert room.game.deadline == T0 + BREAK + TURN


def test_switching_to_manual_keeps_an_agreement() -> None:
    room, roller = new_game(["12345", "12345"], modes=["auto", "manual"])
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    game.set_continue_mode(room, pid(room, 0), "manual", roller, T0)
    assert pid(room, 0) in room.game.agreed
    assert room.game.phase == Phase.BREAK


def test_switching_to_auto_during_a_break_agrees() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    roller.add_dice("1234" + "12345")
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    game.set_continue_mode(room, pid(room, 0), "auto", roller, T0)
    assert room.game.agreed == [pid(room, 0)]
    game.set_continue_mode(room, pid(room, 1), "auto", roller, T0)
    assert room.game.phase == Phase.BIDDING


def test_agreeing_twice_is_refused() -> None:
    room, roller = new_game(["12345", "12345", "12345"], modes=["manual"] * 3)
    bid(room, roller, 0, 9, 6)
    liar(room, roller, 1)
    game.act(room, pid(room, 0), {"type": "agree"}, roller, T0)
    with pytest.raises(StaleTurn):
        game.act(room, pid(room, 0), {"type": "agree"}, roller, T0)


def test_agree_outside_a_break_is_refused() -> None:
    room, roller = new_game(["12345", "12345"])
    with pytest.raises(WrongPhase):
        game.act(room, pid(room, 0), {"type": "agree"}, roller, T0)


def test_bots_always_agree() -> None:
    room, roller = new_game(["12345", "12345"], bots=1, modes=["manual"])
    assert room.players[1].is_bot
    if room.game.turn_player != pid(room, 0):
        pytest.fail("the human opens (scripted pick 0)")
    bid(room, roller, 0, 10, 6)  # the bot calls Liar! on an impossible bid
    assert room.game.phase == Phase.BREAK
    assert room.game.agreed == [pid(room, 1)]


def test_last_human_eliminated_during_a_break_with_only_bots_left_starts_next_round_at_once() -> (
    None
):
    # A Manual human with one die bids three 6s over dice 1, 2, 3; the next bot calls Liar!,
    # the human is out, only bots remain, so the next round starts without waiting.
    room, roller = new_game(["1", "2", "3"], bots=2, modes=["manual"])
    roller.add_dice("4" * 40)
    events = bid(room, roller, 0, 3, 6)
    assert room.players[0].eliminated
    kinds = [e["type"] for e in events]
    i = kinds.index("break_started")
    assert kinds[i + 1] == "round_started"
    assert events[i + 1]["at"] == events[i]["at"] == T0


# -- resignation and ranks --------------------------------------------------------------------


def test_resignation_mid_round_restarts_the_round_with_the_same_opener() -> None:
    room, roller = new_game(["12345", "12345", "12345"], opener=0)
    bid(room, roller, 0, 2, 2)
    roller.add_dice("66666" + "55555")
    game.act(room, pid(room, 2), {"type": "resign"}, roller, T0 + 1000)
    assert room.players[2].resigned and room.players[2].rank == 3
    assert room.players[2].dice_count == 0
    assert room.game.round == 1 and room.game.current_bid is None
    assert room.game.turn_player == pid(room, 0)
    assert room.players[0].hand == [6, 6, 6, 6, 6]


def test_resigning_opener_hands_the_restart_to_the_next_player_clockwise() -> None:
    room, roller = new_game(["12345", "12345", "12345"], opener=0)
    roller.add_dice("66666" + "55555")
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    assert room.game.turn_player == pid(room, 1)


def test_resignation_during_a_break_only_removes_the_vote() -> None:
    room, roller = new_game(["12345", "12345", "12345"], modes=["manual"] * 3)
    bid(room, roller, 0, 1, 2)
    liar(room, roller, 1)  # seat 1 loses and would open
    game.act(room, pid(room, 0), {"type": "agree"}, roller, T0)
    game.act(room, pid(room, 1), {"type": "resign"}, roller, T0)
    assert room.game.phase == Phase.BREAK
    assert room.game.opener == pid(room, 2)
    roller.add_dice("12345" + "12345")
    game.act(room, pid(room, 2), {"type": "agree"}, roller, T0)
    assert room.game.phase == Phase.BIDDING and room.game.turn_player == pid(room, 2)


def test_resignation_leaving_one_player_ends_the_game_at_once() -> None:
    room, roller = new_game(["12345", "12345"])
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    assert room.status == Status.FINISHED
    assert [p.rank for p in room.players] == [2, 1]


def test_resigning_twice_is_refused() -> None:
    room, roller = new_game(["12345", "12345", "12345"])
    roller.add_dice("1" * 10)
    game.act(room, pid(room, 2), {"type": "resign"}, roller, T0)
    with pytest.raises(WrongPhase):
        game.act(room, pid(room, 2), {"type": "resign"}, roller, T0)


def test_survivor_ranks_first_and_the_last_eliminated_second() -> None:
    room, roller = new_game(["1", "1", "1"], modes=["manual"] * 3)
    bid(room, roller, 0, 3, 6)
    liar(room, roller, 1)  # seat 0 eliminated: rank 3
    assert room.players[0].rank == 3
    roller.add_dice("22")
    game.act(room, pid(room, 1), {"type": "agree"}, roller, T0)
    game.act(room, pid(room, 2), {"type": "agree"}, roller, T0)
    assert room.game.turn_player == pid(room, 1)  # next survivor clockwise opens
    bid(room, roller, 1, 2, 5)
    liar(room, roller, 2)
    game.advance(room, T0 + 3000, roller)
    assert [p.rank for p in room.players] == [3, 2, 1]
    assert room.results["ranking"][0]["player_id"] == pid(room, 2)


def test_dice_progress_records_counts_at_each_round_start_and_the_end() -> None:
    room, roller = new_game(["12", "12"], settings={"starting_dice": 2})
    roller.add_dice("1" + "12")
    bid(room, roller, 0, 4, 6)
    liar(room, roller, 1)
    roller.add_dice("")
    bid(room, roller, 0, 3, 6)
    liar(room, roller, 1)
    game.advance(room, T0 + 3000, roller)
    progress = room_view(room)["results"]["dice_progress"]
    a, b = pid(room, 0), pid(room, 1)
    assert [(p["round"], p["counts"][a], p["counts"][b]) for p in progress] == [
        (1, 2, 2),
        (2, 1, 2),
        (2, 0, 2),
    ]
    assert progress[-1]["final"] is True
