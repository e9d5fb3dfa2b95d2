"""SPEC §4–§5: timers and continuation, resignation, ranks, end of game, dice progress."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import StaleTurn, WrongPhase
from chalicelib.engine.model import BOT_THINK_MS, Phase, Player, Room, Settings, Status
from chalicelib.engine.room import UserRef, add_bot, create_room, start
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


def test_a_move_sent_once_its_turn_has_run_out_is_refused_and_changes_nothing() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    before = room.to_dict()
    with pytest.raises(StaleTurn):
        bid(room, roller, 0, 1, 2, now=T0 + TURN)
    assert room.to_dict() == before
    # The deadline is advance's to apply, stamped at the deadline itself.
    events = game.advance(room, T0 + TURN + 5000, roller)
    assert events[0]["type"] == "turn_timed_out" and events[0]["at"] == T0 + TURN


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
    # the bot thinks before its Liar!, the reveal has its moment, then nothing waits
    assert events[i + 1]["at"] == events[i]["at"] == T0 + 2 * BOT_THINK_MS[0]


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


# -- bots take a moment (table time) ------------------------------------------------------------


def bot_table(bots: int, seed: int, pace: tuple[int, int] = BOT_THINK_MS) -> tuple[Room, Any]:
    """One Manual human (seat 0, opening) and ``bots`` bots, seeded dice and think times."""
    room = create_room("r", UserRef("u1", "h1", continue_mode="manual"), {}, T0)
    for _ in range(bots):
        add_bot(room, UserRef("u1", "h1"), "strong")
    roller = ScriptedPicksThen(SeededRoller(seed))
    start(room, UserRef("u1", "h1"), roller, T0, pace)
    return room, roller


class ScriptedPicksThen:
    """Seat 0 opens (the first pick), then a seeded roller decides everything."""

    def __init__(self, rest: SeededRoller) -> None:
        self.rest, self.first = rest, True

    def die(self, wildcard_chance: int) -> int:
        return self.rest.die(wildcard_chance)

    def below(self, n: int) -> int:
        if self.first:
            self.first = False
            return 0
        return self.rest.below(n)


def test_bot_moves_are_stamped_a_varied_think_time_after_the_event_before() -> None:
    gaps: list[int] = []
    for seed in range(6):
        room, roller = bot_table(4, seed)
        events = bid(room, roller, 0, 1, 2, now=T0 + 4000)
        stamps = [e["at"] for e in events]
        assert stamps == sorted(stamps) and stamps[0] == T0 + 4000
        moves = [e for e in events if e["type"] in ("bid_placed", "liar_called")]
        assert [e["by"] for e in moves[:2]] == ["player", "bot"]
        assert all(e["by"] == "bot" for e in moves[1:])
        gaps += [b["at"] - a["at"] for a, b in itertools.pairwise(moves)]
    assert all(BOT_THINK_MS[0] <= g <= BOT_THINK_MS[1] for g in gaps)
    assert len(set(gaps)) > len(gaps) // 2, "think times vary"


def test_the_humans_deadline_counts_from_the_last_bots_stamp() -> None:
    for seed in range(50):  # a table where all four bots raise and play comes back
        room, roller = bot_table(4, seed)
        events = bid(room, roller, 0, 1, 2, now=T0 + 4000)
        if room.game.phase == Phase.BIDDING:
            break
    assert room.game.phase == Phase.BIDDING and room.game.turn_player == pid(room, 0)
    assert events[-1]["at"] > T0 + 4000 + 4 * BOT_THINK_MS[0] - 1
    assert room.game.deadline == events[-1]["at"] + TURN
    assert room.game.clock == events[-1]["at"]


def test_a_bots_liar_is_followed_by_the_reveal_after_a_pause_of_its_own() -> None:
    # seat 0 (human) bids six 6s on 2 × 5 dice: the bot calls Liar!
    room, roller = new_game(["12345", "12345"], bots=1, modes=["manual"])
    events = bid(room, roller, 0, 6, 6, now=T0 + 2000)
    kinds = [e["type"] for e in events]
    call, resolved = kinds.index("liar_called"), kinds.index("challenge_resolved")
    assert events[call]["by"] == "bot"
    assert events[call]["at"] == T0 + 2000 + BOT_THINK_MS[0]
    assert events[resolved]["at"] == events[call]["at"] + BOT_THINK_MS[0]
    # the break counts from when the table reaches the reveal
    assert room.game.deadline == events[resolved]["at"] + BREAK
    assert room.game.last_reveal.at == events[resolved]["at"]


def test_a_humans_action_before_the_table_reaches_it_is_stamped_after_the_bots() -> None:
    room, roller = bot_table(2, 1)
    events = bid(room, roller, 0, 1, 2, now=T0 + 1000)
    last = events[-1]["at"]
    assert room.game.turn_player == pid(room, 0)
    later = game.act(room, pid(room, 0), {"type": "resign"}, roller, T0 + 1500)
    assert later[0]["at"] == last and later[0]["by"] == "player"


def test_a_timeout_is_announced_with_the_move_played_for_the_seat() -> None:
    room, roller = new_game(["12345", "12345"], modes=["manual", "manual"])
    opening = game.advance(room, T0 + TURN, roller)
    assert opening[0] == {
        "type": "turn_timed_out",
        "player_id": pid(room, 0),
        "turn": 1,
        "round": 1,
        "action": {"type": "bid", "quantity": 1, "face": 1},
        "by": "timeout",
        "at": T0 + TURN,
    }
    assert opening[1]["type"] == "bid_placed" and opening[1]["by"] == "timeout"
    call = game.advance(room, T0 + 2 * TURN, roller)
    assert call[0]["action"] == {"type": "liar"} and call[0]["player_id"] == pid(room, 1)
    assert call[1] == {**call[1], "type": "liar_called", "by": "timeout"}


def test_the_think_time_range_is_a_parameter_kept_with_the_game() -> None:
    room, roller = bot_table(3, 5, pace=(40, 60))
    events = bid(room, roller, 0, 1, 2, now=T0 + 100)
    moves = [e for e in events if e["type"] in ("bid_placed", "liar_called")]
    assert all(40 <= b["at"] - a["at"] <= 60 for a, b in itertools.pairwise(moves))
    assert Room.from_dict(room.to_dict()).game.pace == (40, 60)
    with pytest.raises(ValueError):
        bot_table(1, 0, pace=(60, 40))


def test_a_table_where_no_human_has_dice_finishes_at_once() -> None:
    room, roller = bot_table(3, 2)
    events = game.act(room, pid(room, 0), {"type": "resign"}, roller, T0 + 500)
    assert room.game.phase == Phase.FINAL_REVEAL
    assert {e["at"] for e in events} <= {T0 + 500, room.game.deadline}
    assert room.game.deadline == T0 + 500 + 3000


def test_bots_left_alone_under_give_stop_after_a_bounded_play_out_ranked_by_dice_held() -> None:
    # Under *give* no die leaves the game: nine bots alone can pass 27 dice back and forth for
    # thousands of rounds (this seed did not end in 60 s). The play-out is bounded; the rest
    # is decided by the dice each bot holds.
    room = Room(
        id="bots",
        host_id="p1",
        created_by_guest=False,
        created_at=T0,
        settings=Settings.parse(
            {"rules": "classic", "starting_dice": 3, "wildcard_chance": 5, "penalty": "give"}
        ),
    )
    levels = [("medium", "strong")[(i + 106) % 2] for i in range(9)]
    room.players = [
        Player(id=f"p{i + 1}", name=f"Bot {i + 1}", kind="bot", level=levels[i], ready=True)
        for i in range(9)
    ]
    roller = SeededRoller(106)
    held: dict[str, int] = {}
    original = game._decide_by_dice

    def spy(room: Room, at: int, events: list[Any]) -> None:
        held.update({p.id: p.dice_count for p in room.players if p.in_game})
        original(room, at, events)

    game._decide_by_dice = spy  # type: ignore[assignment]
    try:
        game.start_game(room, roller, T0)
        game.advance(room, T0 + 10**9, roller)
    finally:
        game._decide_by_dice = original  # type: ignore[assignment]
    assert room.status == Status.FINISHED
    assert room.game is not None and room.game.round <= 1 + game.BOT_PLAYOUT_ROUNDS
    assert len(held) >= 2 and sum(held.values()) == 27
    assert sum(p.dice_count for p in room.players) == 27  # under give the dice stay
    by_rank = sorted((p for p in room.players if p.id in held), key=lambda p: p.rank or 0)
    assert [held[p.id] for p in by_rank] == sorted(held.values(), reverse=True)
    assert sorted(p.rank for p in room.players) == list(range(1, 10))
