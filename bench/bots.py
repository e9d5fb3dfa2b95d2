"""Bot benchmark: win rates of the strong bot against baselines, and decision time.

Plays full games through the real engine (bot-only rooms: every round runs inside
``start_game``), with fixed seeds so every figure is reproducible. One strong seat plays
against ``players - 1`` copies of a baseline (``random``, ``naive``, ``binomial``: see
``chalicelib/engine/bot_baselines.py``); the strong seat rotates through the seats. The win
rate is the fraction of games the strong seat finishes first, with a Wilson 95 % interval;
a target is met when the interval's lower bound reaches it. Heads-up rows play more games
(``--games-heads-up``): at a 93 % win rate 400 games leave a ±2.5-point interval, too wide to
judge a 90 % target, and the strong bot's roller draws reshuffle the dice of every game.
Then it times ``decide`` at 10 players × 10 dice (median over many decisions).

    .venv/bin/python bench/bots.py                 # the default run (a few minutes, 2 cores)
    .venv/bin/python bench/bots.py --games 400 --jobs 4
    .venv/bin/python bench/bots.py --players 2 --opponents binomial --games 1000
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chalicelib.engine import bots, game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Phase, Player, Room, Settings, Status
from chalicelib.engine.views import bot_view

TARGETS = {("random", 2): 0.99, ("naive", 2): 0.90, ("binomial", 2): 0.55}
"""Win-rate targets heads-up; at 4 and 6 players, twice the fair share against naive bots."""


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bot_room(levels: list[str], settings: Settings) -> Room:
    """A room of bots only, seated in the given order."""
    room = Room(id="bench", host_id="", created_by_guest=True, created_at=0, settings=settings)
    for i, level in enumerate(levels):
        room.players.append(Player(id=f"p{i + 1}", name=f"Bot {i + 1}", kind="bot", level=level))
    return room


def play(levels: list[str], settings: Settings, seed: int) -> Room:
    """Play one whole game; bots act inside the transitions, breaks end at once."""
    room = bot_room(levels, settings)
    roller = SeededRoller(seed)
    game.start_game(room, roller, 0)
    now = 0
    while room.status == Status.PLAYING:
        # only the final reveal's fixed pause is left to elapse
        now += 10_000
        game.advance(room, now, roller)
    return room


def run_config(args: tuple[int, int, str, str, int, int, int]) -> tuple[Any, ...]:
    """Play ``games`` games of one configuration; return the strong seat's wins."""
    players, wild, penalty, opponent, games, dice, base_seed = args
    # the same seeds for every opponent, so rows differ only by the opponent
    config_no = (
        [2, 4, 6, 3, 5, 7, 8, 9, 10].index(players) * 4 + (wild // 5) * 2 + (penalty == "give")
    )
    settings = Settings(starting_dice=dice, wildcard_chance=wild, penalty=penalty)
    wins = 0
    for g in range(games):
        seat = g % players
        levels = [opponent] * players
        levels[seat] = "strong"
        seed = base_seed * 1_000_003 + config_no * 100_003 + g
        room = play(levels, settings, seed)
        if room.players[seat].rank == 1:
            wins += 1
    return players, wild, penalty, opponent, wins, games


def decision_times(samples: int, seed: int) -> list[int]:
    """Nanoseconds per strong decision at 10 players × 10 dice, over varied positions."""
    roller = SeededRoller(seed)
    settings = Settings(starting_dice=10, wildcard_chance=10, penalty="discard")
    out: list[int] = []
    while len(out) < samples:
        room = bot_room(["strong"] * 10, settings)
        # deal and let nobody act: drive the first round by hand so all 100 dice stay in play
        for p in room.players:
            p.kind = "human"
        game.start_game(room, roller, 0)
        memory: dict[str, Any] = {}
        while room.game is not None and room.game.phase == Phase.BIDDING and len(out) < samples:
            pid = room.game.turn_player
            assert pid is not None
            view = bot_view(room, pid)
            t0 = time.perf_counter_ns()
            action = bots.decide(view, "strong", memory, roller)
            out.append(time.perf_counter_ns() - t0)
            if action["type"] == "liar":
                break
            game.act(room, pid, action, roller, 0)
    return out


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=400, help="games per configuration")
    parser.add_argument(
        "--games-heads-up", type=int, default=1600, help="games per heads-up configuration"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--dice", type=int, default=5, help="starting dice per player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--wild", type=int, nargs="+", default=[0, 10])
    parser.add_argument("--penalty", nargs="+", default=["discard", "give"])
    parser.add_argument("--opponents", nargs="+", default=["random", "naive", "binomial"])
    parser.add_argument("--timing-samples", type=int, default=2000)
    args = parser.parse_args()

    configs = [
        (n, w, pen, opp, args.games_heads_up if n == 2 else args.games, args.dice, args.seed)
        for n, w, pen, opp in itertools.product(
            args.players, args.wild, args.penalty, args.opponents
        )
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run_config, configs))
    elapsed = time.perf_counter() - started

    print(
        f"strong vs baselines: {args.games} games per row ({args.games_heads_up} heads-up), "
        f"{args.dice} dice each, "
        f"seed {args.seed} ({elapsed:.0f} s)"
    )
    print(
        f"{'players':>7} {'wild':>5} {'penalty':>8} {'opponent':>9} {'win rate':>9} "
        f"{'95% CI':>15} {'target':>7}"
    )
    failed = []
    for players, wild, penalty, opponent, wins, games in results:
        lo, hi = wilson(wins, games)
        target = TARGETS.get((opponent, players))
        if target is None and opponent == "naive":
            target = 2 / players
        mark = ""
        if target is not None:
            ok = lo >= target
            mark = f"{target:>6.0%}{'' if ok else ' !'}"
            if not ok:
                failed.append((players, wild, penalty, opponent))
        print(
            f"{players:>7} {wild:>4}% {penalty:>8} {opponent:>9} {wins / games:>9.1%} "
            f"[{lo:>5.1%}, {hi:>5.1%}] {mark}"
        )

    times = decision_times(args.timing_samples, args.seed)
    median = statistics.median(times) / 1e6
    p90 = sorted(times)[int(len(times) * 0.9)] / 1e6
    print(
        f"\nstrong decision at 10 players × 10 dice: median {median:.3f} ms, "
        f"p90 {p90:.3f} ms over {len(times)} decisions (target: median ≤ 1 ms)"
    )
    if failed:
        print(f"below target: {failed}")


if __name__ == "__main__":
    main()
