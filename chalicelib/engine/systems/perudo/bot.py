"""Perudo bots: decisions from the bot's own player view only (docs/BOTS.md, "Perudo").

``decide(view, level, memory, roller)`` reads exactly what a player in that seat sees: its own
dice, every player's dice count, the current bid and who made it, whether the round is
palifico, the settings, the round's bids so far; and ``memory``, what ``observe`` learned from
public reveals. In heads-up endgames (1 or 2 dice each, not 2v2) strong plays the solved table
and medium its coarse copy (``endgames``; the table reads no memory).

- ``strong`` (default) prices every option in dice:
  - *aces-wild odds*: an unseen die counts toward a face with chance 1/3 (the face or an ace),
    toward aces with 1/6; in palifico every face is 1/6 and the bot counts its aces as aces;
  - *halving to aces*: bids on aces are candidates like any other, at half the quantity
    rounded up, and priced by the same odds; an aces bid also leaves the next player only
    twice plus one on a face (the call model sees how unlikely that answer is to them);
  - *Dudo* costs the chance that the bid is true, against what the bidder's loss is worth;
  - *calza* is worth its expected value: the chance of exactly the bid (a die won back, worth
    nothing at the starting count) against a die lost otherwise;
  - a *raise* costs the chance that the next player calls it and it is false, weighed by how
    often that player calls at their own estimate of it (learned per opponent), plus a small
    share of the round going on;
  - *palifico*: with more than one die the face is locked, so only higher quantities of it are
    candidates; the palifico opener (one die) opens on the face that prices best, usually its
    own.
  The bidder's hand is read from the bid: it leans toward the bid face as that player's honest
  bids did, unless they bluff (learned bluff rate). Raises are a mixed choice among near-best
  ones, drawn from the roller.
- ``medium``: the strong scoring with nothing learned or read, always the best option.
- ``easy``: the plain odds from its own dice, a gullible Dudo threshold, random plausible raises,
  no calza.

Bench-only baselines: ``random`` (a uniformly random legal action) and ``naive`` (Dudo when the
bid exceeds the expected count given its own dice, otherwise its best face one step up).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

from ... import endgames
from ...dice import Roller
from ...state import Bid as RoundBid
from ...state import Reveal
from . import moves

Action = dict[str, Any]

# -- binomial tables (probabilities in per mille, so the caches hit) ---------------------------


@lru_cache(maxsize=4096)
def pmf(n: int, p_milli: int) -> tuple[float, ...]:
    """P(Binomial(n, p) = i) for i in 0..n."""
    p = min(max(p_milli, 1), 999) / 1000
    out = [(1 - p) ** max(n, 0)]
    ratio = p / (1 - p)
    for i in range(max(n, 0)):
        out.append(out[-1] * (n - i) / (i + 1) * ratio)
    return tuple(out)


@lru_cache(maxsize=4096)
def tails(n: int, p_milli: int) -> tuple[float, ...]:
    """``t[k] = P(Binomial(n, p) >= k)`` for k in 0..n+1."""
    probs = pmf(n, p_milli)
    out = [0.0] * (len(probs) + 1)
    acc = 0.0
    for i in range(len(probs) - 1, -1, -1):
        acc += probs[i]
        out[i] = min(acc, 1.0)
    return tuple(out)


def at_least(table: Sequence[float], k: int) -> float:
    """``table[k]``, 1 below 0 and 0 past the end."""
    if k <= 0:
        return 1.0
    return table[k] if k < len(table) else 0.0


def exactly(probs: Sequence[float], k: int) -> float:
    """``probs[k]``, 0 outside."""
    return probs[k] if 0 <= k < len(probs) else 0.0


def p_milli(face: int, palifico: bool) -> int:
    """Chance per mille that one unseen die counts toward ``face``."""
    return round(moves.chance_per_die(face, palifico) * 1000)


# -- the bot's reading of its view --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    """What a Perudo bot reads from its player view."""

    me: str
    turn: int
    own: tuple[int, ...]
    total: int
    counts: dict[str, int]
    """Dice of every player still in the game, in seat order."""
    next_id: str | None
    current: tuple[int, int] | None
    bidder: str | None
    palifico: bool
    starting: int
    penalty: str

    @property
    def unseen(self) -> int:
        """Dice in play that are not ours."""
        return self.total - len(self.own)

    @property
    def players(self) -> int:
        """Players with dice."""
        return sum(1 for n in self.counts.values() if n > 0)

    def mine(self, face: int) -> int:
        """Own dice counting toward ``face``."""
        return sum(1 for d in self.own if moves.counts_toward(d, face, self.palifico))

    def calza_offered(self) -> bool:
        """Calza needs a bid and three or more players with dice."""
        return self.current is not None and moves.calza_offered(self.players)

    def legal(self) -> list[tuple[int, int]]:
        """Every legal bid."""
        return moves.legal_bids(
            self.current, self.total, palifico=self.palifico, single_die=len(self.own) == 1
        )

    def lowest(self, face: int) -> int | None:
        """The lowest legal quantity on ``face``, if any."""
        return moves.lowest_quantity(
            self.current, face, palifico=self.palifico, single_die=len(self.own) == 1
        )


def read_view(view: dict[str, Any]) -> Seat:
    """The bot's decision inputs, from its player view and nothing else."""
    game = view["game"]
    me = view["me"]["player_id"]
    seats = [p for p in view["players"] if not (p["eliminated"] or p["resigned"])]
    counts = {p["id"]: int(p["dice_count"]) for p in seats}
    order = [p["id"] for p in seats]
    next_id = None
    if me in order and len(order) > 1:
        i = order.index(me)
        for step in range(1, len(order)):
            candidate = order[(i + step) % len(order)]
            if counts[candidate] > 0:
                next_id = candidate
                break
    bid = game["current_bid"]
    table = game.get("table") or {}
    return Seat(
        me=me,
        turn=int(game["turn"]["number"]) if game.get("turn") else 0,
        own=tuple(int(d) for d in view["me"]["dice"] or ()),
        total=int(game["total_dice"]),
        counts=counts,
        next_id=next_id,
        current=(int(bid["quantity"]), int(bid["face"])) if bid else None,
        bidder=bid["player_id"] if bid else None,
        palifico=bool(table.get("palifico")),
        starting=int(view["settings"]["starting_dice"]),
        penalty=str(view["settings"]["penalty"]),
    )


def _bid(seat: Seat, quantity: int, face: int) -> Action:
    return {"type": "bid", "quantity": quantity, "face": face, "turn": seat.turn}


def _dudo(seat: Seat) -> Action:
    return {"type": "liar", "turn": seat.turn}


def _calza(seat: Seat) -> Action:
    return {"type": "calza", "turn": seat.turn}


# -- opponent model (memory["pe"][player_id]: integer counters, kept small) --------------------

BIDS, BLUFFS, LIFT, LIFT_DICE = 0, 1, 2, 3
BINS = 5
FACED = 4
CALLED = FACED + BINS
STAT_LEN = CALLED + BINS
DEFAULT_CALL_RATE = (0.9, 0.65, 0.35, 0.1, 0.03)
"""Prior chance that a player calls Dudo, per fifth of their own chance that the bid is true."""
PRIOR_CALLS = 2.0
PRIOR_BLUFF, PRIOR_BIDS = 0.15, 6.0
PRIOR_LIFT, PRIOR_LIFT_DICE = 150, 8.0
"""Prior: an honest bidder's dice count toward the bid face 150 per mille more often."""
DECAY_AT = 120


def _stats(memory: dict[str, Any], player_id: str | None) -> list[int] | None:
    got = memory.get("pe", {}).get(player_id) if player_id else None
    return got if isinstance(got, list) and len(got) == STAT_LEN else None


def call_rates(memory: dict[str, Any], player_id: str | None) -> tuple[float, ...]:
    """How often this player calls Dudo, per fifth of their own chance that the bid is true."""
    s = _stats(memory, player_id)
    if s is None:
        return DEFAULT_CALL_RATE
    return tuple(
        (s[CALLED + b] + PRIOR_CALLS * DEFAULT_CALL_RATE[b]) / (s[FACED + b] + PRIOR_CALLS)
        for b in range(BINS)
    )


def bidder_pmf(
    memory: dict[str, Any], player_id: str, n: int, p: int, scale: float = 1.0
) -> tuple[float, ...]:
    """Belief about how many of the bidder's ``n`` dice count toward the face they bid.

    With the learned bluff rate the hand is unrelated to the bid (plain odds); otherwise it
    leans toward the bid face as much as that player's honest bids did.
    """
    s = _stats(memory, player_id) or [0] * STAT_LEN
    bluff = (s[BLUFFS] + PRIOR_BLUFF * PRIOR_BIDS) / (s[BIDS] + PRIOR_BIDS)
    lift = (s[LIFT] + PRIOR_LIFT * PRIOR_LIFT_DICE) / (s[LIFT_DICE] + PRIOR_LIFT_DICE)
    lean = min(max(p + round(lift * scale), p), 950)
    plain, leaning = pmf(n, p), pmf(n, lean)
    return tuple(bluff * a + (1 - bluff) * b for a, b in zip(plain, leaning, strict=True))


def bid_order(quantity: int, face: int, palifico: bool) -> tuple[int, int]:
    """Bids only rise within a round: this key recovers their order from a reveal."""
    return (quantity, face) if palifico else moves.bid_key(quantity, face)


def observe(memory: dict[str, Any], reveal: Reveal) -> None:
    """Learn each player's bluffs, lean and Dudo habits from a completed reveal (public)."""
    pal = bool(reveal.extra.get("palifico"))
    hands = {r.player_id: r.dice for r in reveal.rows}
    total = sum(len(d) for d in hands.values())
    book: dict[str, list[int]] = memory.setdefault("pe", {})

    def counters(pid: str) -> list[int]:
        s = book.get(pid)
        if not isinstance(s, list) or len(s) != STAT_LEN:
            s = [0] * STAT_LEN
            book[pid] = s
        return s

    seq = sorted(
        ((q, f, row.player_id) for row in reveal.rows for q, f in row.bids),
        key=lambda b: bid_order(b[0], b[1], pal),
    )
    for _q, f, pid in seq:
        hand = hands[pid]
        s = counters(pid)
        m = moves.count([hand], f, pal)
        s[BIDS] += 1
        if m == 0:
            s[BLUFFS] += 1
        else:
            s[LIFT] += round((m - len(hand) * moves.chance_per_die(f, pal)) * 1000)
            s[LIFT_DICE] += len(hand)

    def faced(pid: str, q: int, f: int, called: bool) -> None:
        hand = hands.get(pid)
        if hand is None:
            return
        need = q - moves.count([hand], f, pal)
        p_true = at_least(tails(total - len(hand), p_milli(f, pal)), need)
        s = counters(pid)
        b = min(int(p_true * BINS), BINS - 1)
        s[FACED + b] += 1
        if called:
            s[CALLED + b] += 1

    for before, after in pairwise(seq):
        faced(after[2], before[0], before[1], called=False)
    if reveal.extra.get("kind") != "calza":
        bid = reveal.bid
        assert isinstance(bid, RoundBid)
        faced(reveal.challenger_id, bid.quantity, bid.face, called=True)
    for s in book.values():
        if max(s[BIDS], sum(s[FACED:CALLED])) > DECAY_AT:
            s[:] = [x // 2 for x in s]


# -- strong -------------------------------------------------------------------------------------

CONT_BASE = 0.06
"""The chance of losing a round that goes on after our raise, shared among the players."""
CALZA_WORTH = 0.9
"""A die won back by a calza, against a die lost (it is ours alone, but it is not a rival's)."""
MIX_NEAR, MIX_TEMPERATURE, MIX_MARGIN = 300, 0.01, 0.03
"""Mixed raises: the best weighs 1000, another raise within 0.03 dice ``300·exp(-gap/0.01)``."""


def _rate(rates: tuple[float, ...], probability: float) -> float:
    """A smooth call rate between the bins' centres; certain Dudo on a bid that cannot be true."""
    x = probability * BINS - 0.5
    if x <= 0:
        return rates[0] + (1 - rates[0]) * min(-x / 0.5, 1.0)
    if x >= BINS - 1:
        return rates[-1]
    i = int(x)
    t = x - i
    return rates[i] * (1 - t) + rates[i + 1] * t


class Beliefs:
    """For one decision: what the unseen dice hold, face by face, and how the next player calls."""

    def __init__(self, seat: Seat, memory: dict[str, Any], read: float = 1.0) -> None:
        self.seat = seat
        self.memory = memory
        self.n_next = seat.counts.get(seat.next_id or "", 0)
        self.others = seat.unseen - self.n_next
        self.rates = call_rates(memory, seat.next_id) if read >= 1 else DEFAULT_CALL_RATE
        self.bidder_n = 0
        self.bidder_dist: tuple[float, ...] = ()
        self.bidder_is_next = False
        if read > 0 and seat.bidder not in (None, seat.me) and seat.current is not None:
            self.bidder_n = seat.counts.get(seat.bidder or "", 0)
            p = p_milli(seat.current[1], seat.palifico)
            self.bidder_dist = bidder_pmf(memory, seat.bidder or "", self.bidder_n, p, read)
            self.bidder_is_next = seat.bidder == seat.next_id
        self._cache: dict[tuple[int, int, int], float] = {}

    def _leans(self, face: int) -> bool:
        return (
            bool(self.bidder_dist)
            and self.seat.current is not None
            and face == self.seat.current[1]
        )

    def next_dist(self, face: int) -> tuple[float, ...]:
        """How many of the next player's dice count toward ``face``."""
        if self._leans(face) and self.bidder_is_next:
            return self.bidder_dist
        return pmf(self.n_next, p_milli(face, self.seat.palifico))

    def others_at_least(self, face: int, k: int) -> float:
        """P(the unseen dice outside the next player's hand hold at least ``k`` toward ``face``)."""
        if k <= 0:
            return 1.0
        key = (face, k, 0)
        got = self._cache.get(key)
        if got is not None:
            return got
        p = p_milli(face, self.seat.palifico)
        if self._leans(face) and not self.bidder_is_next:
            rest = tails(self.others - self.bidder_n, p)
            got = sum(w * at_least(rest, k - i) for i, w in enumerate(self.bidder_dist))
        else:
            got = at_least(tails(self.others, p), k)
        self._cache[key] = got
        return got

    def others_exactly(self, face: int, k: int) -> float:
        """P(the unseen dice outside the next player's hand hold exactly ``k`` toward ``face``)."""
        return self.others_at_least(face, k) - self.others_at_least(face, k + 1)

    def p_true(self, quantity: int, face: int) -> float:
        """Chance that at least ``quantity`` dice in play count toward ``face``."""
        need = quantity - self.seat.mine(face)
        if need <= 0:
            return 1.0
        return sum(
            w * self.others_at_least(face, need - j) for j, w in enumerate(self.next_dist(face))
        )

    def p_exact(self, quantity: int, face: int) -> float:
        """Chance that exactly ``quantity`` dice in play count toward ``face``."""
        need = quantity - self.seat.mine(face)
        if need < 0:
            return 0.0
        return sum(
            w * self.others_exactly(face, need - j) for j, w in enumerate(self.next_dist(face))
        )

    def raise_outcome(self, quantity: int, face: int) -> tuple[float, float, float]:
        """(P(called and false), P(called and true), P(not called)) for our raise."""
        seat = self.seat
        need = quantity - seat.mine(face)
        p = p_milli(face, seat.palifico)
        their_view = tails(seat.total - self.n_next, p)
        lose = win = calls = 0.0
        for j, w in enumerate(self.next_dist(face)):
            if w < 1e-9:
                continue
            true = self.others_at_least(face, need - j)
            c = _rate(self.rates, at_least(their_view, quantity - j))
            calls += w * c
            win += w * c * true
            lose += w * c * (1 - true)
        return lose, win, 1 - calls


def candidates(seat: Seat) -> list[tuple[int, int]]:
    """Raises worth pricing: on each legal face, from the lowest bid to a little past the mean."""
    out: list[tuple[int, int]] = []
    for face in moves.FACES:
        low = seat.lowest(face)
        if low is None or low > seat.total:
            continue
        expected = round(seat.mine(face) + seat.unseen * moves.chance_per_die(face, seat.palifico))
        high = min(seat.total, max(low + 2, expected + 1), low + 6)
        out.extend((q, face) for q in range(low, high + 1))
    return out


def scored_options(
    seat: Seat, memory: dict[str, Any], read: float = 1.0
) -> list[tuple[float, Action]]:
    """Every option priced in dice (lower is better): raises, Dudo and calza when offered."""
    beliefs = Beliefs(seat, memory, read)
    players = max(seat.players, 2)
    # A rival's lost die is worth ours heads-up (zero-sum) and under give (the die comes to us).
    gain = 1.0 if players == 2 or seat.penalty == "give" else 0.25
    share = 2 / players
    out: list[tuple[float, Action]] = []
    for q, f in candidates(seat):
        lose, win, carry_on = beliefs.raise_outcome(q, f)
        out.append((lose - gain * win + carry_on * share * CONT_BASE, _bid(seat, q, f)))
    if seat.current is not None:
        q, f = seat.current
        p_true = beliefs.p_true(q, f)
        out.append((p_true - gain * (1 - p_true), _dudo(seat)))
        if seat.calza_offered():
            exact = beliefs.p_exact(q, f)
            worth = CALZA_WORTH if len(seat.own) < seat.starting else 0.0
            out.append(((1 - exact) - worth * exact, _calza(seat)))
    return out


def _pick(scored: list[tuple[float, Action]], roller: Roller | None) -> Action:
    """The cheapest option; with a roller, a draw among the near-best raises."""
    best_cost, best = min(scored, key=lambda c: c[0])
    if roller is None or best["type"] != "bid":
        return best
    near = [
        (round(MIX_NEAR * math.exp(-(cost - best_cost) / MIX_TEMPERATURE)), a)
        for cost, a in scored
        if a is not best and a["type"] == "bid" and cost - best_cost <= MIX_MARGIN
    ]
    weighted = [(1000, best), *((w, a) for w, a in near if w > 0)]
    if len(weighted) == 1:
        return best
    r = roller.below(sum(w for w, _ in weighted))
    for w, a in weighted:
        if r < w:
            return a
        r -= w
    raise AssertionError("unreachable: the draw is below the total weight")


def strong(seat: Seat, memory: dict[str, Any], roller: Roller) -> Action:
    """The cheapest option in dice, reading bids and learned habits (module docstring)."""
    scored = scored_options(seat, memory)
    return _pick(scored, roller) if scored else _dudo(seat)


def medium(seat: Seat) -> Action:
    """The strong pricing with nothing read or learned, always the best option."""
    scored = scored_options(seat, {}, read=MEDIUM_READ)
    return _pick(scored, None) if scored else _dudo(seat)


MEDIUM_READ = 0.5
EASY_DUDO_BELOW = 0.3


def easy(seat: Seat, roller: Roller) -> Action:
    """Plain odds from its own dice, gullible Dudo, a random plausible raise."""

    def p_true(q: int, f: int) -> float:
        return at_least(tails(seat.unseen, p_milli(f, seat.palifico)), q - seat.mine(f))

    if seat.current is not None and p_true(*seat.current) < EASY_DUDO_BELOW:
        return _dudo(seat)
    raises = [
        (q, f)
        for f in moves.FACES
        if (low := seat.lowest(f)) is not None
        for q in range(low, min(low + 1, seat.total) + 1)
    ]
    if not raises:
        return _dudo(seat)
    plausible = [b for b in raises if p_true(*b) >= 0.5] or raises
    return _bid(seat, *plausible[roller.below(len(plausible))])


# -- bench-only baselines ---------------------------------------------------------------------


def random_play(seat: Seat, roller: Roller) -> Action:
    """A uniformly random legal action: any legal bid, Dudo, calza when offered."""
    options: list[Action] = [_bid(seat, q, f) for q, f in seat.legal()]
    if seat.current is not None:
        options.append(_dudo(seat))
        if seat.calza_offered():
            options.append(_calza(seat))
    return options[roller.below(len(options))]


def naive(seat: Seat) -> Action:
    """Dudo when the bid exceeds the expected count given its own dice; else best face, one step."""

    def expected(f: int) -> float:
        return seat.mine(f) + seat.unseen * moves.chance_per_die(f, seat.palifico)

    if seat.current is not None and seat.current[0] > expected(seat.current[1]):
        return _dudo(seat)
    faces = [f for f in moves.FACES if seat.lowest(f) is not None]
    if not faces:
        return _dudo(seat)
    best = max(faces, key=lambda f: (seat.mine(f), f))
    low = seat.lowest(best)
    assert low is not None
    quantity = max(low, seat.mine(best)) if seat.current is None else low
    if quantity > seat.total:
        return _dudo(seat)
    return _bid(seat, quantity, best)


def endgame(view: dict[str, Any], level: str, roller: Roller) -> Action | None:
    """In a solved heads-up endgame, strong plays the equilibrium table and medium a coarse copy.

    The table ignores the opponent model, so what was learned cannot be steered there
    (``endgames``; docs/BOTS.md, "Endgame tables").
    """
    if ((view.get("game") or {}).get("table") or {}).get("palifico"):
        return None  # the tables are heads-up rounds, which are never palifico
    return endgames.play(view, "perudo-{}v{}", level, roller)


def decide(view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller) -> Action:
    """Choose a legal action for the seat the view belongs to."""
    table = endgame(view, level, roller)
    if table is not None:
        return table
    seat = read_view(view)
    if level == "easy":
        return easy(seat, roller)
    if level == "medium":
        return medium(seat)
    if level == "random":
        return random_play(seat, roller)
    if level == "naive":
        return naive(seat)
    return strong(seat, memory, roller)
