"""The strong Poker bot's decision rules (issue 17): pricing an acceptance, what it learns."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Reveal
from chalicelib.engine.systems import rule_system
from chalicelib.engine.systems.poker import bot as bots_poker
from chalicelib.engine.systems.poker.hands import ACE, bid_of, hand_rank
from chalicelib.engine.views import bot_view
from tests.engine.helpers import T0, pid
from tests.engine.test_poker import act, h, pk, stage


def called(claimant: str, caller: str, claim: str, cup: str, round_no: int = 1) -> Reveal:
    """A reveal: ``caller`` called ``claimant``'s opening claim on ``cup``."""
    hand = tuple(h(claim))
    true = hand_rank(h(cup)) >= hand_rank(hand)
    return Reveal(
        round=round_no,
        bid=bid_of(claimant, hand),
        challenger_id=caller,
        count=int(true),
        loser_id=caller if true else claimant,
        winner_id=claimant if true else caller,
        penalty="life",
        eliminated=[],
        rows=[],
        extra={"cup": list(cup), "exposed": [], "rerolls": []},
    )


def test_accepting_is_priced_by_the_chance_that_the_best_reroll_beats_the_claim() -> None:
    four_aces_king = hand_rank(h("AAAAK"))
    # holding AAAAK against a claim of AAAAK: only five of a kind beats it; the best reroll
    # keeps the four aces (1/6), not three (1/36) nor none (6/7776)
    assert bots_poker.best_beat(tuple(sorted(h("AAAAK"))), (), four_aces_king + 1) == (
        pytest.approx(1 / 6)
    )
    # four aces known and one fresh die: an ace (1/6) is five aces, else the 1/6 above
    assert bots_poker.beat_after((ACE,) * 4, 1, (), four_aces_king + 1) == pytest.approx(
        1 / 6 + 5 / 6 * 1 / 6
    )
    # a cup that already beats the claim needs no reroll
    assert bots_poker.best_beat(tuple(sorted(h("AAAAA"))), (), four_aces_king + 1) == 1.0


def test_a_low_claim_is_cheap_to_accept_even_when_it_is_probably_false() -> None:
    # a pair of nines after the claimant rerolled four dice: accepting costs little, because
    # whatever the cup holds, one reroll beats a pair of nines most of the time
    room, roller = pk("9TJQK")
    act(room, roller, 0, type="claim", hand=list("9TJQK"))
    act(room, roller, 1, type="accept")
    roller.add_dice(h("9999"))
    act(room, roller, 1, type="reroll", dice=[1, 2, 3, 4])
    act(room, roller, 1, type="claim", hand=list("99KQJ"))
    v = bots_poker._View(bot_view(room, pid(room, 0)))
    beat = bots_poker.beat_after_accepting(v, {})
    assert beat > 0.75
    assert beat > bots_poker.beat_chance(v.claim or (), v.exposed) - 1e-9
    assert bots_poker.accept_loss(v, {}) < 0.2


def test_a_claim_the_strong_bot_accepted_and_found_false_counts_against_it_for_that_bot_only() -> (
    None
):
    rules = rule_system("poker")
    room, roller = pk("9TJQK")
    claimant, me = pid(room, 0), pid(room, 1)
    memory: dict[str, Any] = room.bot_memory
    act(room, roller, 0, type="claim", hand=list("99TJQ"))  # a pair of nines: a lie
    before = bots_poker.reading_weights(memory, claimant, me)
    answer = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    assert answer["type"] == "accept"  # a fresh roll makes a pair nine times in ten
    act(room, roller, 1, type="accept")
    assert stage(room) == "reroll"
    rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))  # it looks
    after = bots_poker.reading_weights(memory, claimant, me)
    assert after[0] > before[0] + 0.2  # the fresh-roll reading (a bluffer) gained
    assert after[2] < before[2]  # the truthful reading lost
    # its own evidence: the public record and every other bot's reading are unchanged
    assert bots_poker.reading_weights(memory, claimant) == before
    assert bots_poker.reading_weights(memory, claimant, "someone else") == before
    assert "pk" not in memory


def test_calling_what_even_a_fresh_roll_makes_likely_reads_as_answering_at_random() -> None:
    memory: dict[str, Any] = {}
    prior = bots_poker.reading_weights(memory, "p2")
    for n in range(2):  # p2 calls a true pair of nines twice (a fresh roll makes it 90 %)
        bots_poker.observe(memory, called("p1", "p2", "99TJQ", "99TJQ", n + 1))
    assert memory["pk"]["p2"][bots_poker.WILD] > 2000
    assert bots_poker.reading_weights(memory, "p2")[0] > prior[0] + 0.2
    # calling what is rarely true is what anyone who weighs the odds does
    bots_poker.observe(memory, called("p2", "p1", "AAAAK", "9TJQK"))
    assert memory["pk"]["p1"][bots_poker.WILD] < 0


def test_accepting_a_strong_bots_claim_that_even_the_kept_dice_make_unlikely_reads_as_random() -> (
    None
):
    rules = rule_system("poker")
    room, roller = pk("AAAAK")
    me, other = pid(room, 0), pid(room, 1)
    memory: dict[str, Any] = room.bot_memory
    claim = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    assert claim["type"] == "claim"  # four aces: true, and rare
    act(room, roller, 0, **{k: v for k, v in claim.items() if k != "turn"})
    act(room, roller, 1, type="accept")  # nobody who weighs the odds accepts four aces
    roller.add_dice(h("A"))
    act(room, roller, 1, type="reroll", dice=[4])
    act(room, roller, 1, type="claim", hand=list("AAAAA"))
    # the cup comes back: the acceptance counts at once, in this hand
    answer = rules.bot_action(bot_view(room, me), "strong", memory, SeededRoller(1))
    evidence = memory["pk"][other][bots_poker.WILD]
    assert evidence > 2000
    game.act(room, me, answer, roller, T0)
    assert room.game is not None and room.game.last_reveal is not None
    assert memory["pk"][other][bots_poker.WILD] == evidence  # counted once


def test_an_unknown_players_opening_claim_is_read_mostly_as_a_fresh_roll() -> None:
    # a claim on a cup the claimant rolled says less than one after a reroll: against an
    # unknown player the opening claim's chance stays close to a fresh roll's
    rnd = bots_poker.p_random(tuple(h("KKK9T")), [])
    kept = min(1.0, bots_poker.PLAUSIBLE * rnd)
    opening = bots_poker.fitted({}, "p2", rnd, kept, "p1", opening=True)
    later = bots_poker.fitted({}, "p2", rnd, kept, "p1")
    assert rnd < opening < later
    assert opening < 2 * rnd
