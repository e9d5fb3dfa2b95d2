"""Every route under infrastructure faults: 503 with Retry-After or success, never a 500,
never a half-written change (SPEC §10, "Faults answer, they never crash").

For each REST route a scenario prepares fresh rooms, runs the request once cleanly to count the
calls each client makes, and then, for every call of every client, runs it again with that
call and every later one failing, rotating through the AWS errors of that client. A 503
must carry ``Retry-After`` and leave every item of the table as it was (rate-limit windows
aside: an attempt counts); repeating the request without faults must then succeed. A success
(the fault hit an effect: a push, a wake-up, after-commit bookkeeping) must leave the
cross-item invariants whole.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from chalicelib import schemas
from chalicelib.adapters._aws import unavailable
from chalicelib.adapters.dynamo import decode_state
from chalicelib.ports import Unavailable
from tests.faults.conftest import (
    NOTIFIER_ERRORS,
    SCHEDULER_ERRORS,
    STORE_ERRORS,
    FaultEnv,
)

PASSWORD = "correct horse"
ERRORS = {"store": STORE_ERRORS, "scheduler": SCHEDULER_ERRORS, "notifier": NOTIFIER_ERRORS}

# Routes whose change spans items that no one transaction holds, made safe by being idempotent:
# a 503 may leave the first item written, and repeating the request completes it.
CONVERGENT = {
    ("PATCH", "/me/preferences"),  # the preference, then the caller's rooms
    ("POST", "/rooms/{room_id}/invitations"),  # the room's invited list, then the invitation
    # a subscription or device and the user's index of them; repeating stores the rest
    ("POST", "/me/push-subscriptions"),
    ("DELETE", "/me/push-subscriptions"),
    ("POST", "/me/devices"),
    ("DELETE", "/me/devices"),
}
RETRIED_STATUS = {
    # a repeated registration answers "already stored" (200), as documented
    ("POST", "/me/push-subscriptions"): 200,
    ("POST", "/me/devices"): 200,
}
STORE_FREE = {
    # the public key is derived from the server's secret, not read from the store: store
    # faults never reach it, and it must answer through them
    ("GET", "/push/vapid-public-key"),
}


@dataclass
class Req:
    """A prepared request and the status it answers without faults."""

    method: str
    path: str
    body: Any
    token: str | None
    status: int


@dataclass
class Users:
    """Registered users shared by a route's cases: (token, id) each."""

    host: tuple[str, str]
    p2: tuple[str, str]
    p3: tuple[str, str]


Prepare = Callable[[FaultEnv, Users], Req]


def _register(env: FaultEnv, name: str) -> tuple[str, str]:
    out = env.ok("POST", "/auth/register", {"username": name, "password": PASSWORD})
    return out["token"], out["user"]["id"]


_fresh = iter(range(1_000_000))


def _watch(env: FaultEnv, rid: str) -> None:
    """A signed-out spectator watches the room, so changes are pushed through the notifier."""
    conn = f"c{next(_fresh)}"
    env.store.put_connection(conn, None, env.clock.now_ms())
    env.store.subscribe(conn, rid)


def _room(env: FaultEnv, u: Users, settings: dict[str, Any] | None = None) -> str:
    rid: str = env.ok("POST", "/rooms", {"settings": settings or {}}, u.host[0])["id"]
    _watch(env, rid)
    return rid


def _joined(env: FaultEnv, u: Users) -> str:
    rid = _room(env, u)
    env.ok("POST", f"/rooms/{rid}/join", {}, u.p2[0])
    return rid


def _started(env: FaultEnv, u: Users) -> tuple[str, dict[str, Any]]:
    rid = _joined(env, u)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, u.p2[0])
    view: dict[str, Any] = env.ok("POST", f"/rooms/{rid}/start", None, u.host[0])
    return rid, view


def _requested(env: FaultEnv, u: Users) -> str:
    rid = _room(env, u, {"joining": "approval"})
    env.ok("POST", f"/rooms/{rid}/join", {}, u.p2[0])
    return rid


def _act(env: FaultEnv, u: Users) -> Req:
    rid, view = _started(env, u)
    turn = view["game"]["turn"]
    mover = u.host if view["me"]["player_id"] == turn["player_id"] else u.p2
    action = {"type": "bid", "quantity": 1, "face": 3, "turn": turn["number"]}
    return Req("POST", f"/rooms/{rid}/actions", action, mover[0], 200)


def _tick(env: FaultEnv, u: Users) -> Req:
    rid, _ = _started(env, u)
    env.clock.advance(10 * 60_000)  # the turn's deadline passed: the tick writes
    return Req("POST", f"/rooms/{rid}/tick", None, None, 200)


def _recreate(env: FaultEnv, u: Users) -> Req:
    rid, _ = _started(env, u)
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, u.host[0])
    return Req("POST", f"/rooms/{rid}/recreate", None, u.p2[0], 201)


def _remove_bot(env: FaultEnv, u: Users) -> Req:
    rid = _room(env, u)
    view = env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, u.host[0])
    bot = next(p["id"] for p in view["players"] if "level" in p)
    return Req("DELETE", f"/rooms/{rid}/bots/{bot}", None, u.host[0], 200)


def _elo(env: FaultEnv, u: Users) -> Req:
    rid, view = _started(env, u)
    order = [p["id"] for p in view["players"]]
    return Req("POST", f"/rooms/{rid}/elo-preview", {"order": order}, u.host[0], 200)


def _history(env: FaultEnv, u: Users) -> Req:
    rid, _ = _started(env, u)
    env.clock.advance(10 * 60_000)  # every turn times out: rounds are completed and recorded
    env.ok("POST", f"/rooms/{rid}/tick", None, None)
    return Req("GET", f"/rooms/{rid}/history", None, None, 200)


def _preferences(env: FaultEnv, u: Users) -> Req:
    _joined(env, u)
    mode = "manual" if next(_fresh) % 2 else "auto"
    return Req("PATCH", "/me/preferences", {"continue_mode": mode}, u.p2[0], 200)


QUICKPLAY_TTL_MS = 7 * 3600 * 1000
"""Past a matched quick-play ticket's life (6 h): its users may play again."""


def _quickplay_match(env: FaultEnv, u: Users) -> Req:
    """Play now that completes a poker duel: one claim writes both tickets and the room."""
    env.clock.advance(QUICKPLAY_TTL_MS)
    env.ok("POST", "/quickplay", {"rules": "poker"}, u.p2[0])
    return Req("POST", "/quickplay", {"rules": "poker"}, u.host[0], 202)


def _quickplay_waiting(env: FaultEnv, u: Users) -> Req:
    env.clock.advance(QUICKPLAY_TTL_MS)
    env.ok("POST", "/quickplay", {"rules": "classic"}, u.host[0])
    return Req("GET", "/quickplay", None, u.host[0], 200)


def _quickplay_cancel(env: FaultEnv, u: Users) -> Req:
    env.clock.advance(QUICKPLAY_TTL_MS)
    env.ok("POST", "/quickplay", {"rules": "classic"}, u.host[0])
    return Req("DELETE", "/quickplay", None, u.host[0], 204)


def _push_subscription() -> dict[str, Any]:
    """A browser's PushSubscription.toJSON() for a push service on the default allow-list."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )

    def b64u(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    return {
        "endpoint": f"https://fcm.googleapis.com/fcm/send/f{next(_fresh)}",
        "expirationTime": None,
        "keys": {"p256dh": b64u(point), "auth": b64u(os.urandom(16))},
    }


def _subscribe(env: FaultEnv, u: Users) -> Req:
    return Req("POST", "/me/push-subscriptions", _push_subscription(), u.host[0], 201)


def _unsubscribe(env: FaultEnv, u: Users) -> Req:
    sub = _push_subscription()
    env.ok("POST", "/me/push-subscriptions", sub, u.host[0])
    return Req("DELETE", "/me/push-subscriptions", {"endpoint": sub["endpoint"]}, u.host[0], 204)


def _device_token() -> str:
    return f"fcm-token-{next(_fresh):08d}"


def _add_device(env: FaultEnv, u: Users) -> Req:
    body = {"platform": "fcm", "token": _device_token()}
    return Req("POST", "/me/devices", body, u.host[0], 201)


def _remove_device(env: FaultEnv, u: Users) -> Req:
    token = _device_token()
    env.ok("POST", "/me/devices", {"platform": "fcm", "token": token}, u.host[0])
    return Req("DELETE", "/me/devices", {"token": token}, u.host[0], 204)


def _my_games(env: FaultEnv, u: Users) -> Req:
    _started(env, u)
    return Req("GET", "/me/games", None, u.p2[0], 200)


SCENARIOS: dict[tuple[str, str], Prepare] = {
    ("POST", "/auth/guest"): lambda e, u: Req("POST", "/auth/guest", {"name": "Gus"}, None, 201),
    ("POST", "/auth/register"): lambda e, u: Req(
        "POST",
        "/auth/register",
        {"username": f"new{next(_fresh)}", "password": PASSWORD},
        None,
        201,
    ),
    ("POST", "/auth/login"): lambda e, u: Req(
        "POST", "/auth/login", {"username": "host", "password": PASSWORD}, None, 200
    ),
    ("GET", "/me"): lambda e, u: Req("GET", "/me", None, u.host[0], 200),
    ("PATCH", "/me/preferences"): _preferences,
    ("POST", "/realtime/tickets"): lambda e, u: Req(
        "POST", "/realtime/tickets", None, u.host[0], 201
    ),
    ("GET", "/rooms"): lambda e, u: Req("GET", "/rooms", None, u.host[0], 200),
    ("POST", "/rooms"): lambda e, u: Req("POST", "/rooms", {}, u.host[0], 201),
    ("GET", "/rooms/{room_id}"): lambda e, u: Req(
        "GET", f"/rooms/{_started(e, u)[0]}", None, u.p2[0], 200
    ),
    ("PATCH", "/rooms/{room_id}/settings"): lambda e, u: Req(
        "PATCH", f"/rooms/{_room(e, u)}/settings", {"turn_seconds": 60}, u.host[0], 200
    ),
    ("POST", "/rooms/{room_id}/join"): lambda e, u: Req(
        "POST", f"/rooms/{_room(e, u)}/join", {}, u.p2[0], 200
    ),
    ("POST", "/rooms/{room_id}/leave"): lambda e, u: Req(
        "POST", f"/rooms/{_joined(e, u)}/leave", None, u.p2[0], 200
    ),
    ("PUT", "/rooms/{room_id}/ready"): lambda e, u: Req(
        "PUT", f"/rooms/{_joined(e, u)}/ready", {"ready": True}, u.p2[0], 200
    ),
    ("POST", "/rooms/{room_id}/requests/{user_id}/approve"): lambda e, u: Req(
        "POST", f"/rooms/{_requested(e, u)}/requests/{u.p2[1]}/approve", None, u.host[0], 200
    ),
    ("POST", "/rooms/{room_id}/requests/{user_id}/deny"): lambda e, u: Req(
        "POST", f"/rooms/{_requested(e, u)}/requests/{u.p2[1]}/deny", None, u.host[0], 200
    ),
    ("POST", "/rooms/{room_id}/invitations"): lambda e, u: Req(
        "POST", f"/rooms/{_room(e, u)}/invitations", {"username": "player3"}, u.host[0], 200
    ),
    ("POST", "/rooms/{room_id}/bots"): lambda e, u: Req(
        "POST", f"/rooms/{_room(e, u)}/bots", {"level": "easy"}, u.host[0], 201
    ),
    ("DELETE", "/rooms/{room_id}/bots/{player_id}"): _remove_bot,
    ("POST", "/rooms/{room_id}/start"): lambda e, u: _start(e, u),
    ("POST", "/rooms/{room_id}/actions"): _act,
    ("POST", "/rooms/{room_id}/tick"): _tick,
    ("POST", "/rooms/{room_id}/recreate"): _recreate,
    ("GET", "/rooms/{room_id}/chat"): lambda e, u: Req(
        "GET", f"/rooms/{_room(e, u)}/chat", None, None, 200
    ),
    ("POST", "/rooms/{room_id}/chat"): lambda e, u: Req(
        "POST", f"/rooms/{_room(e, u)}/chat", {"text": "hello"}, u.host[0], 201
    ),
    ("POST", "/rooms/{room_id}/elo-preview"): _elo,
    ("GET", "/rooms/{room_id}/history"): _history,
    ("GET", "/leaderboard"): lambda e, u: Req("GET", "/leaderboard", None, None, 200),
    ("GET", "/users/{username}"): lambda e, u: Req("GET", "/users/host", None, None, 200),
    ("POST", "/quickplay"): _quickplay_match,
    ("GET", "/quickplay"): _quickplay_waiting,
    ("DELETE", "/quickplay"): _quickplay_cancel,
    ("GET", "/me/games"): _my_games,
    ("GET", "/push/vapid-public-key"): lambda e, u: Req(
        "GET", "/push/vapid-public-key", None, None, 200
    ),
    ("POST", "/me/push-subscriptions"): _subscribe,
    ("DELETE", "/me/push-subscriptions"): _unsubscribe,
    ("POST", "/me/devices"): _add_device,
    ("DELETE", "/me/devices"): _remove_device,
}


def _start(env: FaultEnv, u: Users) -> Req:
    rid = _joined(env, u)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, u.p2[0])
    return Req("POST", f"/rooms/{rid}/start", None, u.host[0], 200)


def test_every_route_has_a_fault_scenario() -> None:
    import app  # noqa: F401  (registers the routes)

    assert {(r.method, r.path) for r in schemas.ROUTES} == set(SCENARIOS)


def _state(item: dict[str, Any]) -> dict[str, Any]:
    return decode_state(item)  # plain or compressed with the preset dictionary


def assert_invariants(snapshot: dict[tuple[str, str], Any]) -> None:
    """What no fault may break: every pointer and every count refers to a room that exists."""
    rooms = {pk[len("ROOM#") :] for pk, sk in snapshot if sk == "ROOM"}
    for (pk, sk), item in snapshot.items():
        if sk == "ROOM":
            target = _state(item).get("recreated_as")
            assert target is None or target in rooms, f"{pk} points to missing room {target}"
        if sk == "OPENROOMS":
            missing = set(item.get("rooms", {}).get("SS", [])) - rooms
            assert not missing, f"{pk} counts rooms that do not exist: {missing}"


def _cases(calls: int, client: str) -> list[tuple[int, bool]]:
    # From the failing call on, every call fails: the server's own retries cannot absorb it
    # (they are proved to absorb a passing fault in test_repairs and test_realtime_faults).
    return [(i, True) for i in range(1, calls + 1)]


INVITE = ("POST", "/rooms/{room_id}/invitations")
# Routes that count attempts per window: each case starts in a new window.
# Routes with a per-window limit: each fault case starts a new window, so the number of cases
# never runs into the limit (tickets: 20 a minute; room creations: 30 an hour; lobby actions:
# 30 per 10 s per user, and a lobby route is replayed 12 to 20 times by one user).
RATE_LIMITED = {
    ("POST", "/auth/login"),
    ("POST", "/rooms/{room_id}/chat"),
    ("POST", "/realtime/tickets"),
    ("POST", "/rooms"),
    # lobby actions (LOBBY_ACTIONS_PER_USER)
    ("PATCH", "/me/preferences"),
    ("PATCH", "/rooms/{room_id}/settings"),
    ("POST", "/rooms/{room_id}/join"),
    ("POST", "/rooms/{room_id}/leave"),
    ("PUT", "/rooms/{room_id}/ready"),
    ("POST", "/rooms/{room_id}/requests/{user_id}/approve"),
    ("POST", "/rooms/{room_id}/requests/{user_id}/deny"),
    ("POST", "/rooms/{room_id}/invitations"),
    ("POST", "/rooms/{room_id}/bots"),
    ("DELETE", "/rooms/{room_id}/bots/{player_id}"),
    ("POST", "/rooms/{room_id}/start"),
    # quick play (QUICKPLAY_ACTIONS_PER_USER)
    ("POST", "/quickplay"),
    ("DELETE", "/quickplay"),
}


@pytest.mark.parametrize("route", sorted(SCENARIOS), ids=lambda r: f"{r[0]} {r[1]}")
def test_route_under_faults_answers_503_or_succeeds_and_never_half_writes(
    faults: FaultEnv, route: tuple[str, str]
) -> None:
    env = faults
    invitee = _register(env, "player3") if route == INVITE else ("", "")
    users = Users(_register(env, "host"), _register(env, "player2"), invitee)
    prepare = SCENARIOS[route]

    def fresh() -> Req:
        env.disarm()
        req = prepare(env, users)
        env.disarm()
        return req

    clean = fresh()
    status, _, answer = env.call(clean.method, clean.path, clean.body, clean.token)
    assert status == clean.status, answer
    counts = {name: len(f.calls) for name, f in env.faulty.items()}
    if route in STORE_FREE:
        assert counts["store"] == 0, counts  # nothing a store fault could reach
        return
    assert counts["store"] > 0
    seen: dict[int, int] = {}
    rotation = 0
    req, before = fresh(), env.snapshot()
    for client, calls in counts.items():
        errors = list(ERRORS[client].items())
        for fail_at, persistent in _cases(calls, client):
            if route in RATE_LIMITED:
                env.clock.advance(3_600_000)  # a new window for the route's rate limit
            label, error = errors[rotation % len(errors)]
            rotation += 1
            env.faulty[client].arm(fail_at, error, persistent=persistent)
            status, headers, answer = env.call(req.method, req.path, req.body, req.token)
            hit = list(env.faulty[client].failed)
            env.disarm()
            case = (client, fail_at, persistent, label, hit)
            seen[status] = seen.get(status, 0) + 1
            assert status in (req.status, 503), (case, status, answer)
            after = env.snapshot()
            assert_invariants(after)
            if status == 503:
                assert answer["error"]["code"] == "unavailable", (case, answer)
                assert int(headers["Retry-After"]) >= 1, (case, headers)
                if after == before:
                    continue  # nothing happened: the same request serves the next case
                assert route in CONVERGENT, f"half-written under {case}"
                # Repeating the request completes what the fault interrupted.
                status, _, answer = env.call(req.method, req.path, req.body, req.token)
                retried = RETRIED_STATUS.get(route, req.status)
                assert status == retried, ("a retry after the fault failed", case, answer)
            req, before = fresh(), env.snapshot()
    # Whatever 503s came before left the state as prepared: the request now succeeds.
    if route in RATE_LIMITED:
        env.clock.advance(3_600_000)
    status, _, answer = env.call(req.method, req.path, req.body, req.token)
    assert status == req.status, ("a retry after the faults failed", answer)
    # The store's faults reached the request's own path at least once (a real 503).
    assert seen.get(503, 0) > 0, seen


def test_each_store_error_on_the_room_write_of_a_move_is_a_503_that_changes_nothing(
    faults: FaultEnv,
) -> None:
    env = faults
    users = Users(_register(env, "host"), _register(env, "player2"), ("", ""))
    req = _act(env, users)
    before = env.snapshot()
    for label, error in STORE_ERRORS.items():
        env.faulty["store"].arm_operation("update_item", error)
        status, headers, answer = env.call(req.method, req.path, req.body, req.token)
        assert env.faulty["store"].failed == ["update_item"], label
        env.disarm()
        assert (status, answer["error"]["code"]) == (503, "unavailable"), (label, answer)
        assert int(headers["Retry-After"]) >= 1, label
        assert env.snapshot() == before, label
    assert env.call(req.method, req.path, req.body, req.token)[0] == 200


@pytest.mark.parametrize(
    ("code", "status", "reason"),
    [
        ("ProvisionedThroughputExceededException", 400, "throttled"),
        ("ThrottlingException", 400, "throttled"),
        ("RequestLimitExceeded", 400, "throttled"),
        ("LimitExceededException", 429, "throttled"),
        ("InternalServerError", 500, "failed"),
        ("ServiceUnavailable", 503, "failed"),
        ("SomethingNew", 502, "failed"),
        ("TransactionConflictException", 400, "conflict"),
    ],
)
def test_aws_fault_codes_become_unavailable(code: str, status: int, reason: str) -> None:
    from tests.faults.conftest import client_error

    err = unavailable(client_error(code, status)("PutItem"))
    assert isinstance(err, Unavailable) and err.reason == reason and err.retry_after >= 1


def test_meaningful_aws_errors_are_left_to_the_adapters() -> None:
    from tests.faults.conftest import client_error

    for code in ("ConditionalCheckFailedException", "GoneException", "ConflictException"):
        assert unavailable(client_error(code, 400)("PutItem")) is None
    cancelled = client_error(
        "TransactionCanceledException",
        400,
        CancellationReasons=[{"Code": "ConditionalCheckFailed"}, {"Code": "TransactionConflict"}],
    )("TransactWriteItems")
    assert unavailable(cancelled) is None


def test_a_throttled_secret_lookup_is_unavailable_not_a_crash() -> None:
    from chalicelib.adapters.secrets import fetch_token_secret, reset_secret_cache
    from chalicelib.settings import Settings
    from tests.faults.conftest import client_error

    class Throttled:
        def get_secret_value(self, **_: Any) -> Any:
            raise client_error("ThrottlingException", 400)("GetSecretValue")

    reset_secret_cache()
    settings = Settings(token_secret_arn="arn:aws:secretsmanager:us-east-1:1:secret:x")
    with pytest.raises(Unavailable):
        fetch_token_secret(settings, client=Throttled())
    reset_secret_cache()
