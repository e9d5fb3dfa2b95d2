"""Typed commands: what a player asks the engine to do, one frozen dataclass per action.

The edge (a route or a WebSocket handler) parses the request body with its pydantic model
and builds the command with the body's ``command()``; ``game.act`` takes the command, and a
rule system's ``turn_action`` receives it typed (it checks the rules, never the types). A rule
system declares the commands of its own turn actions (``rules.RuleSystem.action_bodies``
build them); the shared ones are here. Bots and timeouts say their actions in the plain form
(``Command.as_action()``); the shared flow parses those through the same bodies
(``systems.command_of``) before a rule system sees them.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from functools import cache
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints

from .errors import InvalidAction


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

    @classmethod
    def from_action(cls, action: Mapping[str, Any]) -> Command:
        """The command of an action in its plain form, its fields' types checked.

        Only the types: what the rules allow (ranges, faces, stages) is the rule system's to
        check. Lists become tuples and a nested part's dict becomes its dataclass.
        """
        command: Command = _build(cls, action, skip=("type",))
        return command

    def as_action(self) -> dict[str, Any]:
        """The plain action (``{"type", …}``, unset optional fields left out)."""
        out: dict[str, Any] = {"type": self.TYPE} if self.TYPE else {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = _plain(value)
        return out

    def announced(self) -> dict[str, Any]:
        """The action as the table hears it when the server played it for a timed-out seat.

        The plain action without ``turn``; a command whose fields would tell a hidden thing
        (Poker's cup positions) says what may be told instead.
        """
        out = self.as_action()
        out.pop("turn", None)
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


_BY_TYPE: dict[str, type[Command]] = {}
"""Every command class by its ``TYPE`` (found among the declared subclasses when first asked)."""


def command_class(kind: Any) -> type[Command] | None:
    """The command class of an action type, if one is declared."""
    if not isinstance(kind, str):
        return None
    if kind not in _BY_TYPE:
        todo = list(Command.__subclasses__())
        while todo:
            cls = todo.pop()
            todo.extend(cls.__subclasses__())
            # ``slots=True`` replaces each class: the replacement is the one in use
            if cls.__dict__.get("TYPE") and "__slots__" in cls.__dict__:
                _BY_TYPE[cls.TYPE] = cls
    return _BY_TYPE.get(kind)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _build(cls: type, data: Mapping[str, Any], skip: tuple[str, ...] = ()) -> Any:
    known = {f.name for f in fields(cls)}
    for name in data:
        if name not in known and name not in skip:
            raise InvalidAction(f"unknown field {name!r}", field=str(name))
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in data:
            values[f.name] = _typed(data[f.name], hints[f.name], f.name)
        elif f.default is MISSING:
            raise InvalidAction(f"{f.name} is required", field=f.name)
    return cls(**values)


def _typed(value: Any, hint: Any, name: str) -> Any:
    """``value`` as ``hint`` says (lists as tuples, dicts as dataclasses), or InvalidAction."""
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        for option in get_args(hint):
            try:
                return _typed(value, option, name)
            except InvalidAction:
                continue
        raise InvalidAction(f"{name} has the wrong type", field=name)
    if hint is type(None):
        if value is None:
            return None
    elif origin is tuple:
        item = get_args(hint)[0]
        if isinstance(value, list | tuple):
            return tuple(_typed(v, item, name) for v in value)
    elif is_dataclass(hint) and isinstance(hint, type):
        if isinstance(value, hint):
            return value
        if isinstance(value, Mapping):
            return _build(hint, value)
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint in (str, bool):
        if isinstance(value, hint):
            return value
    else:
        raise AssertionError(f"a command field of an unsupported type: {hint!r}")
    raise InvalidAction(f"{name} has the wrong type", field=name)
