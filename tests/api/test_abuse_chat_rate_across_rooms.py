"""Chat's rate limit holds for a user across rooms, not only within one (SPEC §10).

The limit counted per user *and room*: a user could post five messages every ten seconds in
every room there is (each pushed to everyone watching it). A second limit counts a user's
messages in all rooms together (``CHAT_USER_RATE`` per ``CHAT_WINDOW_SECONDS``).
"""

from __future__ import annotations

import pytest

from chalicelib.settings import Settings, reset_settings
from tests.api.conftest import Env


def test_a_user_s_chat_is_limited_across_rooms(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    spammer, _ = env.register("spammer")
    other, _ = env.register("other")
    rooms = [env.ok("POST", "/rooms", {}, other, 201)["id"] for _ in range(4)]
    monkeypatch.setenv("CHAT_RATE", "5")
    monkeypatch.setenv("CHAT_USER_RATE", "6")
    reset_settings()
    statuses = [
        env.call("POST", f"/rooms/{rid}/chat", {"text": f"buy {i}"}, spammer).status_code
        for i in range(2)
        for rid in rooms
    ]
    assert statuses == [201] * 6 + [429] * 2
    refused = env.call("POST", f"/rooms/{rooms[0]}/chat", {"text": "more"}, spammer)
    assert refused.json["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert sum(len(env.ok("GET", f"/rooms/{r}/chat")["messages"]) for r in rooms) == 6
    env.ok("POST", f"/rooms/{rooms[0]}/chat", {"text": "hello"}, other, 201)


def test_the_cross_room_chat_limit_is_configuration_and_above_one_room_s() -> None:
    import chalicelib.settings as settings_module

    assert Settings.from_env({"CHAT_USER_RATE": "9"}).chat_user_rate == 9
    assert Settings().chat_user_rate > Settings().chat_rate
    assert "CHAT_USER_RATE" in (settings_module.__doc__ or "")
