"""Solve the endgames the bots play from tables: ``python -m tools.solver.run OUT_DIR [names]``.

Each game's average strategy is saved as ``OUT_DIR/<name>.npz`` (``edge``, ``call`` float32,
with its exploitability); ``tools.solver.tables`` turns them into the package's bot tables.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from . import cfr, games

ITERATIONS = {2: 1500, 3: 80}
"""CFR+ iterations by dice in play (3 dice: 3–7 s an iteration on one shared core; at 80 the
exploitability of the average strategy is about 0.005, a quarter of a point of P(lose))."""


def endgames() -> list[games.Game]:
    """Every game the tables hold, most valuable first."""
    out = []
    for w in (10, 0):
        out += [games.classic(1, 1, w), games.classic(2, 1, w), games.classic(1, 2, w)]
    out += [games.perudo(1, 1), games.perudo(2, 1), games.perudo(1, 2)]
    out += [games.classic(1, 1, 5), games.classic(2, 1, 5), games.classic(1, 2, 5)]
    return out


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    reverse = "--reverse" in argv
    wanted = {a for a in argv[1:] if not a.startswith("--")}
    todo = endgames()
    for game in reversed(todo) if reverse else todo:
        if wanted and game.name not in wanted:
            continue
        if (out / f"{game.name}.npz").exists():
            continue
        try:  # two runs may share the list: each game is claimed by one
            (out / f"{game.name}.lock").touch(exist_ok=False)
        except FileExistsError:
            continue
        start = time.time()
        total = sum(game.n)
        tree, avg = cfr.solve(
            game, ITERATIONS[total], dtype=np.float32, log_every=ITERATIONS[total] // 4
        )
        expl = tree.exploitability(avg)
        value = tree.value(avg)
        np.savez(
            out / f"{game.name}.npz",
            edge=avg.edge.astype(np.float32),
            call=avg.call.astype(np.float32),
            expl=expl,
            value=value,
        )
        print(
            f"{game.name}: value {value:+.5f} expl {expl:.5f} ({time.time() - start:.0f}s)",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
