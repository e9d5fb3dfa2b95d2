"""A push is built once per distinct viewer and, for a notifier that takes text, encoded once:
the text is byte for byte what ``send`` would have sent, and the frame limit decides alike."""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

import pytest

from chalicelib import effects, wire
from chalicelib.ports import TextNotifier
from tests.service.conftest import Table


class TextNotifierFake:
    """Records what it is sent, as text (``send_text``) or as a message (``send``)."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        with self._lock:
            self.messages.append((connection_id, message))
        return True

    def send_text(self, connection_id: str, text: str) -> bool:
        with self._lock:
            self.texts.append((connection_id, text))
        return True


_typed: TextNotifier = TextNotifierFake()


def _watch(table: Table, connection_id: str, user_id: str | None, room_id: str) -> None:
    table.store.put_connection(connection_id, user_id, table.clock.now)
    assert table.store.subscribe(connection_id, room_id)


def _playing_room_watched(table: Table) -> tuple[str, str, str]:
    host, other = table.user("Ann"), table.user("Bob")
    rid = table.playing(host, other, starting_dice=3)
    for n in range(3):
        _watch(table, f"spect{n}", None, rid)
    _watch(table, "ann", host.user_id, rid)
    _watch(table, "bob", other.user_id, rid)
    return rid, host.user_id, other.user_id


def test_spectators_share_one_encoded_push_and_players_get_their_own(table: Table) -> None:
    rid, _, _ = _playing_room_watched(table)
    room, version = table.room(rid)
    events = [{"type": "bid_placed", "player_id": room.players[0].id, "at": table.clock.now}]
    text_notifier = TextNotifierFake()
    texts = dataclasses.replace(table.deps, notifier=text_notifier)
    assert effects.publish(room, version, events, deps=texts) == 5
    assert text_notifier.messages == []  # everything went as text
    by_connection = dict(text_notifier.texts)
    spectators = [by_connection[f"spect{n}"] for n in range(3)]
    assert spectators[0] is spectators[1] is spectators[2]  # encoded once, sent thrice
    # Byte for byte what send() gets encoded into (json.dumps, compact, ASCII escapes).
    plain = TextNotifierFake()
    send_only = dataclasses.replace(texts, notifier=_SendOnly(plain))
    assert effects.publish(room, version, events, deps=send_only) == 5
    sent = dict(plain.messages)
    for connection_id, text in by_connection.items():
        assert text == json.dumps(sent[connection_id], separators=(",", ":"))
    ann_view, bob_view = json.loads(by_connection["ann"]), json.loads(by_connection["bob"])
    assert ann_view["room"]["me"]["dice"] and bob_view["room"]["me"]["dice"]
    assert ann_view["room"]["me"]["player_id"] != bob_view["room"]["me"]["player_id"]
    assert json.loads(spectators[0])["room"]["me"]["dice"] is None


class _SendOnly:
    """A notifier that offers only ``send`` (as API Gateway's does)."""

    def __init__(self, inner: TextNotifierFake) -> None:
        self.inner = inner

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        return self.inner.send(connection_id, message)


def test_a_chat_push_is_encoded_once_for_every_watcher(table: Table) -> None:
    rid, _, _ = _playing_room_watched(table)
    text_notifier = TextNotifierFake()
    deps = dataclasses.replace(table.deps, notifier=text_notifier)
    message = {"id": "m1", "user": {"id": "u1", "name": "Zoë"}, "text": "héllo", "at": "x"}
    assert effects.publish_chat(rid, message, deps=deps) == 5
    texts = [text for _, text in text_notifier.texts]
    assert len(texts) == 5 and all(t is texts[0] for t in texts)
    assert texts[0] == json.dumps(wire.chat_push(rid, message), separators=(",", ":"))


def _view(name: str) -> dict[str, Any]:
    return {"id": "r1", "version": 3, "players": [{"name": name}]}


@pytest.mark.parametrize(
    ("name", "events", "outcome"),
    [
        # ASCII text over the limit, UTF-8 under it: the events stay (the UTF-8 size decides).
        ("é" * 9_000, [{"type": "bid_placed", "n": 1}], "kept"),
        # The events push it over the limit: they are dropped.
        ("é" * 16_331, [{"type": "bid_placed", "name": "x" * 200}], "dropped"),
        # Too large even without events: a room_changed notice.
        ("é" * 17_000, [], "changed"),
        # Well under: as is.
        ("Zoë", [{"type": "bid_placed"}], "kept"),
    ],
)
def test_room_push_shrinks_to_the_frame_exactly_as_room_message(
    name: str, events: list[dict[str, Any]], outcome: str
) -> None:
    view = _view(name)
    message, text = wire.room_push(view, events)
    assert message == wire.room_message(view, events)
    assert text == json.dumps(message, separators=(",", ":"))
    assert wire.encoded_size(message) < wire.MAX_PUSH_BYTES
    shown = {
        "kept": message.get("events") == events and "events_dropped" not in message,
        "dropped": message.get("events_dropped") is True and message["events"] == [],
        "changed": message["type"] == "room_changed",
    }
    assert shown[outcome]


def test_the_first_case_really_is_over_the_limit_in_ascii_and_under_in_utf8() -> None:
    message = {"type": "room", "room": _view("é" * 9_000), "events": []}
    assert len(wire.push_text(message)) >= wire.MAX_PUSH_BYTES > wire.encoded_size(message)


def test_a_lone_surrogate_is_refused_as_room_message_refuses_it() -> None:
    view = _view("bad \ud800 name")
    with pytest.raises(UnicodeEncodeError):
        wire.room_message(view, [])
    with pytest.raises(UnicodeEncodeError):
        wire.room_push(view, [])
