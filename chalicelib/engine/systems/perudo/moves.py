"""Perudo's rules as pure functions of numbers (docs/RULES.md, "Perudo").

Nothing here knows a room: a bid is ``(quantity, face)`` with face 1 meaning aces, a hand is a
list of faces 1–6. ``system.py`` applies these rules to a room; the bots reason with them.

- Aces (1s) are wild: they count toward any face, except in a palifico round. A bid on aces
  counts aces only.
- Going to aces, the quantity may drop to half the current quantity, rounded up; leaving aces,
  it must be at least twice the ace quantity plus one; between aces bids, and between bids on
  other faces, a raise is as in classic (more dice, or as many on a higher face).
- The opening bid may not be on aces, except in palifico.
- Palifico: aces are not wild, bids on aces are ordinary bids on the face 1, and a raise
  keeps the current face (a higher quantity only), except that a player who holds a single
  die may change the face (then with the classic raise).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ...errors import IllegalBid

ACES: Final = 1
FACES: Final = (1, 2, 3, 4, 5, 6)
CALZA_MIN_PLAYERS: Final = 3
"""Calza is not offered when only two players have dice."""
PALIFICO_MIN_PLAYERS: Final = 3
"""A palifico round needs three or more players with dice."""

Bid = tuple[int, int]
"""(quantity, face); face 1 is aces."""


# -- counting ---------------------------------------------------------------------------------


def counts_toward(die: int, face: int, palifico: bool = False) -> bool:
    """A die counts toward a bid on ``face`` if it shows it, or is an ace (not in palifico)."""
    return die == face or (die == ACES and not palifico)


def count(hands: Iterable[Sequence[int]], face: int, palifico: bool = False) -> int:
    """Dice of every hand counting toward a bid on ``face``."""
    return sum(1 for hand in hands for d in hand if counts_toward(d, face, palifico))


def chance_per_die(face: int, palifico: bool = False) -> float:
    """The chance that one unseen fair die counts toward ``face``: 1/3 with aces wild, else 1/6."""
    return 1 / 6 if face == ACES or palifico else 1 / 3


# -- the order of bids ------------------------------------------------------------------------


def aces_over(quantity: int) -> int:
    """Going to aces over ``quantity`` of a face: half the quantity, rounded up."""
    return (quantity + 1) // 2


def leaving_aces(aces: int) -> int:
    """Leaving aces over ``aces`` aces: at least twice the ace quantity plus one."""
    return 2 * aces + 1


def bid_key(quantity: int, face: int) -> tuple[int, int]:
    """A key that orders bids outside palifico: a raise has a strictly higher key.

    A bid of k aces sits right above every bid of at most 2k dice and right below 2k + 1 dice
    of any face (half rounded up going in, twice plus one coming out).
    """
    return (2 * quantity, 7) if face == ACES else (quantity, face)


def lowest_quantity(
    current: Bid | None, face: int, *, palifico: bool = False, single_die: bool = False
) -> int | None:
    """The smallest legal quantity on ``face`` over ``current`` (or opening), None if never."""
    if current is None:
        return None if face == ACES and not palifico else 1
    q, f = current
    if palifico:
        if face != f and not single_die:
            return None
        return q if face > f else q + 1
    if face == ACES:
        return q + 1 if f == ACES else aces_over(q)
    if f == ACES:
        return leaving_aces(q)
    return q if face > f else q + 1


def check_bid(
    quantity: int,
    face: int,
    current: Bid | None,
    *,
    total: int,
    palifico: bool = False,
    single_die: bool = False,
) -> None:
    """Refuse a bid that the rules do not allow (an ``IllegalBid`` with a stable code)."""
    if face not in FACES:
        raise IllegalBid("face must be between 1 (aces) and 6", field="face")
    if not 1 <= quantity <= total:
        raise IllegalBid(f"quantity must be between 1 and {total} (dice in play)", field="quantity")
    if current is None:
        if face == ACES and not palifico:
            raise IllegalBid(
                "the opening bid may not be on aces (except in a palifico round)",
                field="face",
                code="opening_on_aces",
            )
        return
    q, f = current
    if palifico and face != f and not single_die:
        raise IllegalBid(
            f"palifico round: the face stays {f}; only a player with a single die may change it",
            field="face",
            code="palifico_face_fixed",
        )
    low = lowest_quantity(current, face, palifico=palifico, single_die=single_die)
    assert low is not None
    if quantity >= low:
        return
    if not palifico and face == ACES and f != ACES:
        raise IllegalBid(
            f"going to aces over {q}×{f} needs at least {low} aces (half, rounded up)",
            field="quantity",
            code="aces_below_half",
        )
    if not palifico and f == ACES and face != ACES:
        raise IllegalBid(
            f"leaving {q} aces needs at least {low} dice (twice plus one)",
            field="quantity",
            code="leaving_aces_too_low",
        )
    raise IllegalBid(
        f"a bid must raise {q}×{f}: a higher quantity, or the same quantity with a higher face"
        if not palifico or single_die
        else f"a palifico bid must raise the quantity of {f}s above {q}"
    )


def is_raise(
    bid: Bid, current: Bid | None, *, palifico: bool = False, single_die: bool = False
) -> bool:
    """Whether ``bid`` may follow ``current`` (any quantity: the dice in play are not checked)."""
    low = lowest_quantity(current, bid[1], palifico=palifico, single_die=single_die)
    return low is not None and bid[0] >= low


def legal_bids(
    current: Bid | None, total: int, *, palifico: bool = False, single_die: bool = False
) -> list[Bid]:
    """Every legal bid, face by face, lowest quantity first."""
    out: list[Bid] = []
    for face in FACES:
        low = lowest_quantity(current, face, palifico=palifico, single_die=single_die)
        if low is not None:
            out.extend((q, face) for q in range(low, total + 1))
    return out


def lowest_opening(palifico: bool) -> Bid:
    """The lowest legal opening bid: one 2, or in palifico one ace (aces are an ordinary face)."""
    return (1, ACES) if palifico else (1, 2)


# -- challenges -------------------------------------------------------------------------------


def dudo_loses(bid: Bid, counted: int) -> str:
    """Who loses a die on Dudo: ``"bidder"`` if fewer were counted than bid, else ``"caller"``."""
    return "bidder" if counted < bid[0] else "caller"


def calza_exact(bid: Bid, counted: int) -> bool:
    """A calza is right when exactly the bid quantity was counted."""
    return counted == bid[0]


def calza_offered(players_with_dice: int) -> bool:
    """Calza is not offered when only two players have dice."""
    return players_with_dice >= CALZA_MIN_PLAYERS


def calza_gains(dice_count: int, starting_dice: int) -> bool:
    """An exact calza wins a die back, never above the starting count."""
    return dice_count < starting_dice


def palifico_follows(before: int, after: int, already: bool, players_with_dice: int) -> bool:
    """The round after a player first drops to one die is palifico (three or more with dice).

    ``before``/``after`` are that player's dice around the challenge, ``already`` whether they
    have been down to one die before (palifico comes once per player per game).
    """
    first_drop = before > 1 and after == 1 and not already
    return first_drop and players_with_dice >= PALIFICO_MIN_PLAYERS
