"""What bots compute with: binomial tables, the bot's reading of its view, and opponent models.

Everything here is a pure function of public information or of the bot's own dice:

- cached binomial ``pmf``/``tail`` tables (probability in per mille, so the cache stays small
  and hits across decisions);
- ``Seat``: the bot's own reading of its player view (own matching dice per face, who holds how
  many dice, who bid the current bid, who acts after us);
- the opponent model kept in ``room.bot_memory``: compact integer counters per player id,
  updated by ``observe`` from each completed reveal (public: every hand and every bid of that
  round). No histories are stored, so the room item stays small.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from .state import WILD, Bid, Reveal

# -- binomial tables --------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def pmf(n: int, p_milli: int) -> tuple[float, ...]:
    """P(Binomial(n, p) = i) for i in 0..n, with ``p = p_milli / 1000``."""
    p = min(max(p_milli, 1), 999) / 1000
    q = 1.0 - p
    out = [q**n]
    ratio = p / q
    for i in range(n):
        out.append(out[-1] * (n - i) / (i + 1) * ratio)
    return tuple(out)


@lru_cache(maxsize=8192)
def tail_table(n: int, p_milli: int) -> tuple[float, ...]:
    """``t[k] = P(Binomial(n, p) >= k)`` for k in 0..n+1."""
    probs = pmf(n, p_milli)
    out = [0.0] * (n + 2)
    acc = 0.0
    for i in range(n, -1, -1):
        acc += probs[i]
        out[i] = min(acc, 1.0)
    return tuple(out)


def tail_at(table: tuple[float, ...], k: int) -> float:
    """``table[k]`` with the obvious values outside the table (1 below 0, 0 above n)."""
    if k <= 0:
        return 1.0
    if k >= len(table):
        return 0.0
    return table[k]


def tail(n: int, k: int, p_milli: int) -> float:
    """P(Binomial(n, p) >= k) with ``p = p_milli / 1000``."""
    return tail_at(tail_table(max(n, 0), p_milli), k)


@lru_cache(maxsize=16)
def die_p_milli(wildcard_chance: int) -> int:
    """Chance (per mille) that one unseen die counts toward a given face: the face itself or ``*``."""
    w = wildcard_chance / 100
    return round((w + (1 - w) / 6) * 1000)


def matching(dice: list[Any], face: int) -> int:
    """How many of ``dice`` count toward ``face`` (the face or ``*``; a normal 1 is not wild)."""
    return sum(1 for d in dice if d in (face, WILD, "*"))


def plain_probability(own: list[Any], unseen: int, quantity: int, face: int, p_milli: int) -> float:
    """Chance that a bid is true given only one's own dice (binomial over the unseen dice)."""
    return tail(unseen, quantity - matching(own, face), p_milli)


# -- the bot's reading of its view --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    """What a bot reads from its player view, in the form its policies use."""

    me: str
    turn: int
    own: tuple[Any, ...]
    mine: tuple[int, ...]
    """Own dice counting toward each face; index 0 unused, 1..6 the faces."""
    total: int
    unseen: int
    p_milli: int
    penalty: str
    counts: dict[str, int]
    """Dice count of every player still in the game."""
    next_id: str | None
    """The player who acts after us this round (challenges our bid, or raises it)."""
    current: tuple[int, int] | None
    """The current bid as (quantity, face)."""
    bidder: str | None
    opening: bool = False
    """The current bid opened the round (the round's bids so far are that one bid)."""

    @property
    def players(self) -> int:
        """Players still in the game."""
        return len(self.counts)


_FACE_SLOT: dict[Any, int] = {f: f for f in range(1, 7)}


def _mine(own: tuple[Any, ...]) -> tuple[int, ...]:
    """``matching(own, face)`` for every face (index 0 unused), in one pass over the dice."""
    per = [0] * 7
    wild = 0
    for d in own:
        if d in (WILD, "*"):
            wild += 1
        else:
            slot = _FACE_SLOT.get(d)
            if slot is not None:
                per[slot] += 1
    if wild:
        return (0, *(n + wild for n in per[1:]))
    return tuple(per)


def read_view(view: dict[str, Any]) -> Seat:
    """Extract the bot's decision inputs from its player view (and nothing else)."""
    game = view["game"]
    me_view = view["me"]
    own = tuple(me_view["dice"] or ())
    me = me_view["player_id"]
    counts = {
        p["id"]: int(p["dice_count"])
        for p in view["players"]
        if not (p["eliminated"] or p["resigned"])
    }
    next_id = None
    if me in counts and len(counts) > 1:
        order = list(counts)
        next_id = order[(order.index(me) + 1) % len(order)]
    total = int(game["total_dice"])
    bid = game["current_bid"]
    settings = view["settings"]
    turn = game.get("turn")
    said = game.get("round_bids")
    return Seat(
        me=me,
        turn=int(turn["number"]) if turn else 0,
        own=own,
        mine=_mine(own),
        total=total,
        unseen=total - len(own),
        p_milli=die_p_milli(int(settings["wildcard_chance"])),
        penalty=str(settings["penalty"]),
        counts=counts,
        next_id=next_id,
        current=(int(bid["quantity"]), int(bid["face"])) if bid else None,
        bidder=bid["player_id"] if bid else None,
        opening=bool(bid) and said is not None and len(said) == 1,
    )


def lowest_raise(current: tuple[int, int] | None, face: int) -> int:
    """The smallest quantity on ``face`` that raises ``current`` (quantity, face), or opens."""
    if current is None:
        return 1
    # A raise keeps the quantity with a higher face, or increases the quantity (any face).
    return current[0] if face > current[1] else current[0] + 1


def legal_raises(
    current: tuple[int, int] | None, total: int, extra: int = 0
) -> list[tuple[int, int]]:
    """The lowest legal bid on each face, plus up to ``extra`` higher quantities on that face."""
    out = []
    for face in range(1, 7):
        low = lowest_raise(current, face)
        for q in range(low, min(low + extra, total) + 1):
            out.append((q, face))
    return out


# -- opponent model (room.bot_memory) ---------------------------------------------------------

CALL_BINS = 5
"""Calling decisions are counted in bins of the caller's own estimate that the bid was true."""

# Layout of a player's counter list in memory["o"][player_id]:
BIDS, BLUFFS, HONEST_MATCH, HONEST_DICE = 0, 1, 2, 3
FACED = 4
CALLED = FACED + CALL_BINS
STAT_LEN = CALLED + CALL_BINS

DEFAULT_CALL_RATE = (0.9, 0.65, 0.35, 0.1, 0.03)
"""Prior chance that a player calls, per bin of their own chance that the bid is true."""
PRIOR_CALLS = 2.0
PRIOR_BLUFF = 0.15
PRIOR_BIDS = 6.0
PRIOR_HONEST_LIFT = 150
"""Prior: an honest bidder's dice count toward the bid face this much (per mille) more often."""
PRIOR_HONEST_DICE = 8.0
DECAY_AT = 120
"""Counters are halved when a player's bids or calling decisions seen pass this."""


def stats(memory: dict[str, Any], player_id: str) -> list[int] | None:
    """The counters learned about one player, if any."""
    got = memory.get("o", {}).get(player_id)
    return got if isinstance(got, list) and len(got) == STAT_LEN else None


def call_bin(probability: float) -> int:
    """The bin of a chance that a bid is true."""
    return min(int(probability * CALL_BINS), CALL_BINS - 1)


def call_rates(memory: dict[str, Any], player_id: str | None) -> tuple[float, ...]:
    """How often this player calls Liar!, per bin of their own chance that the bid is true."""
    s = stats(memory, player_id) if player_id else None
    if s is None:
        return DEFAULT_CALL_RATE
    return _call_rates(tuple(s[FACED:STAT_LEN]))


@lru_cache(maxsize=1024)
def _call_rates(counts: tuple[int, ...]) -> tuple[float, ...]:
    """``call_rates`` from the faced and called counters (shared by equal counters)."""
    return tuple(
        (counts[CALL_BINS + b] + PRIOR_CALLS * DEFAULT_CALL_RATE[b]) / (counts[b] + PRIOR_CALLS)
        for b in range(CALL_BINS)
    )


def bidder_pmf(memory: dict[str, Any], player_id: str, n: int, p_milli: int) -> tuple[float, ...]:
    """Our belief about how many of the bidder's ``n`` dice count toward the face they bid.

    A mixture: with the bidder's learned bluff rate their hand is unrelated to the bid
    (plain binomial); otherwise it leans toward the bid face as much as their honest bids did.
    """
    s = stats(memory, player_id)
    if s is None:
        return _bidder_pmf(0, 0, 0, 0, n, p_milli)
    return _bidder_pmf(s[BIDS], s[BLUFFS], s[HONEST_MATCH], s[HONEST_DICE], n, p_milli)


@lru_cache(maxsize=1024)
def _bidder_pmf(
    bids: int, bluffs: int, hm: int, hd: int, n: int, p_milli: int
) -> tuple[float, ...]:
    """``bidder_pmf`` from the bidder's counters (shared by equal counters)."""
    bluff = (bluffs + PRIOR_BLUFF * PRIOR_BIDS) / (bids + PRIOR_BIDS)
    honest_milli = round(
        (hm * 1000 + PRIOR_HONEST_DICE * (p_milli + PRIOR_HONEST_LIFT)) / (hd + PRIOR_HONEST_DICE)
    )
    honest_milli = max(honest_milli, p_milli)
    plain, lean = pmf(n, p_milli), pmf(n, honest_milli)
    return tuple(bluff * a + (1 - bluff) * b for a, b in zip(plain, lean, strict=True))


PRIOR_COVER, PRIOR_OPENINGS = 0.3, 4.0
"""Prior: 30 % of a player's opening bids are covered by their own dice, worth 4 openings."""
MAX_COVER = 0.9
"""An opening is never taken as certainly covered: a player who learned the bot believes them
can open on air, and then is called one time in ten at least (bounded memory)."""
COVER_DECAY_AT = 24
"""The opening counters are halved past 24 openings: recent habits weigh more, so a player
who switches style is read anew within a dozen openings."""


def opening_cover(memory: dict[str, Any], player_id: str) -> float:
    """How often this player's opening bid was covered by their own dice (learned, bounded)."""
    got = memory.get("oc", {}).get(player_id)
    seen, covered = (got[0], got[1]) if isinstance(got, list) and len(got) == 2 else (0, 0)
    return min((covered + PRIOR_COVER * PRIOR_OPENINGS) / (seen + PRIOR_OPENINGS), MAX_COVER)


def opening_pmf(
    memory: dict[str, Any], player_id: str, n: int, p_milli: int, quantity: int
) -> tuple[float, ...]:
    """``bidder_pmf`` for the round's opening bid of ``quantity``: with the player's learned
    cover rate they hold at least ``quantity`` of the face themselves (or all ``n`` dice),
    otherwise ``bidder_pmf``'s reading. A player who opens with what they hold (a plain,
    readable habit, common at a real table) is believed; one who opens on air is not.
    ``quantity`` 0: the bid is not the round's opening (``bidder_pmf`` alone)."""
    base = bidder_pmf(memory, player_id, n, p_milli)
    if quantity <= 0:
        return base
    cover = opening_cover(memory, player_id)
    return _covered(base, min(quantity, n), round(cover * 1000))


@lru_cache(maxsize=1024)
def _covered(base: tuple[float, ...], k: int, cover_milli: int) -> tuple[float, ...]:
    """``base`` mixed with itself conditioned on at least ``k`` (``cover_milli`` per mille)."""
    mass = sum(base[k:])
    if k <= 0 or mass <= 0:
        return base
    c = cover_milli / 1000
    return tuple((1 - c) * w + (c * w / mass if i >= k else 0.0) for i, w in enumerate(base))


def _counts(dice: list[int], face: int) -> int:
    return sum(1 for d in dice if d in (face, WILD))


def observe(memory: dict[str, Any], reveal: Reveal) -> None:
    """Update every player's counters from a completed reveal (public information only).

    Bids only rise within a round, so sorting the round's bids recovers their order: each bid
    after the first was its bidder's choice not to call the one before it, and the last bid was
    called by the challenger. We count, per player, how their bids related to their own hand
    (bluffs: no die of the bid face; otherwise how many of their dice matched) and how often
    they called at each level of their own estimate that the bid they faced was true.
    """
    p_milli = die_p_milli(int(memory.get("w", 10)))
    hands = {r.player_id: r.dice for r in reveal.rows}
    total = sum(len(d) for d in hands.values())
    opponents: dict[str, list[int]] = memory.setdefault("o", {})

    def counters(pid: str) -> list[int]:
        s = opponents.get(pid)
        if not isinstance(s, list) or len(s) != STAT_LEN:
            s = [0] * STAT_LEN
            opponents[pid] = s
        return s

    seq: list[tuple[int, int, str]] = []
    for row in reveal.rows:
        for q, f in row.bids:
            seq.append((q, f, row.player_id))
    seq.sort()
    if seq:
        # the opening bid: did the opener's own dice cover it?
        q0, f0, opener = seq[0]
        book: dict[str, list[int]] = memory.setdefault("oc", {})
        oc = book.get(opener)
        if not isinstance(oc, list) or len(oc) != 2:
            oc = book[opener] = [0, 0]
        oc[0] += 1
        oc[1] += _counts(hands[opener], f0) >= q0 if opener in hands else 0
        if oc[0] > COVER_DECAY_AT:
            oc[:] = [x // 2 for x in oc]
    for _q, f, pid in seq:
        s = counters(pid)
        m = _counts(hands[pid], f)
        s[BIDS] += 1
        if m == 0:
            s[BLUFFS] += 1
        else:
            s[HONEST_MATCH] += m
            s[HONEST_DICE] += len(hands[pid])

    def faced(pid: str, q: int, f: int, called: bool) -> None:
        hand = hands.get(pid)
        if hand is None:
            return
        p_true = tail(total - len(hand), q - _counts(hand, f), p_milli)
        s = counters(pid)
        b = call_bin(p_true)
        s[FACED + b] += 1
        if called:
            s[CALLED + b] += 1

    for before, after in pairwise(seq):
        faced(after[2], before[0], before[1], called=False)
    bid = reveal.bid
    assert isinstance(bid, Bid)  # the bidding systems' bots
    faced(reveal.challenger_id, bid.quantity, bid.face, called=True)
    # Halving old counts keeps them small (the room item) and lets recent habits weigh more.
    for s in opponents.values():
        if max(s[BIDS], sum(s[FACED:CALLED])) > DECAY_AT:
            s[:] = [x // 2 for x in s]
