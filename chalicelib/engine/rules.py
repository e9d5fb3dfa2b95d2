"""One interface for rule systems.

The room machinery (seats, turns and their deadlines, breaks, the final reveal, resignation,
ranks, ratings, views of everything but the round) lives in ``game`` and ``views`` and is the
same for every system. What happens *inside a round* is a rule system's business: how hands
are rolled, which bids are legal, how a challenge resolves and what it costs, what a timeout
does, how a bot plays and what the round looks like to a viewer. Adding a system (docs/ENGINE.md) is
adding a package under ``systems/`` that implements ``RuleSystem`` and one line in the
registry (``systems/__init__.py``); see docs/ARCHITECTURE.md, "How to add a rule system".

This module imports no rule system. A system sees the room through ``Table`` (the seats,
the game in play, the settings), never through the shared flow in ``game``.

A system keeps any state of its own in ``Game.extra`` and ``Reveal.extra`` (stored opaquely
with the room) and shows public round information through ``table_view``: rooms, storage,
timers and the callers of the view function never change for a new system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .actions import ActionRequest, BidAction, LiarAction
from .commands import CallLiar, Command, PlaceBid
from .errors import InvalidAction, NoBidToChallenge
from .events import BidPlaced, LiarCalled, Move
from .state import WILD, Bid, Die, RevealRow
from .wire_models import FaceOut, SystemWire

if TYPE_CHECKING:
    from .dice import Roller
    from .state import Call, Game, Player, Reveal


class RoomSettings(Protocol):
    """The room settings a rule system reads."""

    @property
    def starting_dice(self) -> int: ...
    @property
    def wildcard_chance(self) -> int: ...
    @property
    def penalty(self) -> str: ...
    def option(self, name: str) -> Any:
        """One of the system's own settings (declared in ``RuleSystem.setting_defaults``)."""
        ...


class Table(Protocol):
    """What a rule system sees of a room: the seats, the game in play and the settings."""

    @property
    def players(self) -> list[Player]: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def settings(self) -> RoomSettings: ...
    def player(self, player_id: str) -> Player | None: ...
    def in_game(self) -> list[Player]: ...
    def next_clockwise(self, player_id: str) -> Player: ...


@dataclass(slots=True)
class TurnOutcome:
    """What a turn action decided; the shared flow in ``game`` applies it.

    ``events`` are announced first (the flow adds ``round``, ``by`` and ``at``). Then either
    ``reveal`` is set (the round is decided: eliminations, break or final reveal follow), or
    ``next_player`` acts next on a new turn number: with a fresh deadline for another player,
    or, for the same player (a system whose turn has stages), keeping the deadline the turn
    started with (one clock per holder). ``bid`` is a public claim that becomes the
    current bid and joins the round's hidden history.
    """

    events: list[Move] = field(default_factory=list)
    bid: Call | None = None
    next_player: Player | None = None
    reveal: Reveal | None = None


class RuleSystem(Protocol):
    """What a rule system provides to the shared room machinery.

    Besides its hooks a system declares: its ``name`` (the ``rules`` setting), the
    ``turn_actions`` it plays (action types answered with a ``turn``), the pydantic
    ``action_bodies`` of those actions (the wire schemas of ``POST …/actions``), and the
    ``setting_choices``: the settings it owns and their allowed values, with their
    ``setting_defaults`` (read with ``room.settings.option(name)``), and its ``wire``: its settings, table and reveal extras and events as
    published (``wire_models.SystemWire``).
    """

    name: str
    turn_actions: tuple[str, ...]
    action_bodies: tuple[type[ActionRequest], ...]
    setting_choices: Mapping[str, tuple[Any, ...]]
    setting_defaults: Mapping[str, Any]
    wire: SystemWire
    """What the system adds to the published models (``chalicelib.schemas`` composes them)."""
    quickplay_seats: int
    """The seats of a quick-play table of this system (humans and bots): how it plays best."""
    labels: Mapping[str, str]
    """The system's name for people, by interface language (``en``, ``es``, ``pt-BR``), as the
    web client gives it (``<name>.label`` in ``web/systems/<name>.i18n.json``); notifications
    say it. A language left out falls back to English, then to the ``name``."""

    def deal(self, room: Table, roller: Roller) -> None:
        """Roll a fresh hand for every player still in the game (start of each round)."""
        ...

    def check_start(self, room: Table) -> None:
        """Refuse to start when the seats do not suit the system (raise a DomainError)."""
        ...

    def starting_count(self, settings: RoomSettings) -> int:
        """What each player's ``dice_count`` starts at (dice, or lives)."""
        ...

    def turn_action(
        self, room: Table, player: Player, command: Command, roller: Roller
    ) -> TurnOutcome:
        """Check and apply the acting player's turn command (raise before changing anything).

        The command is typed (one of the system's ``action_bodies`` built it): the system
        checks the rules, never the types.
        """
        ...

    def dice_view(self, dice: list[int]) -> list[int | str]:
        """A hand as it appears on the wire."""
        ...

    def bid_view(self, bid: Call) -> dict[str, Any]:
        """A call (bid or claim) as every viewer sees it (``player_id`` and what was said)."""
        ...

    def table_view(self, room: Table) -> dict[str, Any] | None:
        """Public information of the round in play beyond the current bid (e.g. shown dice)."""
        ...

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Reveal every hand, decide the challenge and apply its penalty to dice counts."""
        ...

    def next_opener(self, room: Table, reveal: Reveal) -> str:
        """Who should open the next round (before skipping players who are out)."""
        ...

    def timeout_action(self, room: Table) -> dict[str, Any]:
        """What the server does for a player whose turn deadline passed."""
        ...

    bot_notes: tuple[str, ...]
    """Bot memory entries keyed by bot id: each bot's own notes, handed to that bot alone."""

    def bot_action(
        self, view: dict[str, Any], level: str, memory: dict[str, Any], roller: Roller
    ) -> dict[str, Any]:
        """A bot's action, decided from its own player view only."""
        ...

    def observe(self, memory: dict[str, Any], reveal: Reveal) -> None:
        """Let bots learn from a completed, public reveal (mutates ``memory``)."""
        ...

    def counted(self, bid: Call, dice: list[Die], extra: Mapping[str, Any]) -> list[bool]:
        """Which of a revealed hand's dice count toward the bid (recomputed when a room is read).

        ``extra`` is the reveal's own details (``Reveal.extra``: what the system added to it).
        """
        ...

    def call_from_dict(self, d: dict[str, Any]) -> Call:
        """A call stored with ``Call.to_dict()``."""
        ...

    def call_from_row(self, player_id: str, row: list[Any]) -> Call:
        """A call stored with ``Call.row()``."""
        ...


BIDDING_WIRE = SystemWire(
    bid={"quantity": (int | None, None), "face": (FaceOut | None, None)},
    bid_event={"quantity": (int | None, None), "face": (FaceOut | None, None)},
    timeout_actions=("bid", "liar"),
    timeout_action={"quantity": (int | None, None), "face": (FaceOut | None, None)},
)
"""What a bidding system publishes: a bid's ``quantity`` and ``face`` (classic adds nothing)."""


class BiddingRules:
    """What the bidding systems (classic, Wild Stars) share: dice counts, bids and Liar!.

    Subclasses provide ``deal``, ``place_bid``, ``resolve`` and the rest of ``RuleSystem``.
    """

    turn_actions: tuple[str, ...] = ("bid", "liar")
    action_bodies: tuple[type[ActionRequest], ...] = (BidAction, LiarAction)
    setting_choices: Mapping[str, tuple[Any, ...]] = {}
    setting_defaults: Mapping[str, Any] = {}
    wire: SystemWire = BIDDING_WIRE
    bot_notes: tuple[str, ...] = ()
    quickplay_seats: int = 4
    labels: Mapping[str, str] = {}

    def counted(self, bid: Call, dice: list[Die], extra: Mapping[str, Any]) -> list[bool]:
        """A die counts if it shows the bid's face or ``*`` (a bid on ``*`` counts stars only)."""
        face = bid_of(bid).face
        return [d in (face, WILD) for d in dice]

    def call_from_dict(self, d: dict[str, Any]) -> Bid:
        """Bids are stored as ``{"player_id", "quantity", "face"}``."""
        return Bid.from_dict(d)

    def call_from_row(self, player_id: str, row: list[Any]) -> Bid:
        """A bid's row is ``[quantity, face]``."""
        quantity, face = row
        return Bid(player_id, int(quantity), int(face))

    def starting_count(self, settings: RoomSettings) -> int:
        """Each player starts with the room's starting dice."""
        return settings.starting_dice

    def dice_view(self, dice: list[int]) -> list[int | str]:
        """Dice as 1–6, ``"*"`` for a wildcard or star."""
        return ["*" if d == WILD else d for d in dice]

    def bid_view(self, bid: Call) -> dict[str, Any]:
        """A bid with its face as 1–6, or ``"*"`` for a bid on stars."""
        bid = bid_of(bid)
        return {
            "player_id": bid.player_id,
            "quantity": bid.quantity,
            "face": "*" if bid.face == WILD else bid.face,
        }

    def place_bid(self, room: Table, player: Player, bid: PlaceBid, roller: Roller) -> Bid:
        """Validate a bid and apply its side effects (each system's own)."""
        raise NotImplementedError

    def bid_extras(self, room: Table, player: Player, bid: PlaceBid) -> dict[str, Any]:
        """What a bid announces beside quantity and face (read before ``place_bid`` applies it).

        Used only once ``place_bid`` has accepted the action; classic bids announce nothing more.
        """
        return {}

    def resolve(self, room: Table, challenger: Player) -> Reveal:
        """Decide a challenge (each system's own)."""
        raise NotImplementedError

    def turn_action(
        self, room: Table, player: Player, command: Command, roller: Roller
    ) -> TurnOutcome:
        """A turn is a bid, or Liar! on the current bid."""
        game = room.game
        assert game is not None
        if isinstance(command, PlaceBid):
            extras = self.bid_extras(room, player, command)
            bid = self.place_bid(room, player, command, roller)
            event = BidPlaced({**self.bid_view(bid), **extras})
            return TurnOutcome([event], bid=bid, next_player=room.next_clockwise(player.id))
        if isinstance(command, CallLiar):
            if game.current_bid is None:
                raise NoBidToChallenge("there is no bid to call Liar! on")
            return TurnOutcome([LiarCalled(player.id)], reveal=self.resolve(room, player))
        raise InvalidAction(f"unknown turn action {command.TYPE!r}", field="type")


def reveal_rows(room: Table, dice_of: Callable[[Player], list[int]]) -> tuple[list[RevealRow], int]:
    """Every hand of the round against the current bid: one row per player, and the count.

    A die counts toward a bid on a face if it shows that face or ``*`` (a normal 1 is not wild);
    a bid on ``*`` itself
    (Wild Stars) counts stars only. Each row lists that player's bids of the round in order.
    """
    game = room.game
    assert game is not None and game.current_bid is not None
    face = bid_of(game.current_bid).face
    rows: list[RevealRow] = []
    count = 0
    for p in room.players:
        dice = dice_of(p)
        if not dice:
            continue
        counted = [d in (face, WILD) for d in dice]
        count += sum(counted)
        bids = [b.row() for b in game.round_bids if b.player_id == p.id]
        rows.append(RevealRow(p.id, p.name, dice, counted, bids))
    return rows, count


def bid_of(call: Call | None) -> Bid:
    """The call as a ``Bid`` (the bidding systems make no other kind of call)."""
    assert isinstance(call, Bid), call
    return call


def current_bid(room: Table) -> Bid | None:
    """The round's current bid in a bidding system (``None`` before the opening bid)."""
    assert room.game is not None
    call = room.game.current_bid
    return None if call is None else bid_of(call)
