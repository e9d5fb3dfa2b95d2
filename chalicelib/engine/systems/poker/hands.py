"""Poker Liar Dice hand maths: faces, categories, ranks, claims and their chances.

Faces 9 < T < J < Q < K < A are 1..6. Hands compare by category, then die by die in
canonical order (the larger group first, equal groups by the higher face). The rules
(``rules``) and the bots (``bot``) share everything here; it knows nothing of the table.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from ...errors import IllegalBid, InvalidAction
from .commands import PartialHand

FACE_NAMES = "9TJQKA"
ACE = 6
CATEGORIES = (
    "high_card",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
)
_PATTERNS = {
    (1, 1, 1, 1, 1): 0,
    (2, 1, 1, 1): 1,
    (2, 2, 1): 2,
    (3, 1, 1): 3,
    (3, 2): 4,
    (4, 1): 5,
    (5,): 6,
}
_BASE = 7**5

Hand = tuple[int, ...]


def canonical(dice: list[int] | Hand) -> Hand:
    """The dice in canonical order: larger groups first, equal groups by the higher face."""
    counts = Counter(dice)
    order = sorted(counts, key=lambda f: (counts[f], f), reverse=True)
    return tuple(f for f in order for _ in range(counts[f]))


def category(dice: list[int] | Hand) -> int:
    """The hand's category index (0 high card … 6 five of a kind)."""
    return _PATTERNS[tuple(sorted(Counter(dice).values(), reverse=True))]


def _code(hand: Hand) -> int:
    code = 0
    for f in hand:
        code = code * 7 + f
    return code


def _decode(code: int) -> Hand:
    out = []
    for _ in range(5):
        out.append(code % 7)
        code //= 7
    return tuple(reversed(out))


def hand_rank(dice: list[int] | Hand) -> int:
    """A number that orders hands: category first, then the dice in canonical order."""
    hand = canonical(dice)
    return category(hand) * _BASE + _code(hand)


ALL_HANDS: list[Hand] = sorted(
    (canonical(h) for h in combinations_with_replacement(range(1, 7), 5)), key=hand_rank
)
"""Every distinct hand (252), lowest first."""
_RANK_OF_SORTED: dict[Hand, int] = {tuple(sorted(h)): hand_rank(h) for h in ALL_HANDS}
_HAND_COUNTS = {h: Counter(h) for h in ALL_HANDS}
FIVE_ACES_RANK = hand_rank((ACE,) * 5)


def fast_rank(dice: list[int] | Hand) -> int:
    """``hand_rank`` through a table (bots evaluate many hands)."""
    return _RANK_OF_SORTED[tuple(sorted(dice))]


_RANK_OF_HAND: dict[Hand, int] = {h: hand_rank(h) for h in ALL_HANDS}
_CATEGORY_OF_HAND: dict[Hand, int] = {h: category(h) for h in ALL_HANDS}


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim: ``player_id`` says the cup holds ``hand`` (the full hand, canonical order).

    Stored like a bid (``{"player_id", "quantity", "face"}`` and rows ``[quantity, face]``)
    with the category and the hand's base-7 code, so rooms stored before the claim had a type
    of its own read back unchanged; in memory it is a hand, not a quantity and a face.
    """

    player_id: str
    hand: Hand

    @property
    def category(self) -> int:
        """The hand's category index (0 high card … 6 five of a kind)."""
        return _CATEGORY_OF_HAND[self.hand]

    @property
    def rank(self) -> int:
        """The claim's rank (``hand_rank`` of its hand)."""
        return _RANK_OF_HAND[self.hand]

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {"player_id": self.player_id, "quantity": self.category, "face": _code(self.hand)}

    def row(self) -> tuple[int, int]:
        """The stored form in a round's history and a reveal row: ``(category, code)``."""
        return (self.category, _code(self.hand))

    @classmethod
    def from_row(cls, player_id: str, row: list[Any] | tuple[Any, ...]) -> Claim:
        """Inverse of ``row``."""
        _category, code = row
        return cls(player_id, _decode(int(code)))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Claim:
        """Inverse of ``to_dict``."""
        return cls.from_row(d["player_id"], (d["quantity"], d["face"]))


def claim_of(call: Any) -> Claim:
    """The call as a ``Claim`` (Poker Liar Dice makes no other kind of call)."""
    assert isinstance(call, Claim), call
    return call


def bid_of(player_id: str, hand: Hand) -> Claim:
    """The claim of ``hand`` by ``player_id``."""
    return Claim(player_id, canonical(hand))


def bid_hand(bid: Any) -> Hand:
    """The full hand a claim stands for."""
    return claim_of(bid).hand


def bid_rank(bid: Any) -> int:
    """The claim's rank."""
    return claim_of(bid).rank


def faces_out(dice: list[int] | Hand) -> list[int | str]:
    """Dice on the wire: ``"9"`` … ``"A"``."""
    return [FACE_NAMES[d - 1] for d in dice]


def bid_view_hand(bid: Any) -> list[int | str]:
    """The faces of a stored claim's full hand, as shown."""
    return faces_out(bid_hand(bid))


def parse_face(value: Any, field: str) -> int:
    """A face name (``"9"``, ``"T"``/``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``) as 1..6."""
    if isinstance(value, str):
        text = "T" if value == "10" else value.upper()
        if len(text) == 1 and text in FACE_NAMES:
            return FACE_NAMES.index(text) + 1
    raise InvalidAction('faces are "9", "T", "J", "Q", "K" or "A"', field=field)


def contains(hand: Hand, exposed: list[int]) -> bool:
    """The hand includes every exposed die."""
    need = Counter(exposed)
    have = _HAND_COUNTS.get(hand) or Counter(hand)
    return all(have[f] >= n for f, n in need.items())


def lowest_claim(
    current: int | None, exposed: list[int], cat: int | None = None, faces: Hand = ()
) -> Hand | None:
    """The lowest hand above ``current`` (a rank) containing ``exposed`` and meeting the partial."""
    for hand in ALL_HANDS:
        if current is not None and hand_rank(hand) <= current:
            continue
        if cat is not None and category(hand) != cat:
            continue
        if faces and tuple(dict.fromkeys(hand))[: len(faces)] != faces:
            continue
        if contains(hand, exposed):
            return hand
    return None


def parse_claim(spec: Any, current: int | None, exposed: list[int]) -> Hand:
    """The full hand a claim stands for, if it is legal (else raise ``IllegalBid``)."""
    if spec == "better":
        hand = lowest_claim(current, exposed)
    elif isinstance(spec, list | tuple):
        if len(spec) != 5:
            raise InvalidAction("a full claim names five faces", field="hand")
        hand = canonical([parse_face(v, "hand") for v in spec])
        if current is not None and hand_rank(hand) <= current:
            raise IllegalBid("a claim must beat the claim accepted", field="hand")
        if not contains(hand, exposed):
            raise IllegalBid("a claim must include the exposed dice", field="hand")
    elif isinstance(spec, dict | PartialHand):
        name = spec.get("category") if isinstance(spec, dict) else spec.category
        if name not in CATEGORIES:
            raise InvalidAction("category must be one of: " + ", ".join(CATEGORIES), field="hand")
        raw = spec.get("faces", []) if isinstance(spec, dict) else list(spec.faces)
        if not isinstance(raw, list) or len(raw) > 5:
            raise InvalidAction("faces must be a list of up to five faces", field="hand")
        faces = tuple(parse_face(v, "hand") for v in raw)
        hand = lowest_claim(current, exposed, CATEGORIES.index(name), faces)
    else:
        raise InvalidAction('hand must be five faces, "better" or {category, faces}', field="hand")
    if hand is None:
        raise IllegalBid("no hand meets that claim, beats the claim and shows the exposed dice")
    return hand


def better_claim(current: int | None, cup: list[int], exposed: list[int]) -> dict[str, Any]:
    """Claim ``better``, taking the exposed dice back if no better hand contains them."""
    if lowest_claim(current, [cup[i] for i in exposed]) is not None:
        return {"type": "claim", "hand": "better"}
    return {"type": "claim", "hand": "better", "unexpose": sorted(exposed)}


def _outcomes(r: int) -> list[tuple[Hand, float]]:
    out = []
    for combo in combinations_with_replacement(range(1, 7), r):
        ways = factorial(r)
        for n in Counter(combo).values():
            ways //= factorial(n)
        out.append((combo, ways / 6**r))
    return out


_OUTCOMES = [_outcomes(r) for r in range(6)]


def p_at_least(fixed: list[int], r: int, target: int) -> float:
    """Chance that ``fixed`` plus ``r`` fresh dice make a hand ranked at least ``target``."""
    base = list(fixed)
    return sum(p for combo, p in _OUTCOMES[r] if fast_rank(base + list(combo)) >= target)


def claim_probability(
    claim: Hand, exposed: list[int], claimant_rerolled: int | None, level: str
) -> float:
    """How likely the cup meets the claim, from what every seat sees."""
    target = hand_rank(claim)
    hidden = 5 - len(exposed)
    p_random = p_at_least(exposed, hidden, target)
    if claimant_rerolled is None or level == "easy":
        return p_random
    # the dice the claimant kept presumably carry the best part of the claim
    rest = list((Counter(claim) - Counter(exposed)).elements())
    rest = list(canonical(rest)) if rest else []
    k = min(claimant_rerolled, hidden)
    kept = rest[: hidden - k]
    p_kept = p_at_least(exposed + kept, hidden - len(kept), target)
    return 0.4 * p_random + 0.6 * p_kept
