"""The lobby's events are typed like the game's: dataclasses recorded by ``events.record``, in
the shapes the published models (``chalicelib.schemas``) and clients already know."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from chalicelib import schemas
from chalicelib.engine.events import Event
from chalicelib.service.events import (
    LOBBY_EVENTS,
    JoinRequested,
    PlayerJoined,
    RoomCreated,
    RoomRecreated,
    record,
)

SAMPLES: list[tuple[Event, dict[str, Any]]] = [
    (RoomCreated(1_700_000_000_000), {"type": "room_created", "at": 1_700_000_000_000}),
    (PlayerJoined("u1", 5), {"type": "player_joined", "user_id": "u1", "at": 5}),
    (JoinRequested("u2", 6), {"type": "join_requested", "user_id": "u2", "at": 6}),
    (RoomRecreated("r9", 7), {"type": "room_recreated", "room_id": "r9", "at": 7}),
]


@pytest.mark.parametrize("event, wire", SAMPLES, ids=lambda e: type(e).__name__)
def test_a_lobby_event_records_as_the_dict_the_use_cases_wrote_by_hand(
    event: Event, wire: dict[str, Any]
) -> None:
    recorded = record(event)
    assert recorded == wire
    assert list(recorded) == list(wire)  # the same key order, so the same JSON text


def test_every_lobby_event_has_a_sample_and_a_published_model() -> None:
    assert {type(e) for e, _ in SAMPLES} == set(LOBBY_EVENTS)
    published = {m.model_fields["type"].annotation.__args__[0] for m in schemas.EVENT_MODELS}
    assert {kind.TYPE for kind in LOBBY_EVENTS} <= published


@pytest.mark.parametrize("event, wire", SAMPLES, ids=lambda e: type(e).__name__)
def test_a_recorded_lobby_event_validates_against_its_published_model(
    event: Event, wire: dict[str, Any]
) -> None:
    on_wire = {"id": "1.0", **record(event), "at": "2023-11-14T22:13:20Z"}  # as pushed
    parsed = TypeAdapter(schemas.AnyEvent).validate_python(on_wire)
    assert parsed.type == wire["type"]  # type: ignore[union-attr]
