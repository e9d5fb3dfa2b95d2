"""The wire schemas of the shared actions: ``bid`` and ``liar`` (turn actions more than one
rule system plays), ``agree`` and ``resign`` (the shared flow's own).

A rule system declares the pydantic bodies of its turn actions (``RuleSystem.action_bodies``);
``chalicelib.schemas`` builds the ``POST /rooms/{room_id}/actions`` body from the registry.
Bodies are strict and refuse unknown fields, like every request body; each builds its typed
command (``command()``), which is what the engine takes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from .commands import Agree, CallLiar, Command, PlaceBid, Resign


class ActionRequest(BaseModel):
    """Base of action bodies: strict types, unknown fields refused."""

    # defer_build: built on first use, not by ``import app`` (cold start); same validation
    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)

    def command(self) -> Command:
        """The typed command this body asks for."""
        raise NotImplementedError


def _not_bool_or_decimal(value: Any) -> Any:
    # A Literal of ints also matches True (== 1) and 2.0 (== 2): only JSON integers count.
    if isinstance(value, bool | float):
        raise ValueError("must be a whole number (not true/false or a decimal)")
    return value


WholeNumber = BeforeValidator(_not_bool_or_decimal)
"""Put on every ``Literal`` of ints in a request model."""

Turn = Annotated[int, Field(ge=0, le=10**9)]
Face = Annotated[Literal[1, 2, 3, 4, 5, 6, "*"], WholeNumber]
"""A bid's face: 1–6, or ``"*"`` for a star bid (Wild Stars; the rule system checks which apply)."""
CupPosition = Annotated[int, Field(ge=0, le=9)]


class BidAction(ActionRequest):
    """Raise the bid: ``quantity`` dice showing ``face`` (or ``*``).

    Wild Stars only: ``show`` sets those cup positions out in the open and rerolls the rest of
    the cup (``reroll: true`` may say so beside it); a reroll without ``show`` is refused.
    """

    type: Literal["bid"]
    quantity: Annotated[int, Field(ge=1, le=10_000)]
    face: Face
    turn: Turn
    show: Annotated[list[CupPosition], Field(max_length=10)] | None = None
    reroll: bool | None = None

    def command(self) -> PlaceBid:
        """The bid as a command."""
        show = None if self.show is None else tuple(self.show)
        return PlaceBid(self.quantity, self.face, self.turn, show, self.reroll)


class LiarAction(ActionRequest):
    """Call Liar! on the current bid."""

    type: Literal["liar"]
    turn: Turn

    def command(self) -> CallLiar:
        """Liar! as a command."""
        return CallLiar(self.turn)


class AgreeAction(ActionRequest):
    """Agree to start the next round (during a break)."""

    type: Literal["agree"]

    def command(self) -> Agree:
        """Agreeing as a command."""
        return Agree()


class ResignAction(ActionRequest):
    """Resign from the game."""

    type: Literal["resign"]

    def command(self) -> Resign:
        """Resigning as a command."""
        return Resign()


SHARED_FLOW_BODIES: tuple[type[ActionRequest], ...] = (AgreeAction, ResignAction)
"""The actions every room takes whatever its rule system (no ``turn``)."""
