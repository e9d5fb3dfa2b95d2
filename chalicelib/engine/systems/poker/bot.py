"""Poker Liar Dice bots: decisions from the bot's own player view only (docs/BOTS.md).

The view holds the stage, the current claim (as a full hand), the exposed dice, the rerolls
announced this hand (who rerolled how many, in order) and, for the holder who has looked,
the cup. Levels (docs/BOTS.md):

- ``easy``: believes a claim only when a fresh roll of the cup's hidden dice would make it at
  least half the time (it doubts too much: claims are usually better than a fresh roll);
  rerolls its unmatched dice; claims its hand when it beats the claim, else the lowest
  better hand. It plays like the ``naive`` baseline.
- ``medium``: as easy, but weighs what the claimant kept (the dice they did not reroll
  presumably carry the claim) and calls below 35 %.
- ``strong``: reads each claimant three ways (their hidden dice are a fresh roll; the dice
  they kept carry the claim; they are truthful beyond that), weighed by how well each reading
  foretold that player's challenged claims (Bayes, from public reveals), by the claims it
  checked itself, and by whether the claimant answers claims at random. It calls when the
  claim's chance of being true is below its chance of losing the hand if it accepts (the cup,
  under each reading, rerolled at best, fails to beat the claim and the lie it then passes is
  called). After accepting it picks the reroll that gives the best chance of a hand above the
  claim (every subset of its hidden dice, exactly). It claims its true hand when that beats
  the claim; otherwise the most believable lie, exposing the dice of its cup that the lie
  contains when that makes it more believable to the receiver.

Bench-only baselines: ``random`` (uniformly random choices at every stage) and ``naive``
(believes a claim when a fresh roll of the hidden dice makes it at least half the time,
rerolls unmatched dice, claims its hand or the lowest better hand).

Why it is over 600 lines: the three levels share the odds of a cup (what a reroll of k
hidden dice makes, how likely a claimed hand is) and the reading of announced rerolls;
split by level, each would import the others' private helpers.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from functools import cache, lru_cache
from itertools import combinations
from typing import Any

from ...dice import Roller
from .hands import (
    _OUTCOMES,
    ACE,
    ALL_HANDS,
    FIVE_ACES_RANK,
    better_claim,
    canonical,
    contains,
    faces_out,
    fast_rank,
    hand_rank,
    parse_face,
)

Action = dict[str, Any]
RANKS = [hand_rank(h) for h in ALL_HANDS]

KEPT_WEIGHT = 0.6
"""How much we believe that the dice a claimant kept carry their claim."""
PLAUSIBLE = 4.0
LIE_SURVIVES = 0.35
"""After accepting a claim we cannot beat truly, the chance our lie gets through."""
HONEST_RISK = 0.07
"""After we pass a true claim and it is accepted, the chance we still lose the hand."""


@cache
def _final_ranks(fixed: tuple[int, ...]) -> tuple[list[int], list[float]]:
    """The ranks ``fixed`` plus fresh dice (to five) can make, sorted, with the chance of each
    rank or better (462 sorted ``fixed`` at most: every query is then one bisection)."""
    base = list(fixed)
    pairs = sorted((fast_rank(base + list(combo)), p) for combo, p in _OUTCOMES[5 - len(fixed)])
    tail = [0.0] * (len(pairs) + 1)
    for i in range(len(pairs) - 1, -1, -1):
        tail[i] = tail[i + 1] + pairs[i][1]
    return [rank for rank, _ in pairs], tail


def p_at_least(fixed: tuple[int, ...], r: int, target: int) -> float:
    """Chance that ``fixed`` plus ``r`` fresh dice make a hand ranked at least ``target``."""
    assert len(fixed) + r == 5
    ranks, tail = _final_ranks(tuple(sorted(fixed)))
    return tail[bisect_left(ranks, target)]


class _View:
    """The parts of a Poker player view the bots use."""

    def __init__(self, view: dict[str, Any]) -> None:
        g = view["game"]
        table = g["table"] or {}
        self.turn = int(g["turn"]["number"])
        self.round = int(g.get("round") or 0)
        self.me = str(view["me"]["player_id"])
        self.stage = table.get("stage")
        faces = table.get("exposed") or [None] * 5
        self.exposed_pos = [i for i, f in enumerate(faces) if f is not None]
        self.exposed = [parse_face(f, "exposed") for f in faces if f is not None]
        self.faces = [None if f is None else parse_face(f, "exposed") for f in faces]
        raw = g.get("current_bid")
        self.claimant = raw["player_id"] if raw else None
        self.claim = canonical([parse_face(f, "hand") for f in raw["hand"]]) if raw else None
        self.current = None if self.claim is None else hand_rank(self.claim)
        self.cup = [parse_face(f, "dice") for f in (view["me"]["dice"] or [])]
        self.rerolls = [(r["player_id"], int(r["count"])) for r in table.get("rerolls") or []]
        seats = [p["id"] for p in view["players"] if not (p["eliminated"] or p["resigned"])]
        self.players = len(seats)
        self.next_id = seats[(seats.index(self.me) + 1) % len(seats)] if self.me in seats else None

    def act(self, action: Action) -> Action:
        return {**action, "turn": self.turn}

    def claimant_rerolled(self) -> int | None:
        """How many dice the claimant rerolled before claiming (None: they rolled the cup)."""
        mine = [n for pid, n in self.rerolls if pid == self.claimant]
        return mine[-1] if mine else None


def _claim_hand(hand: tuple[int, ...], v: _View, expose: list[int] | None = None) -> Action:
    action: Action = {"type": "claim", "hand": faces_out(hand)}
    if expose:
        action["expose"] = sorted(expose)
    return v.act(action)


# -- claim probability -------------------------------------------------------------------------


def p_random(claim: tuple[int, ...], exposed: list[int]) -> float:
    """The claim's chance if the hidden dice were a fresh roll."""
    return p_at_least(tuple(sorted(exposed)), 5 - len(exposed), hand_rank(claim))


def p_kept(claim: tuple[int, ...], exposed: list[int], rerolled: int) -> float:
    """The claim's chance if the dice the claimant kept are the best part of the claim."""
    target = hand_rank(claim)
    hidden = 5 - len(exposed)
    rest = list((Counter(claim) - Counter(exposed)).elements())
    rest = list(canonical(rest)) if rest else []
    k = min(rerolled, hidden)
    kept = rest[: hidden - k]
    return p_at_least(tuple(sorted(exposed + kept)), hidden - len(kept), target)


def _estimates(
    claim: tuple[int, ...], exposed: list[int], rerolled: int | None
) -> tuple[float, float]:
    """(fresh-roll chance, kept-dice chance) of a claim; a claimant who rolled kept all five.

    The kept-dice chance is capped at ``PLAUSIBLE`` times the fresh-roll chance: a claimant
    rarely got a rare hand, whatever they kept.
    """
    rnd = p_random(claim, exposed)
    kept = p_kept(claim, exposed, 0 if rerolled is None else rerolled)
    return rnd, min(kept, PLAUSIBLE * rnd)


def claim_probability(v: _View, kept_weight: float, memory: dict[str, Any] | None = None) -> float:
    """How likely the cup meets the current claim, from this seat's view.

    With ``memory``, the mixture follows what the claimant's challenged claims showed.
    """
    assert v.claim is not None
    known = passed_back(v, memory) if memory is not None else None
    if known is not None:
        rnd, kept = known
        if kept <= 0:
            return 0.0  # no dice they may have kept make the claim
        if rnd >= 1:
            return 1.0
        assert v.claimant is not None
        return fitted(memory or {}, v.claimant, rnd, kept, v.me)
    rnd, kept = _estimates(v.claim, v.exposed, v.claimant_rerolled())
    if kept_weight <= 0:
        return rnd
    if memory is not None and v.claimant is not None:
        return fitted(memory, v.claimant, rnd, kept, v.me, v.claimant_rerolled() is None)
    return (1 - kept_weight) * rnd + kept_weight * kept


NOTES = ("pc", "pq", "pr", "pa")
"""The bot memory entries keyed by bot id (each bot's own notes, below); "pk" is public."""


# -- the bot's own last claim (room.bot_memory["pc"][its id]) ----------------------------------
#
# A player remembers what they passed: the cup they held when they claimed (their own dice,
# seen by them), which dice they left exposed, the hand (round) and how many rerolls had been
# announced. When the cup comes back after one announced reroll of ``k`` dice by the player
# they passed it to, the dice that were not rerolled are dice the bot knows. Nothing here reads
# another seat's dice: only the bot's own view at its own claim. Cleared at every reveal.


def remember_claim(v: _View, action: Action, memory: dict[str, Any]) -> None:
    """Record the cup this seat passes with its claim (its own dice, seen in its own view)."""
    mine = memory.setdefault("pc", {})
    if len(v.cup) != 5 or v.stage not in ("claim", "reroll"):
        mine.pop(v.me, None)  # passed unlooked: it knows nothing of the cup
        return
    gone = set(action.get("unexpose") or [])
    exposed = sorted({*(i for i in v.exposed_pos if i not in gone), *(action.get("expose") or [])})
    mine[v.me] = [
        v.round,
        len(v.rerolls),
        "".join(str(d) for d in v.cup),
        "".join(str(i) for i in exposed),
    ]


Cups = list[tuple[tuple[int, ...], int, float]]
"""A distribution of cups: (the dice known, sorted; how many are a fresh roll; weight)."""


def passed_cups(v: _View, memory: dict[str, Any]) -> Cups | None:
    """The cups the claimant can hold, if it is the cup this seat passed them.

    None unless the claimant is the one this seat passed the cup to this hand and theirs is the
    only reroll announced since. One entry per set of ``k`` rerolled positions consistent with
    the exposed dice (the dice not rerolled are the ones this seat passed).
    """
    rec = memory.get("pc", {}).get(v.me)
    if not (isinstance(rec, list) and len(rec) == 4) or v.claim is None:
        return None
    rnd_no, seen, cup_s, ex_s = rec
    if rnd_no != v.round or v.claimant != v.next_id or v.players < 2:
        return None
    since = v.rerolls[seen:] if isinstance(seen, int) else []
    if len(since) != 1 or since[0][0] != v.claimant or len(cup_s) != 5:
        return None
    k = since[0][1]
    cup = [int(c) for c in cup_s]
    was_out = {int(c) for c in ex_s}
    stayed = [i for i in range(5) if i in was_out and v.faces[i] is not None]
    free = [i for i in range(5) if i not in stayed]
    if k > len(free):
        return None
    out: Cups = []
    for rolled in combinations(free, k):
        weight = 1.0
        known: list[int] = []
        fresh = 0
        for i in range(5):
            face = v.faces[i]
            if i in rolled:
                if face is None:
                    fresh += 1
                else:
                    weight /= 6
                    known.append(face)
            elif face is not None and face != cup[i]:
                weight = 0.0
                break
            else:
                known.append(cup[i])
        if weight > 0:
            out.append((tuple(sorted(known)), fresh, weight))
    return out or None


def passed_back(v: _View, memory: dict[str, Any]) -> tuple[float, float] | None:
    """(uniform-reroll chance, best-kept chance) of the claim on the cup this seat passed.

    Every set of ``k`` rerolled positions consistent with the exposed dice (``passed_cups``) is
    weighed as a uniformly random pick (a fresh-roll reading) and the best one for the claim
    (a kept-dice reading).
    """
    cups = passed_cups(v, memory)
    if cups is None:
        return None
    assert v.claim is not None
    target = hand_rank(v.claim)
    chances = [(p_at_least(known, fresh, target), w) for known, fresh, w in cups]
    total = sum(w for _, w in chances)
    return sum(p * w for p, w in chances) / total, max(p for p, _ in chances)


MODELS = ("fresh", "kept", "truthful")
PRIOR_MODELS = (0.45, 0.4, 0.15)
"""Three readings of a claimant, with prior weights: their hidden dice are a fresh roll (a
wild bluffer), their kept dice carry the claim, or they are truthful beyond that."""
PRIOR_OPENING = (0.8, 0.15, 0.05)
"""The same for a claim made on a cup the claimant rolled (the hand's first claim)."""
DECAY_AT = 60


def _model_chances(rnd: float, kept: float) -> tuple[float, float, float]:
    """The claim's chance under each reading (kept never below fresh)."""
    kept = max(kept, rnd)
    return rnd, kept, 1 - (1 - kept) * 0.3


def fitted(
    memory: dict[str, Any],
    player_id: str,
    rnd: float,
    kept: float,
    me: str | None = None,
    opening: bool = False,
) -> float:
    """The claim's chance, weighing the three readings by how well each foretold the player's
    challenged claims (Bayes: each reading's log-likelihood is kept per player, in milli-nats)
    and, for the bot ``me``, the claims it saw for itself (``own_evidence``).
    """
    weights = reading_weights(memory, player_id, me, opening)
    return sum(w * c for w, c in zip(weights, _model_chances(rnd, kept), strict=True))


def reading_weights(
    memory: dict[str, Any], player_id: str | None, me: str | None = None, opening: bool = False
) -> list[float]:
    """The three readings' posterior weights for a claimant (summing to 1): the public record
    of their challenged claims, plus what the bot ``me`` saw of their claims itself."""
    s = _stats(memory, player_id) if player_id else [0] * STAT_LEN
    own = _own(memory, me, player_id) if me and player_id else [0] * OWN_LEN
    prior = PRIOR_OPENING if opening else PRIOR_MODELS
    logs = [math.log(w) + (s[1 + i] + own[1 + i]) / 1000 for i, w in enumerate(prior)]
    # a player who answers claims regardless of their odds says little with their own claims
    logs[0] += s[WILD] / 1000
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    return [w / total for w in weights]


PRIOR_RESPONSES, PRIOR_CALL_RATE = 4.0, 0.6


def call_rate(memory: dict[str, Any], player_id: str | None) -> float:
    """How often a player called Liar! when a claim was passed to them (public: reveals)."""
    s = _stats(memory, player_id) if player_id else [0] * STAT_LEN
    return (s[5] + PRIOR_RESPONSES * PRIOR_CALL_RATE) / (s[4] + PRIOR_RESPONSES)


STAT_LEN = 7
"""Per player: claims challenged, the three readings' log-likelihoods (milli-nats), claims
passed to them, calls, and the evidence (milli-nats) that they answer claims at random."""
WILD = 6


def _stats(memory: dict[str, Any], player_id: str) -> list[int]:
    s = memory.get("pk", {}).get(player_id)
    return s if isinstance(s, list) and len(s) == STAT_LEN else [0] * STAT_LEN


def observe(memory: dict[str, Any], reveal: Any) -> None:
    """Score each reading of the claimant by their challenged claim; count calls (public)."""
    from .hands import bid_hand, bid_rank, parse_face

    memory.pop("pc", None)  # a hand ends: nobody's last claim carries over
    extra = reveal.extra
    if extra.get("five_aces") or "cup" not in extra:
        memory.pop("pq", None)
        memory.pop("pa", None)
        return
    cup = [parse_face(f, "cup") for f in extra["cup"]]
    exposed = [cup[i] for i in extra.get("exposed", [])]
    claimant = reveal.bid.player_id
    mine = [r["count"] for r in extra.get("rerolls", []) if r["player_id"] == claimant]
    rnd, kept = _estimates(canonical(bid_hand(reveal.bid)), exposed, mine[-1] if mine else None)
    true = fast_rank(cup) >= bid_rank(reveal.bid)
    stats = memory.setdefault("pk", {})

    def counters(pid: str) -> list[int]:
        s = stats.get(pid)
        if not (isinstance(s, list) and len(s) == STAT_LEN):
            s = [0] * STAT_LEN
            stats[pid] = s
        return s

    s = counters(claimant)
    s[0] += 1
    public = _log_scores(list(_model_chances(rnd, kept)), true)
    for i, score in enumerate(public):
        s[1 + i] += score
    # the challenger weighed this claim with what it saw itself: its own, sharper evidence
    own_evidence(memory, reveal.challenger_id, claimant, reveal.round, true, public)
    memory.pop("pq", None)
    # every announced reroll followed an acceptance; the challenger called
    for r in extra.get("rerolls", []):
        counters(r["player_id"])[4] += 1
    caller = counters(reveal.challenger_id)
    caller[4] += 1
    caller[5] += 1
    caller[WILD] += wild_evidence(True, rnd, kept)
    rolls = [(r["player_id"], r["count"]) for r in extra.get("rerolls", [])]
    for me in list(memory.get("pa", {})):
        accepted_claim(memory, me, reveal.round, rolls)
    memory.pop("pa", None)
    for s in stats.values():
        if max(s[0], s[4]) > DECAY_AT:
            s[:] = [x // 2 for x in s]


# -- answering at random ------------------------------------------------------------------------
#
# Someone who weighs the odds seldom calls a claim that even a fresh roll makes likely, and
# seldom accepts one that even the dice the claimant kept make unlikely; someone who answers
# at random does either half the time. Each call (from the reveal) and each acceptance of a
# strong bot's claim (``"pa"[bot]``: the claim's public chances, noted when it claimed) adds
# log(½ / the odds-weigher's chance of that answer) to the answerer's ``WILD`` evidence, which
# is added to the fresh-roll reading of their own claims (``reading_weights``): positive for
# someone who answers at random, zero or negative for someone who weighs the odds.


def wild_evidence(called: bool, rnd: float, kept: float) -> int:
    """Milli-nats for "answers at random" from one answer to a claim with these public chances."""
    weigher = 1.1 - 1.5 * rnd if called else 1.5 * kept - 0.1
    return round(1000 * math.log(0.5 / min(max(weigher, 0.05), 0.95)))


def accepted_claim(
    memory: dict[str, Any], me: str, round_no: int, rolls: list[tuple[str, int]]
) -> None:
    """If the claim bot ``me`` noted was accepted (the receiver's reroll is announced), score
    that acceptance as evidence of answering at random; the note is used once."""
    rec = memory.get("pa", {}).get(me)
    if not (isinstance(rec, list) and len(rec) == 5) or rec[0] != round_no:
        return
    seen, receiver = rec[1], rec[2]
    if receiver == me or len(rolls) <= seen or rolls[seen][0] != receiver:
        return
    del memory["pa"][me]
    stats = memory.setdefault("pk", {})
    s = stats.get(receiver)
    if not (isinstance(s, list) and len(s) == STAT_LEN):
        s = stats[receiver] = [0] * STAT_LEN
    s[WILD] += wild_evidence(False, rec[3] / 1000, rec[4] / 1000)


def note_own_claim(v: _View, action: Action, memory: dict[str, Any]) -> None:
    """Note the public chances of the claim this bot passes, to score the receiver's answer."""
    if v.next_id is None:
        return
    hand = action.get("hand")
    if not isinstance(hand, list):
        memory.get("pa", {}).pop(v.me, None)
        return
    claim = canonical([parse_face(f, "hand") for f in hand])
    gone = set(action.get("unexpose") or [])
    shown = [i for i in v.exposed_pos if i not in gone] + list(action.get("expose") or [])
    faces = [v.faces[i] if v.faces[i] is not None else (v.cup[i] if v.cup else None) for i in shown]
    if v.stage == "claim" and v.rerolls and v.rerolls[-1][0] == v.me:
        rerolled: int | None = v.rerolls[-1][1]
    else:
        rerolled = None if v.stage == "claim" else 0
    rnd, kept = _estimates(claim, [f for f in faces if f is not None], rerolled)
    seen = len(v.rerolls) + (1 if v.stage in ("respond", "reroll") else 0)
    memory.setdefault("pa", {})[v.me] = [
        v.round,
        seen,
        v.next_id,
        round(1000 * rnd),
        round(1000 * kept),
    ]


# -- what the bot saw for itself (room.bot_memory["pq"] and ["pr"], per bot) ------------------
#
# The public record scores a claimant's challenged claims with the chances every seat can
# work out. A bot also sees claims for itself: a claim it accepted is checked the moment it
# looks at the cup, and a claim on the cup it passed was weighed with what it remembers of
# that cup (sharper than the public chances). That evidence is its own, so it is kept per bot:
# ``"pq"[bot]`` is the claim it is answering (hand, claimant, the three readings' chances in
# permille), ``"pr"[bot][claimant]`` the readings' extra log-likelihoods (milli-nats) with a
# count, halved past ``DECAY_AT``.

OWN_LEN = 4


def _own(memory: dict[str, Any], me: str | None, player_id: str | None) -> list[int]:
    rec = memory.get("pr", {}).get(me, {}).get(player_id) if me and player_id else None
    return rec if isinstance(rec, list) and len(rec) == OWN_LEN else [0] * OWN_LEN


def _log_scores(chances: list[float], true: bool) -> list[int]:
    out = []
    for chance in chances:
        chance = min(max(chance, 0.02), 0.98)
        out.append(round(1000 * math.log(chance if true else 1 - chance)))
    return out


def note_claim(v: _View, memory: dict[str, Any]) -> None:
    """Remember the readings' chances of the claim this bot is answering (its own view)."""
    if v.claim is None or v.claimant is None:
        return
    known = passed_back(v, memory)
    rnd, kept = (
        known if known is not None else _estimates(v.claim, v.exposed, v.claimant_rerolled())
    )
    chances = [round(1000 * c) for c in _model_chances(rnd, kept)]
    memory.setdefault("pq", {})[v.me] = [v.round, v.claimant, *chances]


def own_evidence(
    memory: dict[str, Any], me: str, claimant: str, rnd_no: int, true: bool, public: list[int]
) -> None:
    """Score the noted claim by what this bot learned of it (less what the public record adds)."""
    rec = memory.get("pq", {}).pop(me, None)
    if not (isinstance(rec, list) and len(rec) == 5) or rec[0] != rnd_no or rec[1] != claimant:
        return
    mine = memory.setdefault("pr", {}).setdefault(me, {})
    row = _own(memory, me, claimant)
    scores = _log_scores([c / 1000 for c in rec[2:]], true)
    row = [row[0] + 1, *(x + a - b for x, a, b in zip(row[1:], scores, public, strict=True))]
    if row[0] > DECAY_AT:
        row = [x // 2 for x in row]
    mine[claimant] = row


def checked_on_looking(v: _View, memory: dict[str, Any]) -> None:
    """Having accepted, the bot looks: the claim it accepted was true or not."""
    if v.claimant is None or v.current is None or len(v.cup) != 5:
        memory.get("pq", {}).pop(v.me, None)
        return
    true = fast_rank(v.cup) >= v.current
    own_evidence(memory, v.me, v.claimant, v.round, true, [0, 0, 0])


def beat_chance(claim: tuple[int, ...], exposed: list[int]) -> float:
    """If the cup holds ``claim``, the best chance to beat it with one reroll."""
    target = hand_rank(claim) + 1
    best = 0.0
    free = list((Counter(claim) - Counter(exposed)).elements())
    for keep_n in range(len(free) + 1):
        for kept in set(combinations(free, keep_n)):
            got = p_at_least(tuple(sorted(exposed + list(kept))), 5 - len(exposed) - keep_n, target)
            best = max(best, got)
    return best


# -- stages ------------------------------------------------------------------------------------


def best_reroll(v: _View) -> list[int]:
    """The hidden dice to reroll for the best chance of a hand above the current claim."""
    target = (v.current or -1) + 1
    hidden = [i for i in range(5) if i not in v.exposed_pos]
    best: tuple[float, int] = (-1.0, 0)
    pick: list[int] = []
    for n in range(len(hidden) + 1):
        for dice in combinations(hidden, n):
            kept = [v.cup[i] for i in range(5) if i not in dice]
            got = p_at_least(tuple(sorted(kept)), n, target)
            if (got, -n) > best:
                best, pick = (got, -n), list(dice)
    return pick


def simple_reroll(v: _View) -> list[int]:
    """Keep the cup if it beats the claim, else reroll the unmatched hidden dice."""
    if v.current is not None and fast_rank(v.cup) > v.current:
        return []
    counts = Counter(v.cup)
    hidden = [i for i in range(5) if i not in v.exposed_pos]
    dice = [i for i in hidden if counts[v.cup[i]] == 1]
    if len(dice) == len(hidden) and dice:
        keep = max(dice, key=lambda i: v.cup[i])
        dice = [i for i in dice if i != keep]
    if not dice:
        dice = [i for i in hidden if v.cup[i] != ACE][:1]
    return sorted(dice)


def simple_claim(v: _View) -> Action:
    """Claim the cup's hand if it beats the claim, else the lowest better hand."""
    if v.cup and (v.current is None or fast_rank(v.cup) > v.current):
        return _claim_hand(canonical(v.cup), v)
    return v.act(better_claim(v.current, v.cup, v.exposed_pos))


def lie(v: _View) -> Action:
    """The most believable claim above the current one (our hand does not beat it)."""
    candidates = [
        h for h, r in zip(ALL_HANDS, RANKS, strict=True) if v.current is None or r > v.current
    ][:40]
    best: tuple[float, tuple[int, ...], list[int]] | None = None
    for hand in candidates:
        if not contains(hand, v.exposed):
            continue
        # expose the dice of our cup that the claimed hand holds (beyond those exposed)
        need = Counter(hand) - Counter(v.exposed)
        extra: list[int] = []
        for i in range(5):
            if i in v.exposed_pos:
                continue
            if need[v.cup[i]] > 0 and len(extra) < 4 - len(v.exposed_pos):
                need[v.cup[i]] -= 1
                extra.append(i)
        for show in ([], extra):
            shown = v.exposed + [v.cup[i] for i in show]
            if not contains(hand, shown):
                continue
            score = p_random(hand, shown)
            if best is None or score > best[0] + 1e-9:
                best = (score, hand, show)
    if best is None:
        return v.act(better_claim(v.current, v.cup, v.exposed_pos))
    return _claim_hand(best[1], v, best[2])


def respond(
    v: _View, kept_weight: float, call_below: float | None, memory: dict[str, Any] | None = None
) -> Action:
    """Liar! or accept; ``call_below`` None weighs the claim against surviving after accepting."""
    assert v.claim is not None
    if v.current == FIVE_ACES_RANK:
        return v.act({"type": "liar"})
    p = claim_probability(v, kept_weight, memory)
    if call_below is not None:
        return v.act({"type": "accept"} if p >= call_below else {"type": "liar"})
    if memory is not None:
        note_claim(v, memory)
    return v.act({"type": "liar"} if p < accept_loss(v, memory or {}) else {"type": "accept"})


def accept_loss(v: _View, memory: dict[str, Any]) -> float:
    """The chance of losing the hand if we accept: we pass a lie unless the reroll beats the claim.

    A lie gets through as often as the next player accepts (their call rate, learned from the
    reveals); a true claim is lost only later in the hand (``HONEST_RISK``, when they accept).
    """
    rate = min(max(call_rate(memory, v.next_id), 0.1), 0.9)
    lie_loss = 1 - (1 - rate) * LIE_SURVIVES / 0.4
    beat = beat_after_accepting(v, memory)
    return (1 - beat) * lie_loss + beat * (1 - rate) * HONEST_RISK


def beat_after_accepting(v: _View, memory: dict[str, Any]) -> float:
    """How likely the cup, once accepted and rerolled at best, beats the claim.

    Under each reading of the claimant the cup is a distribution: a fresh roll of the hidden
    dice; the dice they kept (the best part of the claim) and a fresh roll for the rest; or, if
    they are truthful, at least the claim itself. On the cup this seat passed them, the readings
    are every set of rerolled positions alike, and the set that makes the claim likeliest. The
    chances are weighed as the readings are (``reading_weights``).
    """
    assert v.claim is not None and v.current is not None
    target = v.current + 1
    ex = tuple(sorted(v.exposed))
    cups = passed_cups(v, memory)
    if cups is not None:
        total = sum(w for _, _, w in cups)
        fresh = sum(w * beat_after(known, n, ex, target) for known, n, w in cups) / total
        known, n, _ = max(cups, key=lambda c: p_at_least(c[0], c[1], v.current or 0))
        kept = beat_after(known, n, ex, target)
    else:
        hidden = 5 - len(ex)
        fresh = beat_after(ex, hidden, ex, target)
        rest = list((Counter(v.claim) - Counter(v.exposed)).elements())
        rest = list(canonical(rest)) if rest else []
        rerolled = v.claimant_rerolled()
        keep = rest[: hidden - min(0 if rerolled is None else rerolled, hidden)]
        kept = beat_after(tuple(sorted(ex + tuple(keep))), hidden - len(keep), ex, target)
    truthful = max(kept, beat_chance(v.claim, v.exposed))
    weights = reading_weights(
        memory, v.claimant, v.me, cups is None and v.claimant_rerolled() is None
    )
    return sum(w * b for w, b in zip(weights, (fresh, kept, truthful), strict=True))


@lru_cache(maxsize=1 << 14)
def _rerolls(
    cup: tuple[int, ...], exposed: tuple[int, ...]
) -> tuple[tuple[list[int], list[float]], ...]:
    """The ``_final_ranks`` of every reroll of the hidden dice of ``cup`` (each distinct set of
    dice kept), whatever the target: ``best_beat`` asks the same cup for many targets."""
    hidden = list((Counter(cup) - Counter(exposed)).elements())
    fixed = {
        tuple(sorted(exposed + kept))
        for n in range(len(hidden) + 1)
        for kept in combinations(hidden, n)
    }
    return tuple(_final_ranks(f) for f in sorted(fixed))


@lru_cache(maxsize=1 << 16)
def best_beat(cup: tuple[int, ...], exposed: tuple[int, ...], target: int) -> float:
    """The best chance, over every reroll of the hidden dice of ``cup`` (sorted; ``exposed``
    stay out), of a hand ranked at least ``target`` (``p_at_least`` of each, from tables made
    once per cup: measured, this was a fifth of the local server's CPU under bench/load.py)."""
    best = 0.0
    for ranks, tail in _rerolls(cup, exposed):
        best = max(best, tail[bisect_left(ranks, target)])
    return best


@lru_cache(maxsize=1 << 15)
def beat_after(known: tuple[int, ...], fresh: int, exposed: tuple[int, ...], target: int) -> float:
    """``best_beat`` over a cup of the ``known`` dice and ``fresh`` fresh ones."""
    return sum(
        p * best_beat(tuple(sorted(known + combo)), exposed, target)
        for combo, p in _OUTCOMES[fresh]
    )


def aces(v: _View) -> Action:
    dice = [i for i, d in enumerate(v.cup) if d != ACE]
    return v.act({"type": "reroll", "dice": dice} if dice else {"type": "stop"})


def play(v: _View, level: str, memory: dict[str, Any]) -> Action:
    """The easy, medium and strong bots."""
    if v.stage == "aces":
        return aces(v)
    if v.stage == "respond":
        if level == "easy":
            return respond(v, 0.0, 0.5)
        if level == "medium":
            return respond(v, KEPT_WEIGHT, 0.35)
        return respond(v, KEPT_WEIGHT, None, memory)
    if v.stage == "reroll":
        if level == "strong" and not (v.current is not None and fast_rank(v.cup) > v.current):
            return v.act({"type": "reroll", "dice": best_reroll(v)})
        return v.act({"type": "reroll", "dice": simple_reroll(v)})
    if level == "strong" and v.cup and v.current is not None and fast_rank(v.cup) <= v.current:
        return lie(v)
    return simple_claim(v)


# -- bench-only baselines ----------------------------------------------------------------------


def random_play(v: _View, roller: Roller) -> Action:
    """Uniformly random choices at every stage (always legal)."""
    if v.stage == "aces":
        dice = [i for i in range(5) if roller.below(2)]
        return v.act({"type": "reroll", "dice": dice} if dice else {"type": "stop"})
    if v.stage == "respond":
        return v.act({"type": "liar"} if roller.below(2) else {"type": "accept"})
    if v.stage == "reroll":
        hidden = [i for i in range(5) if i not in v.exposed_pos]
        return v.act({"type": "reroll", "dice": [i for i in hidden if roller.below(2)]})
    legal = [
        h
        for h, r in zip(ALL_HANDS, RANKS, strict=True)
        if (v.current is None or r > v.current) and contains(h, v.exposed)
    ]
    if not legal:
        return v.act(better_claim(v.current, v.cup, v.exposed_pos))
    return _claim_hand(legal[roller.below(len(legal))], v)


def naive(v: _View) -> Action:
    """Believe a claim a fresh roll makes half the time; reroll unmatched dice; claim the truth."""
    if v.stage == "aces":
        return aces(v)
    if v.stage == "respond":
        return respond(v, 0.0, 0.5)
    if v.stage == "reroll":
        return v.act({"type": "reroll", "dice": simple_reroll(v)})
    return simple_claim(v)


def decide(
    view: dict[str, Any],
    level: str,
    roller: Roller | None = None,
    memory: dict[str, Any] | None = None,
) -> Action:
    """Choose a legal action for the seat the view belongs to."""
    from ...dice import ScriptedRoller

    v = _View(view)
    if level == "random":
        return random_play(v, roller if roller is not None else ScriptedRoller())
    if level == "naive":
        return naive(v)
    if level in ("easy", "medium"):
        return play(v, level, memory or {})
    memory = {} if memory is None else memory
    if v.stage == "reroll":
        checked_on_looking(v, memory)
    accepted_claim(memory, v.me, v.round, v.rerolls)  # seen as soon as the cup comes back
    action = play(v, "strong", memory)
    if action.get("type") == "claim":
        remember_claim(v, action, memory)
        note_own_claim(v, action, memory)
    return action
