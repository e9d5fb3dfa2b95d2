"""Limits an attacker cannot multiply (SPEC §10): per room, per source address, per invitee.

Requests carry a source address as API Gateway's ``requestContext.identity.sourceIp``; here
``from_address`` sets the address Chalice's test gateway puts there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import jwt
import pytest

from chalicelib.service import source_key
from chalicelib.settings import Settings, reset_settings
from tests.api.conftest import Env
from tests.offline_aws import SECRET

DEFAULTS = Settings()


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # many accounts: argon2 at its minimum cost


def _code(resp: Any) -> tuple[int, str]:
    return resp.status_code, resp.json["error"]["code"]


@contextmanager
def from_address(env: Env, ip: str) -> Iterator[None]:
    """Requests inside come from ``ip`` (the event's requestContext.identity.sourceIp)."""
    converter = env.client.http._local_gateway.event_converter
    converter.LOCAL_SOURCE_IP = ip
    try:
        yield
    finally:
        del converter.LOCAL_SOURCE_IP


def register_from(env: Env, username: str, ip: str) -> str:
    with from_address(env, ip):
        token: str = env.register(username)[0]
    return token


def passcode_room(env: Env, host: str, code: str = "4321") -> str:
    settings = {"joining": "passcode", "passcode": code}
    rid: str = env.ok("POST", "/rooms", {"settings": settings}, host, 201)["id"]
    return rid


# --- passcodes -------------------------------------------------------------------------------


def test_passcode_brute_force_from_40_fresh_accounts_is_refused_room_wide(api_env: Env) -> None:
    env = api_env
    host = register_from(env, "host", "198.51.100.1")
    rid = passcode_room(env, host, "9999")
    # 40 fresh accounts, each from its own address, each within its own per-user limit
    guessers = [register_from(env, f"attacker{i}", f"203.0.113.{i + 1}") for i in range(40)]
    answers = []
    guess = 0
    for token in guessers:
        for _ in range(DEFAULTS.passcode_max_attempts):
            answers.append(
                _code(env.call("POST", f"/rooms/{rid}/join", {"passcode": f"{guess:04d}"}, token))
            )
            guess += 1
    allowed = DEFAULTS.passcode_room_max_attempts
    assert answers[:allowed] == [(403, "wrong_passcode")] * allowed
    assert set(answers[allowed:]) == {(429, "rate_limited")}
    # the right code is refused too while the room's budget is spent (no oracle)
    fresh = register_from(env, "latecomer", "192.0.2.77")
    assert _code(env.call("POST", f"/rooms/{rid}/join", {"passcode": "9999"}, fresh)) == (
        429,
        "rate_limited",
    )
    assert len(env.ok("GET", f"/rooms/{rid}")["players"]) == 1
    # the window passes: the rightful guest of the room gets in
    env.clock.advance(DEFAULTS.passcode_room_window_seconds * 1000)
    assert env.ok("POST", f"/rooms/{rid}/join", {"passcode": "9999"}, fresh)["me"]["player_id"]


def test_right_passcodes_do_not_spend_the_rooms_budget(api_env: Env) -> None:
    env = api_env
    host = register_from(env, "host", "198.51.100.1")
    rid = passcode_room(env, host, "2468")
    n = DEFAULTS.passcode_room_max_attempts + 2
    players = [register_from(env, f"friend{i}", f"198.51.100.{i + 10}") for i in range(n)]
    for token in players:
        assert env.ok("POST", f"/rooms/{rid}/join", {"passcode": "2468"}, token)["me"]["player_id"]
    assert len(env.ok("GET", f"/rooms/{rid}")["players"]) == n + 1


def test_recreating_a_room_keeps_its_passcode_attempt_count(api_env: Env) -> None:
    env = api_env
    host = register_from(env, "host", "198.51.100.1")
    friend = register_from(env, "friend", "198.51.100.2")
    rid = passcode_room(env, host, "1357")
    env.ok("POST", f"/rooms/{rid}/join", {"passcode": "1357"}, friend)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, friend)
    attackers = [register_from(env, f"attacker{i}", f"203.0.113.{i + 1}") for i in range(5)]
    spent = DEFAULTS.passcode_room_max_attempts - 2
    for i in range(spent):
        token = attackers[i // DEFAULTS.passcode_max_attempts]
        assert _code(env.call("POST", f"/rooms/{rid}/join", {"passcode": "0000"}, token)) == (
            403,
            "wrong_passcode",
        )
    env.ok("POST", f"/rooms/{rid}/start", None, host)
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, friend)
    assert env.ok("GET", f"/rooms/{rid}")["status"] == "finished"
    new_rid = env.ok("POST", f"/rooms/{rid}/recreate", None, host, 201)["id"]
    assert new_rid != rid
    late = attackers[-1]
    answers = [
        _code(env.call("POST", f"/rooms/{new_rid}/join", {"passcode": f"{n:04d}"}, late))
        for n in range(3)
    ]
    assert answers == [(403, "wrong_passcode")] * 2 + [(429, "rate_limited")]


# --- login -------------------------------------------------------------------------------------


def test_owner_signs_in_from_another_address_after_10_wrong_tries(api_env: Env) -> None:
    env = api_env
    register_from(env, "owner", "198.51.100.5")
    wrong = {"username": "owner", "password": "not the password"}
    right = {"username": "owner", "password": "correct horse"}
    with from_address(env, "203.0.113.66"):
        tries = [_code(env.call("POST", "/auth/login", wrong)) for _ in range(10)]
        assert tries == [(401, "bad_credentials")] * 10
        # that source is slowed down, also for the right password (no oracle)...
        assert _code(env.call("POST", "/auth/login", right)) == (429, "rate_limited")
    # ...but the owner, elsewhere, is not: the right password from another address works,
    # and keeps working while the attacker keeps trying
    for _ in range(3):
        with from_address(env, "198.51.100.5"):
            assert env.ok("POST", "/auth/login", right)["user"]["name"] == "owner"
        with from_address(env, "203.0.113.66"):
            assert env.call("POST", "/auth/login", wrong).status_code == 429


def test_login_is_limited_per_source_across_usernames(api_env: Env) -> None:
    env = api_env
    limit = DEFAULTS.login_source_max_attempts
    with from_address(env, "203.0.113.9"):
        answers = [
            _code(env.call("POST", "/auth/login", {"username": f"victim{i}", "password": "x" * 9}))
            for i in range(limit + 1)
        ]
    assert answers[:limit] == [(401, "bad_credentials")] * limit
    assert answers[limit] == (429, "rate_limited")
    with from_address(env, "198.51.100.9"):
        assert env.call(
            "POST", "/auth/login", {"username": "victim0", "password": "x" * 9}
        ).status_code == (401)


def test_successful_sign_ins_do_not_count_against_the_limit(api_env: Env) -> None:
    env = api_env
    register_from(env, "regular", "198.51.100.5")
    with from_address(env, "198.51.100.5"):
        for _ in range(DEFAULTS.login_max_attempts + 5):
            env.ok("POST", "/auth/login", {"username": "regular", "password": "correct horse"})


@pytest.mark.parametrize("password", ["", "x", "short", "1234567", "y" * 200])
def test_wrong_password_is_401_whatever_its_length(api_env: Env, password: str) -> None:
    env = api_env
    env.register("someone")
    answer = env.call("POST", "/auth/login", {"username": "someone", "password": password})
    assert _code(answer) == (401, "bad_credentials")
    assert "password" not in answer.json["error"].get("field", "")


# --- registration and guests ---------------------------------------------------------------------


def test_registration_from_one_address_is_limited(api_env: Env) -> None:
    env = api_env
    limit = DEFAULTS.register_per_source
    with from_address(env, "203.0.113.20"):
        answers = [
            env.call("POST", "/auth/register", {"username": f"farm{i}", "password": "password1"})
            for i in range(limit + 2)
        ]
    assert [a.status_code for a in answers[:limit]] == [201] * limit
    assert {_code(a) for a in answers[limit:]} == {(429, "too_many_accounts")}
    # nothing was created past the limit
    assert env.store.get_user_by_username(f"farm{limit}") is None
    # another address registers; the window passes and this address may again
    register_from(env, "elsewhere", "198.51.100.20")
    env.clock.advance(DEFAULTS.register_window_seconds * 1000)
    register_from(env, "later", "203.0.113.20")


def test_guest_sign_in_from_one_address_is_limited(api_env: Env) -> None:
    env = api_env
    limit = DEFAULTS.guest_per_source
    with from_address(env, "203.0.113.21"):
        answers = [env.call("POST", "/auth/guest", {}) for _ in range(limit + 2)]
    assert [a.status_code for a in answers[:limit]] == [201] * limit
    assert {_code(a) for a in answers[limit:]} == {(429, "too_many_accounts")}
    with from_address(env, "198.51.100.21"):
        assert env.call("POST", "/auth/guest", {}).status_code == 201


def test_ipv6_sources_count_by_their_64_prefix() -> None:
    assert source_key("2001:db8:1:2:aaaa::1") == source_key("2001:db8:1:2:bbbb::9")
    assert source_key("2001:db8:1:2::1") != source_key("2001:db8:1:3::1")
    assert source_key("::ffff:203.0.113.5") == "203.0.113.5"
    assert source_key("203.0.113.5") == "203.0.113.5"


def test_limits_are_configuration(api_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    env = api_env
    monkeypatch.setenv("GUEST_PER_SOURCE", "2")
    reset_settings()
    with from_address(env, "203.0.113.30"):
        codes = [env.call("POST", "/auth/guest", {}).status_code for _ in range(3)]
    assert codes == [201, 201, 429]


def test_guests_expire_their_record_and_token_together(api_env: Env) -> None:
    env = api_env
    out = env.ok("POST", "/auth/guest", {"name": "Visitor"}, status=201)
    record = env.store.get_user(out["user"]["id"])
    assert record is not None and record.guest
    now_s = env.clock.now_ms() // 1000
    assert record.expires_at_s == now_s + DEFAULTS.guest_ttl_seconds
    item = env.store.client.get_item(
        TableName=env.store.table_name,
        Key={"pk": {"S": f"USER#{record.id}"}, "sk": {"S": "PROFILE"}},
    )["Item"]
    assert int(item["expires_at"]["N"]) == now_s + DEFAULTS.guest_ttl_seconds
    ttl = env.store.client.describe_time_to_live(TableName=env.store.table_name)
    assert ttl["TimeToLiveDescription"]["AttributeName"] == "expires_at"
    claims = jwt.decode(out["token"], SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == DEFAULTS.guest_ttl_seconds
    # registered users never expire
    env.register("keeper")
    keeper = env.store.get_user_by_username("keeper")
    assert keeper is not None and keeper.expires_at_s is None


# --- invitations ---------------------------------------------------------------------------------


def test_invitations_are_capped_per_room(api_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    env = api_env
    monkeypatch.setenv("INVITATIONS_PER_ROOM", "3")
    reset_settings()
    host = register_from(env, "host", "198.51.100.1")
    for i in range(4):
        register_from(env, f"pal{i}", f"198.51.100.{i + 2}")
    rid = env.ok("POST", "/rooms", {}, host, 201)["id"]
    for i in range(3):
        env.ok("POST", f"/rooms/{rid}/invitations", {"username": f"pal{i}"}, host)
    # repeating one is harmless; a fourth is refused
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "pal0"}, host)
    refused = env.call("POST", f"/rooms/{rid}/invitations", {"username": "pal3"}, host)
    assert _code(refused) == (429, "too_many_invitations")
    assert refused.json["error"]["field"] == "username"
    assert env.ok("GET", "/me", None, register_login(env, "pal3"))["invitations"] == []


def register_login(env: Env, username: str) -> str:
    token: str = env.ok("POST", "/auth/login", {"username": username, "password": "correct horse"})[
        "token"
    ]
    return token


def test_invitations_are_capped_per_invitee(api_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    env = api_env
    monkeypatch.setenv("INVITATIONS_PER_USER", "2")
    reset_settings()
    victim = register_from(env, "victim", "198.51.100.1")
    rooms = []
    for i in range(3):
        host = register_from(env, f"spammer{i}", f"203.0.113.{i + 1}")
        rid = env.ok("POST", "/rooms", {}, host, 201)["id"]
        rooms.append(rid)
        answer = env.call("POST", f"/rooms/{rid}/invitations", {"username": "victim"}, host)
        assert answer.status_code == (200 if i < 2 else 429)
    held = env.ok("GET", "/me", None, victim)["invitations"]
    assert sorted(i["room_id"] for i in held) == sorted(rooms[:2])


def test_invitations_disappear_with_their_room(api_env: Env) -> None:
    env = api_env
    host = register_from(env, "host", "198.51.100.1")
    friend = register_from(env, "friend", "198.51.100.2")
    invitee = register_from(env, "invitee", "198.51.100.3")
    started = env.ok("POST", "/rooms", {}, host, 201)["id"]
    env.ok("POST", f"/rooms/{started}/join", {}, friend)
    env.ok("PUT", f"/rooms/{started}/ready", {"ready": True}, friend)
    env.ok("POST", f"/rooms/{started}/invitations", {"username": "invitee"}, host)
    closer = register_from(env, "closer", "198.51.100.4")
    closed = env.ok("POST", "/rooms", {}, closer, 201)["id"]
    env.ok("POST", f"/rooms/{closed}/invitations", {"username": "invitee"}, closer)
    waiting = env.ok("POST", "/rooms", {}, friend, 201)["id"]
    env.ok("POST", f"/rooms/{waiting}/invitations", {"username": "invitee"}, friend)
    assert len(env.ok("GET", "/me", None, invitee)["invitations"]) == 3

    env.ok("POST", f"/rooms/{started}/start", None, host)
    env.ok("POST", f"/rooms/{closed}/leave", None, closer)
    assert env.ok("GET", f"/rooms/{closed}")["status"] == "closed"
    # removed from the store when the rooms left waiting, not only hidden
    assert env.store.list_invitations(_user_id(env, "invitee")) == [
        {"room_id": waiting, "host_name": "friend"}
    ]
    assert env.ok("GET", "/me", None, invitee)["invitations"] == [
        {"room_id": waiting, "host_name": "friend"}
    ]


def test_me_lists_no_invitation_to_a_room_that_stopped_waiting(api_env: Env) -> None:
    env = api_env
    host = register_from(env, "host", "198.51.100.1")
    invitee = register_from(env, "invitee", "198.51.100.3")
    rid = env.ok("POST", "/rooms", {}, host, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "invitee"}, host)
    # bookkeeping missed it (the room ended while the removal failed): /me still hides it
    env.ok("POST", f"/rooms/{rid}/leave", None, host)
    env.store.add_invitation(_user_id(env, "invitee"), rid, "host", now_ms=env.clock.now_ms())
    assert env.ok("GET", "/me", None, invitee)["invitations"] == []
    assert env.store.list_invitations(_user_id(env, "invitee")) == []


def _user_id(env: Env, username: str) -> str:
    user = env.store.get_user_by_username(username)
    assert user is not None
    return user.id


def test_every_abuse_limit_is_read_from_the_environment() -> None:
    names = {
        "PASSCODE_ROOM_MAX_ATTEMPTS": "passcode_room_max_attempts",
        "PASSCODE_ROOM_WINDOW_SECONDS": "passcode_room_window_seconds",
        "LOGIN_MAX_ATTEMPTS": "login_max_attempts",
        "LOGIN_SOURCE_MAX_ATTEMPTS": "login_source_max_attempts",
        "LOGIN_WINDOW_SECONDS": "login_window_seconds",
        "REGISTER_PER_SOURCE": "register_per_source",
        "REGISTER_WINDOW_SECONDS": "register_window_seconds",
        "GUEST_PER_SOURCE": "guest_per_source",
        "GUEST_WINDOW_SECONDS": "guest_window_seconds",
        "GUEST_TTL_SECONDS": "guest_ttl_seconds",
        "INVITATIONS_PER_ROOM": "invitations_per_room",
        "INVITATIONS_PER_USER": "invitations_per_user",
    }
    env = {var: str(1000 + i) for i, var in enumerate(names)}
    loaded = Settings.from_env(env)
    assert {attr: getattr(loaded, attr) for attr in names.values()} == {
        attr: 1000 + i for i, attr in enumerate(names.values())
    }
    # and each is documented with its default in the settings module
    import chalicelib.settings as settings_module

    doc = settings_module.__doc__ or ""
    assert all(var in doc for var in names)
