"""Poker Liar Dice (docs/RULES.md, "Poker Liar Dice"): one cup of five poker dice, passed on.

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

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...actions import ActionRequest, LiarAction
from ...commands import CallLiar, Command
from ...dice import Roller
from ...errors import IllegalBid, InvalidAction, WrongPhase
from ...events import BidPlaced, LiarCalled, Move
from ...rules import RoomSettings, Table, TurnOutcome
from ...state import Call, Die, Player, Reveal, RevealRow
from .actions import AcceptAction, ClaimAction, RerollAction, StopAction
from .commands import AcceptClaim, MakeClaim, RerollDice, StopRolling
from .events import ClaimAccepted, DiceRerolled, RollsStopped
from .hands import (
    ACE,
    CATEGORIES,
    FACE_NAMES,
    FIVE_ACES_RANK,
    Claim,
    better_claim,
    bid_of,
    bid_rank,
    canonical,
    category,
    claim_of,
    faces_out,
    hand_rank,
    parse_claim,
)
from .wire import WIRE


def _positions(raw: tuple[int, ...] | None, name: str) -> list[int]:
    if raw is None:
        return []
    if not all(0 <= i < 5 for i in raw) or len(set(raw)) != len(raw):
        raise InvalidAction(f"{name} must list distinct cup positions 0–4", field=name)
    return list(raw)


def _die(roller: Roller) -> int:
    return roller.die(0)


def _moved_dice(claim: MakeClaim) -> dict[str, list[int]]:
    """A claim's ``exposed`` / ``unexposed`` positions, announced like a reroll's (when any).

    Read only once the claim is accepted (its positions are valid and distinct).
    """
    moved = {}
    for name, positions in (("exposed", claim.expose), ("unexposed", claim.unexpose)):
        if positions:
            moved[name] = sorted(positions)
    return moved


NOT_ACCEPTED = "before accepting you may only call Liar! or accept (and pass the cup unlooked)"


def not_accepted() -> WrongPhase:
    """The one error for anything a receiver tries before accepting (never about the cup)."""
    return WrongPhase(NOT_ACCEPTED, code="not_accepted")


def _allowed_before_accepting(command: Command) -> bool:
    """Liar!, accept, or a claim passing the cup unlooked: naming no die of the cup."""
    if isinstance(command, CallLiar | AcceptClaim):
        return True
    return isinstance(command, MakeClaim) and not command.expose


class PokerRules:
    """Poker Liar Dice as docs/RULES.md describes it."""

    name = "poker"
    labels: Mapping[str, str] = {
        "en": "Poker Liar Dice",
        "es": "Póquer mentiroso",
        "pt-BR": "Pôquer mentiroso",
    }
    wire = WIRE
    turn_actions: tuple[str, ...] = ("claim", "accept", "liar", "reroll", "stop")
    action_bodies: tuple[type[ActionRequest], ...] = (
        ClaimAction,
        AcceptAction,
        LiarAction,
        RerollAction,
        StopAction,
    )
    setting_choices: Mapping[str, tuple[Any, ...]] = MappingProxyType(
        {"lives": (1, 2, 3, 4, 5), "dogs_life": (False, True)}
    )
    setting_defaults: Mapping[str, Any] = MappingProxyType({"lives": 3, "dogs_life": False})
    bot_notes: tuple[str, ...] = ("pc", "pq", "pr", "pa")
    """The strong bot's own notes (``bot.NOTES``, spelt out so the bots load lazily)."""
    quickplay_seats: int = 2
    """A duel of passed cups and lives plays best head to head."""

    # -- state helpers --------------------------------------------------------------------

    @staticmethod
    def _x(room: Table) -> dict[str, Any]:
        assert room.game is not None
        return room.game.extra

    def _cup(self, room: Table) -> list[int]:
        return [int(c) for c in self._x(room).get("cup", "")]

    def _exposed(self, room: Table) -> list[int]:
        return [int(c) for c in self._x(room).get("ex", "")]

    def _set(self, room: Table, cup: list[int], exposed: list[int]) -> None:
        x = self._x(room)
        x["cup"] = "".join(str(d) for d in cup)
        x["ex"] = "".join(str(i) for i in sorted(exposed))

    def _show_to(self, room: Table, holder: Player | None) -> None:
        """Only the holder who has looked sees the cup (as their hand)."""
        cup = self._cup(room)
        for p in room.players:
            p.hand = list(cup) if holder is not None and p.id == holder.id else []

    # -- RuleSystem -----------------------------------------------------------------------

    def check_start(self, room: Table) -> None:
        """Any table of two or more passes the cup."""

    def starting_count(self, settings: RoomSettings) -> int:
        """Players start with the room's lives."""
        return int(settings.option("lives"))

    def dice_view(self, dice: list[int]) -> list[int | str]:
        """Poker faces by name."""
        return faces_out(dice)

    def deal(self, room: Table, roller: Roller) -> None:
        """The hand's starter rolls all five dice and looks; nothing is exposed."""
        game = room.game
        assert game is not None and game.opener is not None
        dog = game.extra.get("dog")
        game.extra = {"st": "claim", "rr": []}
        if dog is not None:
            game.extra["dog"] = dog
        self._set(room, [_die(roller) for _ in range(5)], [])
        self._show_to(room, room.player(game.opener))

    def bid_view(self, bid: Call) -> dict[str, Any]:
        """A claim as its full hand and category."""
        claim = claim_of(bid)
        return {
            "player_id": claim.player_id,
            "hand": faces_out(claim.hand),
            "category": CATEGORIES[claim.category],
        }

    def call_from_dict(self, d: dict[str, Any]) -> Claim:
        """Claims are stored like bids (category and hand code): see ``Claim``."""
        return Claim.from_dict(d)

    def call_from_row(self, player_id: str, row: list[Any]) -> Claim:
        """A claim's row is ``[category, hand code]``."""
        return Claim.from_row(player_id, row)

    def table_view(self, room: Table) -> dict[str, Any] | None:
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
            "lives": room.settings.option("lives"),
            "aces_rolls_left": x.get("al"),
        }

    def turn_action(
        self, room: Table, player: Player, command: Command, roller: Roller
    ) -> TurnOutcome:
        """One stage of the cup's journey (validated before anything changes)."""
        game = room.game
        assert game is not None
        x = game.extra
        stage = x.get("st")
        current = game.current_bid
        five_aces = current is not None and bid_rank(current) == FIVE_ACES_RANK
        if stage == "respond" and not _allowed_before_accepting(command):
            raise not_accepted()
        if isinstance(command, CallLiar):
            if stage != "respond":
                raise WrongPhase("Liar! answers a claim passed to you", code="wrong_stage")
            return TurnOutcome(
                [LiarCalled(player.id)],
                reveal=self.resolve(room, player),
            )
        if isinstance(command, AcceptClaim):
            if stage != "respond":
                raise WrongPhase("there is no claim to accept", code="wrong_stage")
            events: list[Move] = [ClaimAccepted(player.id)]
            if five_aces:
                cup = [_die(roller) for _ in range(5)]
                self._set(room, cup, [])
                x["st"], x["al"] = "aces", 2
                x["rr"].append([player.id, 5])
                events.append(DiceRerolled(player.id, 5))
                self._show_to(room, player)
                if cup == [ACE] * 5:
                    return TurnOutcome(events, reveal=self._aces_decided(room, player))
            else:
                x["st"] = "reroll"
                self._show_to(room, player)
            return TurnOutcome(events, next_player=player)
        if isinstance(command, RerollDice):
            return self._reroll(room, player, command, roller)
        if isinstance(command, StopRolling):
            if stage != "aces":
                raise WrongPhase("stop ends the five-aces rolls", code="wrong_stage")
            return TurnOutcome(
                [RollsStopped(player.id)],
                reveal=self._aces_decided(room, player),
            )
        if isinstance(command, MakeClaim):
            if stage not in ("claim", "respond", "reroll"):
                raise WrongPhase("you cannot claim now", code="wrong_stage")
            if stage == "respond" and five_aces:
                raise IllegalBid("nothing beats five aces: accept it or call Liar!")
            exposed = self._moved(self._exposed(room), command.expose, command.unexpose)
            cup = self._cup(room)
            hand = parse_claim(
                command.hand,
                None if current is None else bid_rank(current),
                [cup[i] for i in exposed],
            )
            events = []
            if stage == "respond":
                events.append(ClaimAccepted(player.id))
            if stage in ("respond", "reroll"):
                x["rr"].append([player.id, 0])
                events.append(DiceRerolled(player.id, 0))
            self._set(room, cup, exposed)
            x["st"] = "respond"
            bid = bid_of(player.id, hand)
            events.append(BidPlaced({**self.bid_view(bid), **_moved_dice(command)}))
            self._show_to(room, None)
            return TurnOutcome(events, bid=bid, next_player=room.next_clockwise(player.id))
        raise InvalidAction(
            "type must be one of: claim, accept, liar, reroll, stop (Poker Liar Dice)",
            field="type",
        )

    @staticmethod
    def _moved(
        exposed: list[int],
        expose_said: tuple[int, ...] | None,
        unexpose_said: tuple[int, ...] | None,
    ) -> list[int]:
        """Exposed positions after taking ``unexpose`` back and setting ``expose`` out."""
        unexpose = _positions(unexpose_said, "unexpose")
        expose = _positions(expose_said, "expose")
        if any(i not in exposed for i in unexpose):
            raise InvalidAction("unexpose names dice that are not exposed", field="unexpose")
        kept = [i for i in exposed if i not in unexpose]
        if any(i in kept for i in expose):
            raise InvalidAction("expose names dice already exposed", field="expose")
        return sorted(kept + expose)

    def _reroll(
        self, room: Table, player: Player, command: RerollDice, roller: Roller
    ) -> TurnOutcome:
        game = room.game
        assert game is not None
        x = game.extra
        stage = x.get("st")
        dice = _positions(command.dice, "dice")
        cup, exposed = self._cup(room), self._exposed(room)
        if stage == "reroll":
            unexpose = _positions(command.unexpose, "unexpose")
            after = self._moved(exposed, (), command.unexpose)
            if any(i in after for i in dice):
                raise InvalidAction("exposed dice stay out of the cup", field="dice")
            expose = _positions(command.expose, "expose")
            final = self._moved(exposed, command.expose, command.unexpose)
            for i in dice:
                cup[i] = _die(roller)
            self._set(room, cup, final)
            x["st"] = "claim"
            x["rr"].append([player.id, len(dice)])
            self._show_to(room, player)
            event = DiceRerolled(
                player.id,
                len(dice),
                sorted(expose) if expose else None,
                sorted(unexpose) if unexpose else None,
            )
            return TurnOutcome([event], next_player=player)
        if stage == "aces":
            if command.expose or command.unexpose:
                raise InvalidAction("the five-aces rolls expose nothing", field="expose")
            for i in dice:
                cup[i] = _die(roller)
            self._set(room, cup, [])
            x["al"] = int(x.get("al", 0)) - 1
            x["rr"].append([player.id, len(dice)])
            self._show_to(room, player)
            events: list[Move] = [DiceRerolled(player.id, len(dice))]
            if cup == [ACE] * 5 or x["al"] <= 0:
                return TurnOutcome(events, reveal=self._aces_decided(room, player))
            return TurnOutcome(events, next_player=player)
        raise WrongPhase("you reroll after accepting a claim", code="wrong_stage")

    def _lose_life(self, room: Table, player: Player, extra: dict[str, Any]) -> None:
        player.dice_count -= 1
        x = self._x(room)
        if player.dice_count <= 0 and room.settings.option("dogs_life") and "dog" not in x:
            player.dice_count = 1
            x["dog"] = player.id
            extra["dogs_life"] = player.id
        extra["lost"] = {player.id: 1}

    def _reveal(
        self, room: Table, challenger: Player, met: bool, loser: Player | None, winner: Player
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
                [b.row() for b in game.round_bids if b.player_id == p.id],
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

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Lift the cup: a hand at least the claim costs the challenger a life, else the claimant."""
        game = room.game
        assert game is not None and game.current_bid is not None
        claimant = room.player(game.current_bid.player_id)
        assert claimant is not None
        met = hand_rank(self._cup(room)) >= bid_rank(game.current_bid)
        loser, winner = (challenger, claimant) if met else (claimant, challenger)
        nxt = room.next_clockwise(challenger.id).id if met else challenger.id
        reveal = self._reveal(room, challenger, met, loser, winner)
        reveal.extra["next_id"] = nxt
        return reveal

    def _aces_decided(self, room: Table, player: Player) -> Reveal:
        game = room.game
        assert game is not None and game.current_bid is not None
        made = self._cup(room) == [ACE] * 5
        claimant = room.player(game.current_bid.player_id)
        assert claimant is not None
        nxt = room.next_clockwise(player.id).id
        reveal = self._reveal(
            room, player, made, None if made else player, player if made else claimant
        )
        reveal.extra["five_aces"] = True
        reveal.extra["next_id"] = nxt
        return reveal

    def next_opener(self, room: Table, reveal: Reveal) -> str:
        """Decided when the hand was: see ``resolve`` and the five-aces rule."""
        return str(reveal.extra["next_id"])

    def timeout_action(self, room: Table) -> dict[str, Any]:
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
        """The poker bots (``bot``): decide from their own view only."""
        return decide(view, level, roller, memory)

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """The strong bot learns how often each player's challenged claims were true."""
        from . import bot  # at the first reveal, not with the app's import

        bot.observe(memory, reveal)

    def counted(self, bid: Call, dice: list[Die], extra: Mapping[str, Any]) -> list[bool]:
        """Reveal rows hold no dice in Poker Liar Dice (the lifted cup is in the extras)."""
        return []


def decide(
    view: dict[str, Any],
    level: str,
    roller: Roller | None = None,
    memory: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A poker bot's action, from its own player view (``bot``)."""
    from . import bot  # on the first bot move: not with the app's import

    return bot.decide(view, level, roller, memory)


POKER = PokerRules()
