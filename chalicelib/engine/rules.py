"""One interface for rule systems.

The room machinery (seats, turns and their deadlines, breaks, the final reveal, resignation,
ranks, ratings, views of everything but the round) lives in ``game`` and ``views`` and is the
same for every system. What happens *inside a round* is a rule system's business: how hands
are rolled, which bids are legal, how a challenge resolves and what it costs, what a timeout
does, how a bot plays and what the round looks like to a viewer. Adding a system (SPEC §9) is
adding a module that implements ``RuleSystem`` and registering it in ``rule_system()``.

A system keeps any state of its own in ``Game.extra`` and ``Reveal.extra`` (stored opaquely
with the room) and shows public round information through ``table_view``: rooms, storage,
timers and the callers of the view function never change for a new system.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .model import WILD, RevealRow

if TYPE_CHECKING:
    from .dice import Roller
    from .model import Bid, Player, Reveal, Room


class RuleSystem(Protocol):
    """What a rule system provides to the shared room machinery."""

    name: str

    def deal(self, room: Room, roller: Roller) -> None:
        """Roll a fresh hand for every player still in the game (start of each round)."""
        ...

    def check_start(self, room: Room) -> None:
        """Refuse to start when the seats do not suit the system (raise a DomainError)."""
        ...

    def place_bid(self, room: Room, player: Player, action: dict[str, Any], roller: Roller) -> Bid:
        """Validate a bid action (raise before changing anything), apply its side effects, return it."""
        ...

    def bid_view(self, bid: Bid) -> dict[str, Any]:
        """A bid as every viewer sees it (``player_id``, ``quantity``, ``face``)."""
        ...

    def table_view(self, room: Room) -> dict[str, Any] | None:
        """Public information of the round in play beyond the current bid (e.g. shown dice)."""
        ...

    def resolve(self, room: Room, challenger: Player) -> Reveal:
        """Reveal every hand, decide the challenge and apply its penalty to dice counts."""
        ...

    def next_opener(self, room: Room, reveal: Reveal) -> str:
        """Who should open the next round (before skipping players who are out)."""
        ...

    def timeout_action(self, room: Room) -> dict[str, Any]:
        """What the server does for a player whose turn deadline passed."""
        ...

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """A bot's action, decided from its own player view only."""
        ...

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """Let bots learn from a completed, public reveal (mutates ``memory``)."""
        ...


def rule_system(name: str) -> RuleSystem:
    """The rule system a room's ``rules`` setting names."""
    from .classic import CLASSIC
    from .wild_stars import WILD_STARS

    systems: dict[str, RuleSystem] = {"classic": CLASSIC, "wild-stars": WILD_STARS}
    return systems[name]


def reveal_rows(room: Room, dice_of: Callable[[Player], list[int]]) -> tuple[list[RevealRow], int]:
    """Every hand of the round against the current bid: one row per player, and the count.

    A die counts toward a bid on a face if it shows that face or ``*`` (a normal 1 is not wild);
    a bid on ``*`` itself
    (Wild Stars) counts stars only. Each row lists that player's bids of the round in order.
    """
    game = room.game
    assert game is not None and game.current_bid is not None
    face = game.current_bid.face
    rows: list[RevealRow] = []
    count = 0
    for p in room.players:
        dice = dice_of(p)
        if not dice:
            continue
        counted = [d in (face, WILD) for d in dice]
        count += sum(counted)
        bids = [(b.quantity, b.face) for b in game.round_bids if b.player_id == p.id]
        rows.append(RevealRow(p.id, p.name, dice, counted, bids))
    return rows, count
