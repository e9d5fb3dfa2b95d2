"""Pairwise finishing-position Elo (docs/RULES.md, "Ratings").

Every pair of human participants is a match won by the better rank. With N rated humans each
player's change is ``K / (N − 1) × Σ (score − expected)`` over that player's pairs, with
``expected = 1 / (1 + 10^((R_opponent − R_self) / 400))`` and ``K = 32``. Bots take no part.
Deltas are rounded to one decimal place (half away from zero) and ratings are kept to one
decimal; one human against bots changes nothing.

Not rated: a human who left the game (resigned, or was eliminated on timeouts) without having
made a move of their own. Such a player takes no part in the pairs, so they move nobody's
rating, and fresh accounts that join and resign at once cannot farm anyone's rating.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .errors import InvalidOrder, Unrated
from .model import Player, Room

K = 32
DEFAULT_RATING = 1500.0


def round1(x: float) -> float:
    """Round to one decimal, half away from zero."""
    return float(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def expected(r_self: float, r_opp: float) -> float:
    """Expected score of ``r_self`` against ``r_opp``."""
    return 1.0 / (1.0 + 10 ** ((r_opp - r_self) / 400))


def pairwise_changes(ranks: dict[str, int], ratings: dict[str, float]) -> dict[str, float]:
    """Rating deltas for humans with the given ranks (lower is better) and ratings."""
    ids = list(ranks)
    n = len(ids)
    if n < 2:
        return {i: 0.0 for i in ids}
    factor = K / (n - 1)
    out = {}
    for a in ids:
        total = 0.0
        for b in ids:
            if a == b:
                continue
            score = 1.0 if ranks[a] < ranks[b] else 0.0 if ranks[a] > ranks[b] else 0.5
            total += score - expected(ratings[a], ratings[b])
        out[a] = round1(factor * total)
    return out


def _humans(room: Room) -> dict[str, str]:
    """Player id → user id of the rated human participants (see ``takes_part``)."""
    return {
        p.id: p.user_id
        for p in room.players
        if not p.is_bot and p.user_id is not None and takes_part(p)
    }


def takes_part(player: Player) -> bool:
    """A human is rated unless they left the game without a move of their own."""
    return player.moved or player.in_game


def changes_for_order(
    room: Room, order: list[str], ratings: dict[str, float]
) -> list[dict[str, Any]]:
    """Elo preview: the changes a complete finishing order would produce (fixed ranks enforced).

    ``ratings`` maps user ids to current ratings. Raises ``Unrated`` or ``InvalidOrder``.
    """
    if not room.rated:
        raise Unrated("this game is unrated: ratings do not change")
    ids = [p.id for p in room.players]
    if (
        not isinstance(order, list)
        or len(order) != len(ids)
        or sorted(map(str, order)) != sorted(ids)
    ):
        raise InvalidOrder("order must list every player of the game exactly once", field="order")
    for position, pid in enumerate(order, start=1):
        p = room.player(pid)
        assert p is not None
        if p.rank is not None and p.rank != position:
            raise InvalidOrder(f"{p.name} already holds rank {p.rank}", field="order")
    for p in room.players:
        if p.rank is not None and order[p.rank - 1] != p.id:
            raise InvalidOrder(f"rank {p.rank} is fixed for {p.name}", field="order")
    humans = _humans(room)
    ranks = {pid: order.index(pid) + 1 for pid in humans}
    # A finished game's preview starts from the ratings the game was rated from, not from
    # today's ratings (which already include this game's result).
    recorded = {
        row["player_id"]: float(row["rating_before"])
        for row in (room.results or {}).get("ranking", [])
        if row.get("rating_before") is not None
    }
    before = {
        pid: recorded.get(pid, float(ratings.get(uid, DEFAULT_RATING)))
        for pid, uid in humans.items()
    }
    deltas = pairwise_changes(ranks, before)
    return [
        {
            "player_id": pid,
            "before": before[pid],
            "delta": deltas[pid],
            "after": round1(before[pid] + deltas[pid]),
        }
        for pid in order
        if pid in humans
    ]


def final_changes(room: Room, ratings: dict[str, float]) -> dict[str, dict[str, float]]:
    """For a finished rated game: user id → {"before", "delta", "after"} for every human."""
    humans = _humans(room)
    ranks = {}
    for pid in humans:
        p = room.player(pid)
        assert p is not None and p.rank is not None
        ranks[pid] = p.rank
    before = {pid: float(ratings.get(uid, DEFAULT_RATING)) for pid, uid in humans.items()}
    deltas = pairwise_changes(ranks, before)
    return {
        humans[pid]: {
            "before": before[pid],
            "delta": deltas[pid],
            "after": round1(before[pid] + deltas[pid]),
        }
        for pid in humans
    }


def apply_to_results(room: Room, changes: dict[str, dict[str, float]]) -> None:
    """Write ratings before/after into the room's published results (humans in rated games)."""
    if room.results is None:
        return
    by_player = {p.id: p.user_id for p in room.players}
    for row in room.results["ranking"]:
        uid = by_player.get(row["player_id"])
        change = changes.get(uid) if uid else None
        if change is not None:
            row["rating_before"] = change["before"]
            row["rating_after"] = change["after"]
    room.results["elo"] = {"k": K, "applied": True}
