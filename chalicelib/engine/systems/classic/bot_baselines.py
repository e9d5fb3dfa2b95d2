"""Baseline policies the benchmark measures the strong bot against (never offered to hosts).

- ``random``: a uniformly random legal action (every legal bid, and Liar! when a bid exists).
- ``naive``: calls when the bid exceeds the expected count given its own dice, otherwise
  raises its best face (most own dice counting toward it) by one step.
- ``binomial``: calls when the bid's probability given its own dice is below one half,
  otherwise makes its most probable raise.
"""

from __future__ import annotations

from typing import Any

from ...bot_model import Seat, legal_raises, lowest_raise, plain_probability, tail
from ...dice import Roller

Action = dict[str, Any]


def _bid(seat: Seat, quantity: int, face: int) -> Action:
    return {"type": "bid", "quantity": quantity, "face": face, "turn": seat.turn}


def _liar(seat: Seat) -> Action:
    return {"type": "liar", "turn": seat.turn}


def random_play(seat: Seat, roller: Roller) -> Action:
    """A uniformly random legal action."""
    options: list[tuple[int, int]] = []
    for face in range(1, 7):
        low = lowest_raise(seat.current, face)
        options.extend((q, face) for q in range(low, seat.total + 1))
    n = len(options) + (1 if seat.current is not None else 0)
    pick = roller.below(n)
    if pick >= len(options):
        return _liar(seat)
    return _bid(seat, *options[pick])


def naive(seat: Seat) -> Action:
    """Call when the bid exceeds the expected count, otherwise raise the best face by one."""
    p = seat.p_milli / 1000
    if seat.current is not None:
        q, f = seat.current
        if q > seat.mine[f] + seat.unseen * p:
            return _liar(seat)
    best = max(range(1, 7), key=lambda f: (seat.mine[f], f))
    if seat.current is None:
        return _bid(seat, max(1, seat.mine[best]), best)
    q, f = seat.current
    quantity = q if best > f else q + 1
    if quantity > seat.total:
        return _liar(seat)
    return _bid(seat, quantity, best)


def binomial(seat: Seat) -> Action:
    """Call below one half, otherwise make the most probable raise."""
    own = list(seat.own)
    if seat.current is not None:
        q, f = seat.current
        if plain_probability(own, seat.unseen, q, f, seat.p_milli) < 0.5:
            return _liar(seat)
    raises = legal_raises(seat.current, seat.total)
    if not raises:
        return _liar(seat)
    best = max(
        raises, key=lambda b: (tail(seat.unseen, b[0] - seat.mine[b[1]], seat.p_milli), -b[0], b[1])
    )
    return _bid(seat, *best)


# -- exploiters: bench-only bots built to push the strong bot around ---------------------------

ALWAYS_CALL_BELOW = 0.7


def always_call(seat: Seat) -> Action:
    """Call whenever the bid's chance given its own dice is below 0.7; else the likeliest raise.

    It exploits a bot that bids what is merely plausible: most such bids get called.
    """
    own = list(seat.own)
    if seat.current is not None:
        q, f = seat.current
        if plain_probability(own, seat.unseen, q, f, seat.p_milli) < ALWAYS_CALL_BELOW:
            return _liar(seat)
    return binomial(seat)


def always_bluff(seat: Seat) -> Action:
    """Raise by the smallest step on its weakest face (fewest own dice toward it), never call.

    It exploits a bot that believes bids: every bid says nothing about its hand. It calls
    only when no raise is left.
    """
    weakest = min(range(1, 7), key=lambda f: (seat.mine[f], f))
    quantity = lowest_raise(seat.current, weakest)
    if quantity > seat.total:
        return _liar(seat)
    return _bid(seat, quantity, weakest)


SWITCH_AT = 8
"""``switch-opener`` opens on air once this many dice or fewer are in play."""


def air_opener(seat: Seat, switch_at: int | None = None) -> Action:
    """Open on air: one more than its best count, on a face it holds none of; else naive.

    It exploits a bot that believes openings (the strong bot's opening read). With
    ``switch_at`` it first opens like naive (with what it holds) and opens on air only once
    ``switch_at`` dice or fewer are in play: it teaches the bot that its openings are covered,
    then switches (``switch-opener``).
    """
    if seat.current is None and (switch_at is None or seat.total <= switch_at):
        empty = [f for f in range(1, 7) if seat.mine[f] == 0]
        if empty:
            quantity = min(seat.total, max(seat.mine[1:]) + 1)
            return _bid(seat, quantity, empty[-1])
    return naive(seat)


def honest_reader(seat: Seat) -> Action:
    """Believe the current bid and bid the face it implies; call only what it cannot believe.

    Granting that the bid is true, it raises that face by one when the count more likely than
    not reaches one more; otherwise it raises its own best face if that is likely, else it
    still answers on the bid's face (it believes the bid) unless the bid is nearly impossible
    given its own dice. It exploits a bot whose bids read its hand (and is exploited by bluffs).
    """
    p = seat.p_milli
    best = max(range(1, 7), key=lambda f: (seat.mine[f], f))
    if seat.current is None:
        expected = seat.mine[best] + int(seat.unseen * p / 1000)
        return _bid(seat, max(1, expected), best)
    q, f = seat.current
    true = tail(seat.unseen, q - seat.mine[f], p)
    if q + 1 <= seat.total and true > 0:
        more = tail(seat.unseen, q + 1 - seat.mine[f], p) / true
        if more >= 0.5:
            return _bid(seat, q + 1, f)
    quantity = lowest_raise(seat.current, best)
    if quantity <= seat.total and tail(seat.unseen, quantity - seat.mine[best], p) >= 0.5:
        return _bid(seat, quantity, best)
    if true < 0.05 or q + 1 > seat.total:
        return _liar(seat)
    return _bid(seat, q + 1, f)
