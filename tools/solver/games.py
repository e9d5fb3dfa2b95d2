"""Heads-up single rounds as the solver sees them: die outcomes, bids in raise order, hands.

A round is played by the opener (player 0, ``n[0]`` dice) and the other player (player 1,
``n[1]`` dice). Player 0 must bid; then each player in turn raises (any later bid in the
order) or calls; the call ends the round: the bid is true when at least ``quantity`` dice
count toward it, and then the caller loses, else the bidder loses. Utilities are +1 for the
winner, -1 for the loser (so P(lose) = (1 - u) / 2).

- ``classic(n0, n1, w)``: docs/RULES.md's classic rules: each die shows ``*`` with chance
  ``w`` percent, else a fair 1-6; a bid on a face counts that face and ``*``; faces 1-6 only,
  ordered by (quantity, face).
- ``perudo(n0, n1)``: Perudo heads-up (no calza, no palifico with two players): fair dice,
  aces (1) count toward every other face, a bid on aces counts aces only; bids ordered by
  ``moves.bid_key`` (k aces sit between 2k and 2k + 1 of a face); no opening on aces.
- ``openspiel(n0, n1)``: OpenSpiel's ``liars_dice`` (fair dice, 6 is wild and counts toward
  every face; bids ordered by (quantity, face); 1 die each has value -7/258 for player 0).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

WILD = 0
"""The engine's value for a ``*`` die (chalicelib.engine.state.WILD)."""


@dataclass(frozen=True)
class Game:
    """One heads-up round: see the module docstring."""

    name: str
    n: tuple[int, int]
    probs: np.ndarray
    """(K,) chance of each die outcome."""
    faces: tuple[int, ...]
    """(K,) the engine's die value of each outcome."""
    bids: tuple[tuple[int, int], ...]
    """(B,) (quantity, face) in raise order, as the engine writes them."""
    matches: np.ndarray
    """(B, K) whether outcome k counts toward bid b."""
    opening: np.ndarray
    """(B,) whether bid b may open the round."""

    @property
    def quantity(self) -> np.ndarray:
        return np.array([q for q, _ in self.bids])

    def hands(self, player: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """Every hand of ``player`` (sorted outcome indices) and its chance."""
        k = len(self.probs)
        hands = list(itertools.combinations_with_replacement(range(k), self.n[player]))
        chance = []
        for h in hands:
            ways = math.factorial(len(h))
            for _, group in itertools.groupby(h):
                ways //= math.factorial(len(list(group)))
            chance.append(ways * float(np.prod([self.probs[o] for o in h])))
        return hands, np.array(chance)

    def counts(self, player: int) -> np.ndarray:
        """(H, B): how many dice of each hand count toward each bid."""
        hands, _ = self.hands(player)
        return np.array(
            [[int(self.matches[b, list(h)].sum()) for b in range(len(self.bids))] for h in hands]
        )

    def hand_key(self, player: int) -> list[tuple[int, ...]]:
        """Each hand as the engine's sorted die values (what the bot sees as its dice)."""
        hands, _ = self.hands(player)
        return [tuple(sorted(self.faces[o] for o in h)) for h in hands]


def classic(n0: int, n1: int, wildcard: int) -> Game:
    """Classic with ``wildcard`` percent ``*`` dice."""
    w = wildcard / 100
    faces = (1, 2, 3, 4, 5, 6) + ((WILD,) if wildcard else ())
    probs = np.array([(1 - w) / 6] * 6 + ([w] if wildcard else []))
    total = n0 + n1
    bids = tuple((q, f) for q in range(1, total + 1) for f in range(1, 7))
    matches = np.array([[o in (f, WILD) for o in faces] for _, f in bids])
    return Game(
        f"classic-{n0}v{n1}-w{wildcard}",
        (n0, n1),
        probs,
        faces,
        bids,
        matches,
        np.ones(len(bids), bool),
    )


def perudo(n0: int, n1: int) -> Game:
    """Perudo heads-up (aces wild, half-quantity aces, no opening on aces)."""
    faces = (1, 2, 3, 4, 5, 6)
    probs = np.full(6, 1 / 6)
    total = n0 + n1
    bids = [(q, f) for q in range(1, total + 1) for f in range(1, 7)]
    bids.sort(key=lambda b: (2 * b[0], 7) if b[1] == 1 else b)
    matches = np.array([[o == f or (o == 1 and f != 1) for o in faces] for _, f in bids])
    opening = np.array([f != 1 for _, f in bids])
    return Game(f"perudo-{n0}v{n1}", (n0, n1), probs, faces, tuple(bids), matches, opening)


def openspiel(n0: int = 1, n1: int = 1) -> Game:
    """OpenSpiel's liars_dice (6 wild)."""
    faces = (1, 2, 3, 4, 5, 6)
    probs = np.full(6, 1 / 6)
    total = n0 + n1
    bids = tuple((q, f) for q in range(1, total + 1) for f in range(1, 7))
    matches = np.array([[o in (f, 6) for o in faces] for _, f in bids])
    return Game(
        f"openspiel-{n0}v{n1}", (n0, n1), probs, faces, bids, matches, np.ones(len(bids), bool)
    )
