"""Wild Stars (docs/RULES.md): the bidding track (``track``), the rules and the bots."""

from .rules import WILD_STARS

__all__ = ["WILD_STARS"]
