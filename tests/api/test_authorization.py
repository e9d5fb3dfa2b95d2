"""Authorization matrix: every route × every kind of caller; nobody gets an unexpected 2xx."""

from __future__ import annotations

import random
import time
from typing import Any

import jwt
import pytest

from chalicelib import schemas
from tests.api.conftest import Env
from tests.api.helpers import play_to_end
from tests.offline_aws import SECRET

ROLES = ("host", "player", "other_room", "guest", "signed_out", "tampered", "expired")
SIGNED_IN = {"host", "player", "other_room", "guest"}
ANYONE = SIGNED_IN | {"signed_out"}
REGISTERED = {"host", "player", "other_room"}
PUSH_SUB = {
    "endpoint": "https://fcm.googleapis.com/fcm/send/x",
    "expirationTime": None,
    "keys": {"p256dh": "BAAA", "auth": "AAAA"},
}


def _expired(user_id: str) -> str:
    old = int(time.time()) - 100_000
    return jwt.encode(
        {"sub": user_id, "name": "x", "guest": False, "iat": old, "exp": old + 60},
        SECRET,
        algorithm="HS256",
        headers={"kid": "k1"},
    )


def _tampered(token: str, other_token: str) -> str:
    """A player's signature over the host's claims: the payload was swapped."""
    head, _, sig = token.split(".")
    return f"{head}.{other_token.split('.')[1]}.{sig}"


@pytest.fixture
def world(api_env: Env) -> dict[str, Any]:
    """A waiting room W, a game in play G, a finished game F (host and player in each)."""
    env = api_env
    host, hu = env.register("mhost")
    player, _ = env.register("mplayer")
    other, _ = env.register("mother")
    guest, _ = env.guest()
    tokens = {
        "host": host,
        "player": player,
        "other_room": other,
        "guest": guest,
        "signed_out": None,
        "tampered": _tampered(player, host),
        "expired": _expired(hu["id"]),
    }
    env.ok("POST", "/rooms", {}, other, 201)

    def room(start: bool) -> tuple[str, dict[str, Any]]:
        rid = env.ok("POST", "/rooms", {"settings": {"starting_dice": 1}}, host, 201)["id"]
        env.ok("POST", f"/rooms/{rid}/join", {}, player)
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, player)
        v = env.ok("POST", f"/rooms/{rid}/bots", {}, host, 201)
        if start:
            v = env.ok("POST", f"/rooms/{rid}/start", None, host)
        return rid, v

    w, wv = room(False)
    g, gv = room(True)
    f, _ = room(True)
    play_to_end(env, f, [host, player], random.Random(5))
    bot = next(p["id"] for p in wv["players"] if p["kind"] == "bot")
    turn = gv["game"]["turn"]["number"] if gv["game"]["turn"] else 0
    return {
        "tokens": tokens,
        "W": w,
        "G": g,
        "F": f,
        "bot": bot,
        "order": [p["id"] for p in gv["players"]],
        "turn": turn,
        "pending": hu["id"],
    }


def _matrix(wd: dict[str, Any]) -> list[tuple[str, str, str, Any, set[str]]]:
    w, g, f = wd["W"], wd["G"], wd["F"]
    return [
        ("POST", "/auth/guest", "/auth/guest", {}, ANYONE),
        (
            "POST",
            "/auth/register",
            "/auth/register",
            {"username": "newbie", "password": "p4ssword!"},
            ANYONE,
        ),
        (
            "POST",
            "/auth/login",
            "/auth/login",
            {"username": "mhost", "password": "correct horse"},
            ANYONE,
        ),
        ("GET", "/me", "/me", None, SIGNED_IN),
        ("PATCH", "/me/preferences", "/me/preferences", {"continue_mode": "manual"}, SIGNED_IN),
        ("POST", "/realtime/tickets", "/realtime/tickets", None, SIGNED_IN),
        ("GET", "/me/games", "/me/games", None, SIGNED_IN),
        ("GET", "/push/vapid-public-key", "/push/vapid-public-key", None, ANYONE),
        ("POST", "/me/push-subscriptions", "/me/push-subscriptions", PUSH_SUB, REGISTERED),
        (
            "DELETE",
            "/me/push-subscriptions",
            "/me/push-subscriptions",
            {"endpoint": PUSH_SUB["endpoint"]},
            REGISTERED,
        ),
        (
            "POST",
            "/me/devices",
            "/me/devices",
            {"platform": "fcm", "token": "tok-1234567"},
            REGISTERED,
        ),
        ("DELETE", "/me/devices", "/me/devices", {"token": "tok-1234567"}, REGISTERED),
        ("GET", "/rooms", "/rooms", None, ANYONE),
        ("POST", "/rooms", "/rooms", {}, SIGNED_IN),
        ("GET", "/rooms/{room_id}", f"/rooms/{w}", None, ANYONE),
        ("GET", "/rooms/{room_id}/history", f"/rooms/{f}/history", None, ANYONE),
        ("GET", "/leaderboard", "/leaderboard", None, ANYONE),
        ("POST", "/quickplay", "/quickplay", {"rules": "poker"}, SIGNED_IN),
        ("GET", "/quickplay", "/quickplay", None, ANYONE),
        ("DELETE", "/quickplay", "/quickplay", None, SIGNED_IN),
        ("GET", "/users/{username}", "/users/mhost", None, ANYONE),
        (
            "PATCH",
            "/rooms/{room_id}/settings",
            f"/rooms/{w}/settings",
            {"starting_dice": 3},
            {"host"},
        ),
        ("POST", "/rooms/{room_id}/join", f"/rooms/{w}/join", {}, {"other_room"}),
        ("POST", "/rooms/{room_id}/leave", f"/rooms/{w}/leave", None, {"host", "player"}),
        ("PUT", "/rooms/{room_id}/ready", f"/rooms/{w}/ready", {"ready": True}, {"host", "player"}),
        (
            "POST",
            "/rooms/{room_id}/requests/{user_id}/approve",
            f"/rooms/{w}/requests/{wd['pending']}/approve",
            None,
            {"host"},
        ),
        (
            "POST",
            "/rooms/{room_id}/requests/{user_id}/deny",
            f"/rooms/{w}/requests/{wd['pending']}/deny",
            None,
            {"host"},
        ),
        (
            "POST",
            "/rooms/{room_id}/invitations",
            f"/rooms/{w}/invitations",
            {"username": "mother"},
            {"host"},
        ),
        ("POST", "/rooms/{room_id}/bots", f"/rooms/{w}/bots", {}, {"host"}),
        (
            "DELETE",
            "/rooms/{room_id}/bots/{player_id}",
            f"/rooms/{w}/bots/{wd['bot']}",
            None,
            {"host"},
        ),
        ("POST", "/rooms/{room_id}/start", f"/rooms/{w}/start", None, {"host"}),
        (
            "POST",
            "/rooms/{room_id}/actions",
            f"/rooms/{g}/actions",
            {"type": "bid", "quantity": 1, "face": 2, "turn": wd["turn"]},
            {"host", "player"},
        ),
        ("POST", "/rooms/{room_id}/tick", f"/rooms/{g}/tick", None, ANYONE),
        ("POST", "/rooms/{room_id}/recreate", f"/rooms/{f}/recreate", None, {"host", "player"}),
        ("GET", "/rooms/{room_id}/chat", f"/rooms/{w}/chat", None, ANYONE),
        (
            "POST",
            "/rooms/{room_id}/chat",
            f"/rooms/{w}/chat",
            {"text": "hello"},
            {"host", "player", "other_room"},
        ),
        (
            "POST",
            "/rooms/{room_id}/elo-preview",
            f"/rooms/{g}/elo-preview",
            {"order": wd["order"]},
            {"host", "player"},
        ),
    ]


def test_the_matrix_covers_every_declared_route(world: dict[str, Any]) -> None:
    declared = {(r.method, r.path) for r in schemas.ROUTES}
    covered = {(m, p) for m, p, _, _, _ in _matrix(world)}
    assert declared == covered


def test_no_unexpected_2xx_for_any_route_and_caller(api_env: Env, world: dict[str, Any]) -> None:
    env = api_env
    tokens = world["tokens"]
    checked = 0
    for method, template, path, body, allowed in _matrix(world):
        for role in ROLES:
            if role in allowed:
                continue
            resp = env.call(method, path, body, tokens[role])
            assert 400 <= resp.status_code < 500, (method, template, role, resp.status_code)
            assert set(resp.json) >= {"error"} and resp.json["error"]["code"]
            if role in ("tampered", "expired", "signed_out") and "signed_out" not in allowed:
                assert resp.status_code == 401, (method, template, role)
            checked += 1
    assert checked > 100
    # and the allowed callers really are allowed (the matrix is not vacuous)
    assert env.call("GET", f"/rooms/{world['W']}", None, tokens["guest"]).status_code == 200
    assert (
        env.call(
            "POST", f"/rooms/{world['W']}/chat", {"text": "hi"}, tokens["other_room"]
        ).status_code
        == 201
    )
    assert (
        env.call(
            "POST", f"/rooms/{world['G']}/elo-preview", {"order": world["order"]}, tokens["player"]
        ).status_code
        == 200
    )
