"""The classic rules (docs/RULES.md): bids on all dice combined, ``*`` wild, one die per lost challenge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...commands import PlaceBid
from ...dice import Roller, roll
from ...errors import IllegalBid, InvalidAction
from ...rules import BiddingRules, Table, bid_of, current_bid, reveal_rows
from ...state import Bid, Player, Reveal


def total_dice(room: Table) -> int:
    """Dice in play: the sum over players still in the game."""
    return sum(p.dice_count for p in room.players if p.in_game)


def is_raise(quantity: int, face: int, current: Bid | None) -> bool:
    """A raise increases the quantity (any face) or keeps it and increases the face."""
    if current is None:
        return True
    return quantity > current.quantity or (quantity == current.quantity and face > current.face)


class ClassicRules(BiddingRules):
    """Classic Liar's Dice as docs/RULES.md describes it."""

    name = "classic"
    labels: Mapping[str, str] = {"en": "Classic", "es": "Clásico", "pt-BR": "Clássico"}

    def deal(self, room: Table, roller: Roller) -> None:
        """Everyone still in the game rerolls every remaining die."""
        chance = room.settings.wildcard_chance
        for p in room.players:
            p.hand = roll(roller, p.dice_count, chance) if p.in_game else []

    def check_start(self, room: Table) -> None:
        """Classic plays with any number of participants (two or more)."""

    def table_view(self, room: Table) -> dict[str, Any] | None:
        """Classic rounds show nothing beyond the current bid."""
        return None

    def place_bid(self, room: Table, player: Player, bid: PlaceBid, roller: Roller) -> Bid:
        """Faces 1–6, quantity 1..dice in play, and strictly higher than the current bid."""
        for name in ("show", "reroll"):
            if getattr(bid, name) is not None:
                raise InvalidAction(
                    f"{name} belongs to Wild Stars; classic bids have none", field=name
                )
        quantity, face = bid.quantity, bid.face
        if not isinstance(face, int):
            raise InvalidAction("face must be an integer", field="face")
        if not 1 <= face <= 6:
            raise IllegalBid("face must be between 1 and 6", field="face")
        total = total_dice(room)
        if not 1 <= quantity <= total:
            raise IllegalBid(
                f"quantity must be between 1 and {total} (dice in play)", field="quantity"
            )
        current = current_bid(room)
        if not is_raise(quantity, face, current):
            assert current is not None
            raise IllegalBid(
                f"a bid must raise {current.quantity}×{current.face}: a higher quantity, "
                "or the same quantity with a higher face"
            )
        return Bid(player.id, quantity, face)

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Count matching faces plus ``*``: meeting the bid makes the challenger lose."""
        game = room.game
        assert game is not None and game.current_bid is not None
        bid = bid_of(game.current_bid)
        rows, count = reveal_rows(room, lambda p: list(p.hand))
        bidder = room.player(bid.player_id)
        assert bidder is not None
        loser, winner = (challenger, bidder) if count >= bid.quantity else (bidder, challenger)
        penalty = room.settings.penalty
        loser.dice_count -= 1
        if penalty == "give":
            winner.dice_count += 1
        return Reveal(
            round=game.round,
            bid=bid,
            challenger_id=challenger.id,
            count=count,
            loser_id=loser.id,
            winner_id=winner.id,
            penalty=penalty,
            eliminated=[],
            rows=rows,
        )

    def next_opener(self, room: Table, reveal: Reveal) -> str:
        """The loser of the challenge opens the next round."""
        return reveal.loser_id

    def timeout_action(self, room: Table) -> dict[str, Any]:
        """Liar! if a bid exists, otherwise the opening bid one 1."""
        assert room.game is not None
        if room.game.current_bid is not None:
            return {"type": "liar"}
        return {"type": "bid", "quantity": 1, "face": 1}

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """Delegate to the classic bot policies."""
        from . import bot  # on the first bot move: not with the app's import

        return bot.decide(view, level, memory, roller)

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """Feed a completed reveal to the bots' opponent model."""
        from . import bot  # at the first reveal, not with the app's import

        bot.observe(memory, reveal)


CLASSIC = ClassicRules()
