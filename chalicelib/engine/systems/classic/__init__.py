"""Classic Liar's Dice (SPEC §3): the rules (``rules``) and the bots (``bot``)."""

from .rules import CLASSIC

__all__ = ["CLASSIC"]
