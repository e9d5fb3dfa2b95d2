"""The pure rules engine: state in, action in, new state and events out.

No boto3, no clock, no environment, no global random: time (epoch ms) and a ``Roller`` are
inputs. Rooms and lobby: ``room``; play: ``game``; what a viewer sees: ``views``;
rule systems: the interface ``rules``, one package each under ``systems`` (with their bots),
listed in the registry ``systems``; ratings: ``ratings``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dice import Roller, ScriptedRoller, SeededRoller
    from .errors import DomainError
    from .game import act, advance, next_deadline, set_continue_mode, start_game
    from .model import Bid, Game, Phase, Player, Reveal, Room, Settings, Status
    from .room import UserRef
    from .views import events_for, room_view

__all__ = [
    "Bid",
    "DomainError",
    "Game",
    "Phase",
    "Player",
    "Reveal",
    "Roller",
    "Room",
    "ScriptedRoller",
    "SeededRoller",
    "Settings",
    "Status",
    "UserRef",
    "act",
    "advance",
    "events_for",
    "next_deadline",
    "room_view",
    "set_continue_mode",
    "start_game",
]

_HOME = {
    **dict.fromkeys(("Roller", "ScriptedRoller", "SeededRoller"), "dice"),
    "DomainError": "errors",
    **dict.fromkeys(("act", "advance", "next_deadline", "set_continue_mode", "start_game"), "game"),
    **dict.fromkeys(
        ("Bid", "Game", "Phase", "Player", "Reveal", "Room", "Settings", "Status"), "model"
    ),
    "UserRef": "room",
    **dict.fromkeys(("events_for", "room_view"), "views"),
}
"""Where each re-exported name lives. They are imported on first use (PEP 562), as in
``chalicelib.service``: ``import app`` reads the engine's errors, events and rule systems
(for the schemas), not the game flow, rooms and views, which the first request imports."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
