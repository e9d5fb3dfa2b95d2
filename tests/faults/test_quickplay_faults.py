"""Quick play under faults: a fault on the claiming transaction leaves no half-made table.

The claim of a table is one TransactWriteItems over its tickets and its room. Failing it (as
DynamoDB does when throttled, failing or cancelled by a conflicting write) must answer 503
with Retry-After and leave every item as it was: no room, every ticket as it waited; the
same request then succeeds. The wake-up's claim fails the invocation (Lambda retries it) and
writes nothing either.
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import realtime
from chalicelib.ports import Unavailable
from chalicelib.service.quickplay import TIMER_ID
from tests.faults.conftest import STORE_ERRORS, FaultEnv

PASSWORD = "correct horse"


def _register(env: FaultEnv, name: str) -> str:
    token: str = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})["token"]
    return token


def _is_claim(kwargs: dict[str, Any]) -> bool:
    """A transaction that puts a room: a claim (a ticket's own queueing puts none)."""
    return any(
        "Put" in item and item["Put"]["Item"]["pk"]["S"].startswith("ROOM#")
        for item in kwargs.get("TransactItems", [])
    )


def _rooms(env: FaultEnv) -> set[str]:
    return {pk for pk, sk in env.snapshot() if sk == "ROOM"}


@pytest.mark.parametrize("label", sorted(STORE_ERRORS))
def test_a_fault_on_the_claim_is_503_and_nothing_half_made(faults: FaultEnv, label: str) -> None:
    env = faults
    waiting, completing = _register(env, "waiter"), _register(env, "completer")
    assert env.call("POST", "/quickplay", {"rules": "poker"}, waiting)[0] == 202
    before = env.snapshot()
    env.faulty["store"].arm_operation("transact_write_items", STORE_ERRORS[label], _is_claim)
    status, headers, answer = env.call("POST", "/quickplay", {"rules": "poker"}, completing)
    failed = list(env.faulty["store"].failed)
    env.disarm()
    assert "transact_write_items" in failed, label
    assert (status, answer["error"]["code"]) == (503, "unavailable"), (label, answer)
    assert int(headers["Retry-After"]) >= 1
    assert env.snapshot() == before  # no room, no ticket of the completer, the waiter waits
    assert env.ok("GET", "/quickplay", token=waiting)["ticket"]["status"] == "waiting"
    # The same request, without the fault, seats both.
    status, _, answer = env.call("POST", "/quickplay", {"rules": "poker"}, completing)
    assert status == 202 and answer["ticket"]["status"] == "matched"
    assert (
        env.ok("GET", "/quickplay", token=waiting)["ticket"]["room_id"]
        == (answer["ticket"]["room_id"])
    )


def test_a_fault_on_the_wake_ups_claim_writes_nothing_and_its_retry_seats(
    faults: FaultEnv,
) -> None:
    env = faults
    alone = _register(env, "alone")
    assert env.call("POST", "/quickplay", {"rules": "classic"}, alone)[0] == 202
    env.clock.advance(20_000)
    rooms = _rooms(env)
    env.faulty["store"].arm_operation(
        "transact_write_items", STORE_ERRORS["InternalServerError"], _is_claim
    )
    with pytest.raises(Unavailable):
        realtime.on_timer(TIMER_ID, 1, deps=env.deps)
    env.disarm()
    assert _rooms(env) == rooms
    assert env.ok("GET", "/quickplay")["waiting"]["classic"] == 1
    # Lambda's retry of the invocation seats the lone user with bots.
    result = realtime.on_timer(TIMER_ID, 1, deps=env.deps)
    assert len(result["rooms"]) == 1
    assert env.ok("GET", "/quickplay", token=alone)["ticket"]["status"] == "matched"
