"""How a rule system declares its words on the wire, and how an event's published model is made.

Each event is declared once, as its frozen dataclass in ``events`` (the shared flow's) or in
its system's package (``systems/<name>/events.py``); ``event_model`` makes the published
pydantic model from that declaration: the class's docstring, its ``TYPE``, its fields in
order, with the wire's type where the engine's differs (``Wire``: an epoch-ms stamp published
as ISO 8601). What a system adds to the shared answers (its settings, the extras of the table,
the reveal, a bid, a timeout's action) it declares as a ``SystemWire`` beside its rules;
``chalicelib.schemas`` composes the published models from the registry, so adding a system
touches no shared file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

FieldSpec = tuple[Any, Any]
"""A published field as ``pydantic.create_model`` takes it: ``(annotation, default or Field)``."""


@dataclass(frozen=True)
class Wire:
    """``Annotated`` metadata on an event field: its type on the wire, where it differs."""

    type: Any


Stamp = Annotated[
    str,
    Field(
        description="ISO 8601 UTC with milliseconds: when it happens at the table. A bot's move "
        "may be stamped after the push is sent (its think time); play events at their stamps.",
        examples=["2026-01-01T12:00:01.250Z"],
        json_schema_extra={"format": "date-time"},
    ),
]
"""An epoch-ms time of an event, as the wire writes it (``views.events_for``)."""

Ms = Annotated[int, Wire(Stamp)]
"""An event field holding epoch milliseconds, published as a ``Stamp``."""

By = Literal["player", "bot", "timeout"]
FaceOut = int | Literal["*"]
DieOut = int | Literal["*"]


class Answer(BaseModel):
    """Base of response bodies: closed (every field the server sends is published; a new one is
    a deliberate change of the documents)."""

    # defer_build: built on first use, not by ``import app`` (cold start); same validation
    model_config = ConfigDict(extra="forbid", defer_build=True)


class EventOut(Answer):
    """What every event carries: its ``id``, ``type`` and ``at``."""

    id: str = Field(
        pattern=r"^[0-9]+\.[0-9]+$",
        description='Unique in the room and stable: "<version>.<index>", the room version the '
        "change made and the event's place in that change. Keep each event once by its id.",
        examples=["42.0"],
    )
    at: Stamp


class SeatEventOut(EventOut):
    """An event a seat caused, with who acted: the player, a bot, or the server on a timeout."""

    player_id: str
    by: By


class MoveEventOut(SeatEventOut):
    """A turn move of the running round (``round`` is the round it belongs to)."""

    round: int


@dataclass(frozen=True)
class SystemWire:
    """What a rule system adds to the published models (each a ``name: FieldSpec`` map).

    Every added field is optional on the wire (other systems' rooms leave it out), so its
    spec carries a default (``None``, or a ``Field(default=None, description=…)``).
    """

    settings: Mapping[str, FieldSpec] = field(default_factory=dict)
    """The system's own room settings as views show them (``PublicSettings``)."""
    settings_body: Mapping[str, FieldSpec] = field(default_factory=dict)
    """The same settings as a request sets them (``SettingsBody``)."""
    table: Mapping[str, FieldSpec] = field(default_factory=dict)
    """``game.table``: public round information beyond the current bid (``TableOut``)."""
    reveal: Mapping[str, FieldSpec] = field(default_factory=dict)
    """The system's extras of a reveal (``RevealOut``)."""
    bid: Mapping[str, FieldSpec] = field(default_factory=dict)
    """What a call says (``BidOut``, ``RevealBidOut``)."""
    bid_event: Mapping[str, FieldSpec] = field(default_factory=dict)
    """What a ``bid_placed`` event says beside who, when and which round."""
    timeout_actions: tuple[str, ...] = ()
    """The action types a timeout plays in this system (``TimeoutAction.type``)."""
    timeout_action: Mapping[str, FieldSpec] = field(default_factory=dict)
    """Fields of a timeout's announced action beyond ``type`` (``TimeoutAction``)."""
    events: tuple[type, ...] = ()
    """The system's own event dataclasses (moves), each published by ``event_model``."""
    models: tuple[type[BaseModel], ...] = ()
    """Named models its fields refer to (published under their class names)."""


def _overridden(hint: Any) -> bool:
    return get_origin(hint) is Annotated and any(isinstance(m, Wire) for m in get_args(hint)[1:])


def _wire_type(hint: Any) -> Any:
    """The published annotation of an event field (``Wire`` metadata swapped in)."""
    if get_origin(hint) is Annotated:
        base, *meta = get_args(hint)
        for m in meta:
            if isinstance(m, Wire):
                return m.type
        kept = [m for m in meta if not isinstance(m, Wire)]
        return Annotated[(base, *kept)] if kept else base
    return hint


def event_model(
    cls: type,
    *,
    own: Mapping[str, FieldSpec] | None = None,
    wire_types: Mapping[str, Any] | None = None,
) -> type[BaseModel]:
    """The published model of the event dataclass ``cls``.

    Its base is chosen from its fields: a turn move (``player_id``, ``by`` and ``round``, or
    any ``Move``, whose ``round``, ``by`` and ``at`` the shared flow stamps), a seat's event
    (``player_id`` and ``by``), or a plain event. ``own`` replaces the fields declared on the
    class (``bid_placed``: the registry's bid fields); ``wire_types`` resolves ``Wire`` types
    named by a string (models declared outside the engine).
    """
    hints = get_type_hints(cls, include_extras=True)
    names = [f.name for f in fields(cls)]
    if getattr(cls, "MOVE", False) or {"player_id", "by", "round"} <= set(names):
        base: type[BaseModel] = MoveEventOut
    elif {"player_id", "by"} <= set(names):
        base = SeatEventOut
    else:
        base = EventOut
    specs: dict[str, Any] = {"type": (Literal[cls.TYPE], ...)}  # type: ignore[attr-defined]
    if own is not None:
        specs.update(own)
    else:
        for f in fields(cls):
            hint = hints[f.name]
            if f.name in base.model_fields and (not _overridden(hint) or hint == Ms):
                continue  # the base declares it (a ``Wire`` type on the class narrows it)
            wire = _wire_type(hint)
            if isinstance(wire, str):
                wire = (wire_types or {})[wire]
            default = None if f.default is not MISSING else ...
            specs[f.name] = (wire, default)
    model: type[BaseModel] = create_model(
        cls.__name__, __base__=base, __doc__=cls.__doc__, __module__=cls.__module__, **specs
    )
    return model
