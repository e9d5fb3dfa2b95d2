"""Poker Liar Dice (SPEC-VARIANTS.md; seeds 002 and 003): one cup of five poker dice, passed on.

- Faces 9 < T < J < Q < K < A, stored as 1..6, shown as ``"9" "T" "J" "Q" "K" "A"``.
- Hands, low to high: high card, pair, two pairs, three of a kind, full house, four of a kind,
  five of a kind (no straights). Hands compare by category, then die by die in *canonical
  order*: the larger group first, equal groups by the higher face (so two pairs compare by the
  high pair, then the low pair, then the kicker): all five dice count.
- Each player has ``lives`` (room setting, held in ``Player.dice_count``). A round is a hand.
- A turn has stages (``Game.extra["st"]``), each a new turn number; one holder's stages share
  one deadline (one clock per holder: the shared flow keeps the deadline while the same player
  acts on): ``claim`` (the holder passes the cup with a claim), ``respond`` (the receiver calls
  Liar! or accepts; a ``claim`` here accepts and passes the cup unlooked and unrolled),
  ``reroll`` (the receiver rerolls 0–5 dice, announced, and may expose or take back dice; a
  ``claim`` here passes without rerolling), ``aces`` (after accepting five aces: two more
  rolls, or stop).
- No peeking before accepting: in ``respond`` the receiver has not looked, so anything but
  ``liar``, ``accept`` or a ``claim`` that names no die of the cup (no ``expose``, no ``dice``)
  is refused with one fixed error (``NOT_ACCEPTED``), checked before anything that could
  depend on the hidden dice.
- A claim is five faces, ``"better"`` (the lowest legal hand) or ``{"category", "faces"}``
  (the lowest legal hand of that category whose groups start with those faces). Legal: it
  beats the claim accepted and contains the exposed dice. The full hand is stored and shown.
- Challenge: the cup is lifted; hand ≥ claim: the challenger loses a life and the next
  player after the challenger starts; else the claimant loses a life and the challenger starts.
- Five aces: made again, nobody loses and the next player starts; otherwise that player loses
  a life and the next player after them starts.
- Timeout (Königswinter): accept and pass the cup unrolled as ``"better"`` (taking exposed dice
  back into the cup when no better hand contains them); a five-aces claim is accepted; in the
  five-aces stage every non-ace die is rerolled.
- Dog's life (setting): the first player to lose their last life gets one extra life, once per
  game, automatically.

Round state in ``Game.extra``: ``st`` stage, ``cup`` the five dice (``"35126"``), ``ex``
exposed positions (``"03"``), ``rr`` announced rerolls ``[[player_id, count], …]``, ``al``
rolls left in the five-aces stage; ``dog`` (kept across hands) who had the dog's life.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from .dice import Roller
from .errors import IllegalBid, InvalidAction, WrongPhase
from .model import Bid, Player, Reveal, RevealRow, Room, Settings
from .rules import TurnOutcome

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


def bid_of(player_id: str, hand: Hand) -> Bid:
    """A claim stored as a ``Bid``: quantity is the category, face the encoded hand."""
    return Bid(player_id, category(hand), _code(canonical(hand)))


def bid_hand(bid: Bid) -> Hand:
    """The full hand a stored claim stands for."""
    return _decode(bid.face)


def bid_rank(bid: Bid) -> int:
    """The claim's rank."""
    return bid.quantity * _BASE + bid.face


def faces_out(dice: list[int] | Hand) -> list[int | str]:
    """Dice on the wire: ``"9"`` … ``"A"``."""
    return [FACE_NAMES[d - 1] for d in dice]


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
    elif isinstance(spec, list):
        if len(spec) != 5:
            raise InvalidAction("a full claim names five faces", field="hand")
        hand = canonical([parse_face(v, "hand") for v in spec])
        if current is not None and hand_rank(hand) <= current:
            raise IllegalBid("a claim must beat the claim accepted", field="hand")
        if not contains(hand, exposed):
            raise IllegalBid("a claim must include the exposed dice", field="hand")
    elif isinstance(spec, dict):
        name = spec.get("category")
        if name not in CATEGORIES:
            raise InvalidAction("category must be one of: " + ", ".join(CATEGORIES), field="hand")
        raw = spec.get("faces", [])
        if not isinstance(raw, list) or len(raw) > 5:
            raise InvalidAction("faces must be a list of up to five faces", field="hand")
        faces = tuple(parse_face(v, "hand") for v in raw)
        hand = lowest_claim(current, exposed, CATEGORIES.index(name), faces)
    else:
        raise InvalidAction('hand must be five faces, "better" or {category, faces}', field="hand")
    if hand is None:
        raise IllegalBid("no hand meets that claim, beats the claim and shows the exposed dice")
    return hand


def _positions(action: dict[str, Any], name: str) -> list[int]:
    raw = action.get(name, [])
    if raw is None:
        return []
    if (
        not isinstance(raw, list)
        or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 5 for i in raw)
        or len(set(raw)) != len(raw)
    ):
        raise InvalidAction(f"{name} must list distinct cup positions 0–4", field=name)
    return list(raw)


def _die(roller: Roller) -> int:
    return roller.die(0)


NOT_ACCEPTED = "before accepting you may only call Liar! or accept (and pass the cup unlooked)"


def not_accepted() -> WrongPhase:
    """The one error for anything a receiver tries before accepting (never about the cup)."""
    return WrongPhase(NOT_ACCEPTED, code="not_accepted")


def _allowed_before_accepting(action: dict[str, Any]) -> bool:
    """Liar!, accept, or a claim passing the cup unlooked: naming no die of the cup."""
    kind = action.get("type")
    if kind in ("liar", "accept"):
        return True
    return kind == "claim" and not action.get("expose") and not action.get("dice")


class PokerRules:
    """Poker Liar Dice as SPEC-VARIANTS.md describes it."""

    name = "poker"

    # -- state helpers --------------------------------------------------------------------

    @staticmethod
    def _x(room: Room) -> dict[str, Any]:
        assert room.game is not None
        return room.game.extra

    def _cup(self, room: Room) -> list[int]:
        return [int(c) for c in self._x(room).get("cup", "")]

    def _exposed(self, room: Room) -> list[int]:
        return [int(c) for c in self._x(room).get("ex", "")]

    def _set(self, room: Room, cup: list[int], exposed: list[int]) -> None:
        x = self._x(room)
        x["cup"] = "".join(str(d) for d in cup)
        x["ex"] = "".join(str(i) for i in sorted(exposed))

    def _show_to(self, room: Room, holder: Player | None) -> None:
        """Only the holder who has looked sees the cup (as their hand)."""
        cup = self._cup(room)
        for p in room.players:
            p.hand = list(cup) if holder is not None and p.id == holder.id else []

    # -- RuleSystem -----------------------------------------------------------------------

    def check_start(self, room: Room) -> None:
        """Any table of two or more passes the cup."""

    def starting_count(self, settings: Settings) -> int:
        """Players start with the room's lives."""
        return settings.lives

    def dice_view(self, dice: list[int]) -> list[int | str]:
        """Poker faces by name."""
        return faces_out(dice)

    def deal(self, room: Room, roller: Roller) -> None:
        """The hand's starter rolls all five dice and looks; nothing is exposed."""
        game = room.game
        assert game is not None and game.opener is not None
        dog = game.extra.get("dog")
        game.extra = {"st": "claim", "rr": []}
        if dog is not None:
            game.extra["dog"] = dog
        self._set(room, [_die(roller) for _ in range(5)], [])
        self._show_to(room, room.player(game.opener))

    def place_bid(self, room: Room, player: Player, action: dict[str, Any], roller: Roller) -> Bid:
        """Poker has claims, not bids."""
        raise InvalidAction("Poker Liar Dice has claims: use type claim", field="type")

    def bid_view(self, bid: Bid) -> dict[str, Any]:
        """A claim as its full hand and category."""
        return {
            "player_id": bid.player_id,
            "hand": faces_out(bid_hand(bid)),
            "category": CATEGORIES[bid.quantity],
        }

    def table_view(self, room: Room) -> dict[str, Any] | None:
        """Stage, cup holder, exposed dice by position, announced rerolls, lives."""
        game = room.game
        assert game is not None
        x = game.extra
        cup, exposed = self._cup(room), self._exposed(room)
        return {
            "stage": x.get("st"),
            "holder_id": game.turn_player,
            "exposed": [FACE_NAMES[cup[i] - 1] if i in exposed else None for i in range(5)],
            "rerolls": [{"player_id": p, "count": n} for p, n in x.get("rr", [])],
            "lives": room.settings.lives,
            "aces_rolls_left": x.get("al"),
        }

    def turn_action(
        self, room: Room, player: Player, action: dict[str, Any], roller: Roller
    ) -> TurnOutcome:
        """One stage of the cup's journey (validated before anything changes)."""
        from .game import next_clockwise

        game = room.game
        assert game is not None
        x = game.extra
        stage = x.get("st")
        kind = action.get("type")
        current = game.current_bid
        five_aces = current is not None and bid_rank(current) == FIVE_ACES_RANK
        if stage == "respond" and not _allowed_before_accepting(action):
            raise not_accepted()
        if kind == "liar":
            if stage != "respond":
                raise WrongPhase("Liar! answers a claim passed to you", code="wrong_stage")
            return TurnOutcome(
                [{"type": "liar_called", "player_id": player.id}],
                reveal=self.resolve(room, player),
            )
        if kind == "accept":
            if stage != "respond":
                raise WrongPhase("there is no claim to accept", code="wrong_stage")
            events: list[dict[str, Any]] = [{"type": "claim_accepted", "player_id": player.id}]
            if five_aces:
                cup = [_die(roller) for _ in range(5)]
                self._set(room, cup, [])
                x["st"], x["al"] = "aces", 2
                x["rr"].append([player.id, 5])
                events.append({"type": "dice_rerolled", "player_id": player.id, "count": 5})
                self._show_to(room, player)
                if cup == [ACE] * 5:
                    return TurnOutcome(events, reveal=self._aces_decided(room, player))
            else:
                x["st"] = "reroll"
                self._show_to(room, player)
            return TurnOutcome(events, next_player=player)
        if kind == "reroll":
            return self._reroll(room, player, action, roller)
        if kind == "stop":
            if stage != "aces":
                raise WrongPhase("stop ends the five-aces rolls", code="wrong_stage")
            return TurnOutcome(
                [{"type": "rolls_stopped", "player_id": player.id}],
                reveal=self._aces_decided(room, player),
            )
        if kind == "claim":
            if stage not in ("claim", "respond", "reroll"):
                raise WrongPhase("you cannot claim now", code="wrong_stage")
            if stage == "respond" and five_aces:
                raise IllegalBid("nothing beats five aces: accept it or call Liar!")
            exposed = self._moved(self._exposed(room), action)
            cup = self._cup(room)
            hand = parse_claim(
                action.get("hand"),
                None if current is None else bid_rank(current),
                [cup[i] for i in exposed],
            )
            events = []
            if stage == "respond":
                events.append({"type": "claim_accepted", "player_id": player.id})
            if stage in ("respond", "reroll"):
                x["rr"].append([player.id, 0])
                events.append({"type": "dice_rerolled", "player_id": player.id, "count": 0})
            self._set(room, cup, exposed)
            x["st"] = "respond"
            bid = bid_of(player.id, hand)
            events.append({"type": "bid_placed", **self.bid_view(bid)})
            self._show_to(room, None)
            return TurnOutcome(events, bid=bid, next_player=next_clockwise(room, player.id))
        raise InvalidAction(
            "type must be one of: claim, accept, liar, reroll, stop (Poker Liar Dice)",
            field="type",
        )

    @staticmethod
    def _moved(exposed: list[int], action: dict[str, Any]) -> list[int]:
        """Exposed positions after taking ``unexpose`` back and setting ``expose`` out."""
        unexpose = _positions(action, "unexpose")
        expose = _positions(action, "expose")
        if any(i not in exposed for i in unexpose):
            raise InvalidAction("unexpose names dice that are not exposed", field="unexpose")
        kept = [i for i in exposed if i not in unexpose]
        if any(i in kept for i in expose):
            raise InvalidAction("expose names dice already exposed", field="expose")
        return sorted(kept + expose)

    def _reroll(
        self, room: Room, player: Player, action: dict[str, Any], roller: Roller
    ) -> TurnOutcome:
        game = room.game
        assert game is not None
        x = game.extra
        stage = x.get("st")
        dice = _positions(action, "dice")
        cup, exposed = self._cup(room), self._exposed(room)
        if stage == "reroll":
            unexpose = _positions(action, "unexpose")
            after = self._moved(exposed, {**action, "expose": []})
            if any(i in after for i in dice):
                raise InvalidAction("exposed dice stay out of the cup", field="dice")
            expose = _positions(action, "expose")
            final = self._moved(exposed, action)
            for i in dice:
                cup[i] = _die(roller)
            self._set(room, cup, final)
            x["st"] = "claim"
            x["rr"].append([player.id, len(dice)])
            self._show_to(room, player)
            event: dict[str, Any] = {"type": "dice_rerolled", "player_id": player.id}
            event["count"] = len(dice)
            if expose:
                event["exposed"] = sorted(expose)
            if unexpose:
                event["unexposed"] = sorted(unexpose)
            return TurnOutcome([event], next_player=player)
        if stage == "aces":
            if action.get("expose") or action.get("unexpose"):
                raise InvalidAction("the five-aces rolls expose nothing", field="expose")
            for i in dice:
                cup[i] = _die(roller)
            self._set(room, cup, [])
            x["al"] = int(x.get("al", 0)) - 1
            x["rr"].append([player.id, len(dice)])
            self._show_to(room, player)
            events = [{"type": "dice_rerolled", "player_id": player.id, "count": len(dice)}]
            if cup == [ACE] * 5 or x["al"] <= 0:
                return TurnOutcome(events, reveal=self._aces_decided(room, player))
            return TurnOutcome(events, next_player=player)
        raise WrongPhase("you reroll after accepting a claim", code="wrong_stage")

    def _lose_life(self, room: Room, player: Player, extra: dict[str, Any]) -> None:
        player.dice_count -= 1
        x = self._x(room)
        if player.dice_count <= 0 and room.settings.dogs_life and "dog" not in x:
            player.dice_count = 1
            x["dog"] = player.id
            extra["dogs_life"] = player.id
        extra["lost"] = {player.id: 1}

    def _reveal(
        self, room: Room, challenger: Player, met: bool, loser: Player | None, winner: Player
    ) -> Reveal:
        game = room.game
        assert game is not None and game.current_bid is not None
        cup = self._cup(room)
        hand = canonical(cup)
        rows = [
            RevealRow(
                p.id,
                p.name,
                [],
                [],
                [(b.quantity, b.face) for b in game.round_bids if b.player_id == p.id],
            )
            for p in room.players
            if p.in_game or any(b.player_id == p.id for b in game.round_bids)
        ]
        extra: dict[str, Any] = {
            "cup": faces_out(cup),
            "exposed": sorted(self._exposed(room)),
            "hand": {"hand": faces_out(hand), "category": CATEGORIES[category(hand)]},
            "rerolls": [{"player_id": p, "count": n} for p, n in game.extra.get("rr", [])],
            "lost": {},
        }
        if loser is not None:
            self._lose_life(room, loser, extra)
        return Reveal(
            round=game.round,
            bid=game.current_bid,
            challenger_id=challenger.id,
            count=int(met),
            loser_id=loser.id if loser else "",
            winner_id=winner.id,
            penalty="life",
            eliminated=[],
            rows=rows,
            extra=extra,
        )

    def resolve(self, room: Room, challenger: Player) -> Reveal:
        """Lift the cup: a hand at least the claim costs the challenger a life, else the claimant."""
        from .game import next_clockwise

        game = room.game
        assert game is not None and game.current_bid is not None
        claimant = room.player(game.current_bid.player_id)
        assert claimant is not None
        met = hand_rank(self._cup(room)) >= bid_rank(game.current_bid)
        loser, winner = (challenger, claimant) if met else (claimant, challenger)
        nxt = next_clockwise(room, challenger.id).id if met else challenger.id
        reveal = self._reveal(room, challenger, met, loser, winner)
        reveal.extra["next_id"] = nxt
        return reveal

    def _aces_decided(self, room: Room, player: Player) -> Reveal:
        from .game import next_clockwise

        game = room.game
        assert game is not None and game.current_bid is not None
        made = self._cup(room) == [ACE] * 5
        claimant = room.player(game.current_bid.player_id)
        assert claimant is not None
        nxt = next_clockwise(room, player.id).id
        reveal = self._reveal(
            room, player, made, None if made else player, player if made else claimant
        )
        reveal.extra["five_aces"] = True
        reveal.extra["next_id"] = nxt
        return reveal

    def next_opener(self, room: Room, reveal: Reveal) -> str:
        """Decided when the hand was: see ``resolve`` and the five-aces rule."""
        return str(reveal.extra["next_id"])

    def timeout_action(self, room: Room) -> dict[str, Any]:
        """Königswinter: accept and pass unrolled as "better"; five aces: reroll the non-aces."""
        game = room.game
        assert game is not None
        stage = game.extra.get("st")
        current = game.current_bid
        if stage == "aces":
            cup = self._cup(room)
            dice = [i for i, d in enumerate(cup) if d != ACE]
            return {"type": "reroll", "dice": dice} if dice else {"type": "stop"}
        if stage == "respond" and current is not None and bid_rank(current) == FIVE_ACES_RANK:
            return {"type": "accept"}
        return better_claim(
            None if current is None else bid_rank(current), self._cup(room), self._exposed(room)
        )

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """The poker bots (``bots_poker``): decide from their own view only."""
        return decide(view, level, roller, memory)

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """The strong bot learns how often each player's challenged claims were true."""
        from . import bots_poker

        bots_poker.observe(memory, reveal)


def better_claim(current: int | None, cup: list[int], exposed: list[int]) -> dict[str, Any]:
    """Claim ``better``, taking the exposed dice back if no better hand contains them."""
    if lowest_claim(current, [cup[i] for i in exposed]) is not None:
        return {"type": "claim", "hand": "better"}
    return {"type": "claim", "hand": "better", "unexpose": sorted(exposed)}


# -- the bot ------------------------------------------------------------------------------


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


def decide(
    view: dict[str, Any],
    level: str,
    roller: Roller | None = None,
    memory: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A poker bot's action, from its own player view (``bots_poker``)."""
    from . import bots_poker

    return bots_poker.decide(view, level, roller, memory)


POKER = PokerRules()


def bid_view_hand(bid: Bid) -> list[int | str]:
    """The faces of a stored claim's full hand, as shown."""
    return faces_out(bid_hand(bid))
