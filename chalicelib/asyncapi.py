"""The WebSocket contract as an AsyncAPI 3.0 document, generated from the pydantic models.

The same models that parse client messages (``chalicelib.wire``) and describe pushes and
their events (``chalicelib.schemas``) produce this document, so it cannot drift from the code.
The document describes the server: it *receives* client messages and *sends* pushes. Served
at ``GET /asyncapi.json`` and committed as ``docs/asyncapi.json`` (a test keeps them equal).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from chalicelib import schemas
from chalicelib.wire import PingMessage, SubscribeMessage, TickMessage, UnsubscribeMessage

CLIENT_MESSAGES: tuple[type[BaseModel], ...] = (
    SubscribeMessage,
    UnsubscribeMessage,
    TickMessage,
    PingMessage,
)
"""Every message a client sends, by its ``action``."""

CHANNEL = "table"


def _name(model: type[BaseModel], key: str) -> str:
    """The message's wire name: the value of its ``action`` or ``type`` literal."""
    annotation = model.model_fields[key].annotation
    args: tuple[Any, ...] = getattr(annotation, "__args__", ())
    assert len(args) == 1, model
    return str(args[0])


def _asyncapi_schema(node: Any) -> Any:
    """Pydantic's JSON Schema as a plain JSON Schema that ajv's strict mode takes.

    No ``discriminator`` (OpenAPI's object is not AsyncAPI's string, and strict ajv knows
    neither: each event's ``type`` is a ``const``, which tells the ``oneOf`` apart) and no
    ``"default": null`` (optional fields are simply not required).
    """
    if isinstance(node, list):
        return [_asyncapi_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _asyncapi_schema(value)
        for key, value in node.items()
        if key != "discriminator" and not (key == "default" and value is None)
    }


def _summary(model: type[BaseModel]) -> str:
    return (model.__doc__ or model.__name__).strip().splitlines()[0]


def asyncapi_document() -> dict[str, Any]:
    """The AsyncAPI 3.0.0 description of the WebSocket API."""
    mode: Literal["validation", "serialization"]
    keyed: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = []
    for model in CLIENT_MESSAGES:
        mode = "validation"
        keyed.append((model, mode))
    for model in (*schemas.SERVER_MESSAGES, *schemas.EVENT_MODELS):
        mode = "serialization"
        keyed.append((model, mode))
    refs, defs = models_json_schema(keyed, ref_template="#/components/schemas/{model}")
    messages: dict[str, Any] = {}
    channel_messages: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    for model, key, action in [
        *((m, "action", "receive") for m in CLIENT_MESSAGES),
        *((m, "type", "send") for m in schemas.SERVER_MESSAGES),
    ]:
        name = _name(model, key)
        message_id = f"{name}Message" if action == "receive" else f"{name}Push"
        messages[message_id] = {
            "name": name,
            "title": model.__name__,
            "summary": _summary(model),
            "contentType": "application/json",
            "payload": refs[(model, "validation" if action == "receive" else "serialization")],
        }
        channel_messages[message_id] = {"$ref": f"#/components/messages/{message_id}"}
        operations[f"{action}_{name}"] = {
            "action": action,
            "channel": {"$ref": f"#/channels/{CHANNEL}"},
            "summary": _summary(model),
            "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{message_id}"}],
        }
    events = {
        _name(m, "type"): {"$ref": f"#/components/schemas/{m.__name__}"}
        for m in schemas.EVENT_MODELS
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Liar's Lies WebSocket API",
            "version": "1.0.0",
            "description": (
                "Watch rooms and hear every move as it happens. Connect with "
                "`?ticket=<ticket>` (POST /realtime/tickets) or without one as a signed-out "
                "spectator, send `subscribe`, then play each `room` push's `events` at their "
                "`at` stamps. Every message is JSON and under 32 KB. The REST side is the "
                "OpenAPI document (`GET /openapi.json`); docs/REALTIME.md explains every event."
            ),
        },
        "servers": {
            "aws": {
                "host": "{apiId}.execute-api.{region}.amazonaws.com",
                "pathname": "/api",
                "protocol": "wss",
                "description": "The deployed API Gateway WebSocket stage.",
                "variables": {"apiId": {}, "region": {"default": "us-east-1"}},
            },
            "local": {
                "host": "localhost:8000",
                "pathname": "/ws",
                "protocol": "ws",
                "description": "`liars-dice serve`: the same port as REST.",
            },
        },
        "channels": {
            CHANNEL: {
                "address": "/",
                "title": "A connection",
                "description": "One WebSocket connection: client messages in, pushes out.",
                "messages": channel_messages,
            }
        },
        "operations": operations,
        "components": {
            "messages": messages,
            "schemas": {
                **_asyncapi_schema(defs.get("$defs", {})),
                "EventTypes": {
                    "description": "Every event type by name (the `type` of an event).",
                    "type": "object",
                    "properties": events,
                },
            },
        },
    }
