"""Events: what happened, in the past tense, one frozen dataclass per event type.

Each event is declared once: its dataclass here (or in its rule system's package) is what the
engine builds, and ``wire_models.event_model`` publishes it (docstring, ``TYPE``, fields, with
``Ms`` stamps as ISO 8601): the docstrings below are the published descriptions.

Transitions build these and turn each into the plain dict the engine returns with
``record()``, the one place that serializes an event (``{"type", …}``: the fields in the
order they are declared, epoch-ms stamps); ``views.events_for`` only writes the stamps as
ISO 8601 for the wire. A turn action's event (a ``Move``) is said by the rule system and
stamped by the shared flow with the round, who made it (``by``: player, bot or timeout) and
when.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, ClassVar, Literal

from .wire_models import Ms, Wire

Record = dict[str, Any]
"""An event as the engine returns it."""


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """The event class's field names in declared order (computed once per class)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``TYPE`` is its ``type`` on the wire."""

    TYPE: ClassVar[str] = ""
    OPTIONAL: ClassVar[tuple[str, ...]] = ()
    """Fields left out of the record when they are ``None``."""

    def body(self) -> Record:
        """The event's fields in order (optional ones only when set)."""
        out: Record = {}
        for name in _names(type(self)):
            value = getattr(self, name)
            if value is None and name in self.OPTIONAL:
                continue
            out[name] = value
        return out


def record(event: Event, **stamp: Any) -> Record:
    """The one serialization of an event: ``type``, its fields, then ``stamp`` (a move's)."""
    return {"type": event.TYPE, **event.body(), **stamp}


# -- the shared flow's events -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """Play began."""

    TYPE: ClassVar[str] = "game_started"
    at: Ms


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round began: everyone rolled; ``opener_id`` bids first."""

    TYPE: ClassVar[str] = "round_started"
    round: int
    opener_id: str
    at: Ms


@dataclass(frozen=True, slots=True)
class RoundRestarted(RoundStarted):
    """The round was dealt again after a resignation (bids cleared, same round number)."""

    TYPE: ClassVar[str] = "round_restarted"


@dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """A seat's turn deadline passed: ``action`` is the move played for it, announced next."""

    TYPE: ClassVar[str] = "turn_timed_out"
    player_id: str
    turn: int
    round: int
    action: Annotated[Mapping[str, Any], Wire("TimeoutAction")]
    by: Annotated[str, Wire(Literal["timeout"])]
    at: Ms

    def body(self) -> Record:
        """The action is copied, so the record never shares it."""
        out = Event.body(self)
        out["action"] = dict(self.action)
        return out


@dataclass(frozen=True, slots=True)
class ChallengeResolved(Event):
    """The round is decided: the full reveal is the view's ``game.last_reveal``."""

    TYPE: ClassVar[str] = "challenge_resolved"
    round: int
    count: int
    loser_id: str | None
    winner_id: str
    at: Ms


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """A seat lost its last die (or life) and takes the lowest free rank."""

    TYPE: ClassVar[str] = "player_eliminated"
    player_id: str
    round: int
    rank: Annotated[int | None, Wire(int)]
    at: Ms


@dataclass(frozen=True, slots=True)
class FinalRevealStarted(Event):
    """One player has dice left: the deciding reveal shows until ``deadline``."""

    TYPE: ClassVar[str] = "final_reveal_started"
    round: int
    deadline: Ms
    at: Ms


@dataclass(frozen=True, slots=True)
class BreakStarted(Event):
    """The break between rounds began; it ends at ``deadline`` or when everyone agreed."""

    TYPE: ClassVar[str] = "break_started"
    round: int
    deadline: Ms
    at: Ms


@dataclass(frozen=True, slots=True)
class BreakEnded(Event):
    """The break's deadline passed (the next round starts)."""

    TYPE: ClassVar[str] = "break_ended"
    round: int
    at: Ms


@dataclass(frozen=True, slots=True)
class Agreed(Event):
    """A player agreed to start the next round (Auto players and bots agree silently)."""

    TYPE: ClassVar[str] = "agreed"
    player_id: str
    round: int
    by: str
    at: Ms


@dataclass(frozen=True, slots=True)
class PlayerResigned(Event):
    """A seat resigned and takes the lowest free rank."""

    TYPE: ClassVar[str] = "player_resigned"
    player_id: str
    round: int
    rank: Annotated[int | None, Wire(int)]
    by: str
    at: Ms


@dataclass(frozen=True, slots=True)
class PlayerReplaced(Event):
    """A quick-play seat left during the countdown and a bot of ``level`` took it."""

    TYPE: ClassVar[str] = "player_replaced"
    player_id: str
    level: str
    at: Ms


@dataclass(frozen=True, slots=True)
class GameFinished(Event):
    """Results are published (the view's ``results``)."""

    TYPE: ClassVar[str] = "game_finished"
    at: Ms
    winner_id: str | None


# -- moves: said by a rule system, stamped by the shared flow ------------------------------


@dataclass(frozen=True, slots=True)
class Move(Event):
    """A turn action's event (the flow adds ``round``, ``by`` and ``at``)."""

    MOVE: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class BidPlaced(Move):
    """A bid or claim, with what it said (announced once, in the push of the change that made it).

    Classic and Wild Stars: ``quantity`` and ``face`` (``"*"`` for a bid on stars). Wild Stars
    adds ``show`` (the dice set out in the open with this bid, now public) and ``reroll``
    (whether the rest of the cup was rerolled). Poker Liar Dice: ``hand`` (the five faces the
    claim stands for) and ``category``; ``exposed`` / ``unexposed`` when the claim set cup
    positions out in the open or took them back (as ``dice_rerolled`` announces a reroll's).
    """

    # The engine holds ``bid`` (the rule system's ``bid_view`` and extras); its fields stand at
    # the top level of the event, published as the systems declare them (``SystemWire``).

    TYPE: ClassVar[str] = "bid_placed"
    bid: Mapping[str, Any] = field(default_factory=dict)

    def body(self) -> Record:
        """The bid's own fields (``player_id``, …) stand at the top level of the event."""
        return dict(self.bid)


@dataclass(frozen=True, slots=True)
class LiarCalled(Move):
    """Liar! on the current bid or claim; the reveal follows (``challenge_resolved``)."""

    TYPE: ClassVar[str] = "liar_called"
    player_id: str
