"""Chat: a room's messages, and a registered user's new message (length and rate limited)."""

from __future__ import annotations

from chalicelib import effects, wire
from chalicelib import text as text_rules
from chalicelib.service import limits
from chalicelib.service.callers import Caller
from chalicelib.service.core import JsonDict, Service
from chalicelib.service.errors import InvalidInput

PAGE = 50
"""Messages per answer."""


def chat(svc: Service, room_id: str, after: str | None) -> JsonDict:
    """Messages in order (the latest 50, or the 50 after ``after``)."""
    if after is not None and (len(after) > 64 or not after.isprintable()):
        raise InvalidInput("after must be a message id", field="after")
    svc.load(room_id)
    return {"messages": [wire.chat_message(m) for m in svc.store.list_chat(room_id, after, PAGE)]}


def post_chat(svc: Service, caller: Caller, room_id: str, body: str) -> JsonDict:
    """A registered user posts (length and rate limited); pushed to everyone watching."""
    clean = text_rules.clean_chat(body)
    if not clean:
        raise InvalidInput("text must not be empty", field="text")
    if len(clean) > svc.cfg.chat_max_length:
        raise InvalidInput(
            f"text is limited to {svc.cfg.chat_max_length} characters",
            code="too_long",
            field="text",
        )
    svc.load(room_id)
    user = svc.user(caller)
    limits.hit(svc, limits.CHAT, room_id, user.id)
    # ... and in all rooms together, so the limit is not multiplied by the rooms there are
    limits.hit(svc, limits.CHAT_USER, user.id)
    stored = svc.store.append_chat(room_id, user.id, user.name, clean, svc.now())
    message = wire.chat_message(stored)
    svc.after([effects.PublishChat(room_id, message)])
    return message
