"""The store policy: what every Store adapter keeps the same, whatever holds the data.

Both stores (``adapters.dynamo`` and ``adapters.sqlite``) import these, and neither imports
the other: how long kept rows live, how the lobby sorts, how ids and hashed keys are made, and
the limits that are rules of the product. Limits of one database (DynamoDB's 100 items per
transaction, SQLite's variables per statement) stay in that database's adapter.
"""

from __future__ import annotations

import hashlib
import secrets

# --- how long rows live (epoch seconds, the stores' ``expires_at``) ---------------------------

INVITATION_TTL_SECONDS = 7 * 24 * 3600
"""An invitation is kept a week (when the caller gives the time it was made)."""

CONNECTION_TTL_SECONDS = 3 * 3600
"""A WebSocket connection never closed is forgotten after this (API Gateway's own limit is 2 h)."""

EXPIRY_GRACE_SECONDS = 60
"""Rows that are checked against their own deadline (tickets, rate windows) are removed this
long after it, so a clock a little behind never loses one early."""


def ticket_expires_at(expires_ms: int) -> int:
    """The ``expires_at`` of a WebSocket ticket usable until ``expires_ms``."""
    return expires_ms // 1000 + EXPIRY_GRACE_SECONDS


def rate_window(window_seconds: int, now_ms: int) -> tuple[int, int]:
    """The number of the fixed rate-limit window at ``now_ms``, and its row's ``expires_at``."""
    window = now_ms // (window_seconds * 1000)
    return window, (window + 1) * window_seconds + EXPIRY_GRACE_SECONDS


# --- keys and ids ---------------------------------------------------------------------------


def lobby_sort_key(created_at_ms: int, room_id: str) -> str:
    """The lobby's order: creation time (zero-padded ms), then room id (newest listed first)."""
    return f"{created_at_ms:015d}#{room_id}"


def ticket_key(ticket: str) -> str:
    """Tickets are stored by hash: a reader of the stored data cannot replay one."""
    return hashlib.sha256(ticket.encode()).hexdigest()


def new_chat_id(at_ms: int) -> str:
    """A message id that sorts by time (ties broken at random)."""
    return f"{at_ms:013d}-{secrets.token_hex(4)}"


# --- ratings --------------------------------------------------------------------------------

DEFAULT_RATING = 1500
"""The rating of a user with none stored (the engine's ``ratings.DEFAULT_RATING``)."""

MAX_RATING_CHANGES = 98
"""The most players one finished game rates, on every store: more are refused
(``TooManyRatingChanges``; the service then saves the room unrated). A product rule, set so
that a finished game's write (the room, the game record and one change per player) fits one
DynamoDB transaction; SQLite could hold more but refuses the same games, so a game behaves
alike on a laptop and on AWS."""

OVERDUE_WINDOW_MS = 30 * 60 * 1000
"""How far back ``overdue_rooms`` looks by default: the sweeper wakes, every minute, rooms
whose deadline passed more than a minute but less than this long ago (docs/REALTIME.md)."""

DUE_SHARDS = 4
"""DynamoDB's deadline index spreads each minute's rooms over this many partitions."""
