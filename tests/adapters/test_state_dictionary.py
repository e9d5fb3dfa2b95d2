"""Room states compress with a preset dictionary (issue 19): a typical room item stays under
the 1 KB that one DynamoDB write unit buys, and states written before still read."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest

from chalicelib.adapters import dynamo
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Room
from chalicelib.engine.room import UserRef, add_bot, create_room, start


def _four_player_game() -> Room:
    host = UserRef("u" + "1" * 16, "Host player", False)
    room = create_room("a" * 16, host, {"starting_dice": 5}, 1_796_000_000_000)
    for _ in range(3):
        add_bot(room, host, "strong")
    start(room, host, SeededRoller(3), 1_796_000_001_000)
    return room


def test_a_state_round_trips_through_the_dictionary() -> None:
    state = _four_player_game().to_dict()
    name, value = dynamo.encode_state(state)
    assert name == "state_z"
    assert value["B"][1] & 0x20, "the zlib header names a preset dictionary"
    assert dynamo.decode_state({name: value}) == state


def test_the_dictionary_halves_a_four_player_state() -> None:
    state = _four_player_game().to_dict()
    raw = json.dumps(state, separators=(",", ":")).encode()
    plain = len(zlib.compress(raw, 6))
    _, value = dynamo.encode_state(state)
    assert len(value["B"]) < 0.7 * plain


def test_a_state_written_with_plain_zlib_still_reads() -> None:
    state = _four_player_game().to_dict()
    old: dict[str, Any] = {"state_z": {"B": zlib.compress(json.dumps(state).encode(), 6)}}
    assert dynamo.decode_state(old) == state


def test_a_state_naming_an_unknown_dictionary_is_refused() -> None:
    raw = json.dumps({"x": 1}).encode()
    packer = zlib.compressobj(6, zdict=b"some other dictionary entirely")
    data = packer.compress(raw) + packer.flush()
    with pytest.raises(KeyError):
        dynamo.decode_state({"state_z": {"B": data}})
