"""Perudo's own event (a move; the shared ones are in ``engine.events``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...events import Move


@dataclass(frozen=True, slots=True)
class CalzaCalled(Move):
    """Perudo: a calza (the current bid claimed exactly right); the reveal follows."""

    TYPE: ClassVar[str] = "calza_called"
    player_id: str
