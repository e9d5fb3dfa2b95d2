"""Wild Stars' bidding track: star bids between the number bids (the rules and the bot share it)."""

from __future__ import annotations

from ...state import WILD, Bid

STAR_FACE = WILD
FACES = (2, 3, 4, 5, 6)


def track_rank(quantity: int, face: int) -> int:
    """Twice the bid's space on the track: 2q for a number bid, 4k − 1 for k stars."""
    return 4 * quantity - 1 if face == STAR_FACE else 2 * quantity


def is_raise(quantity: int, face: int, current: Bid | None) -> bool:
    """A higher space with any face, or the same number space with a higher face."""
    if current is None:
        return True
    new, old = track_rank(quantity, face), track_rank(current.quantity, current.face)
    return new > old or (new == old and face != STAR_FACE and face > current.face)
