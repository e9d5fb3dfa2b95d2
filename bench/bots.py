"""Bot benchmark: win rates of the bots in every rule system, and decision time per system.

Plays full games through the real engine (bot-only rooms: every round runs inside
``start_game``), with fixed seeds so every figure is reproducible. Each row seats one
*subject* bot against ``players - 1`` copies of an *opponent*; the subject's seat rotates. The
win rate is the fraction of games the subject finishes first, with a Wilson 95 % interval; a
target is met when the interval's **lower bound** reaches it. Suites:

- ``classic``: strong against the classic baselines (``random``, ``naive``, ``binomial``) at
  2, 4 and 6 players, 0 % and 10 % wildcards, both penalty modes;
- ``systems``: strong against ``random`` and that system's ``naive`` baseline in Wild Stars,
  Poker Liar Dice and Perudo, heads-up and at 4 players (a system joins by its line in
  ``SYSTEMS``);
- ``exploiters``: classic strong against bots built to exploit it (``always-call``,
  ``always-bluff``, ``honest-reader``, ``air-opener``, ``switch-opener``), heads-up;
- ``ladder``: strong against medium and medium against easy, heads-up, in every system.

Then it times the strong bot's decisions per system at 10 players × 10 dice (Wild Stars seats
at most 6 players; Poker's cup always holds 5 dice).

    .venv/bin/python bench/bots.py                       # every suite (a few minutes, 2 cores)
    .venv/bin/python bench/bots.py --suites systems ladder
    .venv/bin/python bench/bots.py --suites classic --players 2 --opponents binomial
    .venv/bin/python bench/bots.py --suites systems ladder --systems poker --systems-players 2
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import count_setting

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Phase, Player, Room, Settings, Status
from chalicelib.engine.systems import rule_system
from chalicelib.engine.views import bot_view

SYSTEMS: dict[str, dict[str, Any]] = {
    "wild-stars": {"rules": "wild-stars", "starting_dice": 5},
    "poker": {"rules": "poker", "lives": 3},
    "perudo": {"rules": "perudo", "starting_dice": 5},
}
"""The rule systems beyond classic and the settings their rows play with."""
EXPLOITERS = ("always-call", "always-bluff", "honest-reader", "air-opener", "switch-opener")
LADDER = (("strong", "medium"), ("medium", "easy"))


@dataclass(frozen=True)
class Row:
    """One configuration: ``subject`` against ``players - 1`` copies of ``opponent``."""

    system: str
    players: int
    settings: tuple[tuple[str, Any], ...]
    subject: str
    opponent: str
    games: int
    target: float | None
    seed: int = 1
    label: str = field(default="")


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


def run_row(row: Row) -> tuple[Row, int]:
    """Play the row's games; return how many the subject won."""
    settings = Settings.of(**dict(row.settings))
    # the same seeds for every opponent of a configuration, so rows differ only by the opponent
    key = f"{row.system}/{row.players}/{row.settings}/{row.subject}"
    base = row.seed * 1_000_003 + zlib.crc32(key.encode()) % 1_000_000 * 10_007
    wins = 0
    for g in range(row.games):
        seat = g % row.players
        levels = [row.opponent] * row.players
        levels[seat] = row.subject
        room = play(levels, settings, base + g)
        if room.players[seat].rank == 1:
            wins += 1
    return row, wins


def decision_times(system: str, samples: int, seed: int) -> tuple[int, list[int]]:
    """Nanoseconds per strong decision at the largest table (10 × 10 dice where allowed)."""
    roller = SeededRoller(seed)
    extra = {k: v for k, v in SYSTEMS.get(system, {}).items() if k != "starting_dice"}
    settings = Settings.of(**{"wildcard_chance": 10, **extra, "starting_dice": 10})
    players = 6 if system == "wild-stars" else 10
    rules = rule_system(settings.rules)
    out: list[int] = []
    while len(out) < samples:
        room = bot_room(["strong"] * players, settings)
        # deal and let nobody act: drive the first round by hand so every die stays in play
        for p in room.players:
            p.kind = "human"
        game.start_game(room, roller, 0)
        memory: dict[str, Any] = {}
        while room.game is not None and room.game.phase == Phase.BIDDING and len(out) < samples:
            pid = room.game.turn_player
            assert pid is not None
            view = bot_view(room, pid)
            t0 = time.perf_counter_ns()
            action = rules.bot_action(view, "strong", memory, roller)
            out.append(time.perf_counter_ns() - t0)
            game.act(room, pid, action, roller, 0)
    return players, out


def rows_for(args: argparse.Namespace) -> list[Row]:
    """The rows of the chosen suites."""
    rows: list[Row] = []
    hu, many = args.games_heads_up, args.games
    if "classic" in args.suites:
        for n in args.players:
            for wild in args.wild:
                for pen in args.penalty:
                    for opp in args.opponents:
                        target = {"random": 0.99, "naive": 0.90, "binomial": 0.55}.get(opp)
                        if n > 2:
                            target = 2 / n if opp == "naive" else None
                        rows.append(
                            Row(
                                "classic",
                                n,
                                (("wildcard_chance", wild), ("penalty", pen)),
                                "strong",
                                opp,
                                hu if n == 2 else many,
                                target,
                                args.seed,
                                f"{wild}% {pen}",
                            )
                        )
    if "systems" in args.suites:
        for system, extra in SYSTEMS.items():
            if system not in args.systems:
                continue
            for n in args.systems_players:
                for opp in ("random", "naive"):
                    if n == 2:
                        target = 0.99 if opp == "random" else 0.80
                    else:
                        target = 2 / n if opp == "naive" else None
                    rows.append(
                        Row(
                            system,
                            n,
                            tuple(extra.items()),
                            "strong",
                            opp,
                            args.games_systems_heads_up if n == 2 else many,
                            target,
                            args.seed,
                        )
                    )
    if "exploiters" in args.suites:
        for wild in args.wild:
            for opp in EXPLOITERS:
                rows.append(
                    Row(
                        "classic",
                        2,
                        (("wildcard_chance", wild), ("penalty", "discard")),
                        "strong",
                        opp,
                        args.games_exploiters,
                        0.60,
                        args.seed,
                        f"{wild}% discard",
                    )
                )
    if "ladder" in args.suites:
        systems: dict[str, dict[str, Any]] = {
            "classic": {"wildcard_chance": 10, "penalty": "discard"},
            **SYSTEMS,
        }
        for system, extra in systems.items():
            if system not in args.systems:
                continue
            for subject, opp in LADDER:
                rows.append(
                    Row(
                        system,
                        2,
                        tuple(extra.items()),
                        subject,
                        opp,
                        args.games_ladder,
                        0.60,
                        args.seed,
                        "10% discard" if system == "classic" else "",
                    )
                )
    return rows


def describe(row: Row) -> str:
    """The row's settings in a few characters."""
    if row.label:
        return row.label
    name = count_setting(row.system)  # dice or lives, as the system counts
    settings = Settings.of(**dict(row.settings))
    # a shared setting (dice) or a system's own option (Poker's lives)
    count = getattr(settings, name) if hasattr(settings, name) else settings.option(name)
    return f"{count} {name.removeprefix('starting_')}"


def exploitability_table(args: argparse.Namespace) -> None:
    """``--exploitability``: the table of docs/BOTS.md, "Exploitability"."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import exploitability as ex

    columns = ex.COLUMNS
    if args.endgames:
        columns = [c for c in columns if ex.column_name(*c) in args.endgames]
    started = time.perf_counter()
    ex.run(
        ["strong", "medium", "easy"],
        columns,
        args.solved,
        ["always-bluff", "always-call", "switch-opener"],
        args.seed,
    )
    print(f"({time.perf_counter() - started:.0f} s)")


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--suites",
        nargs="+",
        default=["classic", "systems", "exploiters", "ladder"],
        choices=["classic", "systems", "exploiters", "ladder"],
    )
    parser.add_argument("--games", type=int, default=300, help="games per row at 3+ players")
    parser.add_argument("--games-heads-up", type=int, default=600, help="classic heads-up rows")
    parser.add_argument(
        "--games-systems-heads-up",
        type=int,
        default=3000,
        help="systems heads-up rows (3000: a 99.5 %% rate has its lower bound near 99.1 %%)",
    )
    parser.add_argument("--games-exploiters", type=int, default=600)
    parser.add_argument("--games-ladder", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2 here)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], help="classic")
    parser.add_argument("--wild", type=int, nargs="+", default=[0, 10], help="classic")
    parser.add_argument("--penalty", nargs="+", default=["discard", "give"], help="classic")
    parser.add_argument("--opponents", nargs="+", default=["random", "naive", "binomial"])
    parser.add_argument(
        "--systems", nargs="+", default=["classic", *SYSTEMS], help="systems and ladder suites"
    )
    parser.add_argument(
        "--systems-players", type=int, nargs="+", default=[2, 4], choices=[2, 4], help="systems"
    )
    parser.add_argument("--timing-samples", type=int, default=1000, help="per system; 0: skip")
    parser.add_argument(
        "--exploitability",
        action="store_true",
        help="instead of the suites: each level's exploitability in heads-up endgames "
        "(bench/exploitability.py; needs numpy)",
    )
    parser.add_argument(
        "--solved",
        type=Path,
        default=None,
        help="tools.solver.run's output directory: adds the unquantised CFR+ row and reuses "
        "its game values (else the values are solved here)",
    )
    parser.add_argument(
        "--endgames",
        nargs="+",
        default=None,
        help="columns to compute, e.g. '1v1 10 %%' 'Perudo 2v1' (default: all)",
    )
    args = parser.parse_args()
    if args.exploitability:
        exploitability_table(args)
        return

    rows = rows_for(args)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # the longest rows first, so the two workers finish together
        order = sorted(range(len(rows)), key=lambda i: -rows[i].games * rows[i].players)
        done = dict(zip(order, pool.map(run_row, [rows[i] for i in order]), strict=True))
    results = [done[i] for i in range(len(rows))]
    elapsed = time.perf_counter() - started

    print(f"bots: {len(rows)} rows, seed {args.seed} ({elapsed:.0f} s)")
    print(
        f"{'system':<11} {'players':>7} {'settings':>12} {'bot':>7} {'opponent':>14} "
        f"{'games':>6} {'win rate':>9} {'95% CI':>15} {'target':>7}"
    )
    failed = []
    for row, wins in results:
        lo, hi = wilson(wins, row.games)
        mark = ""
        if row.target is not None:
            ok = lo >= row.target
            mark = f"{row.target:>6.0%} {'ok' if ok else 'MISSED'}"
            if not ok:
                failed.append(row)
        print(
            f"{row.system:<11} {row.players:>7} {describe(row):>12} {row.subject:>7} "
            f"{row.opponent:>14} {row.games:>6} {wins / row.games:>9.1%} "
            f"[{lo:>5.1%}, {hi:>5.1%}] {mark}"
        )

    if args.timing_samples > 0:
        print()
        for system in ("classic", *SYSTEMS):
            if system not in args.systems:
                continue
            players, times = decision_times(system, args.timing_samples, args.seed)
            median = statistics.median(times) / 1e6
            p90 = sorted(times)[int(len(times) * 0.9)] / 1e6
            counts_dice = count_setting(system) == "starting_dice"
            dice = "10 dice each" if counts_dice else "one 5-dice cup"
            print(
                f"strong decision, {system:<10} {players:>2} players, {dice}: "
                f"median {median:.3f} ms, p90 {p90:.3f} ms over {len(times)} decisions "
                f"(target: median ≤ 1 ms)"
            )
    if failed:
        print(f"\nbelow target: {len(failed)} rows")


if __name__ == "__main__":
    main()
