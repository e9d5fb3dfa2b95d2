"""The pure rules engine: state in, action in, new state and events out.

No boto3, no clock, no environment, no global random: time (epoch ms) and a ``Roller`` are
inputs. Rooms and lobby: ``room``; play: ``game``; what a viewer sees: ``views``;
rule systems: the interface ``rules``, one package each under ``systems`` (with their bots),
listed in the registry ``systems``; ratings: ``ratings``.
"""

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
