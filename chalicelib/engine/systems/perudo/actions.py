"""Perudo's own turn action: the calza, its wire schema and its command (bids and Dudo use
the shared ``bid`` and ``liar``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ...actions import ActionRequest, Turn
from ...commands import Command


@dataclass(frozen=True, slots=True)
class CallCalza(Command):
    """Claim the current bid is exactly right."""

    TYPE: ClassVar[str] = "calza"
    turn: int


class CalzaAction(ActionRequest):
    """Perudo: claim the current bid is exactly right (not offered when two players have dice)."""

    type: Literal["calza"]
    turn: Turn

    def command(self) -> CallCalza:
        """The calza as a command."""
        return CallCalza(self.turn)
