"""Races: many threads answer the same turn at once; the conditional write is the only guard.

Chalice's test client keeps ``app.current_request`` on the shared app object, so concurrent
requests through it would mix up their requests; the threads call the service layer the routes
call (the same code path after parsing). Every call into moto holds one lock (see conftest).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from chalicelib.engine.errors import DomainError
from chalicelib.errors import domain_status, service_status
from chalicelib.service import Caller, Service, lobby, play
from chalicelib.service.errors import Clash, ServiceError
from tests.api.conftest import Env

THREADS = 16


def _race(
    service: Service, caller: Caller, room_id: str, actions: list[dict[str, Any]]
) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(len(actions))

    def run(action: dict[str, Any]) -> None:
        barrier.wait()
        try:
            play.act(service, caller, room_id, action)
            result = "applied"
        except ServiceError as e:
            result = f"{service_status(e)}:{e.code}"
        except DomainError as e:
            result = f"{domain_status(e)}:{e.code}"
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=run, args=(a,)) for a in actions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_conflicting_actions_for_one_turn_apply_exactly_once(api_env: Env) -> None:
    env = api_env
    ta, ua = env.register("racea")
    tb, ub = env.register("raceb")
    rid = env.ok("POST", "/rooms", {"settings": {"starting_dice": 10}}, ta, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, tb)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, tb)
    view = env.ok("POST", f"/rooms/{rid}/start", None, ta)
    start_version = view["version"]
    callers = {
        p["id"]: Caller(u["id"], u["name"], False)
        for p in view["players"]
        for u in (ua, ub)
        if p["user_id"] == u["id"]
    }
    service = Service(env.deps)
    applied = 0
    conflicts: Counter[str] = Counter()
    for step in range(6):
        game = env.ok("GET", f"/rooms/{rid}", None)["game"]
        turn = game["turn"]
        caller = callers[turn["player_id"]]
        base = game["current_bid"]["quantity"] if game["current_bid"] else 0
        # sixteen different legal raises for the same turn, plus a Liar! call once a bid exists
        actions: list[dict[str, Any]] = [
            {
                "type": "bid",
                "quantity": base + 1 + i // 6,
                "face": 1 + i % 6,
                "turn": turn["number"],
            }
            for i in range(THREADS)
        ]
        if step > 0:
            actions[-1] = {"type": "liar", "turn": turn["number"]}
        outcomes = _race(service, caller, rid, actions)
        assert outcomes["applied"] == 1, outcomes
        assert sum(outcomes.values()) == THREADS
        for key, n in outcomes.items():
            if key != "applied":
                assert key.startswith("409:"), outcomes
                conflicts[key] += n
        applied += 1
        if env.ok("GET", f"/rooms/{rid}", None)["game"]["phase"] != "bidding":
            break
    stored = env.store.get_room(rid)
    assert stored is not None
    assert stored.version == start_version + applied
    assert sum(conflicts.values()) == applied * (THREADS - 1)


def test_a_lost_write_answers_409_with_the_current_view(api_env: Env) -> None:
    env = api_env
    ta, ua = env.register("lossa")
    tb, _ = env.register("lossb")
    rid = env.ok("POST", "/rooms", {}, ta, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, tb)
    service = Service(env.deps)
    real_save = env.store.save_room

    def save_after_someone_else(*args: Any, **kwargs: Any) -> int:
        # another writer gets in between this request's read and its write
        env.store.save_room = real_save  # type: ignore[method-assign]
        stored = env.store.get_room(rid)
        assert stored is not None
        real_save(rid, stored.state, {"status": "waiting"}, stored.version)
        return real_save(*args, **kwargs)

    env.store.save_room = save_after_someone_else  # type: ignore[method-assign]
    try:
        lobby.set_ready(service, Caller(ua["id"], ua["name"], False), rid, False)
        raise AssertionError("the lost write was not refused")
    except Clash as e:
        assert service_status(e) == 409 and e.code == "conflict"
        assert e.room is not None and e.room["version"] == 3
        assert e.room["players"][0]["ready"] is True
    finally:
        env.store.save_room = real_save  # type: ignore[method-assign]
    assert env.store.get_room(rid).version == 3  # type: ignore[union-attr]
