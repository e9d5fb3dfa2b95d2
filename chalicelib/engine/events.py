"""Events: what happened, in the past tense, one frozen dataclass per event type.

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
from typing import Any, ClassVar

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
    """The host started the game."""

    TYPE: ClassVar[str] = "game_started"
    at: int


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round began: fresh hands, ``opener_id`` to act."""

    TYPE: ClassVar[str] = "round_started"
    round: int
    opener_id: str
    at: int


@dataclass(frozen=True, slots=True)
class RoundRestarted(RoundStarted):
    """The round in play began again after a resignation."""

    TYPE: ClassVar[str] = "round_restarted"


@dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """A turn's deadline passed: the server played ``action`` for the player."""

    TYPE: ClassVar[str] = "turn_timed_out"
    player_id: str
    turn: int
    round: int
    action: Mapping[str, Any]
    by: str
    at: int

    def body(self) -> Record:
        """The action is copied, so the record never shares it."""
        out = Event.body(self)
        out["action"] = dict(self.action)
        return out


@dataclass(frozen=True, slots=True)
class ChallengeResolved(Event):
    """The round was decided: the count, who lost (``None``: nobody) and who won."""

    TYPE: ClassVar[str] = "challenge_resolved"
    round: int
    count: int
    loser_id: str | None
    winner_id: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """A player lost their last die (or life) and took ``rank``."""

    TYPE: ClassVar[str] = "player_eliminated"
    player_id: str
    rank: int | None
    at: int


@dataclass(frozen=True, slots=True)
class FinalRevealStarted(Event):
    """The deciding reveal shows until ``deadline``, then results."""

    TYPE: ClassVar[str] = "final_reveal_started"
    deadline: int
    at: int


@dataclass(frozen=True, slots=True)
class BreakStarted(Event):
    """A break between rounds began; it ends at ``deadline`` or when everyone agreed."""

    TYPE: ClassVar[str] = "break_started"
    deadline: int
    at: int


@dataclass(frozen=True, slots=True)
class BreakEnded(Event):
    """The break's deadline passed."""

    TYPE: ClassVar[str] = "break_ended"
    at: int


@dataclass(frozen=True, slots=True)
class Agreed(Event):
    """A player agreed to start the next round."""

    TYPE: ClassVar[str] = "agreed"
    player_id: str
    by: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerResigned(Event):
    """A player resigned and took ``rank``."""

    TYPE: ClassVar[str] = "player_resigned"
    player_id: str
    rank: int | None
    by: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerReplaced(Event):
    """A quick-play seat left during the countdown and a bot of ``level`` took it."""

    TYPE: ClassVar[str] = "player_replaced"
    player_id: str
    level: str
    at: int


@dataclass(frozen=True, slots=True)
class GameFinished(Event):
    """The game is over; ``winner_id`` ranked first."""

    TYPE: ClassVar[str] = "game_finished"
    at: int
    winner_id: str | None


# -- moves: said by a rule system, stamped by the shared flow ------------------------------


@dataclass(frozen=True, slots=True)
class Move(Event):
    """A turn action's event (the flow adds ``round``, ``by`` and ``at``)."""


@dataclass(frozen=True, slots=True)
class BidPlaced(Move):
    """A bid (or claim) was made; ``bid`` is what it said, as every viewer sees it."""

    TYPE: ClassVar[str] = "bid_placed"
    bid: Mapping[str, Any] = field(default_factory=dict)

    def body(self) -> Record:
        """The bid's own fields (``player_id``, …) stand at the top level of the event."""
        return dict(self.bid)


@dataclass(frozen=True, slots=True)
class LiarCalled(Move):
    """Liar! was called on the current bid (or claim)."""

    TYPE: ClassVar[str] = "liar_called"
    player_id: str
