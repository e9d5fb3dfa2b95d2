"""Accounts, preferences, join modes, invitations, chat, limits and the Elo preview over HTTP."""

from __future__ import annotations

import time

import jwt
import pytest

from chalicelib import auth
from tests.api.conftest import Env
from tests.offline_aws import SECRET


def _code(resp: object) -> tuple[int, str]:
    return resp.status_code, resp.json["error"]["code"]  # type: ignore[attr-defined]


def test_register_login_and_duplicate_usernames(api_env: Env) -> None:
    env = api_env
    _, user = env.register("Carol", "s3cret-pass")
    assert user["guest"] is False and user["name"] == "Carol"
    dup = env.call("POST", "/auth/register", {"username": "carol", "password": "whatever1"})
    assert _code(dup) == (409, "username_taken")
    good = env.ok("POST", "/auth/login", {"username": "carol", "password": "s3cret-pass"})
    assert good["user"]["id"] == user["id"]
    bad = env.call("POST", "/auth/login", {"username": "Carol", "password": "wrong-pass"})
    assert _code(bad) == (401, "bad_credentials")
    nobody = env.call("POST", "/auth/login", {"username": "nobody", "password": "wrong-pass"})
    assert _code(nobody) == (401, "bad_credentials")
    stored = env.store.get_user(user["id"])
    assert stored is not None and stored.password_hash is not None
    assert (
        stored.password_hash.startswith("$argon2id$") and "m=19456,t=2,p=1" in stored.password_hash
    )


def test_tampered_expired_and_malformed_tokens_get_401(api_env: Env) -> None:
    env = api_env
    token, user = env.register("dave")
    head, payload, sig = token.split(".")
    tampered = f"{head}.{payload}.{sig[:-3]}{'AAA' if not sig.endswith('AAA') else 'BBB'}"
    assert _code(env.call("GET", "/me", None, tampered)) == (401, "invalid_token")
    old = int(time.time()) - 10_000
    expired = jwt.encode(
        {"sub": user["id"], "name": "dave", "guest": False, "iat": old, "exp": old + 60},
        SECRET,
        algorithm="HS256",
        headers={"kid": "k1"},
    )
    assert _code(env.call("GET", "/me", None, expired)) == (401, "token_expired")
    forged = jwt.encode(
        {
            "sub": user["id"],
            "name": "dave",
            "guest": False,
            "iat": int(time.time()),
            "exp": int(time.time()) + 60,
        },
        "another-secret-that-is-long-enough-000000",
        algorithm="HS256",
        headers={"kid": "k1"},
    )
    assert _code(env.call("GET", "/me", None, forged)) == (401, "invalid_token")
    resp = env.call("GET", "/me", headers={"Authorization": "Basic abc"})
    assert _code(resp) == (401, "invalid_token")
    assert _code(env.call("GET", "/me")) == (401, "not_signed_in")
    assert env.call("GET", "/me", None, token).status_code == 200


def test_me_preferences_and_tickets(api_env: Env) -> None:
    env = api_env
    token, user = env.register("erin")
    me = env.ok("GET", "/me", None, token)
    assert me == {
        "user": user,
        "rating": {"liars-lies": 1500.0},
        "preferences": {"continue_mode": "auto", "language": None},
        "invitations": [],
    }
    env.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, token)
    assert env.ok("GET", "/me", None, token)["preferences"] == {
        "continue_mode": "manual",
        "language": None,
    }
    ticket = env.ok("POST", "/realtime/tickets", None, token, 201)
    assert env.store.consume_ticket(ticket["ticket"], env.clock.now_ms()) == user["id"]
    guest, _ = env.guest()
    assert env.ok("GET", "/me", None, guest)["rating"] is None


def test_approval_mode_pending_approve_and_deny(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("host1")
    a, ua = env.register("asker")
    b, ub = env.register("other")
    rid = env.ok("POST", "/rooms", {"settings": {"joining": "approval"}}, host, 201)["id"]
    mine = env.ok("POST", f"/rooms/{rid}/join", {}, a)
    assert mine["me"]["request"] == "pending" and mine["me"]["player_id"] is None
    assert "pending_requests" not in mine
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    hosted = env.ok("GET", f"/rooms/{rid}", None, host)
    assert [r["user_id"] for r in hosted["pending_requests"]] == [ua["id"], ub["id"]]
    assert _code(env.call("POST", f"/rooms/{rid}/requests/{ua['id']}/approve", None, b)) == (
        403,
        "not_host",
    )
    env.ok("POST", f"/rooms/{rid}/requests/{ua['id']}/approve", None, host)
    env.ok("POST", f"/rooms/{rid}/requests/{ub['id']}/deny", None, host)
    assert env.ok("GET", f"/rooms/{rid}", None, a)["me"]["player_id"] is not None
    assert env.ok("GET", f"/rooms/{rid}", None, b)["me"]["request"] == "denied"


def test_passcode_is_host_only_and_attempts_are_limited(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("host2")
    guesser, _ = env.register("guesser")
    rid = env.ok(
        "POST", "/rooms", {"settings": {"joining": "passcode", "passcode": "4321"}}, host, 201
    )["id"]
    assert env.ok("GET", f"/rooms/{rid}", None, host)["settings"]["passcode"] == "4321"
    assert "passcode" not in env.ok("GET", f"/rooms/{rid}", None, guesser)["settings"]
    assert "passcode" not in env.ok("GET", f"/rooms/{rid}", None)["settings"]
    lobby = env.ok("GET", "/rooms", None)["rooms"]
    assert all("passcode" not in r["settings"] for r in lobby)
    codes = [
        env.call("POST", f"/rooms/{rid}/join", {"passcode": f"{n:04d}"}, guesser) for n in range(5)
    ]
    assert [_code(r) for r in codes] == [(403, "wrong_passcode")] * 5
    # the right code no longer helps within the window: the code cannot be brute-forced
    assert _code(env.call("POST", f"/rooms/{rid}/join", {"passcode": "4321"}, guesser)) == (
        429,
        "rate_limited",
    )
    env.clock.advance(16 * 60 * 1000)
    assert env.ok("POST", f"/rooms/{rid}/join", {"passcode": "4321"}, guesser)["me"]["player_id"]


def test_a_malformed_passcode_is_refused_without_using_up_an_attempt(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("host4")
    guesser, _ = env.register("guesser4")
    rid = env.ok(
        "POST", "/rooms", {"settings": {"joining": "passcode", "passcode": "4321"}}, host, 201
    )["id"]
    for bad in ["", "12", "abcd", "12345", " 4321"] * 2:
        answer = env.call("POST", f"/rooms/{rid}/join", {"passcode": bad}, guesser)
        assert answer.status_code == 400
        assert answer.json["error"]["field"] == "passcode"
    wrong = [
        env.call("POST", f"/rooms/{rid}/join", {"passcode": "0000"}, guesser) for _ in range(4)
    ]
    assert [_code(r) for r in wrong] == [(403, "wrong_passcode")] * 4
    assert env.ok("POST", f"/rooms/{rid}/join", {"passcode": "4321"}, guesser)["me"]["player_id"]


def test_invitations_by_username(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("host3")
    friend, _ = env.register("friend")
    rid = env.ok(
        "POST", "/rooms", {"settings": {"joining": "passcode", "passcode": "1111"}}, host, 201
    )["id"]
    assert _code(env.call("POST", f"/rooms/{rid}/invitations", {"username": "ghost"}, host)) == (
        404,
        "unknown_user",
    )
    assert _code(env.call("POST", f"/rooms/{rid}/invitations", {"username": "host3"}, friend)) == (
        403,
        "not_host",
    )
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "FRIEND"}, host)
    assert env.ok("GET", "/me", None, friend)["invitations"] == [
        {"room_id": rid, "host_name": "host3"}
    ]
    joined = env.ok("POST", f"/rooms/{rid}/join", {}, friend)
    assert joined["me"]["player_id"] is not None
    assert env.ok("GET", "/me", None, friend)["invitations"] == []


def test_guest_rules(api_env: Env) -> None:
    env = api_env
    guest, _ = env.guest()
    member, _ = env.register("member")
    guest_room = env.ok("POST", "/rooms", {}, guest, 201)["id"]
    real_room = env.ok("POST", "/rooms", {}, member, 201)["id"]
    assert _code(env.call("POST", f"/rooms/{guest_room}/join", {}, member)) == (403, "guest_room")
    assert _code(env.call("POST", f"/rooms/{real_room}/join", {}, guest)) == (
        403,
        "guest_not_allowed",
    )
    assert _code(env.call("POST", f"/rooms/{real_room}/chat", {"text": "hi"}, guest)) == (
        403,
        "guest_not_allowed",
    )
    assert env.ok("GET", f"/rooms/{real_room}/chat", None, guest) == {"messages": []}


def test_chat_order_length_and_rate(api_env: Env) -> None:
    env = api_env
    a, ua = env.register("chatter")
    rid = env.ok("POST", "/rooms", {}, a, 201)["id"]
    sent = []
    for i in range(5):
        env.clock.advance(1)
        sent.append(env.ok("POST", f"/rooms/{rid}/chat", {"text": f"  msg {i} "}, a, 201))
    assert sent[0]["user"] == {"id": ua["id"], "name": "chatter"} and sent[0]["text"] == "msg 0"
    assert _code(env.call("POST", f"/rooms/{rid}/chat", {"text": "too many"}, a)) == (
        429,
        "rate_limited",
    )
    assert _code(env.call("POST", f"/rooms/{rid}/chat", {"text": "x" * 501}, a)) == (
        400,
        "too_long",
    )
    assert _code(env.call("POST", f"/rooms/{rid}/chat", {"text": "   "}, a)) == (
        400,
        "invalid_input",
    )
    got = env.ok("GET", f"/rooms/{rid}/chat", None)["messages"]
    assert [m["text"] for m in got] == [f"msg {i}" for i in range(5)]
    after = env.ok("GET", f"/rooms/{rid}/chat?after={got[2]['id']}", None)["messages"]
    assert [m["text"] for m in after] == ["msg 3", "msg 4"]
    assert _code(env.call("GET", "/rooms/nope/chat", None)) == (404, "unknown_room")


def test_room_cap_per_user_is_configuration(api_env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    from chalicelib.settings import reset_settings

    monkeypatch.setenv("MAX_ROOMS_PER_USER", "2")
    reset_settings()
    env = api_env
    t, _ = env.register("busy")
    env.ok("POST", "/rooms", {}, t, 201)
    second = env.ok("POST", "/rooms", {}, t, 201)
    assert _code(env.call("POST", "/rooms", {}, t)) == (429, "room_limit_reached")
    env.ok("POST", f"/rooms/{second['id']}/leave", None, t)
    env.ok("POST", "/rooms", {}, t, 201)


def test_elo_preview_checks_fixed_ranks(api_env: Env) -> None:
    env = api_env
    a, _ = env.register("eloa")
    b, _ = env.register("elob")
    c, _ = env.register("outsider")
    rid = env.ok("POST", "/rooms", {}, a, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, b)
    env.ok("POST", f"/rooms/{rid}/bots", {}, a, 201)
    view = env.ok("POST", f"/rooms/{rid}/start", None, a)
    ids = [p["id"] for p in view["players"]]
    out = env.ok("POST", f"/rooms/{rid}/elo-preview", {"order": ids}, b)["changes"]
    assert [(x["before"], x["delta"], x["after"]) for x in out] == [
        (1500.0, 16.0, 1516.0),
        (1500.0, -16.0, 1484.0),
    ]
    assert _code(env.call("POST", f"/rooms/{rid}/elo-preview", {"order": ids}, c)) == (
        403,
        "not_a_member",
    )
    assert _code(env.call("POST", f"/rooms/{rid}/elo-preview", {"order": ids[:2]}, a)) == (
        400,
        "invalid_order",
    )
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, a)
    resigned = env.call("POST", f"/rooms/{rid}/elo-preview", {"order": ids}, a)
    assert _code(resigned) == (400, "invalid_order")
    assert auth.verify_token(a).user_id


def test_continue_mode_chosen_after_joining_applies_when_play_begins(api_env: Env) -> None:
    host, _ = api_env.register("cm_host")
    guest_of_room, _ = api_env.register("cm_joiner")
    rid = api_env.ok("POST", "/rooms", {}, host, 201)["id"]
    api_env.ok("POST", f"/rooms/{rid}/join", {}, guest_of_room)
    api_env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, guest_of_room)
    api_env.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, guest_of_room)
    view = api_env.ok("POST", f"/rooms/{rid}/start", None, host)
    mine = api_env.ok("GET", f"/rooms/{rid}", None, guest_of_room)
    assert mine["me"]["continue_mode"] == "manual"
    # Play one challenge: the Manual player must be asked to agree in the break.
    turn = view["game"]["turn"]
    tokens = {
        api_env.ok("GET", f"/rooms/{rid}", None, t)["me"]["player_id"]: t
        for t in (host, guest_of_room)
    }
    api_env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "bid", "quantity": 10, "face": 6, "turn": turn["number"]},
        tokens[turn["player_id"]],
    )
    nxt = api_env.ok("GET", f"/rooms/{rid}", None, host)["game"]["turn"]
    after = api_env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "liar", "turn": nxt["number"]},
        tokens[nxt["player_id"]],
    )
    assert after["game"]["phase"] == "break"
    assert mine["me"]["player_id"] not in after["game"]["break"]["agreed"]
