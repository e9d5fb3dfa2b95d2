"""Perudo games for engine tests: scripted rooms and moves."""

from __future__ import annotations

from typing import Any

from chalicelib.engine import game
from chalicelib.engine.dice import ScriptedRoller
from chalicelib.engine.model import Room
from tests.engine.helpers import T0, new_game, pid

PERUDO_SETTINGS = {"rules": "perudo"}


def perudo_game(hands: list[str], **kw: Any) -> tuple[Room, ScriptedRoller]:
    """A Perudo game of humans with scripted first hands (manual players: breaks wait)."""
    settings = {**PERUDO_SETTINGS, **kw.pop("settings", {})}
    modes = kw.pop("modes", ["manual"] * (len(hands) - kw.get("bots", 0)))
    return new_game(hands, settings=settings, modes=modes, **kw)


def act(room: Room, roller: ScriptedRoller, seat: int, action: dict[str, Any]) -> list[Any]:
    """Seat ``seat`` plays ``action`` on the current turn."""
    assert room.game is not None
    return game.act(room, pid(room, seat), {**action, "turn": room.game.turn}, roller, T0)


def bid(room: Room, roller: ScriptedRoller, seat: int, quantity: int, face: int) -> list[Any]:
    """Seat ``seat`` bids ``quantity`` × ``face``."""
    return act(room, roller, seat, {"type": "bid", "quantity": quantity, "face": face})


def dudo(room: Room, roller: ScriptedRoller, seat: int) -> list[Any]:
    """Seat ``seat`` calls Dudo."""
    return act(room, roller, seat, {"type": "liar"})


def calza(room: Room, roller: ScriptedRoller, seat: int) -> list[Any]:
    """Seat ``seat`` calls calza."""
    return act(room, roller, seat, {"type": "calza"})


def next_round(room: Room, roller: ScriptedRoller, hands: str) -> None:
    """Everyone still in agrees; the next round is dealt ``hands`` (seat order, concatenated)."""
    assert room.game is not None
    roller.add_dice(hands)
    for p in list(room.players):
        if p.in_game and not p.is_bot and p.id not in room.game.agreed:
            game.act(room, p.id, {"type": "agree"}, roller, T0)
