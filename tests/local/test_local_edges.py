"""The local server's own answers (unknown path, method, media type) are the project's errors.

The real app on SQLite over real HTTP: what aiohttp, curl and browsers send, an unknown path
(404 ``not_found``, where Chalice's gateway says 403 "Missing Authentication Token"), OPTIONS
and HEAD on API paths, odd paths, and a small fuzz: never a 5xx, never an error body of
another shape, never a change to the SQLite file from a refused request.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chalicelib import schemas
from liars_local.server import LocalServer


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer(access_log=lambda _: None) as running:
        yield running


@pytest.fixture(scope="module")
def http(server: LocalServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url) as client:
        yield client


def _dump(server: LocalServer) -> list[str]:
    """Every row of every table of the server's SQLite file."""
    assert server.db_path is not None
    con = sqlite3.connect(f"file:{server.db_path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = []
        for table in sorted(tables):
            rows += [f"{table}:{row!r}" for row in con.execute(f'SELECT * FROM "{table}"')]
        return sorted(rows)
    finally:
        con.close()


def _error(answer: httpx.Response) -> dict[str, Any]:
    assert answer.headers["content-type"] == "application/json", answer.headers
    payload = answer.json()
    assert set(payload) <= {"error", "room"}, payload
    err = payload["error"]
    assert isinstance(err["code"], str) and err["code"].isidentifier()
    assert err["code"] == err["code"].lower() and isinstance(err["message"], str)
    result: dict[str, Any] = err
    return result


def test_an_empty_post_labelled_octet_stream_signs_in_a_guest(http: httpx.Client) -> None:
    # what aiohttp sends for session.post(url) with no data
    for label in ("application/octet-stream", "text/plain", "application/x-www-form-urlencoded"):
        answer = http.post("/auth/guest", headers={"Content-Type": label})
        assert answer.status_code == 201, (label, answer.text)


def test_aiohttp_posts_without_a_body_are_accepted_and_with_a_text_body_refused(
    server: LocalServer,
) -> None:
    import asyncio

    import aiohttp

    async def talk() -> list[tuple[int, Any]]:
        async with aiohttp.ClientSession(server.url) as session:
            out = []
            for data in (None, b"", "name=Ann"):  # a str is sent as text/plain
                async with session.post("/auth/guest", data=data) as answer:
                    out.append((answer.status, await answer.json()))
            return out

    (none, empty, text) = asyncio.run(talk())

    assert none[0] == 201 and empty[0] == 201, (none, empty)
    assert text[0] == 415 and text[1]["error"]["code"] == "unsupported_media_type"


def test_a_query_string_on_a_post_is_ignored(http: httpx.Client) -> None:
    answer = http.post("/auth/guest?name=Mallory&x=%00", json={"name": "Bo"})

    assert answer.status_code == 201
    assert answer.json()["user"]["name"] == "Bo"


def test_a_text_body_is_415_unsupported_media_type(http: httpx.Client, server: LocalServer) -> None:
    before = _dump(server)

    answer = http.post(
        "/auth/guest", content=b'{"name": "Ann"}', headers={"Content-Type": "text/plain"}
    )

    assert answer.status_code == 415
    assert _error(answer)["code"] == "unsupported_media_type"
    assert _dump(server) == before


def test_a_form_body_is_415(http: httpx.Client) -> None:
    answer = http.post("/auth/guest", data={"name": "Ann"})  # form-urlencoded, as curl -d

    assert answer.status_code == 415
    assert _error(answer)["code"] == "unsupported_media_type"


def test_put_on_a_post_route_is_405_with_allow(http: httpx.Client) -> None:
    answer = http.put("/auth/guest")

    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert _error(answer)["code"] == "method_not_allowed"


@pytest.mark.parametrize("path", ["/nope/route", "/rooms/x/y/z/w", "/auth", "/%ZZ"])
def test_an_unknown_path_is_404_not_found(http: httpx.Client, path: str) -> None:
    for method in ("GET", "POST", "DELETE"):
        answer = http.request(method, path)
        assert answer.status_code == 404, (method, path, answer.text)
        assert _error(answer)["code"] == "not_found"
        assert "x-amzn-errortype" not in answer.headers


def test_an_unknown_path_with_a_token_is_404_too(http: httpx.Client) -> None:
    # Chalice's gateway answers this one with a long AWS signature message
    answer = http.get("/nope", headers={"Authorization": "Bearer abc"})

    assert answer.status_code == 404
    assert _error(answer)["code"] == "not_found"


def test_options_on_an_api_path_is_405_with_allow(http: httpx.Client) -> None:
    answer = http.options("/rooms")

    assert answer.status_code == 405
    assert {m.strip() for m in answer.headers["allow"].split(",")} == {"GET", "POST"}
    assert _error(answer)["code"] == "method_not_allowed"


def test_a_method_the_server_does_not_route_is_405_in_the_project_shape(
    http: httpx.Client,
) -> None:
    answer = http.request("TRACE", "/rooms")

    assert answer.status_code == 405
    assert "GET" in answer.headers["allow"]
    assert _error(answer)["code"] == "method_not_allowed"


def test_head_on_an_api_path_is_405_with_allow_and_no_body(http: httpx.Client) -> None:
    answer = http.head("/rooms")

    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, POST"
    assert answer.content == b""


@pytest.mark.parametrize(
    "path",
    ["/rooms/%00", "/rooms/a%2Fb", "/rooms//join", "/rooms/%E2%80%AE", "/users/%20"],
)
def test_odd_characters_in_a_path_are_a_4xx_in_the_project_shape(
    http: httpx.Client, path: str
) -> None:
    for method in ("GET", "POST"):
        answer = http.request(method, path)
        assert 400 <= answer.status_code < 500, (method, path, answer.status_code)
        _error(answer)


def test_a_large_text_body_is_413(http: httpx.Client) -> None:
    answer = http.post(
        "/auth/guest", content=b"x" * (1 << 20), headers={"Content-Type": "text/plain"}
    )

    assert answer.status_code == 413
    assert _error(answer)["code"] == "body_too_large"


PATHS = sorted(
    {
        r.path.replace("{room_id}", "r1")
        .replace("{user_id}", "u1")
        .replace("{player_id}", "p1")
        .replace("{username}", "nobody")
        for r in schemas.ROUTES
    }
    | {"/nope", "/rooms/r1/nope", "/rooms/%00", "/health"}
)


def test_fuzz_never_5xx_never_another_shape_never_a_change_when_refused(
    http: httpx.Client, server: LocalServer
) -> None:
    statuses: set[int] = set()

    @settings(
        max_examples=80,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        method=st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
        path=st.sampled_from(PATHS),
        content_type=st.sampled_from(
            [None, "application/json", "text/plain", "application/octet-stream", "x"]
        ),
        body=st.sampled_from([b"", b'{"zzz": 1}', b"not json", b"\xff", b"[]"]),
    )
    # one request known to give each refusal the fuzz must meet, whatever it draws
    @example(method="GET", path="/nope", content_type=None, body=b"")
    @example(method="PUT", path="/rooms", content_type=None, body=b"")
    @example(method="POST", path="/rooms", content_type="text/plain", body=b"not json")
    def check(method: str, path: str, content_type: str | None, body: bytes) -> None:
        headers = {} if content_type is None else {"Content-Type": content_type}
        before = _dump(server)
        answer = http.request(method, path, content=body, headers=headers)
        statuses.add(answer.status_code)
        assert answer.status_code < 500, (method, path, content_type, body, answer.text)
        if answer.status_code >= 400:
            if method != "HEAD":
                _error(answer)
            if answer.status_code != 429:
                assert _dump(server) == before, (method, path, content_type, body)

    check()
    assert {404, 405, 415} <= statuses, statuses
