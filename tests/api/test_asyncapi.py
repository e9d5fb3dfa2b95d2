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
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import TypeAdapter

from chalicelib import schemas, wire
from chalicelib.asyncapi import CLIENT_MESSAGES, asyncapi_document
from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.room import UserRef, add_bot, create_room, start
from chalicelib.engine.systems import SYSTEMS
from chalicelib.engine.views import events_for
from tests.api.conftest import Env
from tests.contract_check import response_schema

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
    version = 1
    out = events_for(room, start(room, host, roller, 0), version)
    while room.game is not None and room.game.deadline is not None and room.status == "playing":
        version += 1
        out += events_for(room, game.advance(room, room.game.deadline, roller), version)
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


# --- ajv in strict mode: what a typed client's validator says of whole games -----------------

AJV_DIR = Path(__file__).resolve().parent / "asyncapi"


def _ajv(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Run ``ajv_strict.mjs`` (installing ajv from its lock file when missing) over ``lines``."""
    if not (AJV_DIR / "node_modules" / "ajv").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=AJV_DIR, check=True, timeout=300
        )
    done = subprocess.run(
        ["node", str(AJV_DIR / "ajv_strict.mjs"), str(ROOT)],
        input="\n".join(json.dumps(line) for line in lines),
        capture_output=True,
        text=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["returncode"] = done.returncode
    return result


def _room_pushes(rules: str, seed: int) -> list[dict[str, Any]]:
    """Every room push of a whole game (a timing-out human against three bots), as sent."""
    host = UserRef("u1", "h1", continue_mode="manual")
    room = create_room("r", host, {"rules": rules, "starting_dice": 2, "lives": 2}, 0)
    for _ in range(3):
        add_bot(room, host)
    roller = SeededRoller(seed)
    version = 1
    events = start(room, host, roller, 0)
    pushes = []
    while True:
        now = room.game.clock if room.game else 0
        view = wire.view(room, version, "u1", now)
        pushes.append(wire.room_message(view, events_for(room, events, version)))
        if room.game is None or room.game.deadline is None or room.status != "playing":
            return pushes
        version += 1
        events = game.advance(room, room.game.deadline, roller)


def test_ajv_strict_compiles_both_documents_and_validates_whole_games(api_env: Env) -> None:
    lines: list[dict[str, Any]] = []
    for rules in SYSTEMS:
        for push in _room_pushes(rules, seed=1):
            lines.append({"doc": "asyncapi", "ref": "#/components/schemas/RoomPush", "value": push})
    for message in (
        wire.pong(),
        wire.error_message("unknown_room", "no such room", room_id="r", action="subscribe"),
        {"type": "room_changed", "room_id": "r", "version": 3},
    ):
        lines.append(
            {
                "doc": "asyncapi",
                "ref": f"#/components/schemas/{_push_model(message)}",
                "value": message,
            }
        )

    # REST: a whole game per system over the API, every answer as the test client got it
    env = api_env
    token, _ = env.guest("Ajv")
    answers: list[tuple[str, str, Any]] = []

    def call(method: str, path: str, body: Any = None) -> Any:
        resp = env.call(method, path, body, token)
        answers.append((method, path, resp))
        return resp.json

    for rules in SYSTEMS:
        room = call("POST", "/rooms", {"settings": {"rules": rules, "starting_dice": 1}})
        rid = room["id"]
        call("POST", f"/rooms/{rid}/bots", {"level": "easy"})
        call("POST", f"/rooms/{rid}/start")
        for _ in range(100):
            if call("GET", f"/rooms/{rid}")["status"] == "finished":
                break
            env.clock.advance(130_000)
            call("POST", f"/rooms/{rid}/tick")
        else:
            raise AssertionError(f"the {rules} game did not finish")
        call("GET", f"/rooms/{rid}/history")
        call("GET", "/rooms?status=finished")
        call("GET", "/rooms/no-such-room")  # an error answer too
    call("GET", "/me")
    for method, path, resp in answers:
        schema = response_schema(method, path, resp.status_code)
        assert schema is not None and "$ref" in schema, (method, path)
        lines.append({"doc": "openapi", "ref": schema["$ref"], "value": resp.json})

    result = _ajv(lines)
    assert result["failures"] == [] and result["returncode"] == 0, result
    assert result["validated"] == len(lines) and result["compiled"] > 50


def _push_model(message: dict[str, Any]) -> str:
    return {"pong": "PongPush", "error": "ErrorPush", "room_changed": "RoomChangedPush"}[
        message["type"]
    ]


def test_ajv_strict_refuses_what_the_documents_do_not_say() -> None:
    result = _ajv(
        [
            {
                "doc": "asyncapi",
                "ref": "#/components/schemas/PongPush",
                "value": {"type": "pong", "x": 1},
            },
            {"doc": "openapi", "ref": "#/components/schemas/Health", "value": {"status": "fine"}},
        ]
    )
    assert result["returncode"] == 1 and len(result["failures"]) == 2, result


ROUND_EVENTS = {
    "round_started",
    "round_restarted",
    "bid_placed",
    "liar_called",
    "calza_called",
    "claim_accepted",
    "dice_rerolled",
    "rolls_stopped",
    "turn_timed_out",
    "challenge_resolved",
    "player_eliminated",
    "player_resigned",
    "agreed",
    "break_started",
    "break_ended",
    "final_reveal_started",
}


@pytest.mark.parametrize("rules", list(SYSTEMS))
def test_every_event_has_an_id_unique_in_its_room_and_every_round_event_its_round(
    rules: str,
) -> None:
    same_moment = 0
    for seed in range(3):
        events = _bot_game_events(rules, seed)
        ids = [e["id"] for e in events]
        assert len(ids) == len(set(ids)), "ids are unique in the room"
        for e in events:
            if e["type"] in ROUND_EVENTS:
                assert isinstance(e.get("round"), int), e
        breaks = [(e["at"], e["round"]) for e in events if e["type"] == "break_started"]
        assert len({r for _, r in breaks}) == len(breaks), "one break per round"
        stamps = [at for at, _ in breaks]
        same_moment += len(stamps) - len(set(stamps))
    # Once no human has dice, bots play on without think time: several rounds' breaks share
    # one `at` (what a client once saw as "two break_started at the same moment"); their
    # `round` and `id` tell them apart.
    assert same_moment > 0
