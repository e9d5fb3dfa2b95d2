"""The committed AsyncAPI document equals the one generated from the models, and is valid AsyncAPI 3.0.

Regenerate with: ``UPDATE_ASYNCAPI=1 .venv/bin/pytest tests/api/test_asyncapi.py``.

Validity is checked against the official AsyncAPI 3.0.0 JSON Schema, vendored from the npm
package ``@asyncapi/specs`` 6.11.1 (``schemas/3.0.0-without-$id.json``, Apache-2.0, see
``tests/api/asyncapi/LICENSE``).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import TypeAdapter

from chalicelib import schemas
from chalicelib.asyncapi import CLIENT_MESSAGES, asyncapi_document
from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.room import UserRef, add_bot, create_room, start
from chalicelib.engine.systems import SYSTEMS
from chalicelib.engine.views import events_for
from tests.api.conftest import Env

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "asyncapi.json"
ASYNCAPI_SCHEMA = Path(__file__).resolve().parent / "asyncapi" / "asyncapi-3.0.0.schema.json"


def _generated() -> str:
    return json.dumps(asyncapi_document(), indent=2, sort_keys=True) + "\n"


def _validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads(ASYNCAPI_SCHEMA.read_text()))


def test_committed_asyncapi_matches_the_models() -> None:
    if os.environ.get("UPDATE_ASYNCAPI") == "1":
        COMMITTED.write_text(_generated())
    assert COMMITTED.read_text() == _generated()


def test_the_document_is_valid_asyncapi_3_and_the_check_can_fail() -> None:
    document = json.loads(COMMITTED.read_text())
    validator = _validator()
    assert [e.message for e in validator.iter_errors(document)] == []
    broken = copy.deepcopy(document)
    first = next(iter(broken["operations"].values()))
    first["action"] = "publish"  # AsyncAPI 2 wording: not an AsyncAPI 3 operation
    assert list(validator.iter_errors(broken))


def test_every_message_and_event_is_described_once_by_its_wire_name() -> None:
    document = asyncapi_document()
    names = [m["name"] for m in document["components"]["messages"].values()]
    assert sorted(names) == sorted(
        [
            "subscribe",
            "unsubscribe",
            "tick",
            "ping",
            "room",
            "room_changed",
            "chat",
            "error",
            "pong",
            "match_found",
        ]
    )
    events = document["components"]["schemas"]["EventTypes"]["properties"]
    assert len(events) == len(schemas.EVENT_MODELS)
    past = [n for n in events if any(w.endswith("ed") for w in n.split("_"))]
    assert past == list(events), "events are named in the past tense"
    receive = {
        o["messages"][0]["$ref"]
        for o in document["operations"].values()
        if o["action"] == "receive"
    }
    assert len(receive) == len(CLIENT_MESSAGES)


def test_the_asyncapi_document_is_served(api_env: Env) -> None:
    assert api_env.call("GET", "/asyncapi.json").json == json.loads(_generated())


def _bot_game_events(rules: str, seed: int) -> list[dict[str, Any]]:
    """Wire events of a game where one human times out every turn against three bots."""
    host = UserRef("u1", "h1", continue_mode="manual")
    room = create_room("r", host, {"rules": rules, "starting_dice": 2, "lives": 2}, 0)
    for _ in range(3):
        add_bot(room, host)
    roller = SeededRoller(seed)
    out = events_for(room, start(room, host, roller, 0))
    while room.game is not None and room.game.deadline is not None and room.status == "playing":
        out += events_for(room, game.advance(room, room.game.deadline, roller))
    return out


@pytest.mark.parametrize("rules", list(SYSTEMS))
def test_every_event_the_engine_emits_fits_its_published_model(rules: str) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(schemas.AnyEvent)
    seen = set()
    for seed in range(3):
        for event in _bot_game_events(rules, seed):
            parsed = adapter.validate_python(event)
            # nothing an event says is missing from its model
            assert set(event) <= set(type(parsed).model_fields) | {"type"}, event
            seen.add(event["type"])
    assert {"bid_placed", "liar_called", "turn_timed_out", "challenge_resolved"} <= seen
