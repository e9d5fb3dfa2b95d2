"""The local server's own request path answers as Chalice's LocalGateway and Starlette did."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from chalice.app import Chalice, CORSConfig, NotFoundError
from chalice.local import LocalGatewayException

from liars_local.chalice_bridge import AppRunner
from liars_local.server import LocalServer


def echo_app() -> Chalice:
    """Routes that answer with the very event they were invoked with."""
    app = Chalice(app_name="echo")
    app.api.binary_types.append("application/x-thing")

    def event() -> dict[str, Any]:
        request = app.current_request
        assert request is not None
        seen = dict(request.to_original_event())
        if isinstance(seen.get("body"), bytes):
            seen["body"] = seen["body"].decode("latin-1")
        return seen

    @app.route("/things", methods=["GET", "POST"], cors=CORSConfig(allow_origin="https://x.test"))
    def things() -> dict[str, Any]:
        return event()

    @app.route("/things/{thing_id}", methods=["GET", "PUT"])
    def thing(thing_id: str) -> dict[str, Any]:
        return event()

    @app.route("/things/{thing_id}/parts/{part}", methods=["GET"])
    def part(thing_id: str, part: str) -> dict[str, Any]:
        return event()

    @app.route("/things/special/parts/{part}", methods=["GET"])
    def special(part: str) -> dict[str, Any]:
        return event()

    @app.route("/things/{thing_id}/options", methods=["GET", "OPTIONS"])
    def own_options(thing_id: str) -> dict[str, Any]:
        return event()

    @app.route("/missing", methods=["GET"])
    def missing() -> None:
        raise NotFoundError("no such thing")

    @app.route("/", methods=["GET"])
    def root() -> dict[str, Any]:
        return event()

    return app


PATHS = [
    "/",
    "/things",
    "/things/",
    "/things?a=1&b=&b=2",
    "/things?",
    "/things/t1",
    "/things/t%201?x=%20y",
    "/things/t1/parts/p2",
    "/things/special/parts/p3",
    "/things/t1/options",
    "/things/t1/nope/p2",
    "/nope",
    "//things",
    "/things;a=b",
    "/things/t1;v/parts/p",
    "/things#frag",
    "/things/\u00e9",
    "/missing",
    "/things/t1/parts/p2/",
]
METHODS = ["GET", "POST", "PUT", "OPTIONS", "DELETE", "HEAD"]


def outcome(call: Any) -> Any:
    """An answer, or the gateway's refusal, without its random request id."""
    try:
        answer = call()
    except LocalGatewayException as exc:
        headers = {k: v for k, v in exc.headers.items() if k != "x-amzn-RequestId"}
        return type(exc).__name__, exc.CODE, headers, exc.body
    return answer


@pytest.mark.parametrize("path", PATHS)
def test_the_gateway_gives_the_app_the_event_chalice_s_own_gateway_gives(path: str) -> None:
    runner = AppRunner(echo_app(), lock=None)
    gateway = runner.gateway
    for method in METHODS:
        for headers, body in [
            ({"host": "h", "accept": "*/*"}, None),
            ({"content-type": "application/json"}, b'{"a": 1}'),
            ({"content-type": "application/x-thing"}, b"\x00\xff"),
            ({"authorization": "Bearer t", "origin": "https://x.test"}, None),
        ]:
            gateway.event_converter.LOCAL_SOURCE_IP = "192.0.2.7"
            expected = outcome(
                functools.partial(
                    gateway.handle_request,
                    method=method,
                    path=path,
                    headers=dict(headers),
                    body=body,
                )
            )
            gateway.event_converter.LOCAL_SOURCE_IP = "127.0.0.1"
            got = outcome(
                functools.partial(gateway.answer, method, path, dict(headers), body, "192.0.2.7")
            )
            assert got == expected, (method, path, headers)


# --- over HTTP: what a client sees ---------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalServer, list[str]]]:
    static = tmp_path_factory.mktemp("web")
    (static / "index.html").write_text("<!doctype html><title>t</title>")
    (static / "app.js").write_text("console.log('0123456789')")
    log: list[str] = []
    with LocalServer(
        chalice_app=echo_app(),
        access_log=log.append,
        install_deps=lambda *_: None,
        static_dir=static,
    ) as server:
        yield server, log


def fetch(
    server: LocalServer,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, list[tuple[str, str]], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        data = answer.read()
        kept = [
            (k.lower(), v) for k, v in answer.getheaders() if k.lower() not in ("date", "server")
        ]
        return answer.status, kept, data
    finally:
        connection.close()


def test_static_files_answer_get_head_and_ranges_with_starlette_s_headers(
    served: tuple[LocalServer, list[str]],
) -> None:
    server, log = served
    size = str(len("console.log('0123456789')"))

    status, headers, body = fetch(server, "GET", "/static/app.js")
    head_status, head_headers, head_body = fetch(server, "HEAD", "/app.js")
    part_status, part_headers, part_body = fetch(server, "GET", "/app.js", {"range": "bytes=0-6"})

    assert (status, body) == (200, b"console.log('0123456789')")
    names = [k for k, _ in headers]
    assert names == ["content-type", "accept-ranges", "content-length", "last-modified", "etag"]
    assert dict(headers)["content-type"].startswith("text/javascript")
    assert (head_status, head_body, head_headers) == (200, b"", headers)
    assert dict(head_headers)["content-length"] == size
    assert (part_status, part_body) == (206, b"console")
    assert dict(part_headers)["content-range"] == f"bytes 0-6/{size}"
    assert "GET /static/app.js 200" in " ".join(log)


def test_api_answers_keep_the_app_s_status_headers_and_body(
    served: tuple[LocalServer, list[str]],
) -> None:
    server, log = served

    status, headers, body = fetch(
        server, "POST", "/things?x=1", {"content-type": "application/json"}, b'{"n": 1}'
    )
    missing_status, missing_headers, missing_body = fetch(server, "GET", "/missing")

    assert status == 200
    assert headers == [
        ("access-control-allow-origin", "https://x.test"),
        (
            "access-control-allow-headers",
            "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key",
        ),
        ("content-type", "application/json"),
        ("content-length", str(len(body))),
    ]
    event = json.loads(body)
    assert event["body"] == '{"n": 1}'
    assert event["multiValueQueryStringParameters"] == {"x": ["1"]}
    assert event["requestContext"]["identity"]["sourceIp"] == "127.0.0.1"
    assert event["requestContext"]["path"] == "/things"
    assert missing_status == 404
    assert missing_headers == [
        ("content-type", "application/json"),
        ("content-length", str(len(missing_body))),
    ]
    assert json.loads(missing_body) == {"Code": "NotFoundError", "Message": "no such thing"}
    assert any(line.startswith("POST /things 200 ") for line in log)
    assert any(line.startswith("GET /missing 404 ") for line in log)


def test_cors_preflight_is_chalice_s_answer(served: tuple[LocalServer, list[str]]) -> None:
    server, _ = served

    status, headers, body = fetch(
        server,
        "OPTIONS",
        "/things",
        {"origin": "https://x.test", "access-control-request-method": "POST"},
    )

    assert (status, body) == (200, b"")
    found = dict(headers)
    assert found["access-control-allow-origin"] == "https://x.test"
    assert set(found["access-control-allow-methods"].split(",")) == {"GET", "POST", "OPTIONS"}
    assert found["content-length"] == "0"


def test_a_method_the_server_does_not_route_gets_the_api_s_405(
    served: tuple[LocalServer, list[str]],
) -> None:
    server, _ = served

    status, headers, body = fetch(server, "TRACE", "/things")

    assert status == 405
    assert json.loads(body)["error"]["code"] == "method_not_allowed"
    assert headers == [
        ("allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"),
        ("content-length", str(len(body))),
        ("content-type", "application/json"),
    ]


def test_an_unknown_route_gets_the_gateway_s_4xx_and_a_log_line(
    served: tuple[LocalServer, list[str]],
) -> None:
    server, log = served

    status, headers, _ = fetch(server, "GET", "/no/such/thing?q=1")

    assert 400 <= status < 500
    assert dict(headers)["content-type"] == "application/json"
    assert any(line.startswith("GET /no/such/thing 4") for line in log)


def test_a_websocket_anywhere_but_ws_is_refused(served: tuple[LocalServer, list[str]]) -> None:
    server, _ = served

    async def connect() -> None:
        async with websockets.connect(server.ws_url.replace("/ws", "/elsewhere")):
            pass

    with pytest.raises(websockets.InvalidStatus) as refused:
        asyncio.run(connect())
    assert refused.value.response.status_code == 403


def test_a_path_starlette_s_url_escapes_is_logged_and_looked_up_as_before(
    served: tuple[LocalServer, list[str]],
) -> None:
    server, log = served

    status, _, _ = fetch(server, "GET", "/things/a%3Fb")

    assert status == 200
    assert any(line.startswith("GET /things/a%3Fb 200 ") for line in log)


def test_a_worker_hands_back_answers_and_errors_and_keeps_going() -> None:
    runner = AppRunner(echo_app(), lock=None, threads=2)

    def fail(exc: BaseException) -> None:
        raise exc

    async def calls() -> list[Any]:
        results: list[Any] = []
        for fn, arg in [(str.upper, "a"), (fail, ValueError("v")), (fail, StopIteration())]:
            try:
                results.append(await runner.in_thread(fn, arg))
            except Exception as exc:
                results.append(type(exc).__name__)
        results.append(await runner.in_thread(str.lower, "B"))
        return results

    try:
        assert asyncio.run(calls()) == ["A", "ValueError", "RuntimeError", "b"]
    finally:
        runner.close()
