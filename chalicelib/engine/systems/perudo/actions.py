"""Perudo's own turn action on the wire: the calza (bids and Dudo use the shared bodies)."""

from __future__ import annotations

from typing import Literal

from ...actions import ActionRequest, Turn
from .commands import CallCalza


class CalzaAction(ActionRequest):
    """Perudo: claim the current bid is exactly right (not offered when two players have dice)."""

    type: Literal["calza"]
    turn: Turn

    def command(self) -> CallCalza:
        """The calza as a command."""
        return CallCalza(self.turn)
