"""Perudo behind the shared room, turn and view machinery (docs/RULES.md, "Perudo").

The round's rules are the pure functions of ``moves``; this module applies them to a room:

- Dice are fair 1–6; a 1 is an ace. The wildcard-chance setting does not apply.
- A turn is a bid, Dudo (``{"type": "liar"}``, announced as ``liar_called``) or a calza
  (``{"type": "calza"}``, announced as ``calza_called``; refused heads-up).
- Dudo: the bidder loses a die if fewer were counted than bid, else the caller does (the
  room's penalty setting applies as in classic: under *give* the die passes to the winner).
  Calza: exactly right, the caller wins a die back (never above the starting dice); otherwise
  the caller loses one (discarded: a calza passes no die to anyone).
- The next round is opened by whoever lost or gained a die (the calza caller after a calza).
- The round after a player first drops to one die is a palifico round if three or more
  players still have dice: that player opens, aces are not wild and the face is fixed.
- A timeout calls Dudo on a bid, or opens with one 2 (one ace in palifico).

Round state in ``Game.extra``: ``"pal"`` the player whose palifico round is in play, ``"pn"``
``[round, player_id]`` the palifico due next, ``"one"`` the players who have been down to one
die (palifico comes once per player per game). The reveal adds ``kind`` (``"dudo"`` or
``"calza"``), ``palifico`` and ``gained_id`` (``Reveal.extra``); on an exact calza
``loser_id`` is empty (null on the wire). Counting a stored reveal again reads its
``palifico`` extra: in a palifico round aces were not wild.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...actions import ActionRequest, BidAction, LiarAction
from ...commands import CallLiar, Command, PlaceBid
from ...dice import Roller, roll
from ...errors import Conflict, InvalidAction, NoBidToChallenge
from ...events import BidPlaced, LiarCalled
from ...rules import BiddingRules, Table, TurnOutcome, bid_of, current_bid
from ...state import Bid, Call, Die, Player, Reveal, RevealRow
from . import moves
from .actions import CalzaAction
from .commands import CallCalza
from .events import CalzaCalled
from .wire import WIRE

MAX_PLAYERS: Final = 10


def palifico(room: Table) -> bool:
    """Whether the round in play is a palifico round."""
    return room.game is not None and "pal" in room.game.extra


def with_dice(room: Table) -> list[Player]:
    """Players still in the game holding dice, in seat order."""
    return [p for p in room.players if p.in_game and p.dice_count > 0]


class PerudoRules(BiddingRules):
    """Perudo as docs/RULES.md describes it."""

    name = "perudo"
    labels: Mapping[str, str] = {"en": "Perudo", "es": "Perudo", "pt-BR": "Perudo"}
    wire = WIRE
    turn_actions: tuple[str, ...] = ("bid", "liar", "calza")
    action_bodies: tuple[type[ActionRequest], ...] = (BidAction, LiarAction, CalzaAction)

    # -- seats and dice -------------------------------------------------------------------

    def check_start(self, room: Table) -> None:
        """Perudo is played by two to ten players."""
        if len(room.players) > MAX_PLAYERS:
            raise Conflict(
                f"Perudo is for 2–{MAX_PLAYERS} players; remove a seat or choose classic",
                code="too_many_players",
            )

    def deal(self, room: Table, roller: Roller) -> None:
        """Fair dice for everyone in the game; decide whether this round is palifico."""
        game = room.game
        assert game is not None
        for p in room.players:
            p.hand = roll(roller, p.dice_count, 0) if p.in_game else []
        game.extra.pop("pal", None)
        due = game.extra.get("pn")
        if isinstance(due, list) and due[0] == game.round:
            player = room.player(due[1])
            if (
                player is not None
                and player.in_game
                and game.opener == player.id
                and len(with_dice(room)) >= moves.PALIFICO_MIN_PLAYERS
            ):
                game.extra["pal"] = player.id
        elif isinstance(due, list) and due[0] < game.round:
            del game.extra["pn"]

    def dice_view(self, dice: list[int]) -> list[int | str]:
        """Dice as 1–6 (1 is an ace)."""
        return list(dice)

    # -- bids -----------------------------------------------------------------------------

    def bid_view(self, bid: Call) -> dict[str, Any]:
        """A bid as everyone sees it; face 1 means aces."""
        b = bid_of(bid)
        return {
            "player_id": b.player_id,
            "quantity": b.quantity,
            "face": b.face,
        }

    def counted(self, bid: Call, dice: list[Die], extra: Mapping[str, Any]) -> list[bool]:
        """The face or an ace counts (the face only in palifico; aces only for a bid on aces)."""
        face, pal = bid_of(bid).face, bool(extra.get("palifico"))
        return [moves.counts_toward(d, face, pal) for d in dice]

    def table_view(self, room: Table) -> dict[str, Any] | None:
        """Whether the round in play is a palifico round."""
        return {"palifico": palifico(room)}

    def place_bid(self, room: Table, player: Player, bid: PlaceBid, roller: Roller) -> Bid:
        """Validate a bid against the current one (raise before changing anything)."""
        for name in ("show", "reroll"):
            if getattr(bid, name) is not None:
                raise InvalidAction(
                    f"{name} belongs to Wild Stars; Perudo bids have none", field=name
                )
        quantity, face = bid.quantity, bid.face
        if not isinstance(face, int):
            raise InvalidAction("face must be an integer", field="face")
        game = room.game
        assert game is not None
        current = current_bid(room)
        moves.check_bid(
            quantity,
            face,
            None if current is None else (current.quantity, current.face),
            total=sum(p.dice_count for p in room.players if p.in_game),
            palifico=palifico(room),
            single_die=player.dice_count == 1,
        )
        return Bid(player.id, quantity, face)

    def turn_action(
        self, room: Table, player: Player, command: Command, roller: Roller
    ) -> TurnOutcome:
        """A turn is a bid, Dudo on the current bid, or a calza."""
        game = room.game
        assert game is not None
        if isinstance(command, PlaceBid):
            bid = self.place_bid(room, player, command, roller)
            return TurnOutcome(
                [BidPlaced(self.bid_view(bid))], bid=bid, next_player=room.next_clockwise(player.id)
            )
        if isinstance(command, CallLiar):
            if game.current_bid is None:
                raise NoBidToChallenge("there is no bid to call Dudo on")
            return TurnOutcome([LiarCalled(player.id)], reveal=self.resolve(room, player))
        if isinstance(command, CallCalza):
            if game.current_bid is None:
                raise NoBidToChallenge("there is no bid to call calza on")
            if not moves.calza_offered(len(with_dice(room))):
                raise Conflict(
                    "calza is not offered when only two players have dice",
                    code="calza_heads_up",
                )
            return TurnOutcome([CalzaCalled(player.id)], reveal=self.resolve_calza(room, player))
        raise InvalidAction(
            "type must be one of: " + ", ".join((*self.turn_actions, "agree", "resign")),
            field="type",
        )

    # -- challenges -----------------------------------------------------------------------

    def _rows(self, room: Table) -> tuple[list[RevealRow], int]:
        """Every hand against the current bid (aces wild unless palifico), and the count."""
        game = room.game
        bid = current_bid(room)
        assert game is not None and bid is not None
        face, pal = bid.face, palifico(room)
        rows: list[RevealRow] = []
        total = 0
        for p in room.players:
            if not p.hand:
                continue
            counted = [moves.counts_toward(d, face, pal) for d in p.hand]
            total += sum(counted)
            bids = [b.row() for b in game.round_bids if b.player_id == p.id]
            rows.append(RevealRow(p.id, p.name, list(p.hand), counted, bids))
        return rows, total

    def _lost_one(self, room: Table, player: Player) -> None:
        """After ``player`` lost a die: a first drop to one die may make the next round palifico."""
        game = room.game
        assert game is not None
        seen: list[str] = game.extra.setdefault("one", [])
        after = player.dice_count
        if moves.palifico_follows(after + 1, after, player.id in seen, len(with_dice(room))):
            game.extra["pn"] = [game.round + 1, player.id]
        if after == 1 and player.id not in seen:
            seen.append(player.id)

    def _reveal(
        self,
        room: Table,
        caller: Player,
        rows: tuple[list[RevealRow], int],
        loser: str,
        winner: str,
        penalty: str,
        **extra: Any,
    ) -> Reveal:
        game = room.game
        bid, pal = current_bid(room), palifico(room)
        assert game is not None and bid is not None
        return Reveal(
            round=game.round,
            bid=bid,
            challenger_id=caller.id,
            count=rows[1],
            loser_id=loser,
            winner_id=winner,
            penalty=penalty,
            eliminated=[],
            rows=rows[0],
            extra={"palifico": pal, **extra},
        )

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Dudo: fewer than bid costs the bidder a die, otherwise the caller loses one."""
        game = room.game
        bid = current_bid(room)
        assert game is not None and bid is not None
        rows = self._rows(room)
        bidder = room.player(bid.player_id)
        assert bidder is not None
        loses = moves.dudo_loses((bid.quantity, bid.face), rows[1])
        loser, winner = (bidder, challenger) if loses == "bidder" else (challenger, bidder)
        penalty = room.settings.penalty
        reveal = self._reveal(
            room, challenger, rows, loser.id, winner.id, penalty, kind="dudo", gained_id=None
        )
        loser.dice_count -= 1
        if penalty == "give":
            winner.dice_count += 1
        self._lost_one(room, loser)
        return reveal

    def resolve_calza(self, room: Table, caller: Player) -> Reveal:
        """Calza: exactly right wins the caller a die back (capped), otherwise costs one."""
        game = room.game
        bid = current_bid(room)
        assert game is not None and bid is not None
        rows = self._rows(room)
        if moves.calza_exact((bid.quantity, bid.face), rows[1]):
            gained = moves.calza_gains(caller.dice_count, room.settings.starting_dice)
            reveal = self._reveal(
                room,
                caller,
                rows,
                "",
                caller.id,
                "discard",
                kind="calza",
                gained_id=caller.id if gained else None,
            )
            if gained:
                caller.dice_count += 1
            return reveal
        reveal = self._reveal(
            room, caller, rows, caller.id, bid.player_id, "discard", kind="calza", gained_id=None
        )
        caller.dice_count -= 1
        self._lost_one(room, caller)
        return reveal

    def next_opener(self, room: Table, reveal: Reveal) -> str:
        """Whoever lost or gained a die: the loser after Dudo, the caller after a calza."""
        if reveal.extra.get("kind") == "calza":
            return reveal.challenger_id
        return reveal.loser_id

    def timeout_action(self, room: Table) -> dict[str, Any]:
        """Dudo if a bid exists, else the lowest legal opening bid."""
        assert room.game is not None
        if room.game.current_bid is not None:
            return {"type": "liar"}
        quantity, face = moves.lowest_opening(palifico(room))
        return {"type": "bid", "quantity": quantity, "face": face}

    # -- bots -----------------------------------------------------------------------------

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """Delegate to the Perudo bots (``bot``)."""
        from . import bot  # on the first bot move: not with the app's import

        return bot.decide(view, level, memory, roller)

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """Let the Perudo bots learn from a completed reveal."""
        from . import bot  # at the first reveal, not with the app's import

        bot.observe(memory, reveal)


PERUDO = PerudoRules()
