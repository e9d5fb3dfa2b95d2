"""Typed commands: what a player asks the engine to do, one frozen dataclass per action.

The edge (a route or a WebSocket handler) parses the request body with its pydantic model
and builds the command with the body's ``command()``; ``game.act`` takes the command. A rule
system declares the commands of its own turn actions (``rules.RuleSystem.action_bodies``
build them); the shared ones are here. Bots and timeouts produce the same actions in their
plain form (``Command.as_action()``), which is what rule systems validate.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any, ClassVar


def _plain(value: Any) -> Any:
    """A command field as the plain action holds it (tuples become lists, parts dicts)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return value


@dataclass(frozen=True, slots=True)
class Command:
    """Base of every command: ``TYPE`` is the action type on the wire."""

    TYPE: ClassVar[str] = ""

    def as_action(self) -> dict[str, Any]:
        """The plain action (``{"type", …}``, unset optional fields left out)."""
        out: dict[str, Any] = {"type": self.TYPE} if self.TYPE else {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = _plain(value)
        return out


@dataclass(frozen=True, slots=True)
class PlaceBid(Command):
    """Raise the bid to ``quantity`` dice showing ``face`` (``"*"``: stars), optionally showing dice."""

    TYPE: ClassVar[str] = "bid"
    quantity: int
    face: int | str
    turn: int
    show: tuple[int, ...] | None = None
    reroll: bool | None = None


@dataclass(frozen=True, slots=True)
class CallLiar(Command):
    """Call Liar! on the current bid."""

    TYPE: ClassVar[str] = "liar"
    turn: int


@dataclass(frozen=True, slots=True)
class Agree(Command):
    """Agree to start the next round."""

    TYPE: ClassVar[str] = "agree"


@dataclass(frozen=True, slots=True)
class Resign(Command):
    """Leave the game."""

    TYPE: ClassVar[str] = "resign"
