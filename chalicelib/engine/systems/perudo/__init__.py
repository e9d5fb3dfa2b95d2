"""Perudo (Dudo): aces wild, calza and palifico rounds (docs/RULES.md, "Perudo").

``moves`` holds the rules as pure functions, ``rules`` applies them to a room (the system),
``bot`` plays them from a player's view; ``actions``, ``commands`` and ``events`` are the
calza's wire schema, command and event.
"""

from .rules import PERUDO

__all__ = ["PERUDO"]
