"""The log scrubber removes hidden dice and secrets from room-like state, keeps identifiers.

Nothing logs a room's state today; these tests make sure a future log line carrying one (the
stored form of ``Room.to_dict``, a player view, an engine object) cannot put a player's hidden
dice, a Poker cup or a credential into CloudWatch, while operators still read the room id,
version, player ids and error codes.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import observability
from chalicelib.engine.state import Player

HIDDEN = "HIDDEN"


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    out = io.StringIO()
    observability.enable(out)
    yield out
    observability.disable()


def one_line(stream: io.StringIO) -> dict[str, Any]:
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines() if text.strip()]
    return line


def stored_poker_room() -> dict[str, Any]:
    """Shaped like a Poker room's stored form: seats' hands under ``h``, the cup in ``x``."""
    return {
        "id": "room-42",
        "version": 7,
        "settings": {"rules": "poker", "joining": "passcode", "passcode": HIDDEN},
        "players": [
            {"id": "p1", "name": "Ann", "kind": "human", "uid": "u1", "n": 5, "h": HIDDEN},
            {"id": "p2", "name": "Bot", "kind": "bot", "n": 4, "h": HIDDEN},
        ],
        "game": {
            "round": 2,
            "tp": "p1",
            "x": {"st": "respond", "cup": HIDDEN, "ex": "02", "rr": [["p1", 3]]},
        },
        "bm": {"p1": {"bluffs": HIDDEN}},
    }


def test_hidden_dice_in_a_nested_room_state_are_redacted(stream: io.StringIO) -> None:
    logging.getLogger("chalicelib.service").info("room state", extra={"room": stored_poker_room()})
    line = one_line(stream)
    assert HIDDEN not in json.dumps(line)
    room = line["room"]
    assert room["players"][0]["h"] == "[redacted]"
    assert room["game"]["x"]["cup"] == "[redacted]"
    assert room["settings"]["passcode"] == "[redacted]"


def test_public_fields_operators_need_stay_readable(stream: io.StringIO) -> None:
    logging.getLogger("chalicelib.service").info(
        "room state",
        extra={
            "room": stored_poker_room(),
            "error": {"code": "invalid_token", "message": "bad", "field": "passcode"},
            "player_id": "p1",
        },
    )
    line = one_line(stream)
    room = line["room"]
    assert room["id"] == "room-42" and room["version"] == 7
    assert [p["id"] for p in room["players"]] == ["p1", "p2"]
    assert [p["n"] for p in room["players"]] == [5, 4]
    assert room["game"]["tp"] == "p1" and room["game"]["x"]["st"] == "respond"
    assert line["error"]["code"] == "invalid_token" and line["error"]["field"] == "passcode"
    assert line["player_id"] == "p1"


def test_a_player_view_and_a_poker_reveal_keep_dice_out(stream: io.StringIO) -> None:
    view = {
        "room_id": "room-42",
        "version": 9,
        "me": {"player_id": "p1", "dice": [HIDDEN], "dice_count": 5},
        "extra": {"cup": [HIDDEN], "exposed": [None, "ace", None, None, None]},
    }
    logging.getLogger("chalicelib.service").info("view %s", view, extra={"view": view})
    line = one_line(stream)
    assert HIDDEN not in json.dumps(line)
    assert line["view"]["me"]["dice_count"] == 5 and line["view"]["room_id"] == "room-42"
    assert "'room_id': 'room-42'" in line["message"]


def test_credentials_under_compound_key_names_are_redacted(stream: io.StringIO) -> None:
    logging.getLogger("liars-lies").info(
        "auth",
        extra={
            "body": {
                "username": "ann",
                "new_password": HIDDEN,
                "access_token": HIDDEN,
                "Cookie": HIDDEN,
                "ws_ticket": HIDDEN,
                "token_secret": HIDDEN,
            }
        },
    )
    line = one_line(stream)
    assert HIDDEN not in json.dumps(line)
    assert line["body"]["username"] == "ann"


def test_a_stored_seat_in_a_message_keeps_its_hand_out(stream: io.StringIO) -> None:
    seat = {"id": "p1", "n": 5, "h": "35611"}
    logging.getLogger("chalicelib.service").info("seat %s cup=%s", seat, "24466")
    message = one_line(stream)["message"]
    assert "35611" not in message and "24466" not in message
    assert "'id': 'p1'" in message


def test_engine_objects_are_logged_without_their_hand(stream: io.StringIO) -> None:
    player = Player("p1", "Ann", "human", hand=[3, 5, 6, 6, 1], dice_count=5)
    logging.getLogger("chalicelib.service").info("seat %s", player, extra={"seat": player})
    line = one_line(stream)
    assert "3, 5, 6, 6, 1" not in json.dumps(line)
    assert line["seat"]["id"] == "p1" and line["seat"]["dice_count"] == 5
