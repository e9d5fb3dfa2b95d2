"""Hypothesis: random whole Perudo games (random settings, 2–10 players) keep the invariants.

The shared checks of the other systems (view secrecy, event stamps and pacing, replay) run on
every step, plus Perudo's own: every bid follows the ace rules, palifico rounds come only
where the rules put them, a calza never raises a player above the starting dice.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import DomainError
from chalicelib.engine.model import Phase, Room, Status
from chalicelib.engine.systems.perudo import moves
from tests.engine import test_engine_properties as props

perudo_settings = st.fixed_dictionaries(
    {
        "rules": st.just("perudo"),
        "starting_dice": st.sampled_from([1, 2, 3, 5]),
        "penalty": st.sampled_from(["discard", "give"]),
        "turn_seconds": st.sampled_from([15, 30, 60]),
        "break_seconds": st.sampled_from([30, 60, 120]),
    }
)


@pytest.fixture(autouse=True)
def _calza_is_a_move() -> Iterator[None]:
    # a calza is a seat's move like Liar!: its reveal follows a think time of its own
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(props, "MOVES", (*props.MOVES, "calza_called"))
        yield


class Tracker:
    """Perudo's invariants across the steps of one game."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.starting = room.settings.starting_dice
        self.palifico_players: list[str] = []
        self.round: tuple[int, int] | None = None
        assert room.game is not None
        # the bots' bids made while the game started
        self.bids = [(b.player_id, b.quantity, b.face) for b in room.game.round_bids]
        self.reveals = 0

    def step(self, events: list[dict[str, Any]]) -> None:
        room = self.room
        g = room.game
        assert g is not None
        with_dice = [p for p in room.players if p.in_game and p.dice_count > 0]
        # every bid of the round follows the ace rules (dice counts hold still within a round)
        for e in events:
            if e["type"] in ("round_started", "round_restarted"):
                self.bids = []
            elif e["type"] == "bid_placed":
                self.bids.append((e["player_id"], e["quantity"], e["face"]))
        pal = "pal" in g.extra
        if g.phase == Phase.BIDDING and room.status == Status.PLAYING:
            assert all(1 <= d <= 6 for p in room.players for d in p.hand)
            if pal:
                assert g.extra["pal"] == g.opener and len(with_dice) >= moves.PALIFICO_MIN_PLAYERS
                key = (g.round, 0)
                if self.round != key and g.extra["pal"] not in self.palifico_players:
                    self.palifico_players.append(g.extra["pal"])
                self.round = key
            if g.current_bid is not None and self.bids:
                previous: tuple[int, int] | None = None
                assert len(self.bids) == len(g.round_bids)
                for who, q, f in self.bids:
                    single = room.player(who).dice_count == 1  # type: ignore[union-attr]
                    assert moves.is_raise((q, f), previous, palifico=pal, single_die=single)
                    previous = (q, f)
        # a reveal: a calza never lifts anyone above the starting dice, dice move by one
        reveal = g.last_reveal
        if reveal is not None and any(e["type"] == "challenge_resolved" for e in events):
            kind = reveal.extra["kind"]
            assert kind in ("dudo", "calza")
            if kind == "calza":
                assert len(reveal.rows) >= moves.CALZA_MIN_PLAYERS
                exact = reveal.count == reveal.bid.quantity
                assert (reveal.loser_id == "") == exact
                gained = reveal.extra["gained_id"]
                if gained is not None:
                    assert exact and gained == reveal.challenger_id
                    assert room.player(gained).dice_count <= self.starting  # type: ignore[union-attr]
            else:
                assert reveal.extra["gained_id"] is None
                assert (reveal.count < reveal.bid.quantity) == (
                    reveal.loser_id == reveal.bid.player_id
                )
            if room.status == Status.PLAYING and g.phase == Phase.BREAK:
                opener = reveal.challenger_id if kind == "calza" else reveal.loser_id
                expected = room.player(opener)
                assert expected is not None
                if expected.in_game:
                    assert g.opener == opener
        # palifico comes once per player per game
        assert len(self.palifico_players) == len(set(self.palifico_players))


def play(cfg: dict[str, Any], humans: int, bots: int, seed: int) -> tuple[Room, list[Any]]:
    """A random Perudo game: random human moves (legal or not), timeouts, bots."""
    modes = ["auto", "manual"]
    room = props.build(cfg, humans, bots, modes, seed)
    tracker = Tracker(room)
    dice_roller = SeededRoller(seed * 7 + 1)
    choices = SeededRoller(seed * 13 + 5)
    now = props.T0
    log: list[Any] = []
    steps = 0
    while room.status == Status.PLAYING:
        steps += 1
        assert steps < 5000, "game did not end"
        g = room.game
        assert g is not None
        humans_before = {p.id for p in room.players if p.in_game and not p.is_bot}
        clock_before = g.clock
        now += choices.below(5000)
        events: list[dict[str, Any]] = []
        if choices.below(100) < 15 or g.phase != Phase.BIDDING:
            agree = g.phase == Phase.BREAK and g.deadline is not None and now < g.deadline
            if agree and choices.below(2):
                actor = room.players[choices.below(len(room.players))]
                if actor.is_bot:
                    continue
                try:
                    events = game.act(room, actor.id, {"type": "agree"}, dice_roller, now)
                except DomainError:
                    continue
                log.append((actor.id, {"type": "agree"}, now))
            else:
                now = max(now, g.deadline or now)
                events = game.advance(room, now, dice_roller)
                log.append(("advance", now, now))
        else:
            actor = room.player(g.turn_player or "")
            assert actor is not None
            if actor.is_bot:
                continue
            pick = choices.below(100)
            total = sum(p.dice_count for p in room.players if p.in_game)
            action: dict[str, Any]
            if pick < 3:
                action = {"type": "resign"}
            elif pick < 20:
                action = {"type": "liar", "turn": g.turn}
            elif pick < 30:
                action = {"type": "calza", "turn": g.turn}
            else:
                action = {
                    "type": "bid",
                    "quantity": 1 + choices.below(max(1, total)),
                    "face": 1 + choices.below(6),
                    "turn": g.turn - (1 if choices.below(10) == 0 else 0),
                }
            before = room.to_dict()
            try:
                events = game.act(room, actor.id, action, dice_roller, now)
            except DomainError:
                assert room.to_dict() == before, "a refused action changed the state"
                continue
            log.append((actor.id, action, now))
        tracker.step(events)
        props.check_view_secrecy(room)
        props.check_events(room, events, humans_before, clock_before)
    return room, log


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cfg=perudo_settings,
    humans=st.integers(1, 4),
    bots=st.integers(0, 9),
    seed=st.integers(0, 2**32),
)
def test_random_perudo_games_end_keep_invariants_no_leaks_and_replay(
    cfg: dict[str, Any], humans: int, bots: int, seed: int
) -> None:
    bots = min(max(bots, 2 - humans), 10 - humans)
    room, log = play(cfg, humans, bots, seed)
    assert room.status == Status.FINISHED
    assert sorted(p.rank for p in room.players) == list(range(1, len(room.players) + 1))
    again = props.replay(cfg, humans, bots, ["auto", "manual"], seed, log)
    assert again.to_dict() == room.to_dict()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rounds=st.integers(1, 3),
    humans=st.integers(1, 2),
    bots=st.integers(1, 3),
    seed=st.integers(0, 2**32),
)
def test_late_and_duplicated_ticks_end_perudo_like_punctual_ones(
    rounds: int, humans: int, bots: int, seed: int
) -> None:
    cfg = {"rules": "perudo", "starting_dice": 1 + rounds, "turn_seconds": 15}
    punctual = props.build(cfg, humans, bots, ["auto", "manual"], seed)
    late = props.build(cfg, humans, bots, ["auto", "manual"], seed)
    on_time = props.drive_by_ticks(punctual, seed, None)
    caught_up = props.drive_by_ticks(late, seed, SeededRoller(seed + 3))
    assert punctual.status == Status.FINISHED
    assert late.to_dict() == punctual.to_dict()
    assert caught_up == on_time
