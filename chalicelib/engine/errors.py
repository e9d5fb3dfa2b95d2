"""Domain errors of the rules engine, each with a stable code.

Every illegal action raises one of these *before* the state is touched, so a refused action
leaves the room exactly as it was. The engine knows nothing of HTTP: ``chalicelib.errors``
maps each kind to its status and turns it into an API error body.
"""

from __future__ import annotations


class DomainError(Exception):
    """Base class: a request the rules refuse. ``code`` is stable (a raise may refine it)."""

    code = "domain_error"

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if code is not None:
            self.code = code


class InvalidSetting(DomainError):
    """A room setting outside its allowed values (names the field and the allowed values)."""

    code = "invalid_setting"


class InvalidAction(DomainError):
    """A malformed action (unknown type, missing field)."""

    code = "invalid_action"


class IllegalBid(DomainError):
    """A bid that does not raise the current bid, or is out of range."""

    code = "illegal_bid"


class NotYourTurn(DomainError):
    """Only the player to act may bid or call Liar!."""

    code = "not_your_turn"


class StaleTurn(DomainError):
    """The action answers a turn that has already passed (or was already applied)."""

    code = "stale_turn"


class WrongPhase(DomainError):
    """The action is not possible in the game's current phase."""

    code = "wrong_phase"


class NoBidToChallenge(DomainError):
    """Liar! needs a current bid."""

    code = "no_bid"


class NotAPlayer(DomainError):
    """The caller has no seat in this room's game."""

    code = "not_a_player"


class NotHost(DomainError):
    """Only the host may do this."""

    code = "not_host"


class Forbidden(DomainError):
    """The caller may not do this (guest rules, invitations, ...)."""

    code = "forbidden"


class Conflict(DomainError):
    """The room is not in a state that allows this (joining closed, already a member, ...)."""

    code = "conflict"


class NotFound(DomainError):
    """An unknown player, bot or request inside the room."""

    code = "not_found"


class Unrated(DomainError):
    """Elo preview asked for an unrated game."""

    code = "unrated"


class InvalidOrder(DomainError):
    """An Elo preview order that is not a complete order or moves a fixed rank."""

    code = "invalid_order"
