"""The WebSocket bridge: a WebSocket at ``/ws`` runs through the app's WebSocket handlers.

Each connection gets an id from the notifier; its handshake, every frame and its end become
API-Gateway-shaped ``$connect``, ``$default`` and ``$disconnect`` events for
``app.handler_map["ws_connect" | "ws_message" | "ws_disconnect"]``, invoked in a handler
thread, and the notifier (``liars_local.notifier``) writes the app's pushes back. It uses
Starlette's ``WebSocket`` object as it is (no hand-written part).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from liars_local.chalice_bridge import AppRunner
from liars_local.environment import WS_API_ID
from liars_local.notifier import LocalNotifier

if TYPE_CHECKING:
    from liars_local.asgi import AccessLog

log = logging.getLogger(__name__)

WS_STAGE = "ws"

WS_MAX_MESSAGE_BYTES = 128 * 1024
"""The largest WebSocket message the server reads, as API Gateway (which closes with 1009
past it): uvicorn's default of 16 MB would let each connection make the server hold that much
for a message the app refuses past 4,096 characters anyway."""


def _ws_event(
    websocket: WebSocket, connection_id: str, route_key: str, body: str | None
) -> dict[str, Any]:
    """An API-Gateway-shaped WebSocket event, as Lambda receives it."""
    event_type = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route_key, "MESSAGE")
    host = websocket.headers.get("host") or "localhost"
    query = dict(websocket.query_params)
    now = time.time()
    event: dict[str, Any] = {
        "requestContext": {
            "routeKey": route_key,
            "eventType": event_type,
            "connectionId": connection_id,
            "domainName": host,
            "stage": WS_STAGE,
            "apiId": WS_API_ID,
            "requestId": uuid.uuid4().hex,
            "requestTimeEpoch": int(now * 1000),
            "identity": {"sourceIp": websocket.client.host if websocket.client else "127.0.0.1"},
        },
        "queryStringParameters": query or None,
        "isBase64Encoded": False,
    }
    if route_key == "$connect":
        event["headers"] = {k: v for k, v in websocket.headers.items()}
    if body is not None:
        event["body"] = body
    return event


async def serve_websocket(
    websocket: WebSocket, runner: AppRunner, notifier: LocalNotifier, access_log: AccessLog
) -> None:
    """Run one WebSocket connection through the app's $connect/$default/$disconnect handlers."""
    connection_id = notifier.new_connection_id()
    started = time.perf_counter()
    if runner.handler("ws_message") is None:
        await websocket.accept()
        await websocket.send_text(
            json.dumps(
                {
                    "type": "error",
                    "error": {
                        "code": "websocket_unavailable",
                        "message": "This server's app has no WebSocket handlers "
                        "(ws_message is missing).",
                    },
                }
            )
        )
        await websocket.close(code=1011, reason="no WebSocket handlers")
        access_log(f"WS /ws 1011 {(time.perf_counter() - started) * 1000:.1f}ms no handlers")
        return

    def invoke(route_key: str, body: str | None = None) -> Any:
        name = {"$connect": "ws_connect", "$disconnect": "ws_disconnect"}.get(
            route_key, "ws_message"
        )
        if runner.handler(name) is None:  # $connect and $disconnect are optional
            return None
        return runner.invoke(name, _ws_event(websocket, connection_id, route_key, body))

    try:
        answer = await runner.in_thread(invoke, "$connect")
    except Exception:
        log.exception("ws_connect failed")
        answer = {"statusCode": 500}
    status = int(answer.get("statusCode", 200)) if isinstance(answer, dict) else 200
    if status >= 400:
        # refused before the handshake completes: the client sees an HTTP 403, as in AWS
        await websocket.close(code=1008)
        access_log(f"WS /ws {status} {(time.perf_counter() - started) * 1000:.1f}ms refused")
        return
    await websocket.accept()
    await notifier.register(connection_id, websocket)
    access_log(
        f"WS /ws 101 {(time.perf_counter() - started) * 1000:.1f}ms connected {connection_id}"
    )
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None and message.get("bytes") is not None:
                text = message["bytes"].decode("utf-8", errors="replace")
            try:
                await runner.in_thread(invoke, "$default", text)
            except Exception:
                log.exception("ws_message failed")
                notifier.send(
                    connection_id,
                    {
                        "type": "error",
                        "error": {"code": "internal_error", "message": "Internal server error"},
                    },
                )
    except WebSocketDisconnect:
        pass
    finally:
        await notifier.unregister(connection_id)
        try:
            await runner.in_thread(invoke, "$disconnect")
        except Exception:
            log.exception("ws_disconnect failed")
        access_log(f"WS /ws closed {(time.perf_counter() - started) * 1000:.1f}ms {connection_id}")
