"""Bad input on every route: Hypothesis-generated bodies get a 4xx and leave the table as it was."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import app as _app  # noqa: F401  (declares the routes)
from chalicelib import schemas
from tests.api.conftest import Env

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def _bodies(model: type[BaseModel]) -> st.SearchStrategy[Any]:
    """Objects using the model's own field names (with wrong or extra values), or anything."""
    names = list(model.model_fields) if hasattr(model, "model_fields") else []
    names += [
        "type",
        "quantity",
        "face",
        "turn",
        "show",
        "reroll",
        "host_id",
        "version",
        "dice",
        "rating",
    ]
    keyed = st.dictionaries(st.sampled_from(names), JSON, max_size=5)
    return keyed | JSON


def _valid(model: type[BaseModel], body: Any) -> bool:
    try:
        model.model_validate(body)
    except ValidationError:
        return False
    return isinstance(body, dict) or model is schemas.ActionBody


def _snapshot(env: Env) -> list[Any]:
    items = env.store.client.scan(TableName=env.store.table_name)["Items"]
    return sorted(json.dumps(i, sort_keys=True, default=str) for i in items)


@pytest.fixture
def seeded(api_env: Env) -> dict[str, Any]:
    """A waiting room and a game in play, host signed in."""
    env = api_env
    host, _ = env.register("badhost")
    player, _ = env.register("badplayer")
    w = env.ok("POST", "/rooms", {}, host, 201)["id"]
    g = env.ok("POST", "/rooms", {}, host, 201)["id"]
    env.ok("POST", f"/rooms/{g}/join", {}, player)
    env.ok("PUT", f"/rooms/{g}/ready", {"ready": True}, player)
    env.ok("POST", f"/rooms/{g}/start", None, host)
    return {"host": host, "W": w, "G": g, "bot": "p9", "user": "u0"}


def _concrete(path: str, seeded: dict[str, Any]) -> str:
    room = seeded["G"] if path.endswith(("/actions", "/elo-preview")) else seeded["W"]
    return (
        path.replace("{room_id}", room)
        .replace("{user_id}", seeded["user"])
        .replace("{player_id}", seeded["bot"])
    )


BODY_ROUTES = [r for r in schemas.ROUTES if r.body is not None]
ALL_ROUTES = list(schemas.ROUTES)


@pytest.mark.parametrize("route", BODY_ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_invalid_bodies_get_4xx_and_change_nothing(
    api_env: Env, seeded: dict[str, Any], route: schemas.RouteSpec
) -> None:
    env = api_env
    path = _concrete(route.path, seeded)
    before = _snapshot(env)
    assert route.body is not None
    model = route.body

    @settings(
        max_examples=25,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
        ],
    )
    @given(body=_bodies(model))
    def check(body: Any) -> None:
        assume(not _valid(model, body))
        resp = env.call(route.method, path, raw=json.dumps(body), token=seeded["host"])
        assert 400 <= resp.status_code < 500, (body, resp.status_code, resp.json)
        assert resp.json["error"]["code"]

    check()
    assert _snapshot(env) == before


@pytest.mark.parametrize("route", ALL_ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_malformed_and_oversize_bodies_are_refused(
    api_env: Env, seeded: dict[str, Any], route: schemas.RouteSpec
) -> None:
    env = api_env
    path = _concrete(route.path, seeded)
    before = _snapshot(env)

    @settings(
        max_examples=5,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(raw=st.binary(min_size=1, max_size=64))
    def check(raw: bytes) -> None:
        try:
            json.loads(raw)
            assume(False)
        except (ValueError, UnicodeDecodeError):
            pass
        assume(raw.strip())
        resp = env.call(route.method, path, raw=raw, token=seeded["host"])
        assert resp.status_code == 400 and resp.json["error"]["code"] == "invalid_json"

    check()
    big = json.dumps({"text": "x" * (schemas.MAX_BODY_BYTES + 1)})
    resp = env.call(route.method, path, raw=big, token=seeded["host"])
    assert resp.status_code == 413 and resp.json["error"]["code"] == "body_too_large"
    assert _snapshot(env) == before


def test_mass_assignment_is_refused(api_env: Env, seeded: dict[str, Any]) -> None:
    env = api_env
    w = seeded["W"]
    for body in ({"starting_dice": 3, "host_id": "p2"}, {"version": 99}, {"dice": [6, 6]}):
        resp = env.call("PATCH", f"/rooms/{w}/settings", body, seeded["host"])
        assert resp.status_code == 400 and resp.json["error"]["code"] == "unknown_field"
    resp = env.call("POST", "/rooms", {"settings": {}, "rating": 3000}, seeded["host"])
    assert resp.status_code == 400 and resp.json["error"]["field"] == "rating"


def test_odd_paths_and_queries_are_4xx(api_env: Env, seeded: dict[str, Any]) -> None:
    env = api_env
    assert env.call("GET", "/rooms/" + "x" * 300, None).status_code == 404
    assert env.call("GET", "/rooms/nope", None).status_code == 404
    assert env.call("GET", "/rooms?status=everything", None).status_code == 400
    assert env.call("GET", f"/rooms/{seeded['W']}/chat?after=" + "z" * 100, None).status_code == 400
    assert (
        env.call("POST", "/rooms/nope/actions", {"type": "resign"}, seeded["host"]).status_code
        == 404
    )


def test_concurrent_lock_is_in_place(api_env: Env) -> None:
    # the store's client is the locked one: bad-input and race tests rely on it
    assert isinstance(api_env.store.client._lock, type(threading.Lock()))


@pytest.mark.parametrize(
    ("name", "value"),
    [("starting_dice", True), ("turn_seconds", 30.0), ("wildcard_chance", False), ("lives", True)],
)
def test_settings_take_whole_numbers_only(
    api_env: Env, seeded: dict[str, Any], name: str, value: Any
) -> None:
    env = api_env
    before = _snapshot(env)
    resp = env.call("PATCH", f"/rooms/{seeded['W']}/settings", {name: value}, seeded["host"])
    assert resp.status_code == 400
    assert resp.json["error"]["field"].endswith(name)
    assert _snapshot(env) == before


@pytest.mark.parametrize("face", [True, 2.0])
def test_a_bid_face_must_be_a_whole_number_or_star(
    api_env: Env, seeded: dict[str, Any], face: Any
) -> None:
    env = api_env
    before = _snapshot(env)
    body = {"type": "bid", "quantity": 1, "face": face, "turn": 1}
    resp = env.call("POST", f"/rooms/{seeded['W']}/actions", body, seeded["host"])
    assert resp.status_code == 400
    assert _snapshot(env) == before
