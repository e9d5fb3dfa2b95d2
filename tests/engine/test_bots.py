"""SPEC §8: bots decide from their player view only, always act legally, and learn from reveals."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.engine import bot_model, game
from chalicelib.engine.bot_model import (
    BIDS,
    BLUFFS,
    CALLED,
    FACED,
    HONEST_DICE,
    HONEST_MATCH,
    STAT_LEN,
    bidder_pmf,
    call_bin,
    die_p_milli,
    observe,
    read_view,
)
from chalicelib.engine.dice import ScriptedRoller, SeededRoller
from chalicelib.engine.model import (
    WILD,
    Bid,
    Phase,
    Player,
    Reveal,
    RevealRow,
    Room,
    Settings,
    Status,
)
from chalicelib.engine.systems import SYSTEMS, rule_system
from chalicelib.engine.systems.classic import bot as bots
from chalicelib.engine.views import bot_view

LEVELS = ("easy", "strong", "random", "naive", "binomial")


def table(
    hands: list[list[int]],
    *,
    wildcard: int = 10,
    penalty: str = "discard",
    current: tuple[int, int, int] | None = None,
    to_act: int = 0,
) -> Room:
    """A room in bidding with the given hands; ``current`` is (bidder seat, quantity, face)."""
    room = Room(
        id="r",
        host_id="p1",
        created_by_guest=False,
        created_at=0,
        settings=Settings(
            starting_dice=max(len(h) for h in hands), wildcard_chance=wildcard, penalty=penalty
        ),
    )
    for i, _ in enumerate(hands):
        room.players.append(Player(id=f"p{i + 1}", name=f"name{i + 1}", kind="human"))
    game.start_game(room, SeededRoller(1), 0)
    assert room.game is not None
    for p, hand in zip(room.players, hands, strict=True):
        p.hand = list(hand)
        p.dice_count = len(hand)
        if not hand:
            p.eliminated = True
            p.rank = len(hands)
    room.game.current_bid = None
    if current is not None:
        seat, q, f = current
        room.game.current_bid = Bid(room.players[seat].id, q, f)
        room.game.round_bids = [room.game.current_bid]
    room.game.turn_player = room.players[to_act].id
    return room


def decide(
    room: Room, level: str, memory: dict[str, Any] | None = None, seed: int = 3
) -> dict[str, Any]:
    """The action the player to act would take as a bot of ``level``."""
    assert room.game is not None and room.game.turn_player is not None
    view = bot_view(room, room.game.turn_player)
    return bots.decide(view, level, {} if memory is None else memory, SeededRoller(seed))


def is_legal(room: Room, action: dict[str, Any]) -> bool:
    """Whether the engine would accept the action for the player to act."""
    assert room.game is not None
    if action.get("turn") != room.game.turn:
        return False
    if action["type"] == "liar":
        return room.game.current_bid is not None
    if action["type"] != "bid":
        return False
    q, f = action["quantity"], action["face"]
    total = sum(p.dice_count for p in room.players if p.in_game)
    cur = room.game.current_bid
    raises = cur is None or q > cur.quantity or (q == cur.quantity and f > cur.face)
    return isinstance(q, int) and isinstance(f, int) and 1 <= f <= 6 and 1 <= q <= total and raises


die = st.sampled_from([WILD, 1, 2, 3, 4, 5, 6])


@st.composite
def positions(draw: st.DrawFn) -> tuple[Room, list[list[int]]]:
    """A random bidding position, and other hands of the same sizes to swap in."""
    n = draw(st.integers(2, 6))
    hands = [draw(st.lists(die, min_size=1, max_size=6)) for _ in range(n)]
    to_act = draw(st.integers(0, n - 1))
    total = sum(len(h) for h in hands)
    current = None
    if draw(st.booleans()):
        bidder = draw(st.sampled_from([i for i in range(n) if i != to_act]))
        current = (bidder, draw(st.integers(1, total)), draw(st.integers(1, 6)))
    room = table(
        hands,
        wildcard=draw(st.sampled_from([0, 5, 10])),
        penalty=draw(st.sampled_from(["discard", "give"])),
        current=current,
        to_act=to_act,
    )
    others = [
        h if i == to_act else draw(st.lists(die, min_size=len(h), max_size=len(h)))
        for i, h in enumerate(hands)
    ]
    return room, others


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=positions(), level=st.sampled_from(LEVELS))
def test_every_level_always_makes_a_legal_move(
    case: tuple[Room, list[list[int]]], level: str
) -> None:
    room, _ = case
    assert is_legal(room, decide(room, level))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=positions(), level=st.sampled_from(LEVELS))
def test_decision_is_the_same_whatever_the_other_players_hidden_dice(
    case: tuple[Room, list[list[int]]], level: str
) -> None:
    room, other_hands = case
    memory = {"w": room.settings.wildcard_chance}
    before = decide(room, level, dict(memory))
    for p, hand in zip(room.players, other_hands, strict=True):
        p.hand = list(hand)
    assert decide(room, level, dict(memory)) == before


def test_strong_calls_a_bid_that_cannot_be_true() -> None:
    room = table([[1, 2, 3, 4, 5], [2, 2, 3, 4, 5]], current=(1, 9, 6), to_act=0, wildcard=0)
    assert decide(room, "strong")["type"] == "liar"


def test_strong_believes_a_bid_its_own_dice_already_make_true() -> None:
    room = table([[6, 6, WILD, 6, 2], [1, 2, 3, 4, 5]], current=(1, 3, 6), to_act=0)
    action = decide(room, "strong")
    assert action["type"] == "bid"


def test_easy_and_strong_both_open_with_a_bid() -> None:
    room = table([[3, 3, 3, 1, 2], [1, 2, 4, 5, 6], [1, 2, 4, 5, 6]])
    for level in ("easy", "strong"):
        assert decide(room, level)["type"] == "bid"


def test_a_wildcard_counts_toward_every_face_in_the_bots_estimate() -> None:
    # Two wildcards and a 5 make "three 5s" certain with only two unseen dice.
    room = table([[WILD, WILD, 5], [1, 2]], current=(1, 3, 5), to_act=0)
    assert decide(room, "strong")["type"] == "bid"
    assert decide(room, "binomial")["type"] == "bid"


def reveal(
    rows: list[tuple[str, list[int], list[tuple[int, int]]]], bid: Bid, challenger: str
) -> Reveal:
    """A completed round's reveal (only the fields observe reads matter)."""
    return Reveal(
        round=1,
        bid=bid,
        challenger_id=challenger,
        count=0,
        loser_id=challenger,
        winner_id=bid.player_id,
        penalty="discard",
        eliminated=[],
        rows=[RevealRow(pid, pid, dice, [], bids) for pid, dice, bids in rows],
    )


def test_observe_counts_bluffs_honest_support_and_calls() -> None:
    memory: dict[str, Any] = {"w": 0}
    observe(
        memory,
        reveal(
            [
                (
                    "p1",
                    [1, 1, 2],
                    [(1, 3), (3, 1)],
                ),  # no 3 at all: a bluff; then three 1s on two 1s
                ("p2", [4, 5, 6], [(2, 3)]),
            ],
            Bid("p1", 3, 1),
            challenger="p2",
        ),
    )
    p1, p2 = memory["o"]["p1"], memory["o"]["p2"]
    assert (p1[BIDS], p1[BLUFFS], p1[HONEST_MATCH], p1[HONEST_DICE]) == (2, 1, 2, 3)
    assert (p2[BIDS], p2[BLUFFS]) == (1, 1)
    # p2 faced one 3 (raised) and three 1s (called); p1 faced two 3s (raised)
    assert sum(p2[FACED:CALLED]) == 2 and sum(p2[CALLED:STAT_LEN]) == 1
    assert sum(p1[FACED:CALLED]) == 1 and sum(p1[CALLED:STAT_LEN]) == 0
    # p2 held no 1: three 1s among p1's three unseen dice is unlikely (bin 0)
    assert p2[CALLED + call_bin(0.05)] == 1


def test_bidder_inference_trusts_honest_bidders_more_than_bluffers() -> None:
    p = die_p_milli(10)
    honest = {"o": {"p2": [50, 0, 150, 250] + [0] * (STAT_LEN - 4)}}
    bluffer = {"o": {"p2": [50, 40, 10, 50] + [0] * (STAT_LEN - 4)}}

    def mean(dist: tuple[float, ...]) -> float:
        return sum(i * w for i, w in enumerate(dist))

    assert mean(bidder_pmf(honest, "p2", 5, p)) > mean(bidder_pmf(bluffer, "p2", 5, p)) + 1


def test_strong_calls_a_known_bluffer_it_would_believe_from_an_honest_bidder() -> None:
    hands = [[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]]
    honest = {"w": 10, "o": {"p2": [80, 0, 300, 400] + [0] * (STAT_LEN - 4)}}
    bluffer = {"w": 10, "o": {"p2": [80, 75, 5, 25] + [0] * (STAT_LEN - 4)}}
    room = table(hands, current=(1, 2, 6), to_act=0)
    assert decide(room, "strong", honest)["type"] == "bid"
    assert decide(room, "strong", bluffer)["type"] == "liar"


def test_a_bot_game_keeps_the_memory_small() -> None:
    room = Room(
        id="r",
        host_id="",
        created_by_guest=True,
        created_at=0,
        settings=Settings(starting_dice=5, penalty="give"),
    )
    for i in range(6):
        room.players.append(Player(id=f"p{i + 1}", name=f"Bot {i + 1}", kind="bot", level="strong"))
    game.start_game(room, SeededRoller(11), 0)
    assert room.game is not None and room.game.phase == Phase.FINAL_REVEAL
    assert set(room.bot_memory["o"]) == {p.id for p in room.players}
    assert len(json.dumps(room.bot_memory)) < 600


def test_bots_play_whole_games_at_every_level() -> None:
    for level in ("easy", "strong"):
        room = Room(
            id="r",
            host_id="",
            created_by_guest=True,
            created_at=0,
            settings=Settings(starting_dice=3),
        )
        room.players = [
            Player(id=f"p{i}", name=f"Bot {i}", kind="bot", level=level) for i in range(1, 5)
        ]
        game.start_game(room, ScriptedRoller(dice="123456*" * 40), 0)
        assert room.game is not None and room.game.phase == Phase.FINAL_REVEAL
        assert sorted(p.rank or 0 for p in room.players if not p.in_game) == [2, 3, 4]


def opening_faces(seed: int, hands: int = 200) -> list[tuple[list[int], dict[str, Any], bool]]:
    """Strong openings at a four-player table, the same public situation with varied own hands.

    Only hands holding at least two dice of some face are kept (a clear best face); each entry
    is (hand, the action with roller draws from ``seed``, whether the best reply opens the same).
    """
    deal = SeededRoller(seed)
    out = []
    for i in range(hands):
        hand = [deal.die(10) for _ in range(5)]
        if max(sum(1 for d in hand if d in (f, WILD)) for f in range(1, 7)) < 2:
            continue
        room = table([hand, [1] * 5, [1] * 5, [1] * 5])
        view = bot_view(room, "p1")
        mixed = bots.decide(view, "strong", {}, SeededRoller(seed * 1000 + i))
        # A roller whose every draw is 0 plays the pure best reply (the former behaviour).
        pure = bots.decide(view, "strong", {}, ScriptedRoller())
        out.append((hand, mixed, mixed == pure))
    return out


def held(hand: list[int], face: int) -> int:
    """How many dice of ``hand`` count toward ``face``."""
    return sum(1 for d in hand if d in (face, WILD))


def test_strong_sometimes_opens_on_a_face_it_holds_none_of() -> None:
    openings = opening_faces(seed=7)
    assert len(openings) > 150
    # The pure best reply always opens on a face it holds, so its face reads its hand...
    for hand, mixed, same in openings:
        if same:
            assert held(hand, mixed["face"]) > 0
    # ...the mixed strategy does not: some openings are cheap bluffs, some other near-best bids.
    bluffs = sum(1 for hand, mixed, _ in openings if held(hand, mixed["face"]) == 0)
    differs = sum(1 for _, _, same in openings if not same)
    assert 0.05 * len(openings) <= bluffs <= 0.4 * len(openings)
    assert differs >= bluffs
    assert sum(1 for _, _, same in openings if same) > len(openings) / 3


def test_pure_best_reply_opens_on_a_held_face() -> None:
    deal = SeededRoller(8)
    for _ in range(100):
        hand = [deal.die(10) for _ in range(5)]
        if max(held(hand, f) for f in range(1, 7)) < 2:
            continue
        room = table([hand, [1] * 5, [1] * 5, [1] * 5])
        action = bots.decide(bot_view(room, "p1"), "strong", {}, ScriptedRoller())
        assert held(hand, action["face"]) > 0


def test_strong_decisions_replay_for_the_same_roller_seed() -> None:
    first = opening_faces(seed=9, hands=60)
    again = opening_faces(seed=9, hands=60)
    assert [m for _, m, _ in first] == [m for _, m, _ in again]
    # ...and the roller matters: another seed's draws change some of the same openings.
    room = table([[3, 3, 5, 2, 6], [1] * 5, [1] * 5, [1] * 5])
    view = bot_view(room, "p1")
    by_seed = [bots.decide(view, "strong", {}, SeededRoller(s)) for s in range(40)]
    assert len({json.dumps(a) for a in by_seed}) > 1
    assert by_seed == [bots.decide(view, "strong", {}, SeededRoller(s)) for s in range(40)]


def test_strong_keeps_calling_a_bid_that_cannot_be_true_whatever_the_roller() -> None:
    room = table([[1, 2, 3, 4, 5], [2, 2, 3, 4, 5]], current=(1, 9, 6), to_act=0, wildcard=0)
    for s in range(20):
        assert decide(room, "strong", seed=s)["type"] == "liar"


# -- every level in every rule system ---------------------------------------------------------

SYSTEM_LEVELS = ("easy", "medium", "strong", "random", "naive")
SYSTEM_SETTINGS = {
    "classic": lambda draw: {"wildcard_chance": draw(st.sampled_from([0, 10]))},
    "poker": lambda draw: {"lives": draw(st.integers(1, 3))},
}
"""Settings drawn for a system beyond the starting dice (none for a system not listed)."""


@st.composite
def system_positions(draw: st.DrawFn) -> tuple[Room, SeededRoller]:
    """A position reached by playing random legal moves in a random rule system."""
    system = draw(st.sampled_from(sorted(SYSTEMS)))
    players = draw(st.integers(2, 6))
    settings = Settings.of(
        rules=system,
        starting_dice=draw(st.integers(1, 5)),
        **SYSTEM_SETTINGS.get(system, lambda draw: {})(draw),
    )
    room = Room(id="r", host_id="p1", created_by_guest=False, created_at=0, settings=settings)
    for i in range(players):
        room.players.append(Player(id=f"p{i + 1}", name=f"name{i + 1}", kind="human"))
    roller = SeededRoller(draw(st.integers(0, 10**6)))
    game.start_game(room, roller, 0)
    rules = rule_system(system)
    now = 0
    for _ in range(draw(st.integers(0, 40))):
        if room.game is None or room.status != Status.PLAYING:
            break
        if room.game.phase != Phase.BIDDING:
            now = room.game.deadline or now + 60_000
            game.advance(room, now, roller)
            continue
        pid = room.game.turn_player
        assert pid is not None
        # every seat plays a random legal move (the bench-only random level)
        game.act(
            room, pid, rules.bot_action(bot_view(room, pid), "random", {}, roller), roller, now
        )
    if room.game is None or room.game.phase != Phase.BIDDING:
        return draw(system_positions())
    return room, roller


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=system_positions(), level=st.sampled_from(SYSTEM_LEVELS))
def test_every_level_in_every_rule_system_always_makes_a_legal_action(
    case: tuple[Room, SeededRoller], level: str
) -> None:
    room, roller = case
    assert room.game is not None and room.game.turn_player is not None
    pid = room.game.turn_player
    rules = rule_system(room.settings.rules)
    action = rules.bot_action(bot_view(room, pid), level, room.bot_memory, roller)
    # the engine accepts it (it raises on any illegal action)
    game.act(copy.deepcopy(room), pid, action, SeededRoller(1), 0)


def scramble_hidden(room: Room, viewer: str, roller: SeededRoller) -> None:
    """Change every die the viewer cannot see (other cups; a poker cup it has not looked at)."""
    assert room.game is not None
    if room.settings.rules == "poker":
        x = room.game.extra
        if x.get("st") == "respond":
            exposed = {int(c) for c in x.get("ex", "")}
            cup = [int(c) for c in x["cup"]]
            x["cup"] = "".join(str(d if i in exposed else roller.die(0)) for i, d in enumerate(cup))
        return
    faces = [1, 2, 3, 4, 5, 6] if room.settings.rules == "classic" else [WILD, 2, 3, 4, 5, 6]
    for p in room.players:
        if p.id != viewer:
            p.hand = [faces[roller.below(6)] for _ in p.hand]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=system_positions(),
    level=st.sampled_from(SYSTEM_LEVELS),
    seed=st.integers(0, 1000),
)
def test_no_level_in_any_rule_system_reads_hidden_dice(
    case: tuple[Room, SeededRoller], level: str, seed: int
) -> None:
    room, _ = case
    assert room.game is not None and room.game.turn_player is not None
    pid = room.game.turn_player
    rules = rule_system(room.settings.rules)
    memory = copy.deepcopy(room.bot_memory)
    before = rules.bot_action(bot_view(room, pid), level, copy.deepcopy(memory), SeededRoller(seed))
    scramble_hidden(room, pid, SeededRoller(seed + 1))
    after = rules.bot_action(bot_view(room, pid), level, copy.deepcopy(memory), SeededRoller(seed))
    assert after == before


def test_the_strong_poker_bot_believes_a_claimant_less_once_their_claims_proved_false() -> None:
    from chalicelib.engine.systems.poker import bot as bots_poker
    from chalicelib.engine.systems.poker.hands import ACE, bid_of

    def challenged(claim: list[int], cup: str, rerolled: int) -> Reveal:
        return Reveal(
            round=1,
            bid=bid_of("p2", tuple(claim)),
            challenger_id="p1",
            count=0,
            loser_id="p2",
            winner_id="p1",
            penalty="life",
            eliminated=[],
            rows=[],
            extra={
                "cup": list(cup),
                "exposed": [],
                "rerolls": [{"player_id": "p2", "count": rerolled}],
            },
        )

    memory: dict[str, Any] = {}
    rnd, kept = 0.1, 0.6
    before = bots_poker.fitted(memory, "p2", rnd, kept)
    # two claims of three aces with two dice rerolled, both false (no ace in the cup)
    for _ in range(2):
        bots_poker.observe(memory, challenged([ACE, ACE, ACE, 5, 4], "9TJQ9", 2))
    after = bots_poker.fitted(memory, "p2", rnd, kept)
    assert after < before - 0.1
    assert memory["pk"]["p1"][5] == 2  # p1 called twice


def strong_positions(players: int, dice: int, penalty: str, seed: int) -> list[Any]:
    """(view, memory) at every strong decision of a bots-only game, as the bot saw them."""
    seen: list[Any] = []
    decide = bots.decide

    def spy(view: dict[str, Any], level: str, memory: dict[str, Any], roller: Any) -> Any:
        seen.append((copy.deepcopy(view), copy.deepcopy(memory)))
        return decide(view, level, memory, roller)

    room = Room(
        id="r",
        host_id="",
        created_by_guest=True,
        created_at=0,
        settings=Settings(starting_dice=dice, penalty=penalty),
    )
    room.players = [
        Player(id=f"p{i}", name=f"Bot {i}", kind="bot", level="strong")
        for i in range(1, players + 1)
    ]
    bots.decide = spy  # type: ignore[assignment]
    try:
        game.start_game(room, SeededRoller(seed), 0)
    finally:
        bots.decide = decide  # type: ignore[assignment]
    return seen


def scoring(view: dict[str, Any], memory: dict[str, Any]) -> tuple[Any, ...]:
    """Every candidate raise's cost and the current bid's chance, as a strong bot scores them."""
    seat = read_view(view)
    beliefs = bots._Beliefs(seat, memory)
    costs = [(beliefs.cost(q, f), q, f) for q, f in bots._candidates(seat)]
    current = beliefs.p_true(*seat.current) if seat.current else None
    return costs, current, bots.decide(view, "strong", dict(memory), SeededRoller(5))


def test_the_shared_scoring_tables_give_what_fresh_ones_give_as_the_game_moves_on() -> None:
    # The strong bot keeps its scoring tables across decisions (keyed by the values they are
    # computed from: table size, the next player's learned call rates, the bidder's lean, the
    # learned counters).
    # As the dice and the learned habits change, what the kept tables give must be what
    # tables built afresh give, decision after decision.
    positions = [
        *strong_positions(3, 5, "discard", 4),
        *strong_positions(2, 4, "give", 8),
        *strong_positions(5, 3, "give", 6),
    ]
    assert len(positions) > 60
    assert any(memory.get("o") for _, memory in positions)  # habits were learned on the way
    for view, memory in positions:
        kept = scoring(view, memory)
        clear_bot_caches()
        assert scoring(view, memory) == kept


def clear_bot_caches() -> None:
    """Forget every table the strong bot keeps across decisions."""
    for cache in (
        bots._table,
        bots._plain,
        bots._lean,
        bots._next_costs,
        bot_model._call_rates,
        bot_model._bidder_pmf,
    ):
        cache.cache_clear()


def test_kept_costs_on_the_bid_face_follow_the_bidders_habits() -> None:
    # Same table, same next player's call habits: only what we learned about the bidder's
    # bids differs, so the costs of raising the bid face must follow it (heads-up the bidder
    # is the next player; at three they are not).
    calls = [3, 4, 5, 6, 7, 1, 2, 2, 3, 1]
    honest = {"w": 10, "o": {"p2": [80, 0, 300, 400, *calls], "p3": [80, 0, 300, 400, *calls]}}
    bluffer = {"w": 10, "o": {"p2": [80, 75, 5, 25, *calls], "p3": [80, 75, 5, 25, *calls]}}
    for hands, bidder in (
        ([[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]], 1),
        ([[1, 3, 3], [2, 2], [4, 5]], 2),
    ):
        room = table(hands, current=(bidder, 2, 3), to_act=0)
        view = bot_view(room, "p1")
        clear_bot_caches()
        kept = scoring(view, honest)
        assert scoring(view, bluffer) != kept
        kept = scoring(view, bluffer)
        clear_bot_caches()
        assert scoring(view, bluffer) == kept


def test_observe_counts_whether_each_opening_was_covered_by_the_openers_dice() -> None:
    memory: dict[str, Any] = {"w": 0}
    # p1 opens two 3s holding one 3: not covered; p2 opens two 5s holding two: covered
    observe(
        memory, reveal([("p1", [3, 4, 6], [(2, 3)]), ("p2", [1, 2], [])], Bid("p1", 2, 3), "p2")
    )
    observe(
        memory, reveal([("p1", [3, 4, 6], []), ("p2", [5, 5], [(2, 5)])], Bid("p2", 2, 5), "p1")
    )
    assert memory["oc"] == {"p1": [1, 0], "p2": [1, 1]}
    assert bot_model.opening_cover(memory, "p2") > bot_model.opening_cover({}, "p2")
    assert bot_model.opening_cover(memory, "p1") < bot_model.opening_cover({}, "p1")


def test_the_opening_cover_is_bounded_and_recent_habits_weigh_more() -> None:
    memory: dict[str, Any] = {"w": 0}
    covered = reveal([("p1", [3, 3, 6], [(2, 3)]), ("p2", [1, 2], [])], Bid("p1", 2, 3), "p2")
    air = reveal([("p1", [1, 4, 6], [(2, 3)]), ("p2", [1, 2], [])], Bid("p1", 2, 3), "p2")
    for _ in range(200):
        observe(memory, covered)
    assert 0.8 < bot_model.opening_cover(memory, "p1") <= bot_model.MAX_COVER
    assert max(memory["oc"]["p1"]) <= bot_model.COVER_DECAY_AT + 1
    for _ in range(12):  # a player who switches style is read anew within a dozen openings
        observe(memory, air)
    assert bot_model.opening_cover(memory, "p1") < 0.5


def test_strong_believes_an_opening_from_a_player_whose_openings_were_covered() -> None:
    # heads-up 3 v 3 at 10 %: the opener's "two 5s" needs two of their three dice; from a player
    # whose openings were covered by their own dice that is likely, from one who opens on air
    # it is not
    hands = [[6, 4, 1], [6, 5, 5]]
    covers = {"w": 10, "oc": {"p2": [12, 12]}}
    on_air = {"w": 10, "oc": {"p2": [12, 0]}}
    room = table(hands, current=(1, 2, 5), to_act=0)
    assert decide(room, "strong", covers)["type"] == "bid"
    assert decide(room, "strong", on_air)["type"] == "liar"
    # the read is of openings only: the same bid later in the round is read as before
    assert room.game is not None
    room.game.round_bids = [Bid("p2", 1, 2), Bid("p1", 1, 3), Bid("p2", 2, 5)]
    assert decide(room, "strong", covers) == decide(room, "strong", on_air)


def test_the_opening_exploiters_open_on_air_and_the_switcher_only_late() -> None:
    # bench-only: air-opener always opens on a face it holds none of; switch-opener opens with
    # what it holds while more than SWITCH_AT dice are in play
    hands = [[2, 2, 5, 5, 5], [1, 3, 4, 6, 6]]
    room = table(hands, wildcard=0)
    opening = decide(room, "air-opener")
    assert (opening["type"], opening["quantity"], opening["face"]) == ("bid", 4, 6)
    assert decide(room, "switch-opener")["face"] == 5  # naive: its best face
    late = table([[2, 5, 5], [1, 3, 4, 6]], wildcard=0)
    assert decide(late, "switch-opener")["face"] == 6
    assert decide(late, "switch-opener")["quantity"] == 3
