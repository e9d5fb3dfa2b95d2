"""Poker Liar Dice's own events (moves; the shared ones are in ``engine.events``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from pydantic import Field

from ...events import Move


@dataclass(frozen=True, slots=True)
class ClaimAccepted(Move):
    """Poker Liar Dice: the receiver accepted the claim passed to them."""

    TYPE: ClassVar[str] = "claim_accepted"
    player_id: str


@dataclass(frozen=True, slots=True)
class DiceRerolled(Move):
    """Poker Liar Dice: how many dice the cup's holder rerolled (announced; faces stay hidden).

    ``exposed`` / ``unexposed``: cup positions set out in the open or taken back.
    """

    TYPE: ClassVar[str] = "dice_rerolled"
    OPTIONAL: ClassVar[tuple[str, ...]] = ("exposed", "unexposed")
    player_id: str
    count: Annotated[int, Field(ge=0, le=5)]
    exposed: list[int] | None = None
    unexposed: list[int] | None = None


@dataclass(frozen=True, slots=True)
class RollsStopped(Move):
    """Poker Liar Dice: the holder stopped the five-aces rolls."""

    TYPE: ClassVar[str] = "rolls_stopped"
    player_id: str
