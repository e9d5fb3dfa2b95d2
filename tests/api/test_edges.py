"""Answers Chalice makes itself (415, 405, its own errors) are in the project's error shape.

Over HTTP through ``chalice.test.Client`` (the app exactly as Lambda runs it): a body that is
not JSON is 415 ``unsupported_media_type``, an empty body is accepted whatever it is labelled,
an unknown method of a known path is 405 ``method_not_allowed`` with ``Allow``, and a small
fuzz over methods x paths x content types x bodies never meets a 5xx, an error body of
another shape, or a refused request that changed the table.

An unknown *path* never reaches the app (API Gateway answers it; the deployed stack declares
that answer, see ``tests/infra``), so it is tested on the local server
(``tests/local/test_local_edges.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from chalice.app import Response
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app as app_module
from chalicelib import schemas
from chalicelib.errors import CHALICE_CODES, from_chalice, is_json_media_type
from tests.api.conftest import Env

NOT_JSON_TYPES = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    "multipart/form-data; boundary=x",
    "text/html; charset=utf-8",
    "application/xml",
    "image/png",
]
EMPTY_LABELS = [*NOT_JSON_TYPES, "application/json", None]
JSON_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", None]
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]


def _snapshot(env: Env) -> list[str]:
    items = env.store.client.scan(TableName=env.store.table_name)["Items"]
    return sorted(json.dumps(i, sort_keys=True, default=str) for i in items)


def _send(
    env: Env,
    method: str,
    path: str,
    body: bytes | str | None = None,
    content_type: str | None = None,
    token: str | None = None,
) -> Any:
    headers: dict[str, str] = {}
    if content_type is not None:
        headers["Content-Type"] = content_type
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    resp = getattr(env.client.http, method.lower())(path, headers=headers, body=body)
    resp.json = json.loads(resp.body) if resp.body else None
    return resp


def _is_project_error(payload: Any) -> bool:
    if not isinstance(payload, dict) or not isinstance(payload.get("error"), dict):
        return False
    err = payload["error"]
    code = err.get("code")
    return (
        isinstance(code, str)
        and code.isidentifier()
        and code == code.lower()
        and isinstance(err.get("message"), str)
        and set(payload) <= {"error", "room"}
    )


# --- 415 and empty bodies ------------------------------------------------------------------------


@pytest.mark.parametrize("label", EMPTY_LABELS)
def test_an_empty_post_is_accepted_whatever_content_type_it_carries(
    api_env: Env, label: str | None
) -> None:
    # aiohttp labels a body-less POST application/octet-stream, curl -X POST form-urlencoded
    resp = _send(api_env, "POST", "/auth/guest", None, label)

    assert resp.status_code == 201, resp.json
    assert resp.json["user"]["guest"] is True


def test_an_empty_post_to_a_route_without_body_is_accepted_with_any_label(api_env: Env) -> None:
    token, _ = api_env.register("emptyposter")
    resp = _send(api_env, "POST", "/realtime/tickets", b"", "application/octet-stream", token)

    assert resp.status_code == 201, resp.json


@pytest.mark.parametrize("content_type", NOT_JSON_TYPES)
def test_a_body_that_is_not_labelled_json_is_refused_415_and_changes_nothing(
    api_env: Env, content_type: str
) -> None:
    before = _snapshot(api_env)

    for raw in ('{"name": "Ann"}', "name=Ann", b"\x00\x01binary"):
        resp = _send(api_env, "POST", "/auth/guest", raw, content_type)
        assert resp.status_code == 415, (content_type, raw, resp.json)
        assert resp.json["error"]["code"] == "unsupported_media_type"
        assert _is_project_error(resp.json)
    assert _snapshot(api_env) == before


@pytest.mark.parametrize("content_type", JSON_TYPES)
def test_json_bodies_are_accepted_with_json_labels(api_env: Env, content_type: str | None) -> None:
    resp = _send(api_env, "POST", "/auth/guest", '{"name": "Ann"}', content_type)

    assert resp.status_code == 201, resp.json
    assert resp.json["user"]["name"] == "Ann"


def test_json_media_types_include_suffixed_json_and_parameters() -> None:
    assert is_json_media_type("application/problem+json")
    assert is_json_media_type(" application/json ; charset=UTF-8")
    assert not is_json_media_type("text/json-ish")
    assert not is_json_media_type("application/json, text/plain")
    assert not is_json_media_type("")


def test_a_get_with_an_odd_content_type_and_no_body_is_answered(api_env: Env) -> None:
    for path in ("/health", "/rooms", "/leaderboard"):
        resp = _send(api_env, "GET", path, None, "text/plain")
        assert resp.status_code == 200, (path, resp.json)


def test_a_too_large_body_is_413_whatever_its_content_type(api_env: Env) -> None:
    big = "x" * (schemas.MAX_BODY_BYTES + 1)
    for content_type in ("text/plain", "application/json", None):
        resp = _send(api_env, "POST", "/auth/guest", big, content_type)
        assert resp.status_code == 413, content_type
        assert resp.json["error"]["code"] == "body_too_large"


def test_a_query_string_on_a_post_is_ignored(api_env: Env) -> None:
    resp = _send(api_env, "POST", "/auth/guest?name=Mallory&x=%00", '{"name": "Bo"}')

    assert resp.status_code == 201
    assert resp.json["user"]["name"] == "Bo"


# --- 405 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/auth/guest", {"POST"}),
        ("GET", "/auth/guest", {"POST"}),
        ("DELETE", "/rooms", {"GET", "POST"}),
        ("HEAD", "/rooms", {"GET", "POST"}),
        ("POST", "/health", {"GET"}),
        ("PUT", "/rooms/abc/chat", {"GET", "POST"}),
    ],
)
def test_an_unknown_method_of_a_known_path_is_405_with_allow(
    api_env: Env, method: str, path: str, allowed: set[str]
) -> None:
    before = _snapshot(api_env)

    resp = _send(api_env, method, path, '{"name": "x"}', "application/json")

    assert resp.status_code == 405
    assert {m.strip() for m in resp.headers["Allow"].split(",")} == allowed
    assert resp.headers["Content-Type"] == "application/json"
    if method != "HEAD":
        assert resp.json["error"]["code"] == "method_not_allowed"
        assert _is_project_error(resp.json)
    assert _snapshot(api_env) == before


# --- Chalice's other own answers -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHALICE_CODES))
def test_every_chalice_error_name_becomes_a_project_code(name: str) -> None:
    out = from_chalice({"Code": name, "Message": "whatever Chalice said"})

    assert out is not None and _is_project_error(out)
    assert out["error"]["code"] == CHALICE_CODES[name]


def test_an_unlisted_chalice_error_name_becomes_snake_case() -> None:
    out = from_chalice({"Code": "PaymentRequiredError", "Message": "pay"})

    assert out == {"error": {"code": "payment_required", "message": "pay"}}


def test_project_and_other_bodies_are_left_alone() -> None:
    assert from_chalice({"error": {"code": "x", "message": "y"}}) is None
    assert from_chalice({"Code": "X", "Message": "y", "room": {}}) is None
    assert from_chalice("plain text") is None
    assert from_chalice({"status": "ok"}) is None


def test_the_middleware_rewrites_a_chalice_error_and_keeps_status_and_headers() -> None:
    def chalice_answer(_: Any) -> Response:
        return Response(
            body={"Code": "NotFoundError", "Message": "nope"},
            status_code=404,
            headers={"X-Extra": "1"},
        )

    request = object()  # the middleware looks only at the answer
    out = app_module.project_errors(request, chalice_answer)

    assert out.status_code == 404
    assert out.body == {"error": {"code": "not_found", "message": "nope"}}
    assert out.headers["X-Extra"] == "1" and out.headers["Content-Type"] == "application/json"


def test_the_middleware_leaves_successful_answers_alone() -> None:
    def ok(_: Any) -> Response:
        return Response(body={"Code": "not an error", "Message": "a 200"}, status_code=200)

    request = object()  # the middleware looks only at the answer
    assert app_module.project_errors(request, ok).body == {
        "Code": "not an error",
        "Message": "a 200",
    }


def test_no_route_declares_chalice_cors_the_app_and_the_gateway_answers_do_it() -> None:
    # CORS is CORS_ALLOW_ORIGINS, applied by the app's middleware (chalicelib/cors.py) and
    # the stack's gateway responses (infra/edges.py). A route's own Chalice CORSConfig (one
    # origin) would bypass the allow-list and the local server's preflight routing.
    assert not app_module.app.api.cors
    for path, methods in app_module.app.routes.items():
        for method, entry in methods.items():
            assert entry.cors is None, (method, path)


# --- fuzz ----------------------------------------------------------------------------------------

CONTENT_TYPES = [None, "application/json", "text/plain", "application/octet-stream", "a/b;;;"]
BODIES: list[bytes | str | None] = [None, b"", '{"zzz": 1}', "not json", b"\xff\xfe", "[]", "  "]


@pytest.fixture
def fuzz_paths(api_env: Env) -> tuple[list[str], str]:
    host, _ = api_env.register("fuzzhost")
    rid = api_env.ok("POST", "/rooms", {}, host, 201)["id"]
    paths = {
        r.path.replace("{room_id}", rid)
        .replace("{user_id}", "u0")
        .replace("{player_id}", "p9")
        .replace("{username}", "fuzzhost")
        for r in schemas.ROUTES
    }
    odd = ["/rooms/%00", "/rooms/" + "x" * 100, "/rooms/a b", "/rooms/%E2%80%AE", "/users/ "]
    return sorted(paths) + odd + ["/health", "/openapi.json"], host


def test_fuzz_never_5xx_never_another_error_shape_never_a_change_when_refused(
    api_env: Env, fuzz_paths: tuple[list[str], str]
) -> None:
    paths, host = fuzz_paths
    seen: set[int] = set()

    @settings(
        max_examples=150,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        method=st.sampled_from(METHODS),
        path=st.sampled_from(paths),
        content_type=st.sampled_from(CONTENT_TYPES),
        body=st.sampled_from(BODIES),
        signed_in=st.booleans(),
    )
    def check(method: str, path: str, content_type: str | None, body: Any, signed_in: bool) -> None:
        before = _snapshot(api_env)
        token = host if signed_in else None
        resp = _send(api_env, method, path, body, content_type, token)
        seen.add(resp.status_code)
        assert resp.status_code < 500, (method, path, content_type, body, resp.body)
        if resp.status_code >= 400:
            if method != "HEAD":
                assert _is_project_error(resp.json), (method, path, resp.body)
            if resp.status_code != 429:  # a refused attempt is itself counted
                assert _snapshot(api_env) == before, (method, path, content_type, body)

    check()
    assert {405, 415} <= seen, seen  # the fuzz does reach Chalice's own answers
