"""The registry of rule systems: the one place that lists them.

Each system is a package beside this module that implements ``rules.RuleSystem``; adding a
system is adding its package and one line below (docs/ARCHITECTURE.md, "How to add a rule
system"). Everything else (the settings' choices, the turn actions the shared flow accepts,
the action bodies of the API, the wire models of ``chalicelib.schemas``, the bots'
instrumentation) is derived from ``SYSTEMS``.

A system outside this package (a plug-in, or the toy system of
``tests/architecture/test_toy_system.py``) joins with ``register`` before the modules that
derive from the registry are imported (``model``, ``game``, ``chalicelib.schemas``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..actions import ActionRequest
from ..commands import Command, command_class
from ..errors import InvalidAction
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

TURN_ACTIONS: tuple[str, ...] = tuple(
    dict.fromkeys(kind for system in SYSTEMS.values() for kind in system.turn_actions)
)
"""Every action type answered with a ``turn``, in registry order; each system plays its own."""

ACTION_BODIES: tuple[type[ActionRequest], ...] = tuple(
    dict.fromkeys(body for system in SYSTEMS.values() for body in system.action_bodies)
)
"""The wire schemas of every turn action, in registry order (one per action type)."""


def register(system: RuleSystem) -> None:
    """Add a rule system from outside this package (a plug-in's bootstrap).

    Call it right after this module is first imported, before ``model``, ``game`` and
    ``chalicelib.schemas`` read the registry: they derive their settings, turn actions and
    published models from it once.
    """
    global TURN_ACTIONS, ACTION_BODIES
    if system.name in SYSTEMS:
        raise ValueError(f"a rule system named {system.name!r} is registered already")
    SYSTEMS[system.name] = system
    TURN_ACTIONS = tuple(dict.fromkeys((*TURN_ACTIONS, *system.turn_actions)))
    ACTION_BODIES = tuple(dict.fromkeys((*ACTION_BODIES, *system.action_bodies)))


def command_of(action: Mapping[str, Any]) -> Command:
    """The typed command of an action said in its plain form (a bot's, a timeout's, a test's).

    Only types are checked here (a malformed action is refused with ``InvalidAction``); the
    rule system checks the rules. The edge builds its commands from the request bodies.
    """
    cls = command_class(action.get("type"))
    if cls is None or cls.TYPE not in (*TURN_ACTIONS, "agree", "resign"):
        raise InvalidAction(
            "type must be one of: " + ", ".join((*TURN_ACTIONS, "agree", "resign")), field="type"
        )
    return cls.from_action(action)


def rule_system(name: str) -> RuleSystem:
    """The rule system a room's ``rules`` setting names."""
    return SYSTEMS[name]
