"""Poker Liar Dice's own events (moves; the shared ones are in ``engine.events``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...events import Move


@dataclass(frozen=True, slots=True)
class ClaimAccepted(Move):
    """The receiver accepted the claim passed to them (and looked, unless they passed it on)."""

    TYPE: ClassVar[str] = "claim_accepted"
    player_id: str


@dataclass(frozen=True, slots=True)
class DiceRerolled(Move):
    """The holder rerolled ``count`` dice (announced truthfully), exposing or taking back dice."""

    TYPE: ClassVar[str] = "dice_rerolled"
    OPTIONAL: ClassVar[tuple[str, ...]] = ("exposed", "unexposed")
    player_id: str
    count: int
    exposed: list[int] | None = None
    unexposed: list[int] | None = None


@dataclass(frozen=True, slots=True)
class RollsStopped(Move):
    """The holder stopped rolling for five aces; the cup stands."""

    TYPE: ClassVar[str] = "rolls_stopped"
    player_id: str
