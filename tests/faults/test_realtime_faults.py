"""WebSocket handlers and the room timer under infrastructure faults: an ``unavailable`` error
message (never ``internal_error``), a 503 handshake (never a 500), and a timer that retries
what it can and otherwise fails its invocation without writing half a change."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.ports import Unavailable
from tests.faults.conftest import STORE_ERRORS, FaultEnv

PASSWORD = "correct horse"


def _started_room(env: FaultEnv) -> tuple[str, str, dict[str, Any]]:
    host = env.ok("POST", "/auth/register", {"username": "host", "password": PASSWORD})["token"]
    p2 = env.ok("POST", "/auth/register", {"username": "player2", "password": PASSWORD})["token"]
    rid = env.ok("POST", "/rooms", {}, host)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, p2)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, p2)
    view = env.ok("POST", f"/rooms/{rid}/start", None, host)
    return rid, host, view


def _pushed(env: FaultEnv, connection_id: str) -> list[Any]:
    return env.pushes.messages_for(connection_id)  # type: ignore[attr-defined, no-any-return]


def _store_calls(env: FaultEnv, run: Any) -> int:
    env.disarm()
    run()
    calls = len(env.faulty["store"].calls)
    env.disarm()
    return calls


def test_connect_under_store_faults_is_refused_with_503_never_500(faults: FaultEnv) -> None:
    env = faults
    host = env.ok("POST", "/auth/register", {"username": "host", "password": PASSWORD})["token"]

    def connect(conn: str) -> int:
        ticket = env.ok("POST", "/realtime/tickets", None, host)["ticket"]
        env.disarm()
        payload = env.ws(conn, "$connect", query={"ticket": ticket}).payload
        return int(payload["statusCode"])

    calls = _store_calls(env, lambda: connect("clean"))
    assert calls >= 2
    for fail_at in range(1, calls + 1):
        for i, (label, error) in enumerate(STORE_ERRORS.items()):
            if i % calls != fail_at - 1:
                continue
            ticket = env.ok("POST", "/realtime/tickets", None, host)["ticket"]
            env.faulty["store"].arm(fail_at, error, persistent=True)
            payload = env.ws(f"c{fail_at}{i}", "$connect", query={"ticket": ticket}).payload
            env.disarm()
            assert payload["statusCode"] == 503, (fail_at, label, payload)
            assert env.store.get_connection(f"c{fail_at}{i}") is None


@pytest.mark.parametrize("action", ["subscribe", "tick"])
def test_messages_under_store_faults_answer_unavailable_never_internal_error(
    faults: FaultEnv, action: str
) -> None:
    env = faults
    rid, _, _ = _started_room(env)
    env.clock.advance(10 * 60_000)  # the turn's deadline passed: answering writes the room
    assert env.ws("watcher", "$connect").payload["statusCode"] == 200
    message = json.dumps({"action": action, "room_id": rid})
    before = env.store.get_room(rid)

    def send() -> list[Any]:
        seen = len(_pushed(env, "watcher"))
        env.ws("watcher", "$default", message)
        return _pushed(env, "watcher")[seen:]

    # Fail each store call in turn (and every one after it) until a fault no longer lands.
    calls = 0
    errors = list(STORE_ERRORS.values())
    fail_at = 1
    unavailable = 0
    while True:
        env.faulty["store"].arm(fail_at, errors[fail_at % len(errors)], persistent=True)
        answer = send()
        failed = list(env.faulty["store"].failed)
        env.disarm()
        if not failed:
            calls = fail_at - 1
            break
        # The answer itself may be lost with the store (the connection's lookup); what is
        # sent is an answer, never an internal error.
        for m in answer:
            assert m["type"] in ("room", "error"), m
            if m["type"] == "error":
                assert m["error"]["code"] == "unavailable", m
                assert m["retry_after"] >= 1
                unavailable += 1
        if answer and answer[0]["type"] == "error":
            assert env.store.get_room(rid) == before, "half-written under a fault"
        else:
            before = env.store.get_room(rid)
        fail_at += 1
    assert calls >= 3 and unavailable >= 1
    [room] = send()
    assert room["type"] == "room"


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_timer_retries_a_passing_fault_and_applies_the_deadline(
    faults: FaultEnv, fail_at: int
) -> None:
    env = faults
    rid, _, view = _started_room(env)
    env.clock.advance(10 * 60_000)
    # One store call of the timer (read, write, subscribers) fails once: the retry absorbs it.
    errors = list(STORE_ERRORS.values())
    env.faulty["store"].arm(fail_at, errors[fail_at], persistent=False)
    result = env.client.lambda_.invoke("room_timer", {"room_id": rid, "version": view["version"]})
    assert env.faulty["store"].failed
    env.disarm()
    assert result.payload["version"] == view["version"] + 1, result.payload
    stored = env.store.get_room(rid)
    assert stored is not None and stored.version == view["version"] + 1


def test_timer_under_a_lasting_fault_fails_the_invocation_and_writes_nothing(
    faults: FaultEnv,
) -> None:
    env = faults
    rid, _, view = _started_room(env)
    env.clock.advance(10 * 60_000)
    before = env.store.get_room(rid)
    env.faulty["store"].arm(2, STORE_ERRORS["Throttling"], persistent=True)  # the room's write
    with pytest.raises(Unavailable):
        env.client.lambda_.invoke("room_timer", {"room_id": rid, "version": view["version"]})
    env.disarm()
    assert env.store.get_room(rid) == before
    # Lambda's asynchronous retry (here: the next delivery) applies it.
    result = env.client.lambda_.invoke("room_timer", {"room_id": rid, "version": view["version"]})
    assert result.payload["version"] == view["version"] + 1
