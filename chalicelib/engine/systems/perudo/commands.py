"""Perudo's own command: the calza (the shared ``bid`` and ``liar`` are in ``engine.commands``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...commands import Command


@dataclass(frozen=True, slots=True)
class CallCalza(Command):
    """Claim the current bid is exactly right."""

    TYPE: ClassVar[str] = "calza"
    turn: int
