"""The committed OpenAPI document equals the one generated from the routes' pydantic models.

Regenerate with: ``UPDATE_OPENAPI=1 .venv/bin/pytest tests/api/test_openapi.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import app as _app  # noqa: F401  (declares the routes)
from chalicelib import schemas
from tests.api.conftest import Env

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def _generated() -> str:
    return json.dumps(schemas.openapi_document(), indent=2, sort_keys=True) + "\n"


def test_committed_openapi_matches_the_models() -> None:
    if os.environ.get("UPDATE_OPENAPI") == "1":
        COMMITTED.write_text(_generated())
    assert COMMITTED.read_text() == _generated()


def test_openapi_is_served_and_describes_every_route(api_env: Env) -> None:
    served = api_env.call("GET", "/openapi.json").json
    assert served["openapi"] == "3.1.0"
    assert served == json.loads(_generated())
    for r in schemas.ROUTES:
        op = served["paths"][r.path][r.method.lower()]
        assert str(r.status) in op["responses"]
    action = served["components"]["schemas"]["ActionBody"]
    assert "discriminator" in json.dumps(action) or "oneOf" in json.dumps(action)


def test_real_answers_fit_the_published_models(api_env: Env) -> None:
    env = api_env
    token, _ = env.register("shapes")
    schemas.AuthAnswer.model_validate(env.ok("POST", "/auth/guest", {}))
    schemas.MeAnswer.model_validate(env.ok("GET", "/me", None, token))
    room = env.ok("POST", "/rooms", {}, token, 201)
    schemas.RoomView.model_validate(room)
    env.ok("POST", f"/rooms/{room['id']}/bots", {}, token, 201)
    schemas.RoomView.model_validate(env.ok("POST", f"/rooms/{room['id']}/start", None, token))
    schemas.LobbyAnswer.model_validate(env.ok("GET", "/rooms?status=playing", None))
    schemas.TicketAnswer.model_validate(env.ok("POST", "/realtime/tickets", None, token, 201))
    error = env.call("GET", "/rooms/nope", None)
    schemas.ErrorBody.model_validate(error.json)
