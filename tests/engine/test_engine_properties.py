"""Hypothesis: random whole games with random settings keep the invariants of SPEC §3–§7."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.engine import game
from chalicelib.engine import views as game_views
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.model import Bid, Phase, Room, Status
from chalicelib.engine.room import UserRef, add_bot, create_room, join, set_ready, start
from chalicelib.engine.systems import SYSTEMS, rule_system
from chalicelib.engine.systems.classic import rules as classic
from chalicelib.engine.systems.poker import hands as poker
from chalicelib.engine.systems.wild_stars import track as wild_stars
from chalicelib.engine.views import events_for, room_view
from tests.engine.helpers import bids_in, dice_lists_in

T0 = 1_700_000_000_000

game_settings = st.fixed_dictionaries(
    {
        "starting_dice": st.sampled_from([1, 1, 2, 3, 5, 10]),
        "wildcard_chance": st.sampled_from([0, 5, 10]),
        "penalty": st.sampled_from(["discard", "give"]),
        "turn_seconds": st.sampled_from([15, 30, 60]),
        "break_seconds": st.sampled_from([30, 60, 120]),
    }
)


def build(cfg: dict[str, Any], humans: int, bots: int, modes: list[str], seed: int) -> Room:
    """A started room of ``humans`` humans then ``bots`` bots."""
    host = UserRef("u0", "h0", continue_mode=modes[0])
    room = create_room("r", host, cfg, T0)
    for i in range(1, humans):
        u = UserRef(f"u{i}", f"h{i}", continue_mode=modes[i % len(modes)])
        join(room, u, None)
        set_ready(room, u, True)
    for _ in range(bots):
        add_bot(room, host, "easy" if seed % 2 else "strong")
    start(room, host, SeededRoller(seed), T0)
    return room


def check_view_secrecy(room: Room) -> None:
    """No view carries another player's current dice or the current round's earlier bids."""
    g = room.game
    assert g is not None
    viewers: list[str | None] = [p.user_id for p in room.players if p.user_id] + [None]
    for uid in viewers:
        view = room_view(room, user_id=uid)
        me = room.player_of_user(uid)
        reveal = view["game"]["last_reveal"]
        rest = {**view, "game": {**view["game"], "last_reveal": None}}
        own = [me.hand] if me and me.hand else []
        assert [[0 if d == "*" else d for d in dl] for dl in dice_lists_in(rest)] == own
        shown_bid = (
            None
            if g.current_bid is None
            else rule_system(room.settings.rules).bid_view(g.current_bid)
        )
        current = [] if shown_bid is None else [(shown_bid["quantity"], shown_bid["face"])]
        assert bids_in(rest["game"]) == current
        if reveal is not None and g.phase == Phase.BIDDING:
            assert reveal["round"] < g.round


MOVES = ("bid_placed", "liar_called", "claim_accepted", "dice_rerolled", "rolls_stopped")
"""Events that announce a seat's turn move (each says what was done)."""


HOLDER_CHANGES = ("bid_placed", "round_started", "round_restarted", "challenge_resolved")
"""Poker events after which a (possibly new) holder's one clock starts."""


def check_events(
    room: Room,
    events: list[dict[str, Any]],
    humans_before: set[str],
    clock_before: int,
    holder_before: tuple[str | None, int | None] | None = None,
) -> None:
    """One change's events: complete, stamped in order, bots paced, the next deadline right.

    Stamps never go back (within a change or before the table's previous latest stamp). A bot's
    move comes a think time (within ``Game.pace``) after the event before it while a human still
    has dice, and so does the reveal after a bot's Liar!; the turn deadline counts from the
    latest stamp, a break from its start; in Poker a holder's stages keep the holder's one
    clock (``holder_before``: the turn player and deadline before the change).
    """
    g = room.game
    assert g is not None
    low, high = g.pace
    turn_ms = room.settings.turn_seconds * 1000
    humans = set(humans_before)
    prev_at = clock_before
    prev: dict[str, Any] | None = None
    last_move: dict[str, Any] | None = None
    poker_rules = room.settings.rules == "poker"
    for e in events:
        at = e["at"]
        assert at >= prev_at, f"stamps went back: {e}"
        gap = at - prev_at
        if e.get("by") == "bot" and e["type"] in MOVES:
            same_move = (
                prev is not None
                and prev.get("by") == "bot"
                and prev.get("player_id") == e["player_id"]
                and prev["at"] == at
            )
            if not same_move:
                assert (low <= gap <= high) if humans else gap == 0, (gap, e)
        if e["type"] == "challenge_resolved" and last_move is not None:
            reveal_gap = at - last_move["at"]
            if last_move.get("by") == "bot" and last_move["humans"]:
                assert low <= reveal_gap <= high, (reveal_gap, e)
            else:
                assert reveal_gap == 0
        if e["type"] in MOVES:
            last_move = {**e, "humans": bool(humans)}
        if e["type"] in ("player_eliminated", "player_resigned"):
            humans.discard(e["player_id"])
        # what each announcement says
        if e["type"] == "bid_placed":
            assert e["by"] in ("player", "bot", "timeout") and e["player_id"]
            if poker_rules:
                assert len(e["hand"]) == 5 and e["category"] in poker.CATEGORIES
            else:
                assert isinstance(e["quantity"], int) and e["face"] is not None
        if e["type"] == "turn_timed_out":
            assert e["by"] == "timeout" and e["action"]["type"] in game.TURN_ACTIONS
        prev, prev_at = e, at
    if not events:
        return
    assert g.clock == prev_at
    same_holding = (
        poker_rules
        and holder_before is not None
        and holder_before[0] == g.turn_player
        and not any(e["type"] in HOLDER_CHANGES for e in events)
    )
    if room.status == Status.PLAYING and g.phase == Phase.BIDDING and same_holding:
        assert holder_before is not None
        assert g.deadline == holder_before[1], "one clock per holder: the stages share it"
    elif room.status == Status.PLAYING and g.phase == Phase.BIDDING:
        assert g.deadline == prev_at + turn_ms, "the turn clock starts at the latest stamp"
    breaks = [e for e in events if e["type"] == "break_started"]
    if room.status == Status.PLAYING and g.phase == Phase.BREAK and breaks:
        assert g.deadline == breaks[-1]["at"] + room.settings.break_seconds * 1000
    assert [e["at"] for e in events_for(room, events)] == [game_views.iso(e["at"]) for e in events]


def check_invariants(room: Room, initial_total: int, removed: int, prev_bid: Any) -> None:
    """Invariants after every step."""
    g = room.game
    assert g is not None
    in_game = [p for p in room.players if p.in_game]
    if room.status == Status.PLAYING and g.phase == Phase.BIDDING:
        to_act = [p for p in room.players if p.id == g.turn_player]
        assert len(to_act) == 1 and to_act[0].in_game and to_act[0].dice_count > 0
        assert g.deadline is not None
        shown = g.extra.get("shown", {})
        assert all(len(p.hand) + len(shown.get(p.id, "")) == p.dice_count for p in in_game)
        if prev_bid is not None and g.current_bid is not None:
            q0, f0 = prev_bid[1]
            b = g.current_bid
            is_raise = (
                wild_stars.is_raise if room.settings.rules == "wild-stars" else classic.is_raise
            )
            assert (b.quantity, b.face) == (q0, f0) or is_raise(
                b.quantity, b.face, Bid(b.player_id, q0, f0)
            )
    if room.settings.penalty == "give" and room.settings.rules == "classic":
        assert sum(p.dice_count for p in room.players) == initial_total - removed
    assert all(p.dice_count == 0 for p in room.players if not p.in_game)
    if room.status == Status.FINISHED:
        assert sorted(p.rank for p in room.players) == list(range(1, len(room.players) + 1))


def play(
    cfg: dict[str, Any], humans: int, bots: int, modes: list[str], seed: int, check: bool = True
) -> tuple[Room, list[tuple[str, dict[str, Any] | int, int]]]:
    """Drive a game to its end with random (legal and illegal) human moves and timeouts."""
    room = build(cfg, humans, bots, modes, seed)
    dice_roller = SeededRoller(seed * 7 + 1)
    choices = SeededRoller(seed * 13 + 5)
    now = T0
    log: list[tuple[str, dict[str, Any] | int, int]] = []
    initial = len(room.players) * cfg["starting_dice"]
    removed = 0
    steps = 0
    prev_bid = None
    while room.status == Status.PLAYING:
        steps += 1
        assert steps < 5000, "game did not end"
        g = room.game
        assert g is not None
        events: list[dict[str, Any]] = []
        humans_before = {p.id for p in room.players if p.in_game and not p.is_bot}
        clock_before = g.clock
        now += choices.below(5000)
        pick = choices.below(100)
        if pick < 15 or (g.phase != Phase.BIDDING and pick < 40):
            target = g.deadline if g.deadline is not None else now
            now = max(now, target)
            events = game.advance(room, now, dice_roller)
            log.append(("advance", now, now))
        else:
            actor = room.players[choices.below(len(room.players))]
            if g.phase == Phase.BIDDING and choices.below(3):
                actor = room.player(g.turn_player or "") or actor
            if actor.is_bot:
                continue
            kind_pick = choices.below(100)
            if kind_pick < 3:
                action: dict[str, Any] = {"type": "resign"}
            elif g.phase == Phase.BREAK:
                action = {"type": "agree"}
            elif kind_pick < 30 and g.current_bid is not None:
                action = {"type": "liar", "turn": g.turn}
            else:
                total = sum(p.dice_count for p in room.players if p.in_game)
                action = {
                    "type": "bid",
                    "quantity": 1 + choices.below(max(1, total)),
                    "face": 1 + choices.below(6),
                    "turn": g.turn - choices.below(2),
                }
                if room.settings.rules == "wild-stars":
                    if choices.below(4) == 0:
                        action["face"] = "*"
                    if choices.below(3) == 0 and actor.hand:
                        action["show"] = [i for i in range(len(actor.hand)) if choices.below(2)]
            before = room.to_dict()
            dice_before = actor.dice_count
            try:
                events = game.act(room, actor.id, action, dice_roller, now)
            except DomainError:
                assert room.to_dict() == before, "a refused action changed the state"
                continue
            if action["type"] == "resign":
                removed += dice_before
            log.append((actor.id, action, now))
        if any(e["type"] in ("round_started", "round_restarted") for e in events):
            prev_bid = None
        if check:
            check_invariants(room, initial, removed, prev_bid)
            check_view_secrecy(room)
            check_events(room, events, humans_before, clock_before)
        if room.game and room.game.current_bid is not None:
            prev_bid = (
                room.game.round,
                (room.game.current_bid.quantity, room.game.current_bid.face),
            )
        else:
            prev_bid = None
    return room, log


def replay(
    cfg: dict[str, Any],
    humans: int,
    bots: int,
    modes: list[str],
    seed: int,
    log: list[tuple[str, dict[str, Any] | int, int]],
) -> Room:
    """Re-apply a logged game with the same rolls."""
    room = build(cfg, humans, bots, modes, seed)
    dice_roller = SeededRoller(seed * 7 + 1)
    for who, action, now in log:
        if who == "advance":
            game.advance(room, now, dice_roller)
        else:
            assert isinstance(action, dict)
            game.act(room, who, action, dice_roller, now)
    return room


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cfg=game_settings,
    humans=st.integers(1, 4),
    bots=st.integers(0, 6),
    modes=st.lists(st.sampled_from(["auto", "manual"]), min_size=1, max_size=4),
    seed=st.integers(0, 2**32),
)
def test_random_games_end_keep_invariants_and_replay(
    cfg: dict[str, Any], humans: int, bots: int, modes: list[str], seed: int
) -> None:
    if humans + bots < 2:
        bots = 1
    room, log = play(cfg, humans, bots, modes, seed)
    assert room.status == Status.FINISHED
    assert replay(cfg, humans, bots, modes, seed, log).to_dict() == room.to_dict()


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32), penalty=st.sampled_from(["discard", "give"]))
def test_ten_players_ten_dice_games_end(seed: int, penalty: str) -> None:
    cfg = {
        "starting_dice": 10,
        "wildcard_chance": 10,
        "penalty": penalty,
        "turn_seconds": 15,
        "break_seconds": 30,
    }
    room, _ = play(cfg, 2, 8, ["auto", "manual"], seed, check=False)
    assert room.status == Status.FINISHED
    assert sorted(p.rank for p in room.players) == list(range(1, 11))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_one_starting_die_games_end(seed: int) -> None:
    cfg = {
        "starting_dice": 1,
        "wildcard_chance": 0,
        "penalty": "give",
        "turn_seconds": 15,
        "break_seconds": 30,
    }
    room, _ = play(cfg, 3, 2, ["manual"], seed)
    assert room.status == Status.FINISHED


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cfg=game_settings,
    humans=st.integers(1, 3),
    bots=st.integers(0, 3),
    modes=st.lists(st.sampled_from(["auto", "manual"]), min_size=1, max_size=3),
    seed=st.integers(0, 2**32),
)
def test_random_wild_stars_games_end_keep_invariants_and_replay(
    cfg: dict[str, Any], humans: int, bots: int, modes: list[str], seed: int
) -> None:
    if humans + bots < 2:
        bots = 1
    cfg = {**cfg, "rules": "wild-stars"}
    room, log = play(cfg, humans, bots, modes, seed)
    assert room.status == Status.FINISHED
    assert replay(cfg, humans, bots, modes, seed, log).to_dict() == room.to_dict()


def poker_action(room: Room, actor_hand: list[int], choices: SeededRoller) -> dict[str, Any]:
    """A random (often illegal) poker turn action."""
    g = room.game
    assert g is not None
    pick = choices.below(7)
    positions = [i for i in range(5) if choices.below(2)]
    if pick == 0:
        action: dict[str, Any] = {"type": "liar"}
    elif pick == 1:
        action = {"type": "accept"}
    elif pick == 2:
        action = {"type": "reroll", "dice": positions}
        if choices.below(3) == 0:
            action["expose"] = [i for i in range(5) if choices.below(3) == 0]
    elif pick == 3:
        action = {"type": "stop"}
    else:
        spec: Any = "better"
        if pick == 5:
            spec = [poker.FACE_NAMES[choices.below(6)] for _ in range(5)]
        elif pick == 6:
            spec = {"category": poker.CATEGORIES[choices.below(7)], "faces": []}
        action = {"type": "claim", "hand": spec}
        if choices.below(4) == 0:
            action["expose"] = positions
    action["turn"] = g.turn - (1 if choices.below(8) == 0 else 0)
    return action


def check_poker(room: Room, prev_rank: int | None) -> int | None:
    """Poker invariants and secrecy after every step; returns the current claim's rank."""
    g = room.game
    assert g is not None
    assert all(p.dice_count == 0 for p in room.players if not p.in_game)
    assert all(0 < p.dice_count <= room.settings.option("lives") for p in room.players if p.in_game)
    if room.status == Status.FINISHED:
        assert sorted(p.rank for p in room.players) == list(range(1, len(room.players) + 1))
        return None
    if g.phase != Phase.BIDDING:
        assert all(not p.hand for p in room.players)
        return None
    stage = g.extra["st"]
    holder = room.player(g.turn_player or "")
    assert holder is not None and holder.in_game
    looked = stage in ("claim", "reroll", "aces")
    cup = [int(c) for c in g.extra["cup"]]
    for p in room.players:
        assert p.hand == (cup if looked and p.id == holder.id else [])
    rank = None if g.current_bid is None else poker.bid_rank(g.current_bid)
    if rank is not None and prev_rank is not None:
        assert rank >= prev_rank
    exposed = [cup[i] for i in range(5) if str(i) in g.extra["ex"]]
    if g.current_bid is not None and stage == "respond":
        assert poker.contains(poker.bid_hand(g.current_bid), exposed)
    for uid in [p.user_id for p in room.players if p.user_id] + [None]:
        view = room_view(room, user_id=uid)
        me = room.player_of_user(uid)
        rest = {**view, "game": {**view["game"], "last_reveal": None}}
        own = [poker.faces_out(me.hand)] if me and me.hand else []
        assert dice_lists_in(rest) == own
        assert str(g.extra["cup"]) not in str(rest)
        table = view["game"]["table"]
        assert [f for f in table["exposed"] if f] == poker.faces_out(exposed)
        earlier = [poker.bid_view_hand(b) for b in g.round_bids[:-1]]
        text = str(rest["game"])
        shown = None if g.current_bid is None else poker.bid_view_hand(g.current_bid)
        for hand in earlier:
            assert hand == shown or str(hand) not in text
    return rank


def play_poker(cfg: dict[str, Any], humans: int, bots: int, seed: int) -> tuple[Room, list[Any]]:
    """A random poker game: random human actions (legal or not), timeouts and bots."""
    room = build(cfg, humans, bots, ["auto", "manual"], seed)
    dice_roller = SeededRoller(seed * 7 + 1)
    choices = SeededRoller(seed * 13 + 5)
    now = T0
    log: list[Any] = []
    prev: int | None = None
    steps = 0
    while room.status == Status.PLAYING:
        steps += 1
        assert steps < 5000, "game did not end"
        g = room.game
        assert g is not None
        rnd = g.round
        humans_before = {p.id for p in room.players if p.in_game and not p.is_bot}
        clock_before = g.clock
        holder_before = (g.turn_player, g.deadline)
        now += choices.below(5000)
        if choices.below(100) < 20 or g.phase != Phase.BIDDING:
            now = max(now, g.deadline or now)
            events = game.advance(room, now, dice_roller)
            log.append(("advance", now, now))
        else:
            actor = room.player(g.turn_player or "")
            assert actor is not None
            if actor.is_bot:
                continue
            if choices.below(10) == 0:
                action: dict[str, Any] = {"type": "resign"}
            else:
                action = poker_action(room, actor.hand, choices)
            before = room.to_dict()
            try:
                events = game.act(room, actor.id, action, dice_roller, now)
            except DomainError:
                assert room.to_dict() == before, "a refused action changed the state"
                continue
            log.append((actor.id, action, now))
        fresh = any(e["type"] in ("round_started", "round_restarted") for e in events)
        prev = check_poker(room, None if fresh or room.game.round != rnd else prev)
        check_events(room, events, humans_before, clock_before, holder_before)
    return room, log


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lives=st.integers(1, 5),
    dogs=st.booleans(),
    humans=st.integers(1, 3),
    bots=st.integers(0, 3),
    seed=st.integers(0, 2**32),
)
def test_random_poker_games_end_keep_invariants_no_leaks_and_replay(
    lives: int, dogs: bool, humans: int, bots: int, seed: int
) -> None:
    if humans + bots < 2:
        bots = 1
    cfg = {"rules": "poker", "lives": lives, "dogs_life": dogs, "turn_seconds": 15}
    room, log = play_poker(cfg, humans, bots, seed)
    assert room.status == Status.FINISHED
    assert replay(cfg, humans, bots, ["auto", "manual"], seed, log).to_dict() == room.to_dict()


def drive_by_ticks(room: Room, seed: int, lateness: SeededRoller | None) -> list[dict[str, Any]]:
    """Let every turn time out: ticks at each deadline, or late and sometimes twice."""
    dice = SeededRoller(seed * 7 + 1)
    events: list[dict[str, Any]] = []
    steps = 0
    while room.status == Status.PLAYING:
        steps += 1
        assert steps < 5000, "game did not end"
        assert room.game is not None and room.game.deadline is not None
        now = room.game.deadline
        if lateness is not None:
            now += lateness.below(90_000)  # Scheduler may fire up to a minute or more late
            if lateness.below(3) == 0:
                events += game.advance(room, now, dice)  # a duplicated delivery
        events += game.advance(room, now, dice)
    return events


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(list(SYSTEMS)),
    humans=st.integers(1, 2),
    bots=st.integers(1, 3),
    seed=st.integers(0, 2**32),
)
def test_late_and_duplicated_ticks_end_like_punctual_ones_with_bot_think_times(
    rules: str, humans: int, bots: int, seed: int
) -> None:
    cfg = {"rules": rules, "starting_dice": 2, "lives": 2, "turn_seconds": 15}
    punctual = build(cfg, humans, bots, ["auto", "manual"], seed)
    late = build(cfg, humans, bots, ["auto", "manual"], seed)
    on_time = drive_by_ticks(punctual, seed, None)
    caught_up = drive_by_ticks(late, seed, SeededRoller(seed + 3))
    assert punctual.status == Status.FINISHED
    assert late.to_dict() == punctual.to_dict()
    assert caught_up == on_time
