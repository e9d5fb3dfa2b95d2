"""Classic Liar's Dice (docs/RULES.md, "Classic"): the rules (``rules``) and the bots (``bot``)."""

from .rules import CLASSIC

__all__ = ["CLASSIC"]
