"""Equilibrium tables for heads-up endgames: what the bots play there (docs/BOTS.md).

``tools/solver`` solves single heads-up rounds (classic at 0/5/10 % wildcards, Perudo) with
CFR+ and writes, per game, the strategy of each seat at every information set it reaches
when it follows the table: the round's bids so far (a public node: the set of bids, which
rise strictly) and the bot's own dice. The files (``endgames/<name>.bin``) are loaded on
first use and kept; a lookup is a dict access. Nothing here uses numpy.

``policy(view, pattern)`` gives the weighted actions for the seat the view belongs to, or
``None`` when the position is not in a table (more than two players with dice, other dice
counts, a round the table does not know).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

from .state import WILD

CALL = 255
"""The action code of Liar!/Dudo in a table."""

Weighted = list[tuple[int, int]]
"""(action, weight): the bid's index in the table's order, or ``CALL``."""


@dataclass(slots=True)
class Table:
    """One game's strategies: both seats, keyed by (node, hand index)."""

    name: str
    n: tuple[int, int]
    bids: dict[tuple[int, int], int]
    """(quantity, face) → index in raise order."""
    order: list[tuple[int, int]]
    hands: tuple[dict[tuple[int, ...], int], dict[tuple[int, ...], int]]
    """Sorted die values → hand index, per seat."""
    rows: tuple[dict[int, bytes], dict[int, bytes]]
    """``node << 8 | hand`` → the packed (action, weight) pairs, per seat."""

    def weights(self, seat: int, node: int, hand: int) -> Weighted | None:
        row = self.rows[seat].get(node << 8 | hand)
        if row is None:
            return None
        return [(row[i], row[i + 1]) for i in range(0, len(row), 2)]


_TABLES: dict[str, Table | None] = {}


def _read(name: str) -> Table | None:
    # imported here: a cold start that never meets an endgame does not pay for them
    import json
    import struct
    import zlib
    from importlib import resources

    try:
        blob = (resources.files(__package__) / "endgames" / f"{name}.bin").read_bytes()
    except (FileNotFoundError, OSError):
        return None
    data = zlib.decompress(blob)
    head, _, body = data.partition(b"\n")
    header = json.loads(head)
    faces = list(header["faces"])
    n = (int(header["n"][0]), int(header["n"][1]))
    hands: list[dict[tuple[int, ...], int]] = []
    for count in n:
        combos = combinations_with_replacement(range(len(faces)), count)
        hands.append({tuple(sorted(faces[o] for o in c)): i for i, c in enumerate(combos)})
    order = [(int(q), int(f)) for q, f in header["bids"]]
    rows: tuple[dict[int, bytes], dict[int, bytes]] = ({}, {})
    pos, end = 0, len(body)
    record = struct.Struct("<BIBB")
    while pos < end:
        seat, node, hand, k = record.unpack_from(body, pos)
        pos += record.size
        rows[seat][node << 8 | hand] = body[pos : pos + 2 * k]
        pos += 2 * k
    return Table(name, n, {b: i for i, b in enumerate(order)}, order, (hands[0], hands[1]), rows)


def table(name: str) -> Table | None:
    """The named table, read on first use (``None`` if the package has none)."""
    if name not in _TABLES:
        _TABLES[name] = _read(name)
    return _TABLES[name]


def preload() -> int:
    """Read every table of the package now; how many there are.

    For a long-running server (``liars-dice serve``): every table is met within its first
    games anyway, and read on first use it is read inside a player's request (163 ms of CPU
    and 59 MB for all twelve, measured on the session's machine; the largest about 50 ms).
    A Lambda cold start keeps reading only what it meets.
    """
    from importlib import resources

    names = sorted(
        entry.name.removesuffix(".bin")
        for entry in (resources.files(__package__) / "endgames").iterdir()
        if entry.name.endswith(".bin")
    )
    for name in names:
        table(name)
    return len(names)


def _die(d: Any) -> int:
    return WILD if d == "*" else int(d)


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a heads-up round stands, in a table's terms."""

    table: Table
    seat: int
    node: int
    hand: int


def locate(view: dict[str, Any], pattern: str) -> Spot | None:
    """The table position of the view's seat, or ``None`` outside the tables.

    ``pattern`` names the rule system's tables with two ``{}`` for the dice of the opener and
    of the other player (``"<system>-{}v{}"`` and whatever else tells the tables apart).
    """
    game = view.get("game") or {}
    bids = game.get("round_bids")
    if bids is None:
        return None
    me = view["me"]["player_id"]
    live = [
        (p["id"], int(p["dice_count"]))
        for p in view["players"]
        if not (p.get("eliminated") or p.get("resigned")) and int(p["dice_count"]) > 0
    ]
    if len(live) != 2 or me not in (pid for pid, _ in live) or max(n for _, n in live) > 2:
        return None
    counts = dict(live)
    other = next(pid for pid, _ in live if pid != me)
    opener = bids[0]["player_id"] if bids else me
    if opener not in counts:
        return None
    second = other if opener == me else me
    t = table(pattern.format(counts[opener], counts[second]))
    if t is None:
        return None
    node = 0
    for i, bid in enumerate(bids):
        who = opener if i % 2 == 0 else second
        index = t.bids.get((int(bid["quantity"]), int(bid["face"])))
        if bid["player_id"] != who or index is None:
            return None
        node |= 1 << index
    seat = 0 if me == opener else 1
    if len(bids) % 2 != seat:
        return None
    own = tuple(sorted(_die(d) for d in (view["me"]["dice"] or ())))
    hand = t.hands[seat].get(own)
    if hand is None:
        return None
    return Spot(t, seat, node, hand)


def policy(view: dict[str, Any], pattern: str) -> tuple[Spot, Weighted] | None:
    """The table's weighted actions for the view's seat, or ``None`` outside the tables."""
    spot = locate(view, pattern)
    if spot is None:
        return None
    weights = spot.table.weights(spot.seat, spot.node, spot.hand)
    if not weights:
        return None
    return spot, weights


def play(view: dict[str, Any], pattern: str, level: str, roller: Any) -> dict[str, Any] | None:
    """The action a bot of ``level`` plays from the table ``pattern`` names: strong draws from
    the equilibrium weights, medium from their coarse copy; ``None`` for any other level or
    outside the tables."""
    if level not in ("strong", "medium"):
        return None
    found = policy(view, pattern)
    if found is None:
        return None
    spot, weights = found
    if level == "medium":
        weights = coarse(weights)
    turn = view["game"].get("turn") or {}
    return action(spot, draw(weights, roller), int(turn.get("number", 0)))


def coarse(weights: Weighted, step: int = 64) -> Weighted:
    """The medium bots' version: weights rounded to quarters (the likeliest kept if none is)."""
    out = [(a, (w + step // 2) // step) for a, w in weights]
    kept = [(a, w) for a, w in out if w > 0]
    if kept:
        return kept
    best = max(weights, key=lambda aw: aw[1])
    return [(best[0], 1)]


def draw(weights: Weighted, roller: Any) -> int:
    """One action drawn with the roller (a single ``below`` call; none for a sure action)."""
    if len(weights) == 1:
        return weights[0][0]
    r = roller.below(sum(w for _, w in weights))
    for action, w in weights:
        if r < w:
            return action
        r -= w
    return weights[-1][0]


def action(spot: Spot, code: int, turn: int) -> dict[str, Any]:
    """The engine action for a table action code."""
    if code == CALL:
        return {"type": "liar", "turn": turn}
    quantity, face = spot.table.order[code]
    return {"type": "bid", "quantity": quantity, "face": face, "turn": turn}
