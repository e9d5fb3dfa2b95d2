"""AWS errors the adapters do not interpret: a 503 with ``Retry-After``, never a 500.

Besides throttling and server errors, an AWS call can fail for reasons no retry inside one
request fixes: the role lost a permission (``AccessDeniedException``), the credentials expired
(``ExpiredTokenException``), the table or the schedule group is missing
(``ResourceNotFoundException`` on DynamoDB), a request DynamoDB refuses
(``ValidationException``, a transaction cancelled for a ``ValidationError``), a global table's
write conflict (``ReplicatedWriteConflictException``), no credentials at all. For a client
they are all the same: the service is unavailable, nothing was changed. The errors that mean
something to an adapter (a failed condition, a gone connection, a schedule that exists or is
missing) keep reaching that adapter.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import NoCredentialsError

from chalicelib.adapters._aws import unavailable
from chalicelib.ports import Unavailable
from tests.faults.conftest import ErrorFactory, FaultEnv, client_error

PASSWORD = "correct horse"


def no_credentials(_operation: str) -> Exception:
    return NoCredentialsError()


def cancelled_as_invalid(operation: str) -> Exception:
    reasons = [{"Code": "None"}, {"Code": "ValidationError", "Message": "item too large"}]
    return client_error("TransactionCanceledException", 400, CancellationReasons=reasons)(operation)


UNINTERPRETED: dict[str, ErrorFactory] = {
    "AccessDenied": client_error("AccessDeniedException", 400),
    "ExpiredToken": client_error("ExpiredTokenException", 400),
    "UnrecognizedClient": client_error("UnrecognizedClientException", 400),
    "TableMissing": client_error("ResourceNotFoundException", 400),
    "Validation": client_error("ValidationException", 400),
    "ReplicatedWriteConflict": client_error("ReplicatedWriteConflictException", 409),
    "NoCredentials": no_credentials,
}


def _user(env: FaultEnv, name: str) -> str:
    token: str = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})["token"]
    return token


@pytest.mark.parametrize("label", sorted(UNINTERPRETED))
def test_an_uninterpreted_store_error_is_a_503_that_changes_nothing(
    faults: FaultEnv, label: str
) -> None:
    env = faults
    host = _user(env, "host")
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    before = env.snapshot()
    for method, path, body in (
        ("GET", f"/rooms/{rid}", None),  # a read
        ("PATCH", f"/rooms/{rid}/settings", {"turn_seconds": 60}),  # a conditional write
        ("POST", "/rooms", {}),  # a transaction
    ):
        env.faulty["store"].arm(1, UNINTERPRETED[label], persistent=True)
        status, headers, answer = env.call(method, path, body, host)
        assert env.faulty["store"].failed, (label, path)
        env.disarm()
        assert (status, answer["error"]["code"]) == (503, "unavailable"), (label, path, answer)
        assert int(headers["Retry-After"]) >= 1
        assert env.snapshot() == before, (label, path)


def test_a_transaction_cancelled_for_an_invalid_item_is_a_503_that_changes_nothing(
    faults: FaultEnv,
) -> None:
    env = faults
    host = _user(env, "host")
    before = env.snapshot()
    env.faulty["store"].arm_operation("transact_write_items", cancelled_as_invalid)
    status, headers, answer = env.call("POST", "/rooms", {}, host)
    env.disarm()
    assert (status, answer["error"]["code"]) == (503, "unavailable"), answer
    assert int(headers["Retry-After"]) >= 1 and env.snapshot() == before


def test_websocket_handlers_answer_an_uninterpreted_store_error_as_unavailable(
    faults: FaultEnv,
) -> None:
    env = faults
    host = _user(env, "host")
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    ticket = env.ok("POST", "/realtime/tickets", None, host)["ticket"]
    env.faulty["store"].arm(1, UNINTERPRETED["AccessDenied"], persistent=True)
    handshake = env.ws("c1", "$connect", query={"ticket": ticket}).payload
    env.disarm()
    assert handshake["statusCode"] == 503, handshake

    assert env.ws("c2", "$connect").payload["statusCode"] == 200
    seen = len(env.pushes.messages_for("c2"))  # type: ignore[attr-defined]
    env.faulty["store"].arm(1, UNINTERPRETED["ExpiredToken"], persistent=True)
    env.ws("c2", "$default", json.dumps({"action": "subscribe", "room_id": rid}))
    env.disarm()
    [answer] = env.pushes.messages_for("c2")[seen:]  # type: ignore[attr-defined]
    assert answer["type"] == "error" and answer["error"]["code"] == "unavailable", answer
    assert answer["retry_after"] >= 1


def test_a_timer_meeting_an_uninterpreted_error_fails_as_unavailable_and_writes_nothing(
    faults: FaultEnv,
) -> None:
    env = faults
    host, other = _user(env, "host"), _user(env, "player2")
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, other)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other)
    view = env.ok("POST", f"/rooms/{rid}/start", None, host)
    env.clock.advance(10 * 60_000)
    before = env.store.get_room(rid)
    # The room's read passes; whatever the timer calls next is refused.
    env.faulty["store"].arm(2, UNINTERPRETED["AccessDenied"], persistent=True)
    with pytest.raises(Unavailable):
        env.client.lambda_.invoke("room_timer", {"room_id": rid, "version": view["version"]})
    assert env.faulty["store"].failed
    env.disarm()
    assert env.store.get_room(rid) == before


@pytest.mark.parametrize(
    ("code", "operation"),
    [
        ("ConditionalCheckFailedException", "update_item"),
        ("ResourceInUseException", "create_table"),
        ("ConflictException", "create_schedule"),
        ("ResourceNotFoundException", "delete_schedule"),
        ("GoneException", "post_to_connection"),
    ],
)
def test_the_errors_an_adapter_interprets_still_reach_it(code: str, operation: str) -> None:
    assert unavailable(client_error(code, 400)(operation), operation) is None


def test_an_uninterpreted_error_is_not_retried_within_the_request(faults: FaultEnv) -> None:
    env = faults
    host = _user(env, "host")
    env.faulty["store"].arm(1, UNINTERPRETED["AccessDenied"], persistent=True)
    status, _, _ = env.call("POST", "/rooms", {}, host)
    calls: list[Any] = list(env.faulty["store"].calls)
    env.disarm()
    # One call (the user's read) refused; no pause-and-retry loop around a refusal.
    assert status == 503 and len(calls) == 1, calls
