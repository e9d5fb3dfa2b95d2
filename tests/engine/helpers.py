"""Builders for engine tests: rooms of humans (and bots) with scripted dice."""

from __future__ import annotations

from typing import Any

from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller
from chalicelib.engine.model import Room
from chalicelib.engine.room import UserRef, add_bot, create_room, join, set_ready, start

T0 = 1_000_000


def user(i: int, mode: str = "auto") -> UserRef:
    """Registered user ``u<i>`` named ``name<i>``."""
    return UserRef(f"u{i}", f"name{i}", continue_mode=mode)


def new_game(
    hands: list[str],
    *,
    bots: int = 0,
    opener: int = 0,
    settings: dict[str, Any] | None = None,
    modes: list[str] | None = None,
    bot_level: str = "strong",
) -> tuple[Room, ScriptedRoller]:
    """Start a game of ``len(hands) - bots`` humans then ``bots`` bots with scripted first hands.

    ``hands`` holds one dice string per seat (``"33*12"``); the number of dice per seat is
    taken from the first hand unless ``settings`` says otherwise.
    """
    n_humans = len(hands) - bots
    modes = modes or ["auto"] * n_humans
    cfg = {"starting_dice": len(hands[0]), **(settings or {})}
    room = create_room("room1", user(1, modes[0]), cfg, T0)
    for i in range(2, n_humans + 1):
        join(room, user(i, modes[i - 1]), cfg.get("passcode"))
        set_ready(room, user(i), True)
    for _ in range(bots):
        add_bot(room, user(1), bot_level)
    roller = ScriptedRoller("".join(hands), picks=[opener])
    start(room, user(1), roller, T0)
    return room, roller


def pid(room: Room, i: int) -> str:
    """Player id of seat ``i`` (0-based)."""
    return room.players[i].id


def bid(
    room: Room, roller: ScriptedRoller, seat: int, quantity: int, face: int, now: int = T0
) -> list[dict[str, Any]]:
    """Seat ``seat`` bids ``quantity`` × ``face`` on the current turn."""
    assert room.game is not None
    return game.act(
        room,
        pid(room, seat),
        {"type": "bid", "quantity": quantity, "face": face, "turn": room.game.turn},
        roller,
        now,
    )


def liar(room: Room, roller: ScriptedRoller, seat: int, now: int = T0) -> list[dict[str, Any]]:
    """Seat ``seat`` calls Liar! on the current turn."""
    assert room.game is not None
    return game.act(room, pid(room, seat), {"type": "liar", "turn": room.game.turn}, roller, now)


def bids_in(obj: Any) -> list[tuple[int, int]]:
    """Every (quantity, face) pair found anywhere in a JSON-like value."""
    found: list[tuple[int, int]] = []
    if isinstance(obj, dict):
        if "quantity" in obj and "face" in obj:
            found.append((obj["quantity"], obj["face"]))
        for v in obj.values():
            found.extend(bids_in(v))
    elif isinstance(obj, list):
        for v in obj:
            found.extend(bids_in(v))
    return found


def dice_lists_in(obj: Any) -> list[list[Any]]:
    """Every value under a ``dice`` key anywhere in a JSON-like value."""
    found: list[list[Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "dice" and isinstance(v, list):
                found.append(v)
            found.extend(dice_lists_in(v))
    elif isinstance(obj, list):
        for v in obj:
            found.extend(dice_lists_in(v))
    return found
