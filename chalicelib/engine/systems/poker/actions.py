"""The wire schemas of Poker Liar Dice's own turn actions (``liar`` is shared: ``engine.actions``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...actions import ActionRequest, Turn
from .commands import AcceptClaim, MakeClaim, PartialHand, RerollDice, StopRolling

PokerFace = Literal["9", "T", "J", "Q", "K", "A"]
"""A poker die's face, low to high (Poker Liar Dice)."""
PokerCategory = Literal[
    "high_card",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
]
PokerPosition = Annotated[int, Field(ge=0, le=4)]
Positions = Annotated[list[PokerPosition], Field(max_length=5)]


class PartialClaim(ActionRequest):
    """A partial claim: the lowest legal hand of ``category`` whose groups start with ``faces``."""

    category: PokerCategory
    faces: Annotated[list[PokerFace], Field(max_length=5)] = []  # noqa: RUF012 (pydantic copies defaults)

    def part(self) -> PartialHand:
        """The partial hand as a command part."""
        return PartialHand(self.category, tuple(self.faces))


class ClaimAction(ActionRequest):
    """Poker Liar Dice: pass the cup with a claim.

    ``hand`` is five faces, ``"better"`` (the lowest hand beating the claim accepted and
    containing the exposed dice) or a partial claim; the server stores the full hand. At the
    ``respond`` stage a claim accepts and passes the cup unlooked; at ``reroll`` it passes
    without rerolling. ``expose``/``unexpose`` set cup positions out or take them back first.
    """

    type: Literal["claim"]
    turn: Turn
    hand: (
        Annotated[list[PokerFace], Field(min_length=5, max_length=5)]
        | Literal["better"]
        | (PartialClaim)
    )
    expose: Positions | None = None
    unexpose: Positions | None = None

    def command(self) -> MakeClaim:
        """The claim as a command."""
        hand = self.hand
        said = hand.part() if isinstance(hand, PartialClaim) else hand
        return MakeClaim(
            self.turn,
            tuple(said) if isinstance(said, list) else said,
            _tuple(self.expose),
            _tuple(self.unexpose),
        )


class AcceptAction(ActionRequest):
    """Poker Liar Dice: accept the claim passed to you and look at the cup."""

    type: Literal["accept"]
    turn: Turn

    def command(self) -> AcceptClaim:
        """Accepting as a command."""
        return AcceptClaim(self.turn)


class RerollAction(ActionRequest):
    """Poker Liar Dice: reroll these cup positions (the count is announced), expose or take back."""

    type: Literal["reroll"]
    turn: Turn
    dice: Positions = []  # noqa: RUF012 (pydantic copies defaults)
    expose: Positions | None = None
    unexpose: Positions | None = None

    def command(self) -> RerollDice:
        """The reroll as a command."""
        return RerollDice(self.turn, tuple(self.dice), _tuple(self.expose), _tuple(self.unexpose))


class StopAction(ActionRequest):
    """Poker Liar Dice: stop rolling for five aces (the cup stands as it is)."""

    type: Literal["stop"]
    turn: Turn

    def command(self) -> StopRolling:
        """Stopping as a command."""
        return StopRolling(self.turn)


def _tuple(positions: list[int] | None) -> tuple[int, ...] | None:
    return None if positions is None else tuple(positions)
