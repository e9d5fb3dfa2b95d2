"""The local server refuses a body over the API's limit without holding it in memory.

The app refuses bodies over ``MAX_BODY_BYTES`` (413), but a server that first reads the whole
body lets one client make it hold gigabytes (a 300 MB POST grew the server by 300 MB). The
local server stops reading past the limit, answers the app's 413 and closes the connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from chalice.app import Chalice

from chalicelib.schemas import MAX_BODY_BYTES
from liars_local.asgi import LocalApp
from liars_local.chalice_bridge import AppRunner
from liars_local.notifier import LocalNotifier

CHUNK = 64 * 1024


def _app() -> tuple[LocalApp, list[str]]:
    chalice_app = Chalice(app_name="sink")
    seen: list[str] = []

    @chalice_app.route("/rooms", methods=["POST"], content_types=["*/*"])
    def rooms() -> dict[str, int]:
        request = chalice_app.current_request
        seen.append("called")
        return {"bytes": len(request.raw_body) if request is not None else 0}

    return LocalApp(AppRunner(chalice_app, lock=None), LocalNotifier()), seen


def _request(
    app: LocalApp, chunks: int, headers: list[tuple[bytes, bytes]], size: int = CHUNK
) -> dict[str, Any]:
    """POST /rooms whose body comes in ``chunks`` pieces of ``size`` bytes; what was read and
    answered."""
    pulled = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        pulled += 1
        if pulled > chunks:
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": b" " * size, "more_body": pulled < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/rooms",
        "raw_path": b"/rooms",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), *headers],
        "client": ("192.0.2.1", 5000),
    }
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return {
        "read": min(pulled, chunks) * size,
        "status": start["status"],
        "headers": {k.decode().lower(): v.decode() for k, v in start["headers"]},
        "body": json.loads(body),
    }


def test_a_streamed_body_over_the_limit_is_refused_after_reading_little_more_than_it() -> None:
    app, seen = _app()
    out = _request(app, chunks=200, headers=[])  # 12.5 MB, no Content-Length

    assert out["status"] == 413
    assert out["body"]["error"]["code"] == "body_too_large"
    assert out["read"] <= MAX_BODY_BYTES + CHUNK, "the server read the whole body"
    assert out["headers"].get("connection") == "close"
    assert seen == []


def test_a_content_length_over_the_limit_is_refused_before_reading_the_body() -> None:
    app, seen = _app()
    out = _request(app, chunks=200, headers=[(b"content-length", str(2**31).encode())])

    assert out["status"] == 413
    assert out["body"]["error"]["code"] == "body_too_large"
    assert out["read"] <= CHUNK
    assert seen == []


def test_a_body_at_the_limit_still_reaches_the_app() -> None:
    app, seen = _app()
    out = _request(app, chunks=4, headers=[], size=MAX_BODY_BYTES // 4)

    assert out["status"] == 200
    assert seen == ["called"]


def test_a_websocket_message_over_api_gateway_s_size_is_closed_1009_unread() -> None:
    import websockets

    from liars_local.server import LocalServer
    from liars_local.ws_bridge import WS_MAX_MESSAGE_BYTES

    async def send_big(url: str) -> tuple[int | None, str]:
        async with websockets.connect(url, max_size=None) as ws:
            await ws.send('{"action": "ping"}')
            pong = await ws.recv()
            await ws.send("x" * (WS_MAX_MESSAGE_BYTES + 1))
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except websockets.ConnectionClosed as closed:
                return (closed.rcvd.code if closed.rcvd else None), str(pong)
            return None, str(pong)

    assert WS_MAX_MESSAGE_BYTES == 128 * 1024  # API Gateway's message limit
    with LocalServer(access_log=lambda _: None) as server:
        code, pong = asyncio.run(send_big(server.ws_url))
    assert json.loads(pong) == {"type": "pong"}
    assert code == 1009
