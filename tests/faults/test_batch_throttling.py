"""Batch calls under throttling: DynamoDB answers a throttled BatchGetItem or BatchWriteItem
with success and hands the keys back (``UnprocessedKeys`` / ``UnprocessedItems``) instead of
raising. The store tries again with backoff a few times, then gives up as ``Unavailable``:
a 503 for the client, never a loop that spins until the function times out, and never a
committed move left without its answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.adapters._aws import error_code
from tests.faults.conftest import FaultEnv, client_error

PASSWORD = "correct horse"
SPINNING = 50
"""A batch call asked this often in one request is a loop with no end (the fake then lets
it through, so a failing test ends)."""
BOUNDED = 8


def _user(env: FaultEnv, name: str) -> tuple[str, str]:
    out = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})
    return out["token"], out["user"]["id"]


def _hand_back(
    env: FaultEnv, monkeypatch: pytest.MonkeyPatch, operation: str, times: int
) -> list[int]:
    """``operation`` processes nothing for its first ``times`` calls (as when throttled)."""
    faulty = env.faulty["store"]
    original = getattr(faulty, operation)
    calls: list[int] = []
    leftover = "UnprocessedKeys" if operation == "batch_get_item" else "UnprocessedItems"

    def throttled(**params: Any) -> Any:
        calls.append(1)
        if len(calls) <= times and len(calls) < SPINNING:
            # Everything handed back, in another order than asked (as DynamoDB may).
            back = {
                table: {**asked, "Keys": asked["Keys"][::-1]}
                if isinstance(asked, dict)
                else asked[::-1]
                for table, asked in params["RequestItems"].items()
            }
            return {"Responses": {}, leftover: back}
        return original(**params)

    monkeypatch.setattr(faulty, operation, throttled, raising=False)
    return calls


def test_a_read_whose_batch_stays_throttled_is_a_503_after_a_few_tries(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    token, _ = _user(env, "host")
    calls = _hand_back(env, monkeypatch, "batch_get_item", times=10**6)

    status, headers, answer = env.call("GET", "/me", None, token)

    assert len(calls) <= BOUNDED, f"{len(calls)} BatchGetItem calls for one request"
    assert (status, answer["error"]["code"]) == (503, "unavailable"), answer
    assert int(headers["Retry-After"]) >= 1


def test_a_read_whose_batch_is_handed_back_once_is_tried_again(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    token, _ = _user(env, "host")
    calls = _hand_back(env, monkeypatch, "batch_get_item", times=1)

    status, _, answer = env.call("GET", "/me", None, token)

    assert status == 200 and answer["user"]["name"] == "host", answer
    assert len(calls) == 2


def test_pruning_a_gone_connection_under_throttling_does_not_hold_up_the_move(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = faults
    (host, _), (other, _) = _user(env, "host"), _user(env, "player2")
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, other)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other)
    view = env.ok("POST", f"/rooms/{rid}/start", None, host)
    # A watcher whose connection is gone (410): the push prunes it and its subscriptions.
    env.store.put_connection("gone", None, env.clock.now_ms())
    env.store.subscribe("gone", rid)
    env.faulty["notifier"].arm_operation("post_to_connection", client_error("GoneException", 410))
    calls = _hand_back(env, monkeypatch, "batch_write_item", times=10**6)
    turn = view["game"]["turn"]
    mover = host if turn["player_id"] == view["me"]["player_id"] else other
    bid = {"type": "bid", "quantity": 1, "face": 3, "turn": turn["number"]}

    status, _, answer = env.call("POST", f"/rooms/{rid}/actions", bid, mover)

    assert env.faulty["notifier"].failed, "the push did not meet the gone connection"
    assert len(calls) <= BOUNDED, f"{len(calls)} BatchWriteItem calls for one push"
    assert status == 200 and answer["version"] == view["version"] + 1, answer
    assert env.store.get_connection("gone") is None


def test_the_store_gives_up_on_a_handed_back_batch_as_unavailable(
    faults: FaultEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib.ports import Unavailable

    env = faults
    env.store.put_connection("c1", None, env.clock.now_ms())
    env.store.subscribe("c1", "r1")
    env.store.subscribe("c1", "r2")
    calls = _hand_back(env, monkeypatch, "batch_write_item", times=10**6)
    with pytest.raises(Unavailable) as err:
        env.store.delete_connection("c1")
    assert err.value.reason == "throttled" and err.value.retry_after >= 1
    assert len(calls) <= BOUNDED and not error_code(err.value)
