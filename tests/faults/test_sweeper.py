"""The sweeper is the backstop of a lost wake-up: when CreateSchedule failed on every try of a
request, a room nobody watches has no wake-up at all; the scheduled ``room_sweeper`` finds it
through the deadline index (no scan) and wakes it through the timer's own path."""

from __future__ import annotations

from typing import Any

from tests.faults.conftest import SCHEDULER_ERRORS, FaultEnv

PASSWORD = "correct horse"
SCHEDULED_EVENT = {
    "version": "0",
    "id": "sweep-1",
    "detail-type": "Scheduled Event",
    "source": "aws.events",
    "account": "123456789012",
    "time": "2026-12-01T10:00:00Z",
    "region": "us-east-1",
    "resources": [],
    "detail": {},
}


def _started_without_wake_up(env: FaultEnv) -> tuple[str, dict[str, Any]]:
    """A started game whose every CreateSchedule failed: the room has no wake-up."""
    tokens = [
        env.ok("POST", "/auth/register", {"username": n, "password": PASSWORD})["token"]
        for n in ("host", "player2")
    ]
    rid = env.ok("POST", "/rooms", {}, tokens[0])["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, tokens[1])
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, tokens[1])
    env.faulty["scheduler"].arm_operation("create_schedule", SCHEDULER_ERRORS["Throttling"])
    view = env.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
    assert "create_schedule" in env.faulty["scheduler"].failed  # every try failed
    env.disarm()
    listed = env.scheduler.list_schedules(GroupName="default", NamePrefix=f"room-{rid}-v")
    assert listed["Schedules"] == []  # nothing will wake this room
    return rid, view


def test_the_sweeper_moves_on_a_room_whose_wake_up_was_never_made(faults: FaultEnv) -> None:
    env = faults
    rid, view = _started_without_wake_up(env)
    version = view["version"]
    env.clock.advance(view["settings"]["turn_seconds"] * 1000 + 61_000)

    env.client.lambda_.invoke("room_sweeper", SCHEDULED_EVENT)

    stored = env.store.get_room(rid)
    assert stored is not None and stored.version == version + 1  # the turn's timeout applied
    listed = env.scheduler.list_schedules(GroupName="default", NamePrefix=f"room-{rid}-v")
    assert [s["Name"] for s in listed["Schedules"]] == [f"room-{rid}-v{version + 1}"]

    # A second sweep (or a late Scheduler delivery) finds nothing overdue and changes nothing.
    env.client.lambda_.invoke("room_sweeper", SCHEDULED_EVENT)
    assert env.store.get_room(rid).version == version + 1  # type: ignore[union-attr]


def test_the_sweeper_leaves_a_room_that_is_less_than_a_minute_late(faults: FaultEnv) -> None:
    env = faults
    rid, view = _started_without_wake_up(env)
    env.clock.advance(view["settings"]["turn_seconds"] * 1000 + 30_000)

    env.client.lambda_.invoke("room_sweeper", SCHEDULED_EVENT)

    assert env.store.get_room(rid).version == view["version"]  # type: ignore[union-attr]
