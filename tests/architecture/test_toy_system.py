"""The proof that a rule system is one package: a toy system, written to a temporary directory
at run time and registered from there (never named in ``engine/systems/__init__.py``), plays a
whole game through the REST API, and every event it announces fits the AsyncAPI document
generated with it, which is itself valid AsyncAPI 3.

The toy is classic with one more turn action of its own (``shout``: Liar!, announced as its own
event ``shout_called``), one setting of its own (``toy_loud``), a table extra (``toy_round``)
and a reveal extra (``shouted``). Nothing shared is edited for it: the registry, the settings,
the action bodies, the OpenAPI and AsyncAPI documents all take it from its package.

It runs in a fresh interpreter (the registry is read once, when the modules that derive from
it are first imported), which registers the toy right after the registry module is loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOY_PACKAGE = '''
"""A toy rule system: classic, plus a ``shout`` of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from chalicelib.engine.actions import ActionRequest, BidAction, LiarAction, Turn
from chalicelib.engine.commands import Command
from chalicelib.engine.dice import Roller
from chalicelib.engine.errors import NoBidToChallenge
from chalicelib.engine.events import Move
from chalicelib.engine.rules import BIDDING_WIRE, Table, TurnOutcome
from chalicelib.engine.state import Player
from chalicelib.engine.systems.classic.rules import ClassicRules
from chalicelib.engine.wire_models import SystemWire


@dataclass(frozen=True, slots=True)
class Shout(Command):
    """Shout Liar! on the current bid."""

    TYPE: ClassVar[str] = "shout"
    turn: int


class ShoutAction(ActionRequest):
    """Toy: shout Liar! on the current bid."""

    type: Literal["shout"]
    turn: Turn

    def command(self) -> Shout:
        return Shout(self.turn)


@dataclass(frozen=True, slots=True)
class ShoutCalled(Move):
    """Toy: Liar! was shouted on the current bid; the reveal follows."""

    TYPE: ClassVar[str] = "shout_called"
    player_id: str


class ToyRules(ClassicRules):
    name = "toy"
    turn_actions = ("bid", "liar", "shout")
    action_bodies = (BidAction, LiarAction, ShoutAction)
    setting_choices = {"toy_loud": (False, True)}
    setting_defaults = {"toy_loud": False}
    wire = SystemWire(
        settings={"toy_loud": (bool | None, None)},
        settings_body={"toy_loud": (bool | None, None)},
        table={"toy_round": (int | None, None)},
        reveal={"shouted": (bool | None, None)},
        bid=BIDDING_WIRE.bid,
        bid_event=BIDDING_WIRE.bid_event,
        timeout_actions=BIDDING_WIRE.timeout_actions,
        timeout_action=BIDDING_WIRE.timeout_action,
        events=(ShoutCalled,),
    )

    def table_view(self, room: Table) -> dict[str, Any] | None:
        assert room.game is not None
        return {"toy_round": room.game.round}

    def turn_action(
        self, room: Table, player: Player, command: Command, roller: Roller
    ) -> TurnOutcome:
        if isinstance(command, Shout):
            assert room.game is not None
            if room.game.current_bid is None:
                raise NoBidToChallenge("there is no bid to shout at")
            reveal = self.resolve(room, player)
            reveal.extra["shouted"] = bool(room.settings.option("toy_loud"))
            return TurnOutcome([ShoutCalled(player.id)], reveal=reveal)
        return super().turn_action(room, player, command, roller)


TOY = ToyRules()
'''

BOOTSTRAP = '''
"""Registers the toy right after the registry module is loaded (before anything reads it)."""

import importlib.abc
import importlib.machinery
import sys


class _RegisterToy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "chalicelib.engine.systems":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            from toy_rules import TOY

            module.register(TOY)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _RegisterToy())
'''

GAME = '''
"""A toy game through the API, then its events against the AsyncAPI document."""

import json

import jsonschema

import toy_bootstrap  # noqa: F401  (first: registers the toy)
import pytest

from tests import contract_check
from tests.api.conftest import Env, api_env  # noqa: F401  (the fixture)


@pytest.fixture(autouse=True)
def documents_with_the_toy(tmp_path, monkeypatch):
    """Every answer and push is checked against the documents generated with the toy."""
    import app  # noqa: F401  (declares the routes)
    from chalicelib.asyncapi import asyncapi_document
    from chalicelib.schemas import openapi_document

    for name, document in (("OPENAPI", openapi_document()), ("ASYNCAPI", asyncapi_document())):
        path = tmp_path / f"{name.lower()}.json"
        path.write_text(json.dumps(document))
        monkeypatch.setattr(contract_check, name, path)
    contract_check._routes.cache_clear()
    contract_check._push_schema.cache_clear()


def test_a_toy_game_through_the_api(api_env: Env) -> None:
    env = api_env
    token, _ = env.guest("Toyer")
    room = env.ok(
        "POST", "/rooms", {"settings": {"rules": "toy", "starting_dice": 1, "toy_loud": True}},
        token, 201,
    )
    rid = room["id"]
    assert room["settings"]["rules"] == "toy" and room["settings"]["toy_loud"] is True
    env.ok("POST", f"/rooms/{rid}/bots", {}, token, 201)
    env.ok("POST", f"/rooms/{rid}/start", None, token)
    shouted = 0
    for _ in range(200):
        view = env.ok("GET", f"/rooms/{rid}", None, token)
        if view["status"] == "finished":
            break
        game = view["game"]
        if game["phase"] == "bidding":
            assert game["table"] == {"toy_round": game["round"]}
        if game["phase"] != "bidding":
            env.clock.advance(130_000)
            env.ok("POST", f"/rooms/{rid}/tick", None)
            continue
        turn = game["turn"]
        if game["current_bid"] is None:
            action = {"type": "bid", "quantity": 1, "face": 6, "turn": turn["number"]}
        else:
            action = {"type": "shout", "turn": turn["number"]}
            shouted += 1
        after = env.ok("POST", f"/rooms/{rid}/actions", action, token)
        reveal = after["game"]["last_reveal"] if after["game"] else None
        if action["type"] == "shout":
            assert reveal is not None and reveal["shouted"] is True
    else:
        raise AssertionError("the toy game did not finish")
    assert view["results"]["ranking"]
    assert shouted >= 1
    bad = env.call("POST", f"/rooms/{rid}/actions", {"type": "shout", "turn": "x"}, token)
    assert bad.status_code == 400

    openapi = env.ok("GET", "/openapi.json", None)
    schemas = openapi["components"]["schemas"]
    assert "toy_loud" in schemas["SettingsBody"]["properties"]
    assert "ShoutAction" in schemas
    assert "toy_round" in schemas["TableOut"]["properties"]
    assert "shouted" in schemas["RevealOut"]["properties"]


def test_toy_events_fit_the_asyncapi_document() -> None:
    from chalicelib.asyncapi import asyncapi_document
    from chalicelib.engine import game
    from chalicelib.engine.dice import SeededRoller
    from chalicelib.engine.room import UserRef, add_bot, create_room, start
    from chalicelib.engine.views import events_for

    document = asyncapi_document()
    with open(ASYNCAPI_SCHEMA) as f:
        meta = json.load(f)
    assert list(jsonschema.Draft7Validator(meta).iter_errors(document)) == []
    assert "shout_called" in document["components"]["schemas"]["EventTypes"]["properties"]
    refs = [{"$ref": f"#/components/schemas/{m}"} for m in EVENT_NAMES(document)]
    validator = jsonschema.Draft202012Validator(
        {"oneOf": refs, "components": document["components"]}
    )
    types = set()
    for seed in range(4):
        host = UserRef("u1", "h1")
        room = create_room("r", host, {"rules": "toy", "starting_dice": 2}, 0)
        for _ in range(2):
            add_bot(room, host)
        roller = SeededRoller(seed)
        version = 1
        events = events_for(room, start(room, host, roller, 0), version)
        while room.status == "playing" and room.game is not None:
            version += 1
            if room.game.phase == "bidding" and room.game.turn_player == room.players[0].id:
                kind = "shout" if room.game.current_bid is not None else "bid"
                action = {"type": kind, "turn": room.game.turn}
                if kind == "bid":
                    action.update(quantity=1, face=2)
                events += events_for(room, game.act(room, room.players[0].id, action, roller, room.game.clock), version)
            else:
                events += events_for(
                    room, game.advance(room, room.game.deadline, roller), version
                )
        for event in events:
            errors = list(validator.iter_errors(event))
            assert errors == [], (event, [e.message for e in errors])
            types.add(event["type"])
    assert "shout_called" in types and "game_finished" in types
'''


def _write(directory: Path) -> None:
    (directory / "toy_rules.py").write_text(TOY_PACKAGE)
    (directory / "toy_bootstrap.py").write_text(BOOTSTRAP)
    asyncapi_meta = ROOT / "tests" / "api" / "asyncapi" / "asyncapi-3.0.0.schema.json"
    game = GAME.replace(
        "import toy_bootstrap",
        f"ASYNCAPI_SCHEMA = {str(asyncapi_meta)!r}\n"
        "def EVENT_NAMES(document):\n"
        "    props = document['components']['schemas']['EventTypes']['properties']\n"
        "    return [ref['$ref'].rsplit('/', 1)[1] for ref in props.values()]\n\n"
        "import toy_bootstrap",
    )
    (directory / "test_toy_game.py").write_text(game)


def test_a_toy_system_from_a_temporary_package_plays_through_the_api(tmp_path: Path) -> None:
    _write(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
            str(tmp_path / "test_toy_game.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


def test_the_toy_is_in_no_shared_file() -> None:
    registry = (ROOT / "chalicelib" / "engine" / "systems" / "__init__.py").read_text()
    assert "toy_rules" not in registry and "shout" not in registry
    assert "shout" not in json.dumps(json.loads((ROOT / "docs" / "asyncapi.json").read_text()))
