"""Rooms cannot be created without bound (SPEC §10: limits nobody can abuse).

The open-room cap counts rooms that are waiting or playing, so creating a room and leaving it
(which closes it) made room after room: one guest made 100 in 0.8 s, each kept 30 days and
listed in the lobby's closed rooms. Creations (and recreations) are limited per user and window.
"""

from __future__ import annotations

import pytest

from chalicelib.settings import reset_settings
from tests.api.conftest import Env
from tests.api.helpers import play_to_end, setup_game


def test_creating_rooms_is_limited_per_user_and_window(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    guest, _ = env.guest("Maker")
    other, _ = env.guest("Other")
    monkeypatch.setenv("ROOM_CREATIONS_PER_USER", "3")
    reset_settings()
    for _ in range(3):
        rid = env.ok("POST", "/rooms", {}, guest, 201)["id"]
        assert env.ok("POST", f"/rooms/{rid}/leave", None, guest)["status"] == "closed"
    closed = len(env.ok("GET", "/rooms?status=closed")["rooms"])

    refused = env.call("POST", "/rooms", {}, guest)
    assert refused.status_code == 429
    assert refused.json["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert len(env.ok("GET", "/rooms?status=closed")["rooms"]) == closed
    assert env.ok("GET", "/rooms")["rooms"] == []
    env.ok("POST", "/rooms", {}, other, 201)  # another user is not slowed

    env.clock.advance(int(refused.headers["Retry-After"]) * 1000)
    env.ok("POST", "/rooms", {}, guest, 201)


def test_recreating_a_room_counts_as_creating_one(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    env = api_env
    rid, tokens = setup_game(env, humans=1, bots=1, settings={"starting_dice": 1})
    assert play_to_end(env, rid, tokens, random.Random(3))["status"] == "finished"
    monkeypatch.setenv("ROOM_CREATIONS_PER_USER", "1")
    reset_settings()
    env.clock.advance(3_600_000)  # a fresh window: the setup's room is not counted in it
    env.ok("POST", f"/rooms/{rid}/recreate", None, tokens[0], 201)
    again = env.call("POST", "/rooms", {}, tokens[0])
    assert again.status_code == 429
    assert again.json["error"]["code"] == "rate_limited"


def test_the_room_creation_limit_is_configuration_documented_with_its_default() -> None:
    import chalicelib.settings as settings_module
    from chalicelib.settings import Settings

    env = {"ROOM_CREATIONS_PER_USER": "7", "ROOM_CREATION_WINDOW_SECONDS": "70"}
    loaded = Settings.from_env(env)
    assert (loaded.room_creations_per_user, loaded.room_creation_window_seconds) == (7, 70)
    assert all(var in (settings_module.__doc__ or "") for var in env)
