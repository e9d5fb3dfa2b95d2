"""Classic bots: decisions from the bot's own player view only (docs/BOTS.md).

``decide(view, level, memory, roller)`` sees exactly what a player in that seat sees: its own
dice, every player's dice count, the current bid and who made it, the settings and completed
reveals (through ``memory``, the opponent model that ``observe`` builds from public reveals).
The round's bids so far (``game.round_bids``, announced at the table) locate heads-up
endgames in the solved tables (``endgames``), which strong and medium play there. docs/BOTS.md explains
how each level plays; the levels are:

- ``strong`` (default): weighs every option by what it costs in dice. Calling Liar! costs the
  chance that the current bid is true, estimated from its own dice, the binomial law of the
  unseen dice (wildcards included) and what the bid suggests about the bidder's hand (learned
  per opponent: bluff rate and how strongly honest bids lean on the hand). A raise costs the
  chance that the next player calls it and it is false (their call habits are learned too), plus
  a share of the risk if the round goes on; raises that leave the next player little room are
  worth more. Against a rival who seldom calls (learned), the round going on is priced as
  their easiest answer, one more on our face, which we would then face ourselves: so it does
  not escalate against a bot that believes and echoes its bids. The weights follow the penalty mode (winning a challenge gains a die under
  *give*) and the number of players. Calls are pure; the raise is a mixed choice drawn from the
  roller among near-best raises and an occasional cheap bluff on a face it does not hold, so
  its bids do not read its hand (a roller that always draws 0 plays the pure best reply).
- ``easy``: the plain binomial estimate from its own dice only, a gullible calling threshold
  and random plausible raises: beatable, still sensible.

Bench-only levels (``bot_baselines``) are dispatched here too so the benchmark plays them
through the real engine; the API offers ``easy``, ``medium`` and ``strong`` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ... import endgames
from ...bot_model import (
    CALL_BINS,
    DEFAULT_CALL_RATE,
    Seat,
    call_rates,
    legal_raises,
    lowest_raise,
    opening_pmf,
    pmf,
    read_view,
    tail_at,
    tail_table,
)
from ...bot_model import observe as _observe
from ...dice import Roller
from ...state import Reveal
from . import bot_baselines

Action = dict[str, Any]

ECHO = 5.0
"""How much a rival who seldom calls makes us price the round going on (module docstring)."""
EASY_CALL_BELOW = 0.3
"""The easy bot believes bids more than it should."""
CONT_BASE, CONT_ROOM = 0.05, 0.1
"""Heads-up, the chance of losing a round that goes on after our raise: more when our raise
leaves room for a comfortable answer (scaled down with more players, who share the risk).
Small on purpose: the benchmark showed that the immediate risk of being called dominates."""
MIX_BEST, MIX_NEAR, MIX_TEMPERATURE, MIX_MARGIN = 1000, 300, 0.01, 0.03
"""Mixed raises: the best raise weighs 1000; a raise that costs ``gap`` dice more weighs
``300·exp(-gap / 0.01)`` while the gap is at most 0.03 dice (an exact tie: 30 % of the best)."""
BLUFF_WEIGHT, BLUFF_TEMPERATURE, BLUFF_MARGIN = 100, 0.1, 0.15
"""Cheap bluffs: the cheapest raise on a face we hold none of weighs ``100·exp(-gap / 0.1)``
when it costs at most 0.15 dice more than the best one (the best is on a face we hold)."""


def _bid(seat: Seat, quantity: int, face: int) -> Action:
    return {"type": "bid", "quantity": quantity, "face": face, "turn": seat.turn}


def _liar(seat: Seat) -> Action:
    return {"type": "liar", "turn": seat.turn}


# -- easy -------------------------------------------------------------------------------------


def easy(seat: Seat, roller: Roller) -> Action:
    """Plain binomial estimate, gullible calls, a random raise among the plausible ones."""
    if seat.current is not None:
        q, f = seat.current
        if tail_at(tail_table(seat.unseen, seat.p_milli), q - seat.mine[f]) < EASY_CALL_BELOW:
            return _liar(seat)
    raises = legal_raises(seat.current, seat.total, extra=1)
    if not raises:
        return _liar(seat)
    table = tail_table(seat.unseen, seat.p_milli)
    plausible = [b for b in raises if tail_at(table, b[0] - seat.mine[b[1]]) >= 0.5] or raises
    return _bid(seat, *plausible[roller.below(len(plausible))])


# -- strong -----------------------------------------------------------------------------------


def _interpolate(rates: tuple[float, ...], probability: float) -> float:
    """A smooth call rate from per-bin rates (bin centres at 0.1, 0.3, ...)."""
    x = probability * CALL_BINS - 0.5
    if x <= 0:
        # below the first bin's centre the rate rises to certainty: anyone calls a bid that
        # cannot be true from their seat (a learned low rate there comes from near misses)
        return rates[0] + (1 - rates[0]) * min(-x / 0.5, 1.0)
    if x >= CALL_BINS - 1:
        return rates[-1]
    i = int(x)
    t = x - i
    return rates[i] * (1 - t) + rates[i + 1] * t


def _score(
    lose: float, win: float, carry_on: float, room: float, gain: float, share: float, echo: float
) -> float:
    """A raise's cost in dice from its outcome (``strong``'s weights; one formula for all)."""
    # the echo: they answer one more on our face, and we call that
    cont = CONT_BASE + CONT_ROOM * room + echo * (room * (1 + gain) - gain)
    return lose - gain * win + carry_on * share * cont


def _extended(head: list[float], total: int) -> list[float]:
    """A tail table read at ``k + 2 * total + 2``: 1 at and below 0, ``head[k - 1]`` from 1 on.

    ``head`` holds P(at least k) for k = 1, 2, ... up to a value of 0; past it the list reads 0.
    A bid asks for at most ``total`` dice and we hold at most ``total``, and the next player
    at most ``total``, so the ``k`` a decision reads lie between ``1 - 2 * total`` and
    ``total + 1``: the list covers them without a test.
    """
    return [1.0] * (2 * total + 3) + head + [0.0] * (total + 2)


_PRIOR_LOW_CALLS = sum(DEFAULT_CALL_RATE[:3])
"""The prior call rates in the three lower bins, summed (``_Plain``'s echo)."""


@lru_cache(maxsize=256)
def _table(
    p_milli: int, n_next: int, others: int, total: int
) -> tuple[tuple[float, ...], list[float], tuple[float, ...]]:
    """The next player's binomial, the other unseen dice's tail (``_extended``) and the tail of
    the dice the next player sees as unseen: what ``_Plain`` needs of the table alone."""
    dist = pmf(n_next, p_milli)
    ext = _extended(list(tail_table(others, p_milli)[1:]), total)
    return dist, ext, tail_table(total - n_next, p_milli)


class _Plain:
    """What scoring a raise needs when the bid says nothing about the hands it counts on.

    A function of values only: the unseen dice outside the next player's hand, the next
    player's dice, the dice they see as unseen, their call rates and the weights of a won
    and a lost challenge. Every decision with the same values shares one (``_plain``, a
    bounded cache keyed by those values), and each raise's cost is kept per (quantity, dice
    still needed): faces where we hold as many dice cost the same. Lazily filled; a value
    computed is the one a fresh computation gives, so the cache cannot change a decision.
    """

    __slots__ = (
        "calls",
        "costs",
        "dist",
        "echo",
        "ext",
        "gain",
        "n_next",
        "off",
        "rates",
        "share",
        "view_next",
    )

    def __init__(
        self,
        p_milli: int,
        n_next: int,
        others: int,
        total: int,
        rates: tuple[float, ...],
        players: int,
        give: bool,
    ) -> None:
        self.n_next = n_next
        self.dist, self.ext, self.view_next = _table(p_milli, n_next, others, total)
        """``ext``: ``tail_at(tail_table(others), k)`` at ``k + off`` (read only)."""
        self.off = 2 * total + 2
        self.rates = rates
        self.calls: list[float | None] = [None] * (total + n_next + 2)
        """The next player's call rate for a bid of each quantity (at ``asked + n_next``)."""
        # What a won challenge is worth against a lost one: under give the winner gains a die;
        # heads-up the game is zero-sum, so the weight does not change the ranking of options.
        self.gain = 1.0 if give else (1.0 if players == 2 else 0.25)
        self.share = 2 / players
        # Against a rival who seldom calls, the round goes on: what it costs us is their answer,
        # and the easiest answer is one more on our face, which we then face ourselves.
        reluctance = 1 - sum(rates[:3]) / _PRIOR_LOW_CALLS
        self.echo = ECHO * min(max(reluctance, 0.0), 1.0)
        self.costs: dict[tuple[int, int], float] = {}

    def call(self, asked: int) -> float:
        """The next player's call rate for a bid of ``asked`` dice (on any face)."""
        i = asked + self.n_next
        c = self.calls[i]
        if c is None:
            table = self.view_next
            p = 1.0 if asked <= 0 else (table[asked] if asked < len(table) else 0.0)
            c = _interpolate(self.rates, p)
            self.calls[i] = c
        return c

    def cost(self, quantity: int, need: int) -> float:
        """The cost of raising to ``quantity`` on a face where we still need ``need`` dice."""
        key = (quantity, need)
        got = self.costs.get(key)
        if got is None:
            lose, win, carry_on, room = self.outcome(self.dist, self.ext, quantity, need)
            got = _score(lose, win, carry_on, room, self.gain, self.share, self.echo)
            self.costs[key] = got
        return got

    def outcome(
        self, dist: tuple[float, ...], ext: list[float], quantity: int, need: int
    ) -> tuple[float, float, float, float]:
        """(P(called and false), P(called and true), P(not called), P(one more is true)).

        The next player holds ``j`` of the face with chance ``dist[j]``; the other unseen dice
        hold at least ``k`` with chance ``ext[k + off]``.
        """
        lose = win = called = room = 0.0
        base = need + self.off
        calls = self.calls
        at = quantity + self.n_next
        for j, w in enumerate(dist):
            if w < 1e-9:
                continue
            k = base - j
            true = ext[k]
            room += w * ext[k + 1]
            c = calls[at - j]
            if c is None:
                c = self.call(quantity - j)
            wc = w * c
            called += wc
            win += wc * true
            lose += wc * (1 - true)
        return lose, win, 1 - called, room


@lru_cache(maxsize=256)
def _plain(
    p_milli: int,
    n_next: int,
    others: int,
    total: int,
    rates: tuple[float, ...],
    players: int,
    give: bool,
) -> _Plain:
    """The shared ``_Plain`` for these values (bounded: the least recently used go first)."""
    return _Plain(p_milli, n_next, others, total, rates, players, give)


class _Costs:
    """Raise costs on the bid face for one belief about the bidder's hand, per shared ``_Plain``.

    Kept by (``_Plain``, quantity, dice still needed); the ``_Plain`` objects are held, so a
    key never stands for another one. At most 8 of them (a belief about a bidder meets few
    tables: one per table size and next player's habits), then it starts again.
    """

    __slots__ = ("by_plain",)

    def __init__(self) -> None:
        self.by_plain: dict[_Plain, dict[tuple[int, int], float]] = {}

    def of(self, plain: _Plain) -> dict[tuple[int, int], float]:
        """The costs kept for ``plain``."""
        got = self.by_plain.get(plain)
        if got is None:
            if len(self.by_plain) >= 8:
                self.by_plain.clear()
            got = self.by_plain[plain] = {}
        return got


@lru_cache(maxsize=256)
def _next_costs(dist: tuple[float, ...]) -> _Costs:
    """The bid face's costs when the next player made the bid and we believe ``dist`` of it."""
    return _Costs()


class _Lean:
    """The unseen dice outside the next player's hand when the bidder's hand is among them.

    Our belief about the bidder's dice counting toward their bid face (``dist``) mixed with a
    plain binomial for the ``rest``: ``ext[k + 2 * total + 2]`` is the chance that at least
    ``k`` count, filled for the ``k`` a decision asks (``fill``; -1 until then). Shared by every
    decision with the same values (``_lean``).
    """

    __slots__ = ("costs", "dist", "ext", "off", "rext", "top")

    def __init__(self, dist: tuple[float, ...], rest: int, p_milli: int, total: int) -> None:
        self.costs = _Costs()
        self.dist = dist
        self.off = 2 * total + 2
        self.rext = _extended(list(tail_table(rest, p_milli)[1:]), total)
        """``tail_at(tail_table(rest), k)`` at ``k + off``."""
        self.top = len(dist) + rest
        # at k = top every term reads past the rest's table: exactly 0, as the padding after it
        self.ext = _extended([-1.0] * self.top, total)

    def fill(self, lo: int, hi: int) -> None:
        """Compute P(at least ``k``) for every ``k`` in ``lo..hi`` not computed yet."""
        ext, rext, dist, off = self.ext, self.rext, self.dist, self.off
        for k in range(max(lo, 1), min(hi, self.top) + 1):
            b = k + off
            if ext[b] < 0:
                ext[b] = sum(w * rext[b - i] for i, w in enumerate(dist))

    def at(self, k: int) -> float:
        """P(at least ``k`` of these dice count toward the bid face)."""
        got = self.ext[k + self.off]
        if got < 0:
            self.fill(k, k)
            got = self.ext[k + self.off]
        return got


@lru_cache(maxsize=256)
def _lean(dist: tuple[float, ...], rest: int, p_milli: int, total: int) -> _Lean:
    """The shared ``_Lean`` for these values (bounded: the least recently used go first)."""
    return _Lean(dist, rest, p_milli, total)


class _Beliefs:
    """Per-decision beliefs: for each face, the next player's count and everyone else's."""

    def __init__(self, seat: Seat, memory: dict[str, Any]) -> None:
        self.seat = seat
        p = seat.p_milli
        self.next_id = seat.next_id
        self.n_next = seat.counts.get(seat.next_id or "", 0)
        others = seat.unseen - self.n_next
        self.rates = rates = call_rates(memory, seat.next_id)
        self.plain = _plain(
            p, self.n_next, others, seat.total, rates, max(seat.players, 2), seat.penalty == "give"
        )
        self.plain_others = tail_table(others, p)
        self.lean_next: tuple[float, ...] | None = None
        self.lean: _Lean | None = None
        self.lean_face = 0
        """The face of the current bid when the bid tells us about the bidder's hand (else 0)."""
        self.lean_costs: dict[tuple[int, int], float] = {}
        """Raise costs on ``lean_face`` by (quantity, dice still needed), shared by value."""
        bidder = seat.bidder
        if bidder is not None and bidder != seat.me and bidder in seat.counts:
            n_b = seat.counts[bidder]
            assert seat.current is not None  # a bidder made the current bid
            dist = opening_pmf(memory, bidder, n_b, p, seat.current[0] if seat.opening else 0)
            self.lean_face = seat.current[1]
            if bidder == seat.next_id:
                self.lean_next = dist
                self.lean_costs = _next_costs(dist).of(self.plain)
            else:
                self.lean = _lean(dist, others - n_b, p, seat.total)
                self.lean_costs = self.lean.costs.of(self.plain)

    def others_at_least(self, face: int, k: int) -> float:
        """P(the unseen dice outside the next player's hand hold at least ``k`` of ``face``)."""
        if self.lean is None or face != self.lean_face:
            return tail_at(self.plain_others, k)
        return self.lean.at(k)

    def next_dist(self, face: int) -> tuple[float, ...]:
        """Our belief about how many of the next player's dice count toward ``face``."""
        if self.lean_next is not None and face == self.lean_face:
            return self.lean_next
        return self.plain.dist

    def p_true(self, quantity: int, face: int) -> float:
        """Chance that at least ``quantity`` dice in play count toward ``face``."""
        need = quantity - self.seat.mine[face]
        if need <= 0:
            return 1.0
        return sum(
            w * self.others_at_least(face, need - j) for j, w in enumerate(self.next_dist(face))
        )

    def raise_outcome(self, quantity: int, face: int) -> tuple[float, float, float, float]:
        """(P(called and false), P(called and true), P(not called), P(one more is true))."""
        need = quantity - self.seat.mine[face]
        plain = self.plain
        if self.lean is not None and face == self.lean_face:
            self.lean.fill(need - plain.n_next, need + 1)
            return plain.outcome(plain.dist, self.lean.ext, quantity, need)
        return plain.outcome(self.next_dist(face), plain.ext, quantity, need)

    def cost(self, quantity: int, face: int) -> float:
        """What raising to ``quantity`` on ``face`` costs us, in dice (``strong``'s scoring)."""
        need = quantity - self.seat.mine[face]
        plain = self.plain
        if face != self.lean_face:
            return plain.cost(quantity, need)
        key = (quantity, need)
        got = self.lean_costs.get(key)
        if got is None:
            lose, win, carry_on, room = self.raise_outcome(quantity, face)
            got = _score(lose, win, carry_on, room, plain.gain, plain.share, plain.echo)
            self.lean_costs[key] = got
        return got


def _candidates(seat: Seat) -> list[tuple[int, int]]:
    """Raises worth scoring: on each face, from the lowest legal bid to a little past the mean."""
    p = seat.p_milli / 1000
    out: list[tuple[int, int]] = []
    for face in range(1, 7):
        low = lowest_raise(seat.current, face)
        expected = round(seat.mine[face] + seat.unseen * p)
        high = min(seat.total, max(low + 2, expected + 1), low + 6)
        out.extend((q, face) for q in range(low, high + 1))
    return out


def _best(scored: list[tuple[float, int, int]]) -> tuple[float, int, int]:
    """The cheapest raise; the first in candidate order among (near-)exact ties."""
    best = scored[0]
    limit = best[0] - 1e-12
    for c in scored:
        if c[0] < limit:
            best = c
            limit = c[0] - 1e-12
    return best


def _weigh(
    seat: Seat,
    scored: list[tuple[float, int, int]],
    best: tuple[float, int, int] | None = None,
) -> list[tuple[int, int, int]]:
    """Integer weights for a mixed choice among raises: the best first, then near-best, a bluff.

    The best raise (first of the cheapest, in candidate order) weighs ``MIX_BEST``; every other
    raise within ``MIX_MARGIN`` of it weighs less the more it costs (a softmax on the cost gap),
    and the cheapest raise on a face we hold none of is added as a cheap bluff when its gap is
    within ``BLUFF_MARGIN`` and we have more than one die left or play heads-up (a lost bluff on
    the last die is the game, but heads-up never bluffing with one die gives the die away). Returned as (weight, quantity, face), the best first, so a draw of 0 plays it.
    ``best`` is ``_best(scored)`` when the caller has it already.
    """
    if best is None:
        best = _best(scored)
    low, bq, bf = best
    out = [(MIX_BEST, bq, bf)]
    bluff: tuple[float, int, int] | None = None
    mine = seat.mine
    exp = math.exp
    for cost, q, f in scored:
        if q == bq and f == bf:
            continue
        gap = cost - low
        if gap <= MIX_MARGIN:
            w = round(MIX_NEAR * exp(-gap / MIX_TEMPERATURE))
            if w > 0:
                out.append((w, q, f))
                continue
        if mine[f] == 0 and (bluff is None or cost < bluff[0]):
            bluff = (cost, q, f)
    # On the last die a lost bluff is the game, so it bluffs there only heads-up, where the
    # game is zero-sum and a bid that always names its one die reads its hand (docs/BOTS.md).
    if bluff is not None and (len(seat.own) > 1 or seat.players == 2) and mine[bf] > 0:
        gap = bluff[0] - low
        if gap <= BLUFF_MARGIN:
            w = round(BLUFF_WEIGHT * math.exp(-gap / BLUFF_TEMPERATURE))
            if w > 0:
                out.append((w, bluff[1], bluff[2]))
    return out


def _pick(weighted: list[tuple[int, int, int]], roller: Roller) -> tuple[int, int]:
    """A weighted draw from the roller (no draw when there is a single option)."""
    if len(weighted) == 1:
        return weighted[0][1], weighted[0][2]
    r = roller.below(sum(w for w, _, _ in weighted))
    for w, q, f in weighted:
        if r < w:
            return q, f
        r -= w
    raise AssertionError("unreachable: the draw is below the total weight")


def _scored(seat: Seat, beliefs: _Beliefs) -> list[tuple[float, int, int]]:
    """``_candidates`` in their order, each as (cost, quantity, face): ``beliefs.cost`` inlined."""
    plain = beliefs.plain
    costs = plain.costs
    lean_face = beliefs.lean_face
    mine = seat.mine
    cur = seat.current
    total = seat.total
    unseen_p = seat.unseen * (seat.p_milli / 1000)
    out: list[tuple[float, int, int]] = []
    for face in range(1, 7):
        low = 1 if cur is None else (cur[0] if face > cur[1] else cur[0] + 1)
        m = mine[face]
        high = min(total, max(low + 2, round(m + unseen_p) + 1), low + 6)
        if face == lean_face:
            for q in range(low, high + 1):
                out.append((beliefs.cost(q, face), q, face))
            continue
        for q in range(low, high + 1):
            c = costs.get((q, q - m))
            if c is None:
                c = plain.cost(q, q - m)
            out.append((c, q, face))
    return out


def strong(seat: Seat, memory: dict[str, Any], roller: Roller) -> Action:
    """Call when it costs least, else a mixed choice among the cheapest raises (module docstring)."""
    beliefs = _Beliefs(seat, memory)
    scored = _scored(seat, beliefs)
    best = _best(scored) if scored else None
    if seat.current is not None:
        gain = beliefs.plain.gain
        p_true = beliefs.p_true(*seat.current)
        if best is None or p_true - gain * (1 - p_true) <= best[0]:
            return _liar(seat)
    return _bid(seat, *_pick(_weigh(seat, scored, best), roller))


def medium(seat: Seat) -> Action:
    """The strong bot's scoring with nothing read or learned, always the best reply.

    It scores calls and raises like the strong bot, but takes the bidder's hand as plain
    dice (the bid says nothing about it), uses the prior call rates for everyone and never
    mixes or bluffs: a sound, readable player.
    """
    from dataclasses import replace

    from ...dice import ScriptedRoller

    return strong(replace(seat, bidder=None), {}, ScriptedRoller())


# -- dispatch ---------------------------------------------------------------------------------

_BASELINES: dict[str, Callable[[Seat, Roller], Action]] = {
    "random": bot_baselines.random_play,
    "naive": lambda seat, roller: bot_baselines.naive(seat),
    "binomial": lambda seat, roller: bot_baselines.binomial(seat),
    "always-call": lambda seat, roller: bot_baselines.always_call(seat),
    "always-bluff": lambda seat, roller: bot_baselines.always_bluff(seat),
    "honest-reader": lambda seat, roller: bot_baselines.honest_reader(seat),
    "air-opener": lambda seat, roller: bot_baselines.air_opener(seat),
    "switch-opener": lambda seat, roller: bot_baselines.air_opener(seat, bot_baselines.SWITCH_AT),
}


def endgame(view: dict[str, Any], level: str, roller: Roller) -> Action | None:
    """In a solved heads-up endgame, strong plays the equilibrium table and medium a coarse copy.

    The table ignores the opponent model, so what was learned cannot be steered there
    (``endgames``; docs/BOTS.md, "Endgame tables").
    """
    wild = int(view["settings"]["wildcard_chance"])
    return endgames.play(view, f"classic-{{}}v{{}}-w{wild}", level, roller)


def decide(view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller) -> Action:
    """Choose a legal action for the seat the view belongs to."""
    # The wildcard chance is public; observe() needs it to judge past decisions.
    memory["w"] = int(view["settings"]["wildcard_chance"])
    table = endgame(view, level, roller)
    if table is not None:
        return table
    seat = read_view(view)
    if level == "easy":
        return easy(seat, roller)
    if level == "medium":
        return medium(seat)
    baseline = _BASELINES.get(level)
    if baseline is not None:
        return baseline(seat, roller)
    return strong(seat, memory, roller)


def observe(memory: dict[str, Any], reveal: Reveal) -> None:
    """Learn each player's tendencies from a completed reveal (public information)."""
    _observe(memory, reveal)
