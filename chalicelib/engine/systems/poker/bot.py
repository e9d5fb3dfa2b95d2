"""Poker Liar Dice bots: decisions from the bot's own player view only (SPEC §8).

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
  foretold that player's challenged claims (Bayes, from public reveals). It calls when the claim's chance of being false beats
  its own chance of surviving if it accepts (how likely it can then beat the claim truly, or
  pass a believable lie). After accepting it picks the reroll that gives the best chance of
  a hand above the claim (every subset of its hidden dice, exactly). It claims its true hand
  when that beats the claim; otherwise the most believable lie, exposing the dice of its
  cup that the lie contains when that makes it more believable to the receiver.

Bench-only baselines: ``random`` (uniformly random choices at every stage) and ``naive``
(believes a claim when a fresh roll of the hidden dice makes it at least half the time,
rerolls unmatched dice, claims its hand or the lowest better hand).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
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


@lru_cache(maxsize=65536)
def p_at_least(fixed: tuple[int, ...], r: int, target: int) -> float:
    """Chance that ``fixed`` plus ``r`` fresh dice make a hand ranked at least ``target``."""
    base = list(fixed)
    return sum(p for combo, p in _OUTCOMES[r] if fast_rank(base + list(combo)) >= target)


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
        return fitted(memory or {}, v.claimant, rnd, kept)
    rnd, kept = _estimates(v.claim, v.exposed, v.claimant_rerolled())
    if kept_weight <= 0:
        return rnd
    if memory is not None and v.claimant is not None:
        return fitted(memory, v.claimant, rnd, kept)
    return (1 - kept_weight) * rnd + kept_weight * kept


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


def passed_back(v: _View, memory: dict[str, Any]) -> tuple[float, float] | None:
    """(uniform-reroll chance, best-kept chance) of the claim on the cup this seat passed.

    None unless the claimant is the one this seat passed the cup to this hand and theirs is the
    only reroll announced since. Every set of ``k`` rerolled positions consistent with the exposed
    dice is weighed as a uniformly random pick (a fresh-roll reading) and the best one for the
    claim (a kept-dice reading).
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
    target = hand_rank(v.claim)
    total = weight_sum = 0.0
    best = 0.0
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
        if weight <= 0:
            continue
        p = p_at_least(tuple(sorted(known)), fresh, target)
        total += weight * p
        weight_sum += weight
        best = max(best, p)
    if weight_sum <= 0:
        return None
    return total / weight_sum, best


MODELS = ("fresh", "kept", "truthful")
PRIOR_MODELS = (0.45, 0.4, 0.15)
"""Three readings of a claimant, with prior weights: their hidden dice are a fresh roll (a
wild bluffer), their kept dice carry the claim, or they are truthful beyond that."""
DECAY_AT = 60


def _model_chances(rnd: float, kept: float) -> tuple[float, float, float]:
    """The claim's chance under each reading (kept never below fresh)."""
    kept = max(kept, rnd)
    return rnd, kept, 1 - (1 - kept) * 0.3


def fitted(memory: dict[str, Any], player_id: str, rnd: float, kept: float) -> float:
    """The claim's chance, weighing the three readings by how well each foretold the player's
    challenged claims (Bayes: each reading's log-likelihood is kept per player, in milli-nats).
    """
    s = _stats(memory, player_id)
    logs = [math.log(w) + s[1 + i] / 1000 for i, w in enumerate(PRIOR_MODELS)]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    return sum(w * c for w, c in zip(weights, _model_chances(rnd, kept), strict=True)) / total


PRIOR_RESPONSES, PRIOR_CALL_RATE = 4.0, 0.6


def call_rate(memory: dict[str, Any], player_id: str | None) -> float:
    """How often a player called Liar! when a claim was passed to them (public: reveals)."""
    s = _stats(memory, player_id) if player_id else [0] * STAT_LEN
    return (s[5] + PRIOR_RESPONSES * PRIOR_CALL_RATE) / (s[4] + PRIOR_RESPONSES)


STAT_LEN = 6
"""Per player: claims challenged, the three readings' log-likelihoods (milli-nats), claims
passed to them, calls."""


def _stats(memory: dict[str, Any], player_id: str) -> list[int]:
    s = memory.get("pk", {}).get(player_id)
    return s if isinstance(s, list) and len(s) == STAT_LEN else [0] * STAT_LEN


def observe(memory: dict[str, Any], reveal: Any) -> None:
    """Score each reading of the claimant by their challenged claim; count calls (public)."""
    from .hands import bid_hand, bid_rank, parse_face

    memory.pop("pc", None)  # a hand ends: nobody's last claim carries over
    extra = reveal.extra
    if extra.get("five_aces") or "cup" not in extra:
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
    for i, chance in enumerate(_model_chances(rnd, kept)):
        chance = min(max(chance, 0.02), 0.98)
        s[1 + i] += round(1000 * math.log(chance if true else 1 - chance))
    # every announced reroll followed an acceptance; the challenger called
    for r in extra.get("rerolls", []):
        counters(r["player_id"])[4] += 1
    caller = counters(reveal.challenger_id)
    caller[4] += 1
    caller[5] += 1
    for s in stats.values():
        if max(s[0], s[4]) > DECAY_AT:
            s[:] = [x // 2 for x in s]


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
    beat = beat_chance(v.claim, v.exposed)
    # accepting: a true claim leaves us its cup to beat; a false one a weaker cup (a lie)
    lie_ok = LIE_SURVIVES
    if memory is not None:
        lie_ok = min(max(1 - call_rate(memory, v.next_id), 0.1), 0.9) * LIE_SURVIVES / 0.4
    survive = p * (beat + (1 - beat) * lie_ok) + (1 - p) * lie_ok
    return v.act({"type": "liar"} if 1 - p > survive else {"type": "accept"})


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
    action = play(v, "strong", memory)
    if action.get("type") == "claim":
        remember_claim(v, action, memory)
    return action
