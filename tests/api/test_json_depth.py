"""No body of any nesting depth yields a 5xx: deep JSON is 400 ``invalid_json``, on every REST
route (signed in or not) and over the WebSocket."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib import jsonbody
from chalicelib.realtime import MAX_CLIENT_MESSAGE_CHARS as MAX_WS_CHARS
from chalicelib.schemas import MAX_BODY_BYTES
from tests.api.conftest import Env

ROUTES = [
    ("POST", "/auth/guest", False),
    ("POST", "/auth/register", False),
    ("POST", "/auth/login", False),
    ("PATCH", "/me/preferences", True),
    ("POST", "/rooms", True),
    ("PATCH", "/rooms/{rid}/settings", True),
    ("POST", "/rooms/{rid}/join", True),
    ("POST", "/rooms/{rid}/actions", True),
    ("POST", "/rooms/{rid}/tick", False),
    ("POST", "/rooms/{rid}/chat", True),
    ("POST", "/rooms/{rid}/elo-preview", True),
]

LEAVES = ["1", '"x"', "null", "{}", "[]", '{"type": "bid"}']


def nested(kinds: list[bool], leaf: str) -> str:
    """JSON nesting ``len(kinds)`` levels: True an object ``{"k": ...}``, False an array."""
    opening = "".join('{"k":' if k else "[" for k in kinds)
    closing = "".join("}" if k else "]" for k in reversed(kinds))
    return opening + leaf + closing


bodies = st.builds(
    nested,
    st.one_of(
        st.lists(st.booleans(), max_size=40),
        st.integers(min_value=0, max_value=6000).flatmap(
            lambda n: st.sampled_from([[True] * n, [False] * n, [True, False] * (n // 2)])
        ),
    ),
    st.sampled_from(LEAVES),
)


def _ws(env: Env, connection_id: str, route_key: str, body: str | None = None) -> Any:
    event_type = {"$connect": "CONNECT"}.get(route_key, "MESSAGE")
    event: dict[str, Any] = {
        "requestContext": {
            "routeKey": route_key,
            "eventType": event_type,
            "connectionId": connection_id,
            "domainName": "abc.execute-api.us-east-1.amazonaws.com",
            "stage": "ws",
            "apiId": "abc",
        },
        "queryStringParameters": None,
        "isBase64Encoded": False,
    }
    if body is not None:
        event["body"] = body
    name = "ws_connect" if route_key == "$connect" else "ws_message"
    return env.client.lambda_.invoke(name, event).payload


def test_depth_counts_levels_of_arrays_and_objects() -> None:
    assert jsonbody.depth(1) == 0
    assert jsonbody.depth({"a": [1, {"b": []}]}) == 4
    assert jsonbody.loads(nested([True] * jsonbody.MAX_DEPTH, "1"))
    for deep in ([True] * (jsonbody.MAX_DEPTH + 1), [False] * 100_000):
        try:
            jsonbody.loads(nested(deep, "1"))
        except jsonbody.TooDeep:
            continue
        raise AssertionError("accepted a body nested too deeply")


def test_a_body_nested_thousands_deep_is_invalid_json_everywhere(api_env: Env) -> None:
    env = api_env
    token, _ = env.register("deep_user")
    rid = env.ok("POST", "/rooms", {}, token, 201)["id"]
    body = "[" * 5000 + "]" * 5000
    for method, path, signed_in in ROUTES:
        resp = env.call(method, path.format(rid=rid), raw=body, token=token if signed_in else None)
        assert (resp.status_code, resp.json["error"]["code"]) == (400, "invalid_json"), path


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies, route=st.sampled_from(ROUTES), websocket=st.booleans())
def test_no_body_of_any_nesting_depth_yields_a_5xx(
    api_env: Env, body: str, route: tuple[str, str, bool], websocket: bool
) -> None:
    env = api_env
    if not hasattr(env, "fixed"):
        token, _ = env.register("nest_user")
        env.fixed = (token, env.ok("POST", "/rooms", {}, token, 201)["id"])  # type: ignore[attr-defined]
        assert _ws(env, "nest-conn", "$connect")["statusCode"] == 200
    token, rid = env.fixed  # type: ignore[attr-defined]
    too_deep = body.count("[") + body.count("{") > jsonbody.MAX_DEPTH
    if websocket:
        before = len(env.notifier.messages_for("nest-conn"))
        _ws(env, "nest-conn", "$default", body)
        answers = env.notifier.messages_for("nest-conn")[before:]
        assert len(answers) == 1
        if answers[0]["type"] == "error":
            assert answers[0]["error"]["code"] != "internal_error", answers
        if too_deep and len(body) <= MAX_WS_CHARS:
            assert answers[0]["error"]["code"] == "invalid_json", answers
        return
    method, path, signed_in = route
    resp = env.call(method, path.format(rid=rid), raw=body, token=token if signed_in else None)
    assert resp.status_code < 500, (path, resp.status_code, resp.json)
    assert json.loads(resp.body)  # always a JSON answer
    if too_deep and len(body) <= MAX_BODY_BYTES:
        assert (resp.status_code, resp.json["error"]["code"]) == (400, "invalid_json")
