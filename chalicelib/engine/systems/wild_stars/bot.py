"""Wild Stars bots: decisions from the bot's own player view only (docs/BOTS.md).

The view holds the bot's cup, every player's dice count, the dice everyone has shown this
round, the current bid and who made it. Levels (docs/BOTS.md):

- ``easy``: the chance of a bid from the dice it can see (its cup and the shown dice) and a
  binomial over the rest; calls below 30 % (it believes too much), otherwise a random raise
  among the plausible ones (chance at least one half). Never shows dice.
- ``medium``: the same estimate and calls, but always the likeliest lowest raise. It reads
  nobody and never shows dice.
- ``strong``: scores every option by its expected dice won and lost. A challenge in Wild
  Stars costs the difference between the count and the bid, so it works with the whole
  distribution of the count (its cup and the shown dice, the bidder's cup leaning toward the
  bid face unless they just rerolled it, a binomial for the rest), not only the chance that
  the bid is true. A raise is scored against the next player: how likely they call it from
  their seat (their cup, the shown dice) and what that call would cost whoever is wrong.
  Star bids and number bids are scored alike (a star is rarer but counts for itself only),
  and every bid is also scored with *show and reroll*: show the cup's dice that count toward
  the bid face, reroll the rest (fresh dice may count, and shown dice make the bid hard to
  doubt). Calls are pure; among near-best raises the choice is drawn from the roller.

Bench-only baselines: ``random`` (a uniformly random bid or Liar!, never shows) and ``naive``
(calls when the bid exceeds the expected count, else raises its best number face one step).
"""

from __future__ import annotations

import math
from itertools import accumulate
from typing import Any

from ...bot_model import DEFAULT_CALL_RATE, pmf, tail, tail_table
from ...dice import Roller
from ...state import WILD
from .track import FACES, STAR_FACE, is_raise, track_rank

Action = dict[str, Any]
ALL_FACES = (STAR_FACE, *FACES)
P_MILLI = {STAR_FACE: 167, **{f: 333 for f in FACES}}
"""Chance (per mille) that an unseen die counts toward a face: a star only, or the face or ★."""
LEAN_MILLI = 300
"""The bidder's cup leans toward the bid face: honest bids hold this much more per die."""
LEAN_SHARE = 0.7
"""Share of bids we take as honest (the rest are bluffs: a plain binomial cup)."""
CONT_COST = 0.05
"""The cost (in dice) of a round that goes on after our raise, heads-up."""
EASY_CALL_BELOW = MEDIUM_CALL_BELOW = 0.3
"""A Wild Stars challenge costs the whole difference, so even medium calls only long shots."""
MIX_NEAR, MIX_TEMPERATURE, MIX_MARGIN = 300, 0.02, 0.05


def _face_in(value: Any) -> int:
    return STAR_FACE if value in ("*", WILD) else int(value)


def _counts(die: int, face: int) -> bool:
    return die == WILD or (face != STAR_FACE and die == face)


class _View:
    """The parts of a Wild Stars player view the bots use."""

    def __init__(self, view: dict[str, Any]) -> None:
        game = view["game"]
        self.turn = int(game["turn"]["number"])
        self.me = str(view["me"]["player_id"])
        self.cup = [_face_in(d) for d in view["me"]["dice"] or []]
        raw_shown = ((game.get("table") or {}).get("shown")) or {}
        self.shown = {pid: [_face_in(d) for d in dice] for pid, dice in raw_shown.items()}
        self.shown_all = [d for dice in self.shown.values() for d in dice]
        self.total = int(game["total_dice"])
        seats = [p for p in view["players"] if not (p["eliminated"] or p["resigned"])]
        order = [p["id"] for p in seats]
        self.counts = {p["id"]: int(p["dice_count"]) for p in seats}
        self.cups = {pid: n - len(self.shown.get(pid, [])) for pid, n in self.counts.items()}
        self.next_id = (
            order[(order.index(self.me) + 1) % len(order)]
            if self.me in order and len(order) > 1
            else None
        )
        raw = game["current_bid"]
        self.current: tuple[int, int] | None = None
        self.bidder: str | None = None
        if raw is not None:
            self.current = (int(raw["quantity"]), _face_in(raw["face"]))
            self.bidder = str(raw["player_id"])
        self.unseen = self.total - len(self.cup) - len(self.shown_all)
        self._shown_n = {f: sum(1 for d in self.shown_all if _counts(d, f)) for f in ALL_FACES}
        self._known_n = {
            f: self._shown_n[f] + sum(1 for d in self.cup if _counts(d, f)) for f in ALL_FACES
        }

    def known(self, face: int) -> int:
        """Dice this seat sees that count toward ``face`` (its cup and every shown die)."""
        return self._known_n[face]

    def shown_count(self, face: int) -> int:
        """Shown dice (public) that count toward ``face``."""
        return self._shown_n[face]

    def raises(self, extra: int) -> list[tuple[int, int]]:
        """On each face, the lowest legal bid and up to ``extra`` quantities above it."""
        out: list[tuple[int, int]] = []
        for face in ALL_FACES:
            for q in range(1, self.total + 1):
                if is_raise(q, face, _bid_of(self.current)):
                    out.extend((k, face) for k in range(q, min(q + extra, self.total) + 1))
                    break
        return out

    def bid(self, quantity: int, face: int, show: list[int] | None = None) -> Action:
        action: Action = {
            "type": "bid",
            "quantity": quantity,
            "face": "*" if face == STAR_FACE else face,
            "turn": self.turn,
        }
        if show:
            action["show"] = sorted(show)
            action["reroll"] = True
        return action

    def liar(self) -> Action:
        return {"type": "liar", "turn": self.turn}


def _bid_of(current: tuple[int, int] | None) -> Any:
    from ...state import Bid

    return None if current is None else Bid("", current[0], current[1])


# -- easy and medium ---------------------------------------------------------------------------


def _chance(v: _View, q: int, f: int) -> float:
    """The bid's chance from the dice this seat sees and a binomial over the rest."""
    return tail(v.unseen, q - v.known(f), P_MILLI[f])


def easy(v: _View, roller: Roller) -> Action:
    """Gullible calls (below 30 %), a random raise among the plausible ones (chance ≥ ½)."""
    options = v.raises(1)
    if v.current is not None and (not options or _chance(v, *v.current) < EASY_CALL_BELOW):
        return v.liar()
    plausible = [b for b in options if _chance(v, *b) >= 0.5] or options
    return v.bid(*plausible[roller.below(len(plausible))])


def medium(v: _View) -> Action:
    """Call below 30 %, else the likeliest lowest raise (its own estimate, read at face value)."""
    options = v.raises(0)
    if v.current is not None and (not options or _chance(v, *v.current) < MEDIUM_CALL_BELOW):
        return v.liar()
    q, f = max(options, key=lambda b: (_chance(v, *b), -track_rank(*b)))
    return v.bid(q, f)


# -- strong ------------------------------------------------------------------------------------


def _convolve(a: tuple[float, ...] | list[float], b: tuple[float, ...]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x < 1e-12:
            continue
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


class _Dist:
    """A count distribution with prefix sums: P(X < k), E[(k − X)+], E[(X − k)+], P(X = k)."""

    def __init__(self, probs: list[float]) -> None:
        self.p = probs
        self.cdf = [0.0, *accumulate(probs)]
        self.mcdf = [0.0, *accumulate(i * x for i, x in enumerate(probs))]
        self.mean = self.mcdf[-1]

    def at(self, k: int) -> float:
        return self.p[k] if 0 <= k < len(self.p) else 0.0

    def below(self, k: int) -> float:
        """P(X < k)."""
        return self.cdf[max(0, min(k, len(self.p)))]

    def short(self, k: int) -> float:
        """E[(k − X)+]."""
        i = max(0, min(k, len(self.p)))
        return k * self.cdf[i] - self.mcdf[i]

    def over(self, k: int) -> float:
        """E[(X − k)+]."""
        return (self.mean - k) + self.short(k)


def _interpolate(rates: tuple[float, ...], probability: float) -> float:
    x = probability * len(rates) - 0.5
    if x <= 0:
        return rates[0]
    if x >= len(rates) - 1:
        return rates[-1]
    i = int(x)
    t = x - i
    return rates[i] * (1 - t) + rates[i + 1] * t


class _Strong:
    """Per-decision tables for the strong Wild Stars bot."""

    def __init__(self, v: _View) -> None:
        self.v = v
        self.players = len(v.counts)
        self.gain = 1.0 if self.players == 2 else 0.35
        self.n_next = v.cups.get(v.next_id or "", 0)
        bidder = v.bidder
        self.lean_bidder = (
            bidder is not None
            and bidder != v.me
            and bidder in v.cups
            and not v.shown.get(bidder)  # a bidder who showed has a freshly rerolled cup
        )
        self.n_bidder = v.cups.get(bidder or "", 0) if self.lean_bidder else 0
        self._rest: dict[tuple[int, int, bool], _Dist] = {}
        self._called: dict[tuple[int, int], tuple[list[float], list[float], float]] = {}
        self._rates: dict[tuple[int, int], list[float]] = {}
        # a perfect bid costs every other player a die, except those on their last die who
        # did not challenge (Die Hard)
        self.exact_hits = sum(
            1 for o, n in v.counts.items() if o != v.me and (n > 1 or o == v.next_id)
        )
        self.exact_call_hits = sum(
            1 for o, n in v.counts.items() if o not in (v.me, v.bidder) and n > 1
        )

    def _bidder_pmf(self, face: int) -> tuple[float, ...]:
        p = P_MILLI[face]
        plain, lean = pmf(self.n_bidder, p), pmf(self.n_bidder, p + LEAN_MILLI)
        return tuple(
            (1 - LEAN_SHARE) * a + LEAN_SHARE * b for a, b in zip(plain, lean, strict=True)
        )

    def rest(self, face: int, rerolled: int, without_next: bool) -> _Dist:
        """Unseen dice (plus our ``rerolled`` fresh ones) counting toward ``face``.

        ``without_next`` leaves the next player's cup out (it is scored die by die).
        """
        key = (face, rerolled, without_next)
        got = self._rest.get(key)
        if got is not None:
            return got
        v, p = self.v, P_MILLI[face]
        lean = self.lean_bidder and v.current is not None and face == v.current[1]
        plain = v.unseen + rerolled
        if without_next:
            plain -= self.n_next
        probs: list[float] = [1.0]
        if lean and not (without_next and v.bidder == v.next_id):
            plain -= self.n_bidder
            probs = list(self._bidder_pmf(face))
        probs = _convolve(probs, pmf(max(plain, 0), p))
        got = _Dist(probs)
        self._rest[key] = got
        return got

    def next_pmf(self, face: int) -> tuple[float, ...]:
        v = self.v
        if self.lean_bidder and v.bidder == v.next_id and v.current and face == v.current[1]:
            return self._bidder_pmf(face)
        return pmf(self.n_next, P_MILLI[face])

    def call_value(self) -> float:
        """Expected dice (ours −1 each, a rival's +gain each) if we call the current bid."""
        v = self.v
        assert v.current is not None
        q, f = v.current
        dist = self.rest(f, 0, False)
        k = q - v.known(f)  # the unseen dice must make up k for the bid to be exact
        # count < bid: the bidder loses the difference; count > bid: we do; exact: all but the bidder
        exact = dist.at(k) if k >= 0 else 0.0
        return (
            self.gain * dist.short(k)
            - dist.over(k)
            + exact * (-1 + self.gain * self.exact_call_hits)
        )

    def _called_table(self, face: int, rerolled: int) -> tuple[list[float], list[float], float]:
        """Per k (what the rest must make up): our dice if the next player calls, and P(rest > k)."""
        key = (face, rerolled)
        got = self._called.get(key)
        if got is not None:
            return got
        rest = self.rest(face, rerolled, True)
        n = len(rest.p)
        called = [
            self.gain * rest.over(k) - rest.short(k) + rest.at(k) * self.gain * self.exact_hits
            for k in range(n)
        ]
        room = [1 - rest.below(k + 1) for k in range(n)]
        got = (called, room, rest.mean)
        self._called[key] = got
        return got

    def _call_rates(self, face: int, show: int) -> list[float]:
        """The next player's call rate per number of dice they would need beyond their cup."""
        key = (face, show)
        got = self._rates.get(key)
        if got is not None:
            return got
        v = self.v
        unseen_next = v.total - self.n_next - len(v.shown_all) - show
        table = tail_table(max(unseen_next, 0), P_MILLI[face])
        got = [_interpolate(DEFAULT_CALL_RATE, x) for x in table]
        self._rates[key] = got
        return got

    def raise_value(self, q: int, face: int, show: int, rerolled: int) -> float:
        """Expected dice of our bid (q, face) with ``show`` dice shown and ``rerolled`` rerolled."""
        v = self.v
        # we show exactly our dice that count, so what we are sure of stays the same; the
        # rerolled dice (none of which counted) join the unseen ones
        sure = v.known(face)
        called, room, mean = self._called_table(face, rerolled)
        rates = self._call_rates(face, show)
        public = v.shown_count(face) + show
        share = 2 / self.players
        gain = self.gain
        n, last = len(called), len(rates) - 1
        value = 0.0
        for j, w in enumerate(self.next_pmf(face)):
            if w < 1e-9:
                continue
            m = q - public - j  # what the next player needs beyond their cup and the shown dice
            c = rates[0] if m <= 0 else (rates[m] if m <= last else rates[last])
            k = q - sure - j  # what the unseen dice must make up
            if k < 0:
                got, r = gain * (mean - k), 1.0
            elif k >= n:
                got, r = mean - k, 0.0
            else:
                got, r = called[k], room[k]
            value += w * (c * got - (1 - c) * share * (CONT_COST + 0.1 * r))
        return value


def strong(v: _View, roller: Roller) -> Action:
    """The best-scored option; a mixed choice among near-best raises (module docstring)."""
    s = _Strong(v)
    scored: list[tuple[float, int, int, list[int]]] = []
    for q, f in v.raises(6):
        if q > v.known(f) + v.unseen + 1:
            continue
        scored.append((s.raise_value(q, f, 0, 0), q, f, []))
        held = [i for i, d in enumerate(v.cup) if _counts(d, f)]
        if held and len(held) < len(v.cup):
            scored.append((s.raise_value(q, f, len(held), len(v.cup) - len(held)), q, f, held))
    if not scored:
        lowest = v.raises(0)
        if not lowest:
            return v.liar()  # the bid is at the top of the track: nothing is left but Liar!
        scored.append((s.raise_value(*lowest[0], 0, 0), *lowest[0], []))
    best = max(scored, key=lambda c: c[0])
    if v.current is not None and s.call_value() >= best[0]:
        return v.liar()
    weighted = [(1000, best)]
    for c in scored:
        gap = best[0] - c[0]
        if c is not best and gap <= MIX_MARGIN:
            w = round(MIX_NEAR * math.exp(-gap / MIX_TEMPERATURE))
            if w > 0:
                weighted.append((w, c))
    pick = best
    if len(weighted) > 1:
        r = roller.below(sum(w for w, _ in weighted))
        for w, c in weighted:
            if r < w:
                pick = c
                break
            r -= w
    return v.bid(pick[1], pick[2], pick[3])


# -- bench-only baselines ----------------------------------------------------------------------


def random_play(v: _View, roller: Roller) -> Action:
    """A uniformly random legal bid, or Liar! when a bid exists; never shows dice."""
    options = [
        (q, f)
        for f in ALL_FACES
        for q in range(1, v.total + 1)
        if is_raise(q, f, _bid_of(v.current))
    ]
    n = len(options) + (1 if v.current is not None else 0)
    pick = roller.below(n)
    if pick >= len(options):
        return v.liar()
    return v.bid(*options[pick])


def naive(v: _View) -> Action:
    """Call when the bid exceeds the expected count, else raise its best number face one step."""
    if v.current is not None:
        q, f = v.current
        if q > v.known(f) + v.unseen * P_MILLI[f] / 1000:
            return v.liar()
    best = max(FACES, key=lambda f: (v.known(f), f))
    if v.current is None:
        return v.bid(max(1, v.known(best)), best)
    for q in range(1, v.total + 1):
        if is_raise(q, best, _bid_of(v.current)):
            return v.bid(q, best)
    return v.liar()


def decide(
    view: dict[str, Any],
    level: str,
    memory: dict[str, Any] | None = None,
    roller: Roller | None = None,
) -> Action:
    """Choose a legal action for the seat the view belongs to."""
    from ...dice import ScriptedRoller

    v = _View(view)
    roll = roller if roller is not None else ScriptedRoller()
    if level == "easy":
        return easy(v, roll)
    if level == "medium":
        return medium(v)
    if level == "random":
        return random_play(v, roll)
    if level == "naive":
        return naive(v)
    return strong(v, roll)
