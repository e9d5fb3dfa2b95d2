"""The registry of rule systems: the one place that lists them.

Each system is a package beside this module that implements ``rules.RuleSystem``; adding a
system is adding its package and one line below (docs/ARCHITECTURE.md, "How to add a rule
system"). Everything else (the settings' choices, the turn actions the shared flow accepts,
the action bodies of the API, the bots' instrumentation) is derived from ``SYSTEMS``.
"""

from __future__ import annotations

from typing import Final

from ..actions import ActionRequest
from ..rules import RuleSystem
from .classic import CLASSIC
from .perudo import PERUDO
from .poker import POKER
from .wild_stars import WILD_STARS

SYSTEMS: Final[dict[str, RuleSystem]] = {
    system.name: system
    for system in (
        CLASSIC,
        WILD_STARS,
        POKER,
        PERUDO,
    )
}
"""Every rule system by its name (the room setting ``rules``); the first is the default."""

DEFAULT_RULES: Final = next(iter(SYSTEMS))
"""The rule system of a room whose settings do not choose one."""

TURN_ACTIONS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys(kind for system in SYSTEMS.values() for kind in system.turn_actions)
)
"""Every action type answered with a ``turn``, in registry order; each system plays its own."""

ACTION_BODIES: Final[tuple[type[ActionRequest], ...]] = tuple(
    dict.fromkeys(body for system in SYSTEMS.values() for body in system.action_bodies)
)
"""The wire schemas of every turn action, in registry order (one per action type)."""


def rule_system(name: str) -> RuleSystem:
    """The rule system a room's ``rules`` setting names."""
    return SYSTEMS[name]
