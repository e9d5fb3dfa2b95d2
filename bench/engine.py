"""Engine benchmark: median time of one bid and one Liar! transition, and of whole bot games.

Run: ``.venv/bin/python bench/engine.py [--samples N]``. Prints medians (machines are shared
and noisy: compare figures from the same run). Target: under 0.2 ms per transition (median)
at 6 players × 5 dice.

A person's move reaches ``game.act`` as the typed command the edge built from the request
body (``bid µs``, ``liar µs``); a bot's or a timeout's as the plain action, parsed by the
shared flow (``plain bid µs``). A tree from before typed commands has only the plain form,
which was then also a person's path: both columns time it there.
"""

from __future__ import annotations

import argparse
import statistics
import time

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Player, Room, Settings, Status
from chalicelib.engine.room import UserRef, create_room, join, set_ready, start

try:  # typed commands (issue 25); a tree compared from before them has only plain actions
    from chalicelib.engine.commands import CallLiar, PlaceBid
except ImportError:  # pragma: no cover - older trees
    CallLiar = PlaceBid = None  # type: ignore[assignment,misc]

T0 = 1_700_000_000_000


def human_room(players: int, dice: int, seed: int) -> Room:
    """A started room of humans (so no bot replies inside the measured transition)."""
    host = UserRef("u0", "h0", continue_mode="manual")
    room = create_room("bench", host, {"starting_dice": dice}, T0)
    for i in range(1, players):
        u = UserRef(f"u{i}", f"h{i}", continue_mode="manual")
        join(room, u, None)
        set_ready(room, u, True)
    start(room, host, SeededRoller(seed), T0)
    return room


def bot_room(players: int, dice: int) -> Room:
    """A room of strong bots only."""
    room = Room(
        id="bots",
        host_id="p1",
        created_by_guest=False,
        created_at=T0,
        settings=Settings.parse({"starting_dice": dice}),
    )
    room.players = [
        Player(id=f"p{i + 1}", name=f"Bot {i + 1}", kind="bot", level="strong", ready=True)
        for i in range(players)
    ]
    return room


def _bid(turn: int, plain: bool) -> object:
    if plain or PlaceBid is None:
        return {"type": "bid", "quantity": 2, "face": 3, "turn": turn}
    return PlaceBid(quantity=2, face=3, turn=turn)


def _liar(turn: int, plain: bool) -> object:
    if plain or CallLiar is None:
        return {"type": "liar", "turn": turn}
    return CallLiar(turn=turn)


def time_transitions(
    players: int, dice: int, samples: int, plain: bool = False
) -> tuple[float, float]:
    """Median microseconds of one bid and of one Liar! (with its resolution and break).

    ``plain``: the actions in their plain form (a bot's or a timeout's path) rather than as
    the typed commands the edge builds for a person.
    """
    bids, liars = [], []
    roller = SeededRoller(99)
    for s in range(samples):
        room = human_room(players, dice, s)
        g = room.game
        assert g is not None
        first = room.player(g.turn_player or "")
        assert first is not None
        bid = _bid(g.turn, plain)
        t = time.perf_counter_ns()
        game.act(room, first.id, bid, roller, T0 + 1000)  # type: ignore[arg-type]
        bids.append(time.perf_counter_ns() - t)
        second = g.turn_player or ""
        liar = _liar(g.turn, plain)
        t = time.perf_counter_ns()
        game.act(room, second, liar, roller, T0 + 2000)  # type: ignore[arg-type]
        liars.append(time.perf_counter_ns() - t)
    return statistics.median(bids) / 1000, statistics.median(liars) / 1000


def time_bot_games(players: int, dice: int, games: int) -> tuple[float, float]:
    """Median milliseconds of a whole bot-only game, and median transitions per game."""
    times, rounds = [], []
    for seed in range(games):
        room = bot_room(players, dice)
        roller = SeededRoller(seed)
        t = time.perf_counter_ns()
        game.start_game(room, roller, T0)
        game.advance(room, T0 + 10_000, roller)
        times.append(time.perf_counter_ns() - t)
        assert room.status == Status.FINISHED
        assert room.game is not None
        rounds.append(room.game.round)
    return statistics.median(times) / 1e6, statistics.median(rounds)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    print(
        f"{'table':>8} {'bid µs':>9} {'liar µs':>9} {'plain bid µs':>13} {'bot game ms':>12} "
        f"{'rounds':>7}"
    )
    for players, dice in ((6, 5), (10, 10)):
        bid_us, liar_us = time_transitions(players, dice, args.samples)
        plain_bid_us, _ = time_transitions(players, dice, args.samples, plain=True)
        game_ms, rounds = time_bot_games(players, dice, args.games)
        print(
            f"{players:>3} × {dice:<3} {bid_us:>9.1f} {liar_us:>9.1f} {plain_bid_us:>13.1f} "
            f"{game_ms:>12.1f} {rounds:>7.0f}"
        )
    print("target: bid and liar medians under 200 µs at 6 × 5")


if __name__ == "__main__":
    main()
