"""Every rate limit of the use cases, as data: its name, count, window and scope.

A limit counts attempts under a key made of its name and its scope's values (``lobby:<user>``,
``passcode:<lineage>:<user>``) in fixed windows aligned to the epoch (``Store.hit``); past its
count within one window the attempt is refused with a 429 whose ``Retry-After`` is the time
left in the window. Counts and windows are settings (``chalicelib.settings``), named here by
attribute so a deployment can tune them; the table below is the one list of what is limited.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.service.errors import TooMany

if TYPE_CHECKING:
    from chalicelib.service.core import Service
    from chalicelib.settings import Settings


@dataclass(frozen=True)
class Limit:
    """One rate limit: at most ``count`` attempts per ``window`` seconds per ``scope``."""

    name: str
    """The key's prefix, also the limit's name."""
    count: str
    """The ``Settings`` attribute holding the number of attempts allowed per window."""
    window: str
    """The ``Settings`` attribute holding the window, in seconds."""
    scope: tuple[str, ...]
    """What one count is kept for (the key's parts after the name, in order)."""
    message: str
    code: str = "rate_limited"

    def key(self, *parts: str) -> str:
        """The counter's key for the scope's values ``parts``."""
        if len(parts) != len(self.scope):
            raise ValueError(f"{self.name} is counted per {', '.join(self.scope)}")
        return ":".join((self.name, *parts))

    def allowed(self, cfg: Settings) -> int:
        """Attempts allowed per window."""
        return int(getattr(cfg, self.count))

    def seconds(self, cfg: Settings) -> int:
        """The window, in seconds."""
        return int(getattr(cfg, self.window))


_ACCOUNTS = "too many new accounts from your address; try again later"
_LOGIN = "too many sign-in attempts from your address; try again later"
_CHAT = "you are sending messages too fast"

GUEST = Limit(
    "guest-src", "guest_per_source", "guest_window_seconds", ("source",), _ACCOUNTS,
    code="too_many_accounts",
)  # fmt: skip
REGISTER = Limit(
    "register-src", "register_per_source", "register_window_seconds", ("source",), _ACCOUNTS,
    code="too_many_accounts",
)  # fmt: skip
LOGIN = Limit("login", "login_max_attempts", "login_window_seconds", ("username", "source"), _LOGIN)
"""Wrong sign-ins per username and source address (a right one gives its attempt back)."""
LOGIN_SOURCE = Limit(
    "login-src", "login_source_max_attempts", "login_window_seconds", ("source",), _LOGIN
)
TICKET = Limit(
    "ticket", "tickets_per_user", "ticket_window_seconds", ("user",),
    "too many WebSocket tickets; try again later",
)  # fmt: skip
ROOM_CREATION = Limit(
    "rooms-created", "room_creations_per_user", "room_creation_window_seconds", ("user",),
    "too many rooms created; try again later",
)  # fmt: skip
LOBBY_ACTION = Limit(
    "lobby", "lobby_actions_per_user", "lobby_window_seconds", ("user",),
    "too many lobby actions; try again in a few seconds",
)  # fmt: skip
"""Room changes that are not game moves, in all rooms together (``lobby.count_lobby_action``)."""
PASSCODE = Limit(
    "passcode", "passcode_max_attempts", "passcode_window_seconds", ("lineage", "user"),
    "too many passcode attempts for this room; try again later",
)  # fmt: skip
PASSCODE_ROOM = Limit(
    "passcode-room", "passcode_room_max_attempts", "passcode_room_window_seconds",
    ("lineage",), "too many passcode attempts for this room; ask the host for an invitation",
)  # fmt: skip
"""Wrong passcodes for a room lineage from everyone together (a right one is given back)."""
CHAT = Limit("chat", "chat_rate", "chat_window_seconds", ("room", "user"), _CHAT)
CHAT_USER = Limit("chat-user", "chat_user_rate", "chat_window_seconds", ("user",), _CHAT)
"""Chat in all rooms together, so the per-room limit is not multiplied by the rooms."""
CONNECT = Limit(
    "connect-src", "connects_per_source", "connect_window_seconds", ("source",),
    "too many new connections from your address; try again later",
)  # fmt: skip
"""New WebSocket connections per source address (``realtime.connect`` refuses the handshake)."""

QUICKPLAY = Limit(
    "qp", "quickplay_actions_per_user", "quickplay_window_seconds", ("user",),
    "too many quick-play requests; try again in a moment",
)  # fmt: skip
"""Play now and cancel together (``service.quickplay``)."""
QUICKPLAY_SOURCE = Limit(
    "qp-src", "quickplay_actions_per_source", "quickplay_window_seconds", ("source",),
    "too many quick-play requests from your address; try again in a moment",
)  # fmt: skip

LIMITS: tuple[Limit, ...] = (
    GUEST,
    REGISTER,
    LOGIN,
    LOGIN_SOURCE,
    TICKET,
    ROOM_CREATION,
    LOBBY_ACTION,
    PASSCODE,
    PASSCODE_ROOM,
    CHAT,
    CHAT_USER,
    CONNECT,
    QUICKPLAY,
    QUICKPLAY_SOURCE,
)
"""Every rate limit the use cases count."""


def hit(svc: Service, limit: Limit, *parts: str) -> str:
    """Count one attempt under ``limit`` for the scope's values; 429 past its count.

    Returns the key counted (to give the attempt back later with ``effects.Refund``).
    """
    key = limit.key(*parts)
    now, window = svc.now(), limit.seconds(svc.cfg)
    if not svc.store.hit(key, limit.allowed(svc.cfg), window, now):
        raise TooMany(
            limit.message, code=limit.code, retry_after=seconds_until_window_ends(window, now)
        )
    return key


def source_key(ip: str) -> str:
    """The address a per-source limit counts: IPv4 as is, IPv6 by its /64 (one subscriber)."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:64] or "unknown"
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.ip_network(f"{addr}/64", strict=False))
    return str(addr)


def seconds_until_window_ends(window_seconds: int, now_ms: int) -> int:
    """Whole seconds (at least 1) until the fixed window ``Store.hit`` counts ``now_ms`` in ends.

    The limits count in windows aligned to the epoch (``now_ms // window``, as the stores
    count them): a refused attempt can succeed again once its window has ended.
    """
    span = window_seconds * 1000
    ends = (now_ms // span + 1) * span
    return max(1, -(-(ends - now_ms) // 1000))
