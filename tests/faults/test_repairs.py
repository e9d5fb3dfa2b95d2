"""What a fault must not leave behind: a recreate pointing nowhere, a room with no wake-up,
an open-room count that never comes down, a token that outlives its user."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.adapters.scheduler import schedule_name
from chalicelib.settings import reset_settings
from tests.faults.conftest import NOTIFIER_ERRORS, SCHEDULER_ERRORS, STORE_ERRORS, FaultEnv

PASSWORD = "correct horse"


def _user(env: FaultEnv, name: str) -> tuple[str, str]:
    out = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})
    return out["token"], out["user"]["id"]


def _start(env: FaultEnv, host: str, other: str) -> tuple[str, dict[str, Any]]:
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, other)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other)
    return rid, env.ok("POST", f"/rooms/{rid}/start", None, host)


def _finished(env: FaultEnv, host: str, other: str) -> str:
    rid, _ = _start(env, host, other)
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, host)
    return rid


def _schedule_versions(env: FaultEnv, rid: str) -> set[int]:
    listed = env.scheduler.list_schedules(GroupName="default", NamePrefix=f"room-{rid}-v")
    out = set()
    for s in listed["Schedules"]:
        full = env.scheduler.get_schedule(Name=s["Name"], GroupName="default")
        out.add(json.loads(full["Target"]["Input"])["version"])
    return out


# --- recreate ---------------------------------------------------------------------------------


def test_recreate_failing_mid_way_leaves_no_pointer_and_can_be_tried_again(
    faults: FaultEnv,
) -> None:
    env = faults
    (a, _), (b, _) = _user(env, "alice"), _user(env, "bobby")
    rid = _finished(env, a, b)
    before = env.snapshot()
    # The recreate's one write (old room, new room, open-room count) fails, however it fails.
    for label in ("TransactionConflict", "InternalServerError", "ReadTimeout"):
        env.faulty["store"].arm_operation("transact_write_items", STORE_ERRORS[label])
        status, headers, answer = env.call("POST", f"/rooms/{rid}/recreate", None, b)
        env.disarm()
        assert (status, answer["error"]["code"]) == (503, "unavailable"), (label, answer)
        assert headers["Retry-After"]
        assert env.snapshot() == before, f"{label} left part of the recreate behind"
        assert env.ok("GET", f"/rooms/{rid}")["recreated_as"] is None
    new = env.ok("POST", f"/rooms/{rid}/recreate", None, b)
    assert env.ok("GET", f"/rooms/{rid}")["recreated_as"] == new["id"]
    assert env.ok("GET", f"/rooms/{new['id']}")["status"] == "waiting"


def test_recreate_is_one_write_with_the_new_room_and_its_count(faults: FaultEnv) -> None:
    env = faults
    (a, _), (b, b_id) = _user(env, "alice"), _user(env, "bobby")
    rid = _finished(env, a, b)
    env.disarm()
    new = env.ok("POST", f"/rooms/{rid}/recreate", None, b)
    writes = [c for c in env.faulty["store"].calls if c in ("put_item", "transact_write_items")]
    # The recreate itself is one write; after it commits, one effect records the recreator's
    # seat in the new room ("my games", docs/STORAGE.md); a lost one is not repaired (DECISIONS).
    assert writes == ["transact_write_items", "put_item"], writes
    seats = env.ok("GET", "/me/games", None, b)["games"]
    assert [g["room_id"] for g in seats if g["status"] == "waiting"] == [new["id"]]
    assert new["id"] in env.store.open_rooms(b_id)


# --- wake-ups ---------------------------------------------------------------------------------


def test_a_failed_create_schedule_is_retried_at_once(faults: FaultEnv) -> None:
    env = faults
    (a, _), (b, _) = _user(env, "alice"), _user(env, "bobby")
    rid = env.ok("POST", "/rooms", {}, a)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, b)
    env.faulty["scheduler"].arm(1, SCHEDULER_ERRORS["Throttling"])  # the first try only
    view = env.ok("POST", f"/rooms/{rid}/start", None, a)
    assert env.faulty["scheduler"].failed == ["create_schedule"]
    env.disarm()
    assert view["version"] in _schedule_versions(env, rid)


@pytest.mark.parametrize("touch", ["GET", "tick", "subscribe", "refused move"])
def test_a_lost_wake_up_is_repaired_by_the_next_touch_of_the_room(
    faults: FaultEnv, touch: str
) -> None:
    env = faults
    (a, _), (b, _) = _user(env, "alice"), _user(env, "bobby")
    rid = env.ok("POST", "/rooms", {}, a)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, b)
    env.faulty["scheduler"].arm_operation("create_schedule", SCHEDULER_ERRORS["ReadTimeout"])
    view = env.ok("POST", f"/rooms/{rid}/start", None, a)  # the move stands; its wake-up is lost
    env.disarm()
    version = view["version"]
    assert version not in _schedule_versions(env, rid)
    if touch == "GET":
        env.ok("GET", f"/rooms/{rid}")
    elif touch == "tick":
        env.ok("POST", f"/rooms/{rid}/tick")
    elif touch == "subscribe":
        env.ws("w1", "$connect")
        env.ws("w1", "$default", json.dumps({"action": "subscribe", "room_id": rid}))
    else:
        stale = {"type": "bid", "quantity": 1, "face": 2, "turn": 999}
        assert env.call("POST", f"/rooms/{rid}/actions", stale, a)[0] == 409
    assert env.store.get_room(rid).version == version  # type: ignore[union-attr]
    assert version in _schedule_versions(env, rid)
    full = env.scheduler.get_schedule(Name=schedule_name(rid, version), GroupName="default")
    assert full["ScheduleExpression"].startswith("at(")
    # Once repaired, later touches of the same version cost the scheduler nothing.
    env.disarm()
    env.ok("GET", f"/rooms/{rid}")
    env.ok("POST", f"/rooms/{rid}/tick")
    assert "create_schedule" not in env.faulty["scheduler"].calls


def test_a_throttled_push_is_retried_and_delivered(faults: FaultEnv) -> None:
    env = faults
    (a, _), (b, _) = _user(env, "alice"), _user(env, "bobby")
    rid = env.ok("POST", "/rooms", {}, a)["id"]
    env.store.put_connection("w1", None, env.clock.now_ms())
    env.store.subscribe("w1", rid)
    env.faulty["notifier"].arm(1, NOTIFIER_ERRORS["LimitExceeded"])  # the first try only
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    assert env.faulty["notifier"].failed == ["post_to_connection"]
    env.disarm()
    [pushed] = env.pushes.messages_for("w1")  # type: ignore[attr-defined]
    assert pushed["type"] == "room" and len(pushed["room"]["players"]) == 2


# --- the open-room cap ----------------------------------------------------------------------


def test_the_open_room_cap_cannot_leak_when_releases_fail(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    monkeypatch.setenv("MAX_ROOMS_PER_USER", "5")
    reset_settings()
    (a, a_id), (b, _) = _user(env, "alice"), _user(env, "bobby")

    def is_release(kwargs: dict[str, Any]) -> bool:
        return bool(kwargs.get("Key", {}).get("sk", {}).get("S") == "OPENROOMS")

    # Seven games (more than the cap) are created and finish while every release of the
    # count fails: each creation past the cap finds the count stale and reconciles it.
    for _ in range(7):
        rid, _view = _start(env, a, b)
        env.faulty["store"].arm_operation("update_item", STORE_ERRORS["Throttling"], is_release)
        env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, a)
        assert env.faulty["store"].failed == ["update_item"] * 3  # tried, retried, given up
        env.disarm()
    stale = env.store.open_rooms(a_id)
    assert stale, "the releases were meant to fail"
    assert all(env.ok("GET", f"/rooms/{r}")["status"] == "finished" for r in stale)
    # The stale count is reconciled with the rooms when it refuses: alice is not locked out.
    created = [env.call("POST", "/rooms", {}, a) for _ in range(5)]
    assert [c[0] for c in created] == [201] * 5
    status, _, answer = env.call("POST", "/rooms", {}, a)
    assert (status, answer["error"]["code"]) == (429, "room_limit_reached")  # five really open


def test_leaving_a_room_frees_its_slot_even_when_the_release_failed(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    monkeypatch.setenv("MAX_ROOMS_PER_USER", "1")
    reset_settings()
    (a, _), (b, _) = _user(env, "alice"), _user(env, "bobby")
    rid = env.ok("POST", "/rooms", {}, a)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.faulty["store"].arm_operation(
        "update_item",
        STORE_ERRORS["InternalServerError"],
        lambda kw: kw.get("Key", {}).get("sk", {}).get("S") == "OPENROOMS",
    )
    env.ok("POST", f"/rooms/{rid}/leave", None, a)  # bobby is host now
    env.disarm()
    assert env.call("POST", "/rooms", {}, a)[0] == 201


# --- tokens of users that no longer exist ------------------------------------------------------


def test_the_token_of_a_deleted_user_is_refused_everywhere(faults: FaultEnv) -> None:
    env = faults
    (a, _), (b, b_id) = _user(env, "alice"), _user(env, "bobby")
    rid = env.ok("POST", "/rooms", {}, a)["id"]
    assert env.call("POST", "/realtime/tickets", None, b)[0] == 201
    env.raw_dynamodb.delete_item(
        TableName="liars-fault-test", Key={"pk": {"S": f"USER#{b_id}"}, "sk": {"S": "PROFILE"}}
    )
    for method, path, body in [
        ("POST", "/realtime/tickets", None),
        ("GET", "/me", None),
        ("GET", f"/rooms/{rid}", None),
        ("GET", "/rooms", None),
        ("POST", "/rooms", {}),
        ("POST", f"/rooms/{rid}/join", {}),
        ("POST", f"/rooms/{rid}/tick", None),
        ("PATCH", "/me/preferences", {"continue_mode": "manual"}),
    ]:
        status, _, answer = env.call(method, path, body, b)
        assert (status, answer["error"]["code"]) == (401, "unknown_user"), (method, path, answer)
    # Signing in again (a new guest) is still open to whoever held that token.
    assert env.call("POST", "/auth/guest", {"name": "Back"}, b)[0] == 201
    assert env.call("GET", "/me", None, a)[0] == 200
