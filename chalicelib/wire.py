"""Wire shapes: the JSON clients see of what the store keeps (the room view is ``views``)."""

from __future__ import annotations

from chalicelib.engine.views import iso
from chalicelib.ports import ChatMessage, JsonDict


def chat_message(message: ChatMessage) -> JsonDict:
    """``{"id", "user": {"id", "name"}, "text", "at"}``, ``at`` in ISO 8601 UTC with ``Z``."""
    return {
        "id": message.id,
        "user": {"id": message.user_id, "name": message.name},
        "text": message.text,
        "at": iso(message.at_ms),
    }
