"""Browser pages on other origins: the CORS headers of every answer (``chalicelib/cors.py``).

``CORS_ALLOW_ORIGINS`` lists the origins; an answer to a listed ``Origin`` carries
``Access-Control-Allow-Origin`` whatever its status, a preflight from it is answered 204, and
with the variable unset every answer is what it was before CORS existed.
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.ports import Unavailable
from chalicelib.settings import reset_settings
from tests.api.conftest import Env

FRONTEND = "http://localhost:5173"
OTHER = "https://evil.example"


def allow(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CORS_ALLOW_ORIGINS", value)
    reset_settings()


def from_origin(env: Env, method: str, path: str, origin: str, **kw: Any) -> Any:
    headers = {"Origin": origin, **kw.pop("headers", {})}
    return env.call(method, path, headers=headers, **kw)


class Answer:
    """The app's answer to a Lambda proxy event, as API Gateway passes it on."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.status_code: int = raw["statusCode"]
        self.headers: dict[str, str] = raw["headers"]
        self.body: bytes = (raw.get("body") or "").encode()


def invoke(method: str, resource: str, path: str, headers: dict[str, str]) -> Answer:
    """The app as Lambda runs it behind the stack's ANY method (``chalice.test`` answers
    ``OPTIONS`` itself, as Chalice's local gateway does)."""
    from chalice.local import LambdaContext

    from app import app

    event = {
        "requestContext": {
            "httpMethod": method,
            "resourcePath": resource,
            "path": path,
            "identity": {"sourceIp": "203.0.113.9"},
        },
        "headers": headers,
        "pathParameters": {},
        "stageVariables": {},
        "multiValueQueryStringParameters": None,
        "body": None,
    }
    return Answer(app(event, LambdaContext("api_handler", 512, 60_000)))


def preflight(
    env: Env, path: str, origin: str, method: str = "POST", resource: str | None = None
) -> Answer:
    headers = {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization, content-type",
    }
    return invoke("OPTIONS", resource or path, path, headers)


def cors_headers(resp: Any) -> dict[str, str]:
    return {k: v for k, v in resp.headers.items() if k.lower().startswith("access-control-")}


def test_an_allowed_origin_gets_allow_origin_and_vary_on_a_success(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, f"https://app.example, {FRONTEND}")

    resp = from_origin(api_env, "POST", "/auth/guest", FRONTEND, body={"name": "Ann"})

    assert resp.status_code == 201
    assert resp.headers["Access-Control-Allow-Origin"] == FRONTEND
    assert "Retry-After" in resp.headers["Access-Control-Expose-Headers"]
    assert resp.headers["Vary"] == "Origin"
    assert "Access-Control-Allow-Credentials" not in resp.headers


def test_an_allowed_origin_gets_the_headers_on_a_4xx(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, FRONTEND)

    unsigned = from_origin(api_env, "GET", "/me", FRONTEND)
    invalid = from_origin(api_env, "POST", "/auth/guest", FRONTEND, raw="{not json")
    wrong_method = from_origin(api_env, "PUT", "/auth/guest", FRONTEND)

    assert unsigned.status_code == 401
    assert invalid.status_code == 400
    assert wrong_method.status_code == 405
    assert wrong_method.json["error"]["code"] == "method_not_allowed"
    for resp in (unsigned, invalid, wrong_method):
        assert resp.headers["Access-Control-Allow-Origin"] == FRONTEND, resp.json


def test_a_429_exposes_retry_after_to_an_allowed_origin(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GUEST_PER_SOURCE", "1")
    allow(monkeypatch, FRONTEND)

    from_origin(api_env, "POST", "/auth/guest", FRONTEND, body={"name": "Ann"})
    refused = from_origin(api_env, "POST", "/auth/guest", FRONTEND, body={"name": "Bob"})

    assert refused.status_code == 429, refused.json
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.headers["Access-Control-Allow-Origin"] == FRONTEND
    exposed = [h.strip() for h in refused.headers["Access-Control-Expose-Headers"].split(",")]
    assert "Retry-After" in exposed


def test_a_503_carries_the_headers_to_an_allowed_origin(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib.service import accounts

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise Unavailable("the table is throttled")

    monkeypatch.setattr(accounts, "guest", unavailable)
    allow(monkeypatch, FRONTEND)

    resp = from_origin(api_env, "POST", "/auth/guest", FRONTEND, body={"name": "Ann"})

    assert resp.status_code == 503
    assert resp.headers["Retry-After"]
    assert resp.headers["Access-Control-Allow-Origin"] == FRONTEND


def test_an_origin_not_on_the_list_gets_no_cors_header(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, FRONTEND)

    ok = from_origin(api_env, "GET", "/health", OTHER)
    refused = from_origin(api_env, "GET", "/me", OTHER)
    asked = preflight(api_env, "/auth/guest", OTHER)

    assert ok.status_code == 200 and refused.status_code == 401
    assert asked.status_code == 405  # no preflight answer: the browser refuses the call
    for resp in (ok, refused, asked):
        assert cors_headers(resp) == {}
        assert resp.headers["Vary"] == "Origin"  # a cache must not reuse it for FRONTEND


def test_a_star_allows_any_origin_without_vary(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, "*")

    resp = from_origin(api_env, "GET", "/health", OTHER)

    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "Vary" not in resp.headers
    assert "Access-Control-Allow-Credentials" not in resp.headers


def test_a_preflight_from_an_allowed_origin_is_204_with_methods_and_headers(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, FRONTEND)

    resp = preflight(api_env, "/rooms/r1/actions", FRONTEND, resource="/rooms/{room_id}/actions")

    assert resp.status_code == 204
    assert resp.headers["Access-Control-Allow-Origin"] == FRONTEND
    assert resp.headers["Access-Control-Allow-Methods"].split(", ") == ["POST"]
    allowed = {h.strip().lower() for h in resp.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed
    assert int(resp.headers["Access-Control-Max-Age"]) > 0
    assert resp.headers["Vary"] == "Origin"


def test_a_preflight_lists_every_method_of_the_path(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, FRONTEND)
    from app import app

    resp = preflight(api_env, "/rooms/r1", FRONTEND, method="DELETE", resource="/rooms/{room_id}")

    methods = set(resp.headers["Access-Control-Allow-Methods"].split(", "))
    assert resp.status_code == 204
    assert methods == set(app.routes["/rooms/{room_id}"])


def test_a_plain_options_is_still_405_with_allow_when_cors_is_configured(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, FRONTEND)

    resp = invoke("OPTIONS", "/auth/guest", "/auth/guest", {"origin": FRONTEND})

    assert resp.status_code == 405
    assert resp.headers["Allow"] == "POST"
    assert resp.headers["Access-Control-Allow-Origin"] == FRONTEND


UNSET_CASES = [
    ("GET", "/health", None),
    ("GET", "/me", None),
    ("PUT", "/auth/guest", None),
    ("POST", "/auth/guest", "{not json"),
]


@pytest.mark.parametrize(("method", "path", "raw"), UNSET_CASES)
def test_unset_every_answer_is_the_same_with_or_without_an_origin(
    api_env: Env, monkeypatch: pytest.MonkeyPatch, method: str, path: str, raw: str | None
) -> None:
    monkeypatch.delenv("CORS_ALLOW_ORIGINS", raising=False)
    reset_settings()
    ask = {"Origin": FRONTEND, "Access-Control-Request-Method": "POST"}

    plain = api_env.call(method, path, raw=raw)
    cross = api_env.call(method, path, raw=raw, headers=ask)

    assert (cross.status_code, cross.headers, cross.body) == (
        plain.status_code,
        plain.headers,
        plain.body,
    )
    assert cors_headers(cross) == {} and "Vary" not in cross.headers


def test_unset_a_preflight_keeps_the_405_method_not_allowed_with_allow(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CORS_ALLOW_ORIGINS", raising=False)
    reset_settings()

    resp = preflight(api_env, "/auth/guest", FRONTEND)

    assert resp.status_code == 405
    assert resp.headers == {"Allow": "POST", "Content-Type": "application/json"}
    assert b"method_not_allowed" in resp.body
