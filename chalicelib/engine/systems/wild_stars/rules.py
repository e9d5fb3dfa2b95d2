"""Wild Stars (docs/RULES.md; the Milton Bradley game): one bidding track, stars, show and reroll.

- Dice show ★, 2, 3, 4, 5, 6: the star replaces the 1 and is always wild. Stored as ``WILD``.
- A *number bid* (q, f) with f in 2–6 claims at least q dice showing f or ★; a *star bid*
  (k, ★) claims at least k stars. On the bidding track the star bid k★ sits between the
  quantities 2k − 1 and 2k (rank(q, f) = q, rank(k★) = 2k − ½; here doubled to stay integer).
  A raise moves to a higher space with any face, or keeps the same number space with a higher
  face.
- Show and reroll: with a bid, the bidder may set dice of the cup out in the open (keeping at
  least one in the cup) and reroll the rest of the cup. Shown dice stay public and fixed for
  the round, and count like any other die. A reroll with nothing shown is refused (it is not
  a move).
- Challenge: d = counted − bid. d < 0: the bidder loses |d| dice; d > 0: the challenger loses
  d dice; d = 0 (a perfect bid): every player but the bidder loses one die, except that a
  player down to one die who did not challenge keeps it (Die Hard). Lost dice leave the game
  (the room's penalty setting does not apply). The winner opens the next round (on a perfect
  bid, the bidder). A timeout calls Liar! on a bid, or opens with "one 2".
- 2–6 players. The wildcard-chance setting does not apply.

Round state in ``Game.extra``: ``{"shown": {player_id: "2*6"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...commands import PlaceBid
from ...dice import Roller
from ...errors import Conflict, IllegalBid, InvalidAction
from ...rules import BiddingRules, Table, bid_of, current_bid, reveal_rows
from ...state import WILD, Bid, Player, Reveal, decode_dice, encode_dice
from .track import FACES, STAR_FACE, is_raise
from .wire import WIRE

MAX_PLAYERS = 6


def shown_dice(room: Table, player_id: str) -> list[int]:
    """The dice a player has set out in the open this round."""
    assert room.game is not None
    return decode_dice(room.game.extra.get("shown", {}).get(player_id, ""))


def _parse_face(value: Any) -> int:
    if value == "*":
        return STAR_FACE
    if isinstance(value, int) and not isinstance(value, bool) and value in FACES:
        return value
    raise IllegalBid('face must be 2–6 or "*" (stars) in Wild Stars', field="face")


def _die(roller: Roller) -> int:
    """★, 2, 3, 4, 5 or 6, each with chance one in six: a fair die whose 1 is the star."""
    face = roller.die(0)
    return WILD if face in (1, WILD) else face


class WildStarsRules(BiddingRules):
    """Wild Stars as docs/RULES.md describes it."""

    name = "wild-stars"
    labels: Mapping[str, str] = {
        "en": "Wild Stars",
        "es": "Estrellas Salvajes",
        "pt-BR": "Estrelas Curingas",
    }
    wire = WIRE

    def check_start(self, room: Table) -> None:
        """Wild Stars is played by two to six players."""
        if len(room.players) > MAX_PLAYERS:
            raise Conflict(
                f"Wild Stars is for 2–{MAX_PLAYERS} players; remove a seat or choose classic",
                code="too_many_players",
            )

    def deal(self, room: Table, roller: Roller) -> None:
        """Everyone still in the game rolls every die into the cup; nothing is shown."""
        assert room.game is not None
        room.game.extra = {}
        for p in room.players:
            p.hand = [_die(roller) for _ in range(p.dice_count)] if p.in_game else []

    def place_bid(self, room: Table, player: Player, bid: PlaceBid, roller: Roller) -> Bid:
        """Validate the bid (and any show-and-reroll), then apply the show and the reroll."""
        game = room.game
        assert game is not None
        quantity = bid.quantity
        face = _parse_face(bid.face)
        total = sum(p.dice_count for p in room.players if p.in_game)
        if not 1 <= quantity <= total:
            raise IllegalBid(
                f"quantity must be between 1 and {total} (dice in play)", field="quantity"
            )
        if not is_raise(quantity, face, current_bid(room)):
            raise IllegalBid("a bid must move up the track, or keep its space with a higher face")
        show = list(bid.show or ())
        reroll = bool(show) if bid.reroll is None else bid.reroll
        if len(set(show)) != len(show) or not all(0 <= i < len(player.hand) for i in show):
            raise InvalidAction("show must name distinct positions in your cup", field="show")
        if show and len(show) >= len(player.hand):
            raise InvalidAction("keep at least one die in the cup", field="show")
        if show and not reroll:
            raise InvalidAction("showing dice comes with a reroll of the cup", field="reroll")
        if reroll and not show:
            raise InvalidAction(
                "a reroll needs shown dice: set at least one die of your cup out", field="show"
            )
        if reroll:
            out = [player.hand[i] for i in sorted(show)]
            if out:
                shown = game.extra.setdefault("shown", {})
                shown[player.id] = encode_dice(decode_dice(shown.get(player.id, "")) + out)
            kept = len(player.hand) - len(out)
            player.hand = [_die(roller) for _ in range(kept)]
        return Bid(player.id, quantity, face)

    def bid_extras(self, room: Table, player: Player, bid: PlaceBid) -> dict[str, Any]:
        """A bid announces the dice it sets out in the open (``show``) and whether the cup was
        rerolled (``reroll``); the rerolled dice themselves stay hidden."""
        show = bid.show or ()
        faces = [player.hand[i] for i in sorted(show) if 0 <= i < len(player.hand)]
        reroll = bool(show) if bid.reroll is None else bid.reroll
        return {"show": self.dice_view(faces), "reroll": reroll}

    def table_view(self, room: Table) -> dict[str, Any] | None:
        """Shown dice are public: everyone sees them, with each player's dice count."""
        assert room.game is not None
        shown = room.game.extra.get("shown", {})
        return {
            "shown": {
                pid: ["*" if d == WILD else d for d in decode_dice(text)]
                for pid, text in shown.items()
            }
        }

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Count; the difference from the bid decides who loses how many dice."""
        game = room.game
        assert game is not None and game.current_bid is not None
        bid = bid_of(game.current_bid)
        rows, count = reveal_rows(room, lambda p: p.hand + shown_dice(room, p.id))
        shown_flags = {
            p.id: [False] * len(p.hand) + [True] * len(shown_dice(room, p.id))
            for p in room.players
            if p.hand or shown_dice(room, p.id)
        }
        bidder = room.player(bid.player_id)
        assert bidder is not None
        d = count - bid.quantity
        lost: dict[str, int] = {}
        die_hard: list[str] = []
        if d < 0:
            lost[bidder.id] = min(-d, bidder.dice_count)
            loser, winner = bidder, challenger
        elif d > 0:
            lost[challenger.id] = min(d, challenger.dice_count)
            loser, winner = challenger, bidder
        else:
            loser, winner = challenger, bidder
            for p in room.players:
                if not p.in_game or p.id == bidder.id:
                    continue
                if p.dice_count == 1 and p.id != challenger.id:
                    die_hard.append(p.id)  # down to the last die and did not challenge
                else:
                    lost[p.id] = 1
        for pid, n in lost.items():
            player = room.player(pid)
            assert player is not None
            player.dice_count -= n
        return Reveal(
            round=game.round,
            bid=bid,
            challenger_id=challenger.id,
            count=count,
            loser_id=loser.id,
            winner_id=winner.id,
            penalty="discard",
            eliminated=[],
            rows=rows,
            extra={"lost": lost, "perfect": d == 0, "die_hard": die_hard, "shown": shown_flags},
        )

    def next_opener(self, room: Table, reveal: Reveal) -> str:
        """The winner of the challenge opens (on a perfect bid, the bidder)."""
        return reveal.bid.player_id if reveal.extra.get("perfect") else reveal.winner_id

    def timeout_action(self, room: Table) -> dict[str, Any]:
        """Liar! if a bid exists, otherwise the lowest bid "one 2"."""
        assert room.game is not None
        if room.game.current_bid is not None:
            return {"type": "liar"}
        return {"type": "bid", "quantity": 1, "face": 2}

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """The Wild Stars bots (``bot``): from the bot's own view only."""
        return decide(view, level, memory, roller)

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """Wild Stars bots keep no opponent model."""


def decide(
    view: dict[str, Any],
    level: str,
    memory: dict[str, Any] | None = None,
    roller: Roller | None = None,
) -> dict[str, Any]:
    """A Wild Stars bot's action from its own player view (``bot``)."""
    from . import bot  # on the first bot move: not with the app's import

    return bot.decide(view, level, memory, roller)


WILD_STARS = WildStarsRules()
