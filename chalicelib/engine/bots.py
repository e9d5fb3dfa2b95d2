"""Classic bots: decisions from the bot's own player view only (SPEC §8).

``decide(view, level, memory, roller)`` sees exactly what a player in that seat sees: its own
dice, every player's dice count, the current bid and completed reveals. Never the stored state.

- ``strong`` (default): estimates the chance that a bid is true from its own dice and the
  binomial distribution of the unseen dice (wildcards included), calls Liar! when the current
  bid is unlikely, otherwise makes the most probable raise.
- ``easy``: the same estimate, but a looser threshold and random raises.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any

from .dice import Roller


@lru_cache(maxsize=4096)
def tail(n: int, k: int, p_milli: int) -> float:
    """P(Binomial(n, p) >= k) with ``p = p_milli / 1000``."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    p = p_milli / 1000
    q = 1 - p
    return sum(comb(n, i) * p**i * q ** (n - i) for i in range(k, n + 1))


def _p_milli(wildcard_chance: int, face: int) -> int:
    """Chance (per mille) that one unseen die counts toward ``face``: the face itself or ``*``."""
    w = wildcard_chance / 100
    return round((w + (1 - w) / 6) * 1000)


def bid_probability(own: list[Any], unseen: int, quantity: int, face: int,
                    wildcard_chance: int) -> float:
    """Chance that at least ``quantity`` dice show ``face`` or ``*``, given our own dice."""
    mine = sum(1 for d in own if d == face or d == "*")
    return tail(unseen, quantity - mine, _p_milli(wildcard_chance, face))


def legal_raises(current: dict[str, Any] | None, total: int) -> list[tuple[int, int]]:
    """Every bid that raises ``current`` (lowest useful ones per face)."""
    out = []
    for face in range(1, 7):
        if current is None:
            low = 1
        elif face > current["face"]:
            low = current["quantity"]
        else:
            low = current["quantity"] + 1
        if low <= total:
            out.append((low, face))
            if low + 1 <= total:
                out.append((low + 1, face))
    return out


def decide(view: dict[str, Any], level: str, memory: dict[str, Any],
           roller: Roller) -> dict[str, Any]:
    """Choose a legal action for the seat the view belongs to."""
    game = view["game"]
    own = view["me"]["dice"] or []
    total = game["total_dice"]
    unseen = total - len(own)
    chance = view["settings"]["wildcard_chance"]
    turn = game["turn"]["number"]
    current = game["current_bid"]
    raises = legal_raises(current, total)
    if current is not None:
        p_true = bid_probability(own, unseen, current["quantity"], current["face"], chance)
        threshold = 0.5 if level != "easy" else 0.3
        if not raises or p_true < threshold:
            return {"type": "liar", "turn": turn}
    if level == "easy":
        quantity, face = raises[roller.below(len(raises))]
        return {"type": "bid", "quantity": quantity, "face": face, "turn": turn}
    best = max(raises, key=lambda b: (bid_probability(own, unseen, b[0], b[1], chance), -b[0]))
    return {"type": "bid", "quantity": best[0], "face": best[1], "turn": turn}


def observe(memory: dict[str, Any], reveal: Any) -> None:
    """Learn from a completed reveal (the strong policy's opponent model lives here)."""
    return None
