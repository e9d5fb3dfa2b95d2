"""Poker Liar Dice on the wire: its settings, table, reveal, claims and timeouts (``SystemWire``).

``chalicelib.schemas`` composes these into the published models; the actions' bodies are in
``actions`` and the events in ``events``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...actions import WholeNumber
from ...wire_models import Answer, SystemWire
from .actions import PokerCategory, PokerFace
from .events import ClaimAccepted, DiceRerolled, RollsStopped


class PokerHandOut(Answer):
    """A poker hand and its category."""

    hand: list[PokerFace]
    category: PokerCategory


class RerollOut(Answer):
    """How many dice a player rerolled (announced truthfully by the server)."""

    player_id: str
    count: int


WIRE = SystemWire(
    settings={
        "lives": (
            int | None,
            Field(default=None, description="Poker Liar Dice: lives per player."),
        ),
        "dogs_life": (
            bool | None,
            Field(
                default=None,
                description="Poker Liar Dice: the first player out gets one extra life.",
            ),
        ),
    },
    settings_body={
        "lives": (Annotated[Literal[1, 2, 3, 4, 5], WholeNumber] | None, None),
        "dogs_life": (bool | None, None),
    },
    table={
        "stage": (
            Literal["claim", "respond", "reroll", "aces"] | None,
            Field(default=None, description="Poker Liar Dice: what the player to act does now."),
        ),
        "holder_id": (str | None, Field(default=None, description="Poker: who holds the cup.")),
        "exposed": (
            list[PokerFace | None] | None,
            Field(
                default=None,
                description="Poker: the cup by position, exposed faces or null (hidden).",
            ),
        ),
        "rerolls": (
            list[RerollOut] | None,
            Field(
                default=None, description="Poker: every announced reroll of this hand, in order."
            ),
        ),
        "lives": (
            int | None,
            Field(default=None, description="Poker: lives each player started with."),
        ),
        "aces_rolls_left": (
            int | None,
            Field(default=None, description="Poker: rolls left after accepting five aces."),
        ),
    },
    reveal={
        "cup": (list[PokerFace] | None, Field(default=None, description="Poker: the lifted cup.")),
        "exposed": (
            list[int] | None,
            Field(default=None, description="Poker: cup positions that were exposed."),
        ),
        "hand": (
            PokerHandOut | None,
            Field(default=None, description="Poker: what the cup holds."),
        ),
        "rerolls": (
            list[RerollOut] | None,
            Field(default=None, description="Poker: the hand's announced rerolls, in order."),
        ),
        "five_aces": (
            bool | None,
            Field(
                default=None, description="Poker: decided by the five-aces rolls, not a challenge."
            ),
        ),
        "dogs_life": (
            str | None,
            Field(default=None, description="Poker: the player who took the dog's life here."),
        ),
        "next_id": (
            str | None,
            Field(default=None, description="Poker: who starts the next hand."),
        ),
    },
    bid={
        "hand": (
            list[PokerFace] | None,
            Field(default=None, description="Poker Liar Dice: the full hand the claim stands for."),
        ),
        "category": (PokerCategory | None, None),
    },
    bid_event={
        "hand": (list[PokerFace] | None, None),
        "category": (PokerCategory | None, None),
        "exposed": (list[int] | None, None),
        "unexposed": (list[int] | None, None),
    },
    timeout_actions=("claim", "accept", "reroll", "stop"),
    timeout_action={
        "hand": (str | None, Field(default=None, description='Poker: always "better".')),
        "dice": (
            list[int] | None,
            Field(
                default=None,
                description="Never sent: which cup positions were rerolled stays hidden (see count).",
            ),
        ),
        "count": (
            int | None,
            Field(
                default=None,
                description="Poker's five-aces rolls: how many dice the reroll played for the seat took.",
            ),
        ),
        "unexpose": (list[int] | None, None),
    },
    events=(ClaimAccepted, DiceRerolled, RollsStopped),
    models=(PokerHandOut, RerollOut),
)
"""What Poker Liar Dice adds to the published models."""
