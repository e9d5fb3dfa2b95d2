"""Wild Stars on the wire: shown dice on the table, a bid's show and reroll, the reveal's extras."""

from __future__ import annotations

from pydantic import Field

from ...rules import BIDDING_WIRE
from ...wire_models import DieOut, SystemWire

WIRE = SystemWire(
    table={
        "shown": (
            dict[str, list[int | str]] | None,
            Field(
                default=None, description="Wild Stars: dice each player has set out in the open."
            ),
        ),
    },
    reveal={
        "lost": (
            dict[str, int] | None,
            Field(default=None, description="Wild Stars: dice each player lost in this challenge."),
        ),
        "perfect": (
            bool | None,
            Field(
                default=None, description="Wild Stars: the count equalled the bid (a perfect bid)."
            ),
        ),
        "die_hard": (
            list[str] | None,
            Field(
                default=None, description="Wild Stars: players who kept their last die (Die Hard)."
            ),
        ),
        "shown": (
            dict[str, list[bool]] | None,
            Field(
                default=None,
                description="Wild Stars: per player, which of ``rows[].dice`` were shown (set out).",
            ),
        ),
    },
    bid=BIDDING_WIRE.bid,
    bid_event={
        **BIDDING_WIRE.bid_event,
        "show": (list[DieOut] | None, None),
        "reroll": (bool | None, None),
    },
    timeout_actions=BIDDING_WIRE.timeout_actions,
    timeout_action=BIDDING_WIRE.timeout_action,
)
"""What Wild Stars adds to the published models."""
