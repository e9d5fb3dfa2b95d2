"""Domain errors of the rules engine, each with a stable code and the HTTP status it maps to.

Every illegal action raises one of these *before* the state is touched, so a refused action
leaves the room exactly as it was. ``chalicelib.errors`` turns them into API error bodies.
"""

from __future__ import annotations


class DomainError(Exception):
    """Base class: a request the rules refuse. ``code`` is stable; ``status`` is the HTTP status."""

    code = "domain_error"
    status = 400

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if code is not None:
            self.code = code


class InvalidSetting(DomainError):
    """A room setting outside its allowed values (names the field and the allowed values)."""

    code = "invalid_setting"
    status = 400


class InvalidAction(DomainError):
    """A malformed action (unknown type, missing field)."""

    code = "invalid_action"
    status = 400


class IllegalBid(DomainError):
    """A bid that does not raise the current bid, or is out of range."""

    code = "illegal_bid"
    status = 400


class NotYourTurn(DomainError):
    """Only the player to act may bid or call Liar!."""

    code = "not_your_turn"
    status = 403


class StaleTurn(DomainError):
    """The action answers a turn that has already passed (or was already applied)."""

    code = "stale_turn"
    status = 409


class WrongPhase(DomainError):
    """The action is not possible in the game's current phase."""

    code = "wrong_phase"
    status = 409


class NoBidToChallenge(DomainError):
    """Liar! needs a current bid."""

    code = "no_bid"
    status = 409


class NotAPlayer(DomainError):
    """The caller has no seat in this room's game."""

    code = "not_a_player"
    status = 403


class NotHost(DomainError):
    """Only the host may do this."""

    code = "not_host"
    status = 403


class Forbidden(DomainError):
    """The caller may not do this (guest rules, invitations, ...)."""

    code = "forbidden"
    status = 403


class Conflict(DomainError):
    """The room is not in a state that allows this (joining closed, already a member, ...)."""

    code = "conflict"
    status = 409


class NotFound(DomainError):
    """An unknown player, bot or request inside the room."""

    code = "not_found"
    status = 404


class Unrated(DomainError):
    """Elo preview asked for an unrated game."""

    code = "unrated"
    status = 409


class InvalidOrder(DomainError):
    """An Elo preview order that is not a complete order or moves a fixed rank."""

    code = "invalid_order"
    status = 400
