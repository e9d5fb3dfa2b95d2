"""The timer handler is the only thing that touches a room nobody watches, so the wake-up of
the change it commits must not be lost silently: when creating it fails, the invocation fails
(Lambda retries it, then the dead-letter queue keeps it) and the retry arms it; a room with
no client can never be left without its next wake-up by one refused CreateSchedule."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.ports import Unavailable
from tests.faults.conftest import SCHEDULER_ERRORS, FaultEnv, client_error

PASSWORD = "correct horse"


def _started(env: FaultEnv) -> tuple[str, dict[str, Any]]:
    tokens = [
        env.ok("POST", "/auth/register", {"username": n, "password": PASSWORD})["token"]
        for n in ("host", "player2")
    ]
    rid = env.ok("POST", "/rooms", {}, tokens[0])["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, tokens[1])
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, tokens[1])
    return rid, env.ok("POST", f"/rooms/{rid}/start", None, tokens[0])


def _schedule_versions(env: FaultEnv, rid: str) -> set[int]:
    listed = env.scheduler.list_schedules(GroupName="default", NamePrefix=f"room-{rid}-v")
    return {
        json.loads(
            env.scheduler.get_schedule(Name=s["Name"], GroupName="default")["Target"]["Input"]
        )["version"]
        for s in listed["Schedules"]
    }


@pytest.mark.parametrize(
    "error",
    [SCHEDULER_ERRORS["Throttling"], client_error("ServiceQuotaExceededException", 402)],
    ids=["throttled", "quota"],
)
def test_a_timer_whose_next_wake_up_cannot_be_made_fails_and_its_retry_makes_it(
    faults: FaultEnv, error: Any
) -> None:
    env = faults
    rid, view = _started(env)
    version = view["version"]
    # Scheduler runs the wake-up once (then deletes it) at the turn's deadline.
    env.scheduler.delete_schedule(Name=f"room-{rid}-v{version}", GroupName="default")
    env.clock.advance(view["settings"]["turn_seconds"] * 1000 + 1)
    event = {"room_id": rid, "version": version}

    env.faulty["scheduler"].arm_operation("create_schedule", error)
    with pytest.raises(Unavailable):
        env.client.lambda_.invoke("room_timer", event)
    env.disarm()
    stored = env.store.get_room(rid)
    assert stored is not None and stored.version == version + 1  # the timeout stands
    assert _schedule_versions(env, rid) == set()

    # Lambda's retry of the same event: nothing is due again, the wake-up is armed.
    result = env.client.lambda_.invoke("room_timer", event).payload
    assert result["version"] == version + 1
    assert _schedule_versions(env, rid) == {version + 1}
    assert env.store.get_room(rid).version == version + 1  # type: ignore[union-attr]
