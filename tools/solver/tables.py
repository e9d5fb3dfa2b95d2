"""Turn solved strategies into the bots' endgame tables (package data, no numpy to read them).

``python -m tools.solver.tables SOLVED_DIR`` reads every ``<name>.npz`` that
``tools.solver.run`` wrote and writes ``chalicelib/engine/endgames/<name>.bin``: for each seat
(0 the opener, 1 the other), every information set (node, own hand) that the seat reaches
when it plays the table itself (whatever the other player does), with its actions' weights
quantised to integers that sum to 255 (an action under half a step is dropped).

File: ``zlib`` of a JSON header line (``name``, ``n``, ``faces``, ``bids``) then records
``seat u8, node u32, hand u8, k u8`` followed by ``k`` pairs ``action u8, weight u8`` (action:
the bid's index in ``bids``, or 255 for the call). ``chalicelib.engine.endgames`` reads it.
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

from . import cfr, games, run

OUT = Path(__file__).resolve().parents[2] / "chalicelib" / "engine" / "endgames"
CALL = 255
STEPS = 255
THRESHOLD = 6 / 255
"""Actions played less often than this are dropped and the rest renormalised: CFR+'s average
strategy keeps many rare actions, each of which multiplies the information sets a seat can
reach (classic 2v1 at 10 %: 5.3 MB of records kept whole, 0.64 MB at this threshold), at a
cost of about 0.3 points of exploitability (docs/BOTS.md, "Endgame tables")."""


def quantise(p: np.ndarray) -> np.ndarray:
    """Integer weights out of 255 (each rounded; the reader draws from their sum)."""
    return np.rint(np.clip(p, 0, 1) * STEPS).astype(np.uint8)


def records(tree: cfr.Tree, edge: np.ndarray, call: np.ndarray, seat: int) -> bytes:
    """The seat's reachable information sets with their quantised weights."""
    game = tree.game
    hands = tree.Hn[seat]
    w_edge = quantise(edge[:, :hands])
    w_call = quantise(call[:, :hands])
    w_call[0] = 0
    for b in range(tree.B):
        if not game.opening[b]:
            w_edge[1 << b] = 0
    reach = np.zeros((tree.N, hands), bool)
    reach[0] = True
    for b in range(tree.B):
        lo, hi = 1 << b, 2 << b
        par = slice(0, hi - lo)
        mine = (tree.mover[par] == seat)[:, None]
        reach[lo:hi] = reach[par] & (~mine | (w_edge[lo:hi] > 0))
    out = bytearray()
    nodes = np.nonzero((tree.mover == seat) & reach.any(axis=1))[0]
    for s in nodes.tolist():
        last = s.bit_length() - 1 if s else -1
        kids = [(b, s | 1 << b) for b in range(last + 1, tree.B)]
        for h in np.nonzero(reach[s])[0].tolist():
            pairs = [(b, int(w_edge[c, h])) for b, c in kids if w_edge[c, h]]
            if s and w_call[s, h]:
                pairs.append((CALL, int(w_call[s, h])))
            out += struct.pack("<BIBB", seat, s, h, len(pairs))
            for a, wa in pairs:
                out += struct.pack("<BB", a, wa)
    return bytes(out)


def write(game: games.Game, solved: Path) -> int:
    """Write one game's table; returns its size in bytes."""
    data = np.load(solved / f"{game.name}.npz")
    tree = cfr.Tree(game, np.float32)
    edge, call = data["edge"].copy(), data["call"].copy()
    edge[edge < THRESHOLD] = 0
    call[call < THRESHOLD] = 0
    sparse = tree.regret_match(edge, call)
    header = {
        "name": game.name,
        "n": list(game.n),
        "faces": list(game.faces),
        "bids": [list(b) for b in game.bids],
    }
    body = b"".join(records(tree, sparse.edge, sparse.call, seat) for seat in (0, 1))
    blob = zlib.compress(json.dumps(header).encode() + b"\n" + body, 9)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{game.name}.bin").write_bytes(blob)
    return len(blob)


def main(argv: list[str]) -> None:
    solved = Path(argv[0])
    for game in run.endgames():
        if (solved / f"{game.name}.npz").exists():
            size = write(game, solved)
            print(f"{game.name}: {size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
