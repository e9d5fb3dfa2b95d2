"""Poker Liar Dice's own commands (``liar`` is shared: ``engine.commands.CallLiar``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...commands import Command


@dataclass(frozen=True, slots=True)
class PartialHand:
    """The lowest legal hand of ``category`` whose groups start with ``faces``."""

    category: str
    faces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MakeClaim(Command):
    """Pass the cup with a claim: five faces, ``"better"`` or a partial hand."""

    TYPE: ClassVar[str] = "claim"
    turn: int
    hand: tuple[str, ...] | str | PartialHand
    expose: tuple[int, ...] | None = None
    unexpose: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class AcceptClaim(Command):
    """Accept the claim passed to you and look at the cup."""

    TYPE: ClassVar[str] = "accept"
    turn: int


@dataclass(frozen=True, slots=True)
class RerollDice(Command):
    """Reroll these cup positions (announced), exposing or taking back dice."""

    TYPE: ClassVar[str] = "reroll"
    turn: int
    dice: tuple[int, ...] = ()
    expose: tuple[int, ...] | None = None
    unexpose: tuple[int, ...] | None = None

    def announced(self) -> dict[str, Any]:
        """Cup positions (``dice``) become how many dice were rerolled (``count``).

        In the five-aces rolls a timeout rerolls every die that is not an ace, so the positions
        would tell everyone where the holder's hidden non-aces lie; the rules announce the count.
        """
        out = {k: v for k, v in self.as_action().items() if k not in ("turn", "dice")}
        out["count"] = len(self.dice)
        return out


@dataclass(frozen=True, slots=True)
class StopRolling(Command):
    """Stop rolling for five aces: the cup stands as it is."""

    TYPE: ClassVar[str] = "stop"
    turn: int
