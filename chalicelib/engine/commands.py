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
from collections.abc import Callable, Mapping
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


_WRONG = object()
"""What a field's checker returns for a value of the wrong type."""

Check = Callable[[Any], Any]


@cache
def _plan(cls: type) -> tuple[tuple[str, Check, bool], ...]:
    """Each field of ``cls``: its name, its type's checker and whether it is required."""
    hints = get_type_hints(cls)
    return tuple((f.name, _checker(hints[f.name]), f.default is MISSING) for f in fields(cls))


def _build(cls: type, data: Mapping[str, Any], skip: tuple[str, ...] = ()) -> Any:
    plan = _plan(cls)
    values: dict[str, Any] = {}
    for name, check, required in plan:
        if name in data:
            value = check(data[name])
            if value is _WRONG:
                raise InvalidAction(f"{name} has the wrong type", field=name)
            values[name] = value
        elif required:
            raise InvalidAction(f"{name} is required", field=name)
    if len(values) + sum(1 for k in skip if k in data) != len(data):
        known = {name for name, _, _ in plan}
        extra = next(k for k in data if k not in known and k not in skip)
        raise InvalidAction(f"unknown field {extra!r}", field=str(extra))
    return cls(**values)


def _checker(hint: Any) -> Check:
    """A function taking a value to itself as ``hint`` says (lists as tuples, dicts as
    dataclasses), or to ``_WRONG``."""
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        options = tuple(_checker(option) for option in get_args(hint))

        def union(value: Any) -> Any:
            for option in options:
                out = option(value)
                if out is not _WRONG:
                    return out
            return _WRONG

        return union
    if hint is type(None):
        return lambda value: None if value is None else _WRONG
    if origin is tuple:
        item = _checker(get_args(hint)[0])

        def sequence(value: Any) -> Any:
            if not isinstance(value, list | tuple):
                return _WRONG
            out = tuple(item(v) for v in value)
            return _WRONG if _WRONG in out else out

        return sequence
    if is_dataclass(hint) and isinstance(hint, type):
        part = hint

        def nested(value: Any) -> Any:
            if isinstance(value, part):
                return value
            if isinstance(value, Mapping):
                return _build(part, value)
            return _WRONG

        return nested
    if hint is int:
        return lambda value: value if type(value) is int else _WRONG
    if hint in (str, bool):
        kind = hint
        return lambda value: value if isinstance(value, kind) else _WRONG
    raise AssertionError(f"a command field of an unsupported type: {hint!r}")
