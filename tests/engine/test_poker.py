"""Poker Liar Dice (SPEC-VARIANTS.md) behind the shared room, timer and view machinery."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller, SeededRoller
from chalicelib.engine.errors import DomainError, IllegalBid, InvalidAction, WrongPhase
from chalicelib.engine.model import Phase, Status
from chalicelib.engine.room import create_room, join, set_ready, start
from chalicelib.engine.systems.poker.hands import (
    CATEGORIES,
    canonical,
    category,
    claim_probability,
    hand_rank,
    parse_claim,
)
from chalicelib.engine.systems.poker.rules import decide
from chalicelib.engine.views import bot_view, events_for, room_view
from tests.engine.helpers import T0, dice_lists_in, pid, user

F = {c: i + 1 for i, c in enumerate("9TJQKA")}


def h(text: str) -> list[int]:
    """``"KKTT9"`` as dice 1..6."""
    return [F[c] for c in text]


def r(text: str) -> int:
    return hand_rank(h(text))


def pk(first_cup: str, players: int = 2, **settings: Any):  # type: ignore[no-untyped-def]
    """A poker game of ``players`` humans (Manual); seat 0 starts with ``first_cup``."""
    cfg = {"rules": "poker", **settings}
    room = create_room("room1", user(1, "manual"), cfg, T0)
    for i in range(2, players + 1):
        join(room, user(i, "manual"), None)
        set_ready(room, user(i), True)
    roller = ScriptedRoller(h(first_cup), picks=[0])
    start(room, user(1), roller, T0)
    return room, roller


def act(room, roller, seat, **action):  # type: ignore[no-untyped-def]
    return game.act(room, pid(room, seat), {**action, "turn": room.game.turn}, roller, T0)


def stage(room) -> str:  # type: ignore[no-untyped-def]
    return room.game.extra["st"]


def shown_claim(room) -> list[str]:  # type: ignore[no-untyped-def]
    return room_view(room)["game"]["current_bid"]["hand"]


# -- hand ranking ---------------------------------------------------------------------------


def test_categories_low_to_high_and_no_straights() -> None:
    examples = ["AKQJ9", "99QJT", "TT99J", "999KA", "KKK99", "9999T", "JJJJJ"]
    assert [CATEGORIES[category(h(e))] for e in examples] == list(CATEGORIES)
    assert sorted(examples, key=r) == examples
    assert category(h("AKQJT")) == 0  # a run is just a high card


def test_grouped_faces_then_kickers() -> None:
    assert r("999AK") < r("TTT9J")  # three of a kind by the triple
    assert r("KK99A") > r("QQJJA")  # two pairs by the higher pair
    assert r("KKQQ9") > r("KKJJA")  # then the lower pair
    assert r("KKQQT") > r("KKQQ9")  # then the kicker
    assert r("99KJT") > r("99QJT")  # every die counts
    assert r("999AA") < r("TTT99")  # full house: the triple first
    assert r("AKQJ9") < r("99TJQ")  # any pair beats any high card
    assert canonical(h("KJKKA")) == tuple(h("KKKAJ"))


def test_partial_and_better_claims_are_the_lowest_meeting_hand() -> None:
    def claim(spec: Any, current: str | None = None, exposed: str = "") -> str:
        hand = parse_claim(spec, None if current is None else r(current), h(exposed))
        return "".join("9TJQKA"[d - 1] for d in hand)

    assert claim("better") == "KQJT9"
    assert claim({"category": "pair"}) == "99QJT"
    assert claim({"category": "pair"}, "99QJT") == "99KJT"  # "a better pair"
    assert claim({"category": "pair", "faces": ["J"]}) == "JJQT9"
    assert claim({"category": "two_pairs"}, "99KJT") == "TT99J"
    assert claim("better", "TT99J") == "TT99Q"
    assert claim({"category": "two_pairs", "faces": ["J"]}, "TT99Q") == "JJ99T"
    assert claim({"category": "three_of_a_kind", "faces": ["Q"]}, "JJ99T") == "QQQT9"
    assert claim("better", "KQJT9", exposed="AA") == "AAJT9"
    assert claim(["k", "k", "k", "a", "j"], "QQQT9") == "KKKAJ"


def test_claims_must_beat_and_include_the_exposed_dice() -> None:
    with pytest.raises(IllegalBid):
        parse_claim(list("99QJT"), r("99QJT"), [])
    with pytest.raises(IllegalBid):
        parse_claim(["A", "A", "A", "A", "K"], r("AAAAK"), [F["K"]])
    with pytest.raises(IllegalBid):
        parse_claim(["A", "A", "A", "K", "K"], None, [F["Q"]])
    with pytest.raises(InvalidAction):
        parse_claim(["A", "A", "A", "K"], None, [])
    with pytest.raises(InvalidAction):
        parse_claim(["A", "A", "A", "K", "7"], None, [])
    with pytest.raises(InvalidAction):
        parse_claim({"category": "straight"}, None, [])


# -- the cup's journey ----------------------------------------------------------------------


def test_a_hand_claim_accept_reroll_claim_and_a_lost_challenge() -> None:
    room, roller = pk("TTAQ9", players=3)
    assert stage(room) == "claim" and room.players[0].hand == h("TTAQ9")
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    assert shown_claim(room) == list("99QJT")
    assert stage(room) == "respond" and room.game.turn_player == pid(room, 1)
    assert all(p.hand == [] for p in room.players)
    act(room, roller, 1, type="accept")
    assert stage(room) == "reroll" and room.players[1].hand == h("TTAQ9")
    roller.add_dice(h("KKJ"))
    turn = room.game.turn
    act(room, roller, 1, type="reroll", dice=[2, 3, 4])
    assert room.game.turn == turn + 1 and room.game.turn_player == pid(room, 1)
    assert room.players[1].hand == h("TTKKJ")
    assert room_view(room)["game"]["table"]["rerolls"] == [{"player_id": pid(room, 1), "count": 3}]
    act(room, roller, 1, type="claim", hand={"category": "two_pairs"})
    assert shown_claim(room) == list("TT99J")
    act(room, roller, 2, type="liar")  # the cup (TTKKJ) beats TT99J: the challenger loses
    reveal = room.game.last_reveal
    assert reveal.loser_id == pid(room, 2) and reveal.count == 1
    assert [p.dice_count for p in room.players] == [3, 3, 2]
    assert room.game.opener == pid(room, 0)  # the player after the challenger starts
    view = room_view(room)["game"]["last_reveal"]
    assert view["cup"] == list("TTKKJ")
    assert view["lost"] == {pid(room, 2): 1}
    rows = {row["player_id"]: row["bids"] for row in view["rows"]}
    assert rows[pid(room, 0)] == [{"hand": list("99QJT"), "category": "pair"}]
    assert rows[pid(room, 1)] == [{"hand": list("TT99J"), "category": "two_pairs"}]


def test_a_caught_bluff_costs_the_claimant_and_the_challenger_starts() -> None:
    room, roller = pk("TTAQ9", players=3)
    act(room, roller, 0, type="claim", hand=list("AAAKK"))
    act(room, roller, 1, type="liar")
    assert room.game.last_reveal.loser_id == pid(room, 0)
    assert [p.dice_count for p in room.players] == [2, 3, 3]
    assert room.game.opener == pid(room, 1)


def test_exposing_and_taking_back_dice() -> None:
    room, roller = pk("KKAQ9")
    act(room, roller, 0, type="claim", hand=list("KKAQ9"), expose=[0, 1])
    table = room_view(room, user_id="u2")["game"]["table"]
    assert table["exposed"] == ["K", "K", None, None, None]
    act(room, roller, 1, type="accept")
    with pytest.raises(InvalidAction):
        act(room, roller, 1, type="reroll", dice=[0])  # exposed dice stay out of the cup
    roller.add_dice(h("AA"))
    act(room, roller, 1, type="reroll", dice=[0, 4], unexpose=[0], expose=[2])
    assert room.players[1].hand == h("AKAQA")
    assert room_view(room)["game"]["table"]["exposed"] == [None, "K", "A", None, None]
    with pytest.raises(IllegalBid):
        act(room, roller, 1, type="claim", hand=list("QQQ99"))  # must include K and A
    act(room, roller, 1, type="claim", hand="better")
    assert shown_claim(room) == list("KKAQT")


def test_claiming_at_respond_accepts_and_passes_unlooked() -> None:
    room, roller = pk("KKAQ9", players=3)
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    act(room, roller, 1, type="claim", hand="better")
    assert shown_claim(room) == list("99KJT")
    assert room.game.turn_player == pid(room, 2) and stage(room) == "respond"
    assert room_view(room)["game"]["table"]["rerolls"] == [{"player_id": pid(room, 1), "count": 0}]


@pytest.mark.parametrize(
    ("seat", "action", "error"),
    [
        (0, {"type": "liar"}, WrongPhase),
        (0, {"type": "accept"}, WrongPhase),
        (0, {"type": "reroll", "dice": [0]}, WrongPhase),
        (0, {"type": "stop"}, WrongPhase),
        (0, {"type": "bid", "quantity": 1, "face": 2}, InvalidAction),
        (0, {"type": "claim", "hand": "worse"}, InvalidAction),
        (0, {"type": "claim", "hand": "better", "expose": [5]}, InvalidAction),
        (0, {"type": "claim", "hand": "better", "unexpose": [1]}, InvalidAction),
        (1, {"type": "claim", "hand": "better"}, DomainError),
    ],
)
def test_illegal_stage_actions_change_nothing(seat: int, action: dict, error: type) -> None:
    room, roller = pk("KKAQ9")
    before = room.to_dict()
    with pytest.raises(error):
        act(room, roller, seat, **action)
    assert room.to_dict() == before


def test_five_aces_made_again_costs_nobody_and_the_next_player_starts() -> None:
    room, roller = pk("AAAAA", players=3)
    act(room, roller, 0, type="claim", hand=list("AAAAA"))
    with pytest.raises(IllegalBid):
        act(room, roller, 1, type="claim", hand="better")
    roller.add_dice(h("AAAK9"))
    act(room, roller, 1, type="accept")
    assert stage(room) == "aces" and room.players[1].hand == h("AAAK9")
    roller.add_dice(h("AA"))
    act(room, roller, 1, type="reroll", dice=[3, 4])
    reveal = room.game.last_reveal
    assert reveal.extra["five_aces"] and reveal.loser_id == ""
    assert [p.dice_count for p in room.players] == [3, 3, 3]
    assert room.game.opener == pid(room, 2)
    assert room_view(room)["game"]["last_reveal"]["loser_id"] is None


def test_five_aces_missed_costs_the_roller_a_life() -> None:
    room, roller = pk("AAAAA", players=3)
    act(room, roller, 0, type="claim", hand=list("AAAAA"))
    roller.add_dice(h("AAAK9") + h("K9"))
    act(room, roller, 1, type="accept")
    act(room, roller, 1, type="reroll", dice=[3, 4])
    assert stage(room) == "aces" and room.game.extra["al"] == 1
    act(room, roller, 1, type="stop")
    assert room.game.last_reveal.loser_id == pid(room, 1)
    assert [p.dice_count for p in room.players] == [3, 2, 3]


# -- timeouts (Königswinter) -----------------------------------------------------------------


def test_timeout_of_a_starter_claims_the_lowest_hand() -> None:
    room, roller = pk("AAAAA")
    game.advance(room, room.game.deadline, roller)
    assert shown_claim(room) == list("KQJT9") and stage(room) == "respond"


def test_timeout_at_respond_accepts_and_passes_unrolled_as_better() -> None:
    room, roller = pk("AAAAA")
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    game.advance(room, room.game.deadline, roller)
    assert shown_claim(room) == list("99KJT") and room.game.turn_player == pid(room, 0)
    assert room.game.extra["cup"] == "66666"  # unrolled


def test_timeout_at_reroll_and_after_reroll_passes_as_better() -> None:
    room, roller = pk("AAAAA")
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    act(room, roller, 1, type="accept")
    game.advance(room, room.game.deadline, roller)
    assert shown_claim(room) == list("99KJT")
    act(room, roller, 0, type="accept")
    roller.add_dice(h("9"))
    act(room, roller, 0, type="reroll", dice=[0])
    game.advance(room, room.game.deadline, roller)
    assert shown_claim(room) == list("99KQT")


def test_timeout_takes_back_exposed_dice_when_no_better_hand_holds_them() -> None:
    room, roller = pk("KKKKK")
    act(room, roller, 0, type="claim", hand=list("KKKKK"), expose=[4])
    game.advance(room, room.game.deadline, roller)
    assert shown_claim(room) == list("AAAAA")
    assert room_view(room)["game"]["table"]["exposed"] == [None] * 5


def test_timeout_in_the_five_aces_stage_rerolls_every_non_ace() -> None:
    room, roller = pk("AAAAA")
    act(room, roller, 0, type="claim", hand=list("AAAAA"))
    roller.add_dice(h("AAK9A") + h("AA"))
    act(room, roller, 1, type="accept")
    game.advance(room, room.game.deadline, roller)
    assert room.game.last_reveal.extra["five_aces"] and room.game.last_reveal.loser_id == ""


# -- lives, dog's life, elimination ------------------------------------------------------------


def test_lives_setting_and_the_dogs_life_once_per_game() -> None:
    room, roller = pk("TTAQ9", players=3, lives=1, dogs_life=True)
    assert [p.dice_count for p in room.players] == [1, 1, 1]
    assert room_view(room)["game"]["table"]["lives"] == 1
    act(room, roller, 0, type="claim", hand=list("AAAKK"))
    act(room, roller, 1, type="liar")
    assert room.players[0].dice_count == 1 and not room.players[0].eliminated
    assert room.game.last_reveal.extra["dogs_life"] == pid(room, 0)
    roller.add_dice(h("TTAQ9"))
    game.advance(room, room.game.deadline, roller)  # break ends; seat 1 starts
    act(room, roller, 1, type="claim", hand=list("AAAKK"))
    act(room, roller, 2, type="liar")
    assert room.players[1].eliminated and "dogs_life" not in room.game.last_reveal.extra


def test_one_life_elimination_game_plays_to_a_winner() -> None:
    room, roller = pk("TTAQ9", lives=1)
    act(room, roller, 0, type="claim", hand=list("AAAKK"))
    act(room, roller, 1, type="liar")
    assert room.game.phase == Phase.FINAL_REVEAL
    game.advance(room, room.game.deadline, roller)
    assert room.status == Status.FINISHED
    assert [p.rank for p in room.players] == [2, 1]


# -- secrecy ---------------------------------------------------------------------------------


def test_only_the_holder_who_looked_sees_the_cup_at_every_stage() -> None:
    room, roller = pk("KKAQ9", players=3)
    viewers = ["u1", "u2", "u3", None]

    def seen() -> dict[str | None, list[list[Any]]]:
        out = {}
        for v in viewers:
            view = room_view(room, user_id=v)
            out[v] = dice_lists_in({**view, "game": {**view["game"], "last_reveal": None}})
        return out

    assert seen() == {"u1": [list("KKAQ9")], "u2": [], "u3": [], None: []}
    act(room, roller, 0, type="claim", hand={"category": "pair"})
    assert seen() == {"u1": [], "u2": [], "u3": [], None: []}
    act(room, roller, 1, type="accept")
    assert seen() == {"u1": [], "u2": [list("KKAQ9")], "u3": [], None: []}
    roller.add_dice(h("JJ"))
    act(room, roller, 1, type="reroll", dice=[3, 4])
    assert seen() == {"u1": [], "u2": [list("KKAJJ")], "u3": [], None: []}
    events = act(room, roller, 1, type="claim", hand="better")
    assert seen() == {"u1": [], "u2": [], "u3": [], None: []}
    for v in viewers:
        g = room_view(room, user_id=v)["game"]
        assert g["current_bid"]["hand"] == list("99KJT")
        assert "99QJT" not in str(g).replace("'", "").replace(", ", "")
    # earlier claims of the hand never reach a push
    shown = events_for(room, events)
    claims = [e for e in shown if e["type"] == "bid_placed" and "hand" in e]
    assert [e["hand"] for e in claims] == [list("99KJT")]


def test_each_claim_is_announced_as_its_full_hand_in_its_own_push_only() -> None:
    room, roller = pk("KKAQ9", players=3)
    first = events_for(room, act(room, roller, 0, type="claim", hand={"category": "pair"}))
    second = events_for(room, act(room, roller, 1, type="claim", hand="better"))
    claims = [[e for e in push if e["type"] == "bid_placed"] for push in (first, second)]
    assert [len(c) for c in claims] == [1, 1]
    assert claims[0][0]["category"] == "pair" and len(claims[0][0]["hand"]) == 5
    assert claims[1][0]["hand"] == list("99KJT") and claims[1][0]["by"] == "player"
    # the later view shows the current claim only, never the earlier one
    assert "".join(claims[0][0]["hand"]) not in str(room_view(room)["game"]).replace("', '", "")


# -- the bot ---------------------------------------------------------------------------------


def test_claim_probability_reads_exposed_dice() -> None:
    assert claim_probability(tuple(h("KQJT9")), [], None, "strong") == pytest.approx(1.0)
    low = claim_probability(tuple(h("AAAAK")), [], None, "strong")
    high = claim_probability(tuple(h("AAAAK")), h("AAAA"), None, "strong")
    assert low < 0.01 < 0.3 < high


@pytest.mark.parametrize("level", ["easy", "strong"])
def test_poker_bot_decisions_are_always_legal(level: str) -> None:
    """Seats driven by the poker policy never need the engine's timeout fallback."""
    for seed in range(30):
        room = create_room("r", user(1), {"rules": "poker", "lives": 1 + seed % 3}, T0)
        for i in range(2, 3 + seed % 4):
            join(room, user(i), None)
            set_ready(room, user(i), True)
        roller = SeededRoller(seed)
        start(room, user(1), roller, T0)
        steps = 0
        while room.status == Status.PLAYING and steps < 3000:
            steps += 1
            g = room.game
            if g.phase != Phase.BIDDING:
                game.advance(room, g.deadline, roller)
                continue
            action = decide(bot_view(room, g.turn_player), level)
            game.act(room, g.turn_player, action, roller, T0)  # raises if illegal
        assert room.status == Status.FINISHED


def test_the_strong_bot_remembers_only_its_own_claim_and_the_cup_it_passed() -> None:
    from chalicelib.engine.systems import rule_system

    rules = rule_system("poker")
    room, roller = pk("99JQK")
    memory = room.bot_memory  # the shared flow clears it at the reveal
    me, other = pid(room, 0), pid(room, 1)
    claim = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    assert claim["type"] == "claim"
    # its own cup as it held it, the hand, the rerolls announced so far, its exposed dice
    assert memory["pc"] == {me: [room.game.round, 0, "11345", ""]}
    game.act(room, me, claim, roller, T0)
    # the receiver has not looked: its decision records nothing (it never sees the cup)
    rules.bot_action(bot_view(room, other), "strong", memory, SeededRoller(1))
    assert set(memory["pc"]) == {me}
    # passed back unlooked and unrolled with a pair of tens: the bot knows the cup holds 99JQK
    act(room, roller, 1, type="claim", hand=list("TTQJ9"))
    assert rules.bot_action(bot_view(room, me), "strong", {}, SeededRoller(1))["type"] == "accept"
    remembered = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    assert remembered["type"] == "liar"
    # what it remembers is its own move, not the cup now: changing the cup changes nothing
    room.game.extra["cup"] = "66666"
    again = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    assert again == remembered
    room.game.extra["cup"] = "11345"
    game.act(room, me, remembered, roller, T0)
    assert room.game.last_reveal is not None and room.game.last_reveal.loser_id == other
    assert "pc" not in room.bot_memory  # a new hand starts with nothing remembered


def test_the_remembered_cup_counts_only_the_dice_not_rerolled() -> None:
    from chalicelib.engine.systems.poker import bot as bots_poker

    room, roller = pk("AAAKQ")
    me = pid(room, 0)
    memory = room.bot_memory
    claim = {"type": "claim", "hand": list("AAAKQ"), "turn": room.game.turn}
    bots_poker.remember_claim(bots_poker._View(bot_view(room, me)), claim, memory)
    game.act(room, me, claim, roller, T0)
    act(room, roller, 1, type="accept")
    roller.add_dice(h("99"))
    act(room, roller, 1, type="reroll", dice=[3, 4])  # two of five: at least one ace is kept
    act(room, roller, 1, type="claim", hand=list("AAAKK"))
    got = bots_poker.passed_back(bots_poker._View(bot_view(room, me)), memory)
    assert got is not None
    fresh, best = got
    # AAAKK from AAAKQ with two dice rerolled: kept AAA or AAK needs the right fresh dice,
    # kept AKQ cannot make it at all: never certain, never nil
    assert 0 < fresh <= best < 1
    memory["pc"][me][0] += 1  # a record of another hand is never used
    assert bots_poker.passed_back(bots_poker._View(bot_view(room, me)), memory) is None
