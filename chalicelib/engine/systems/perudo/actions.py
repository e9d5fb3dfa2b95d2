"""Perudo's own turn action on the wire: the calza (bids and Dudo are the shared bodies)."""

from __future__ import annotations

from typing import Literal

from ...actions import ActionRequest, Turn


class CalzaAction(ActionRequest):
    """Perudo: claim the current bid is exactly right (not offered when two players have dice)."""

    type: Literal["calza"]
    turn: Turn
