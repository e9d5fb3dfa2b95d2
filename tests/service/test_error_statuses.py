"""Engine errors carry no HTTP status; the edge (``chalicelib.errors``) maps each kind to the
status it always answered with, whatever code a raise refines it to."""

from __future__ import annotations

import pytest

from chalicelib.engine import errors as engine_errors
from chalicelib.engine.errors import DomainError
from chalicelib.errors import domain_status, retry_after, to_response
from chalicelib.service import errors as service_errors

WIRE_STATUS = {
    "InvalidSetting": 400,
    "InvalidAction": 400,
    "IllegalBid": 400,
    "InvalidOrder": 400,
    "NotYourTurn": 403,
    "NotAPlayer": 403,
    "NotHost": 403,
    "Forbidden": 403,
    "NotFound": 404,
    "StaleTurn": 409,
    "WrongPhase": 409,
    "NoBidToChallenge": 409,
    "Conflict": 409,
    "Unrated": 409,
}
"""The statuses of the API before the engine lost them (docs/openapi.json answers these)."""

KINDS = [
    cls
    for cls in vars(engine_errors).values()
    if isinstance(cls, type) and issubclass(cls, DomainError) and cls is not DomainError
]


def test_every_engine_error_kind_is_mapped_to_the_status_it_always_had() -> None:
    assert sorted(c.__name__ for c in KINDS) == sorted(WIRE_STATUS)
    for kind in KINDS:
        answer = to_response(kind("refused"))
        assert answer is not None
        assert answer[0] == WIRE_STATUS[kind.__name__], kind
        assert answer[1] == {"error": {"code": kind.code, "message": "refused"}}


@pytest.mark.parametrize("kind", KINDS, ids=lambda c: c.__name__)
def test_engine_errors_know_no_http_status(kind: type[DomainError]) -> None:
    assert not hasattr(kind("x"), "status")


def test_a_refined_code_keeps_the_status_of_its_kind() -> None:
    err = engine_errors.WrongPhase("not yet", code="not_accepted", field="hand")
    assert domain_status(err) == 409
    assert to_response(err) == (
        409,
        {"error": {"code": "not_accepted", "message": "not yet", "field": "hand"}},
    )


def test_a_kind_derived_from_a_mapped_kind_answers_its_bases_status() -> None:
    class LateBid(engine_errors.StaleTurn):
        code = "late_bid"

    class Unknown(DomainError):
        code = "unknown"

    assert domain_status(LateBid("late")) == 409
    assert domain_status(Unknown("?")) == 400


SERVICE_WIRE_STATUS = {
    "InvalidInput": 400,
    "NotSignedIn": 401,
    "NotAllowed": 403,
    "Unknown": 404,
    "Clash": 409,
    "TooMany": 429,
}
"""The statuses the use cases' refusals answered with when they raised them as API errors."""

SERVICE_KINDS = [
    cls
    for cls in vars(service_errors).values()
    if isinstance(cls, type)
    and issubclass(cls, service_errors.ServiceError)
    and cls is not service_errors.ServiceError
]


def test_every_service_error_kind_is_mapped_to_the_status_it_always_had() -> None:
    assert sorted(c.__name__ for c in SERVICE_KINDS) == sorted(SERVICE_WIRE_STATUS)
    for kind in SERVICE_KINDS:
        answer = to_response(kind("refused", field="x"))
        assert answer is not None
        assert answer[0] == SERVICE_WIRE_STATUS[kind.__name__], kind
        assert answer[1] == {"error": {"code": kind.code, "message": "refused", "field": "x"}}
        assert not hasattr(kind("x"), "status")


def test_a_lost_race_carries_the_callers_view_and_a_limit_its_retry_after() -> None:
    lost = service_errors.Clash("changed", room={"id": "r1", "version": 3})
    assert to_response(lost) == (
        409,
        {"error": {"code": "conflict", "message": "changed"}, "room": {"id": "r1", "version": 3}},
    )
    limited = service_errors.TooMany("slow down", code="too_many_accounts", retry_after=7)
    assert to_response(limited) == (
        429,
        {"error": {"code": "too_many_accounts", "message": "slow down"}},
    )
    assert retry_after(limited) == 7
