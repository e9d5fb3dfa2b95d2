"""A room write whose answer is lost after it landed (a read timeout, a dropped connection).

botocore retries such a call by itself; the retry of a conditional UpdateItem then finds the
room at the version the first try wrote, and fails its condition. What the adapter sees is a
ConditionalCheckFailedException whose item (``ALL_OLD``) is exactly the write it made: the
change is committed, so the client gets its 200 (not a 409 saying nothing was applied), and
the change's pushes and wake-up happen as for any commit.
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.adapters.scheduler import schedule_name
from tests.faults.conftest import FaultEnv

PASSWORD = "correct horse"


def _user(env: FaultEnv, name: str) -> tuple[str, str]:
    out = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})
    return out["token"], out["user"]["id"]


def _started(env: FaultEnv) -> tuple[str, dict[str, str], dict[str, Any]]:
    host, other = _user(env, "host"), _user(env, "player2")
    rid = env.ok("POST", "/rooms", {}, host[0])["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, other[0])
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other[0])
    view = env.ok("POST", f"/rooms/{rid}/start", None, host[0])
    by_player = {p["id"]: "" for p in view["players"]}
    by_player[view["me"]["player_id"]] = host[0]
    by_player.update({pid: other[0] for pid, tok in by_player.items() if not tok})
    env.store.put_connection("watcher", None, env.clock.now_ms())
    env.store.subscribe("watcher", rid)
    return rid, by_player, view


def _answer_lost_after_landing(env: FaultEnv, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The next room UpdateItem lands, its answer is lost, and botocore sends it again."""
    faulty = env.faulty["store"]
    original = faulty.update_item
    landed: list[int] = []

    def update_item(**params: Any) -> Any:
        if not landed and params["Key"]["pk"]["S"].startswith("ROOM#"):
            original(**params)
            landed.append(1)
        return original(**params)

    monkeypatch.setattr(faulty, "update_item", update_item, raising=False)
    return landed


def _room_pushes(env: FaultEnv) -> list[Any]:
    sent = env.pushes.messages_for("watcher")  # type: ignore[attr-defined]
    return [m for m in sent if m.get("type") == "room"]


def test_a_move_whose_write_answer_was_lost_is_answered_as_applied_and_pushed(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    rid, tokens, view = _started(env)
    turn = view["game"]["turn"]
    bid = {"type": "bid", "quantity": 1, "face": 3, "turn": turn["number"]}
    landed = _answer_lost_after_landing(env, monkeypatch)
    pushed = len(_room_pushes(env))

    status, _, answer = env.call("POST", f"/rooms/{rid}/actions", bid, tokens[turn["player_id"]])

    assert landed, "the fault did not reach the room's write"
    assert status == 200, answer
    stored = env.store.get_room(rid)
    assert stored is not None and answer["version"] == stored.version == view["version"] + 1
    [push] = _room_pushes(env)[pushed:]
    assert push["room"]["version"] == stored.version
    # The new version's wake-up exists: the room does not depend on a client to move on.
    env.scheduler.get_schedule(Name=schedule_name(rid, stored.version), GroupName="default")


def test_a_timeout_applied_by_a_tick_whose_write_answer_was_lost_is_still_pushed(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    rid, _, view = _started(env)
    env.clock.advance(view["settings"]["turn_seconds"] * 1000 + 1)
    landed = _answer_lost_after_landing(env, monkeypatch)
    pushed = len(_room_pushes(env))

    status, _, answer = env.call("POST", f"/rooms/{rid}/tick")

    assert landed and status == 200, answer
    stored = env.store.get_room(rid)
    assert stored is not None and answer["version"] == stored.version == view["version"] + 1
    [push] = _room_pushes(env)[pushed:]
    assert any(e["type"] == "turn_timed_out" for e in push["events"]), push["events"]
