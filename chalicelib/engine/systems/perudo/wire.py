"""Perudo on the wire: the palifico flag on the table, the reveal's calza extras, its event."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules import BIDDING_WIRE
from ...wire_models import SystemWire
from .events import CalzaCalled

WIRE = SystemWire(
    table={
        "palifico": (
            bool | None,
            Field(
                default=None,
                description="Perudo: this is a palifico round (aces not wild, the face fixed).",
            ),
        ),
    },
    reveal={
        "kind": (
            Literal["dudo", "calza"] | None,
            Field(
                default=None,
                description="Perudo: the challenge was Dudo (Liar!) or a calza (the bid claimed "
                "exact; ``challenger_id`` is the caller, ``loser_id`` null when it was exact).",
            ),
        ),
        "palifico": (
            bool | None,
            Field(
                default=None,
                description="Perudo: the round was a palifico round (aces not wild).",
            ),
        ),
        "gained_id": (
            str | None,
            Field(
                default=None,
                description="Perudo: the calza caller who won a die back (null otherwise, also "
                "when an exact calza found the caller at the starting dice).",
            ),
        ),
    },
    bid=BIDDING_WIRE.bid,
    bid_event=BIDDING_WIRE.bid_event,
    timeout_actions=BIDDING_WIRE.timeout_actions,
    timeout_action=BIDDING_WIRE.timeout_action,
    events=(CalzaCalled,),
)
"""What Perudo adds to the published models."""
