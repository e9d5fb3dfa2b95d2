"""Every time-window limit's 429 says when to come back (``Retry-After``), and tells the truth.

The limits count in fixed windows (``Store.hit``): the answer names the seconds until the
window that refused the attempt ends. One second earlier the limit still refuses; at that
moment the counter has reset and the same request is accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.settings import reset_settings
from tests.api.conftest import Env

Attempt = Callable[[Env], Any]


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # many accounts: argon2 at its minimum cost


def _guest(env: Env, ctx: dict[str, Any]) -> Any:
    return env.call("POST", "/auth/guest", {})


def _register(env: Env, ctx: dict[str, Any]) -> Any:
    ctx["n"] = ctx.get("n", 0) + 1
    return env.call("POST", "/auth/register", {"username": f"fresh{ctx['n']}", "password": "x" * 8})


def _login(env: Env, ctx: dict[str, Any]) -> Any:
    return env.call("POST", "/auth/login", {"username": "owner", "password": "wrong password"})


def _passcode(env: Env, ctx: dict[str, Any]) -> Any:
    return env.call("POST", f"/rooms/{ctx['locked']}/join", {"passcode": "0000"}, ctx["other"])


def _chat(env: Env, ctx: dict[str, Any]) -> Any:
    return env.call("POST", f"/rooms/{ctx['room']}/chat", {"text": "hi"}, ctx["other"])


LIMITS: dict[str, tuple[str, int, Attempt]] = {
    # name: (the environment variable of its count, its window in seconds, one attempt)
    "guest": ("GUEST_PER_SOURCE", 3600, _guest),
    "register": ("REGISTER_PER_SOURCE", 3600, _register),
    "login": ("LOGIN_MAX_ATTEMPTS", 300, _login),
    "passcode": ("PASSCODE_MAX_ATTEMPTS", 900, _passcode),
    "chat": ("CHAT_RATE", 10, _chat),
}


def _still_counted(resp: Any) -> bool:
    return bool(resp.status_code == 429)


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_a_rate_limited_answer_names_the_seconds_until_its_window_ends(
    api_env: Env, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    env = api_env
    variable, window, attempt = LIMITS[name]
    host, _ = env.register("owner")
    other, _ = env.register("other")
    settings = {"joining": "passcode", "passcode": "4321"}
    ctx: dict[str, Any] = {
        "other": other,
        "room": env.ok("POST", "/rooms", {}, host, 201)["id"],
        "locked": env.ok("POST", "/rooms", {"settings": settings}, host, 201)["id"],
    }
    monkeypatch.setenv(variable, "1")
    reset_settings()
    # Somewhere inside a window, not at its start: the answer must count from now.
    span = window * 1000
    env.clock.now = (env.clock.now // span + 1) * span + span // 3 + 17

    first = attempt(env, ctx)
    assert first.status_code != 429, first.json
    refused = attempt(env, ctx)
    assert refused.status_code == 429, refused.json
    assert refused.json["error"]["code"] in ("rate_limited", "too_many_accounts")
    header = refused.headers.get("Retry-After")
    assert header is not None and header.isdigit(), refused.headers
    wait = int(header)
    ends = (env.clock.now // span + 1) * span
    assert wait == -(-(ends - env.clock.now) // 1000), (wait, ends - env.clock.now)
    assert 1 <= wait <= window

    env.clock.advance((wait - 1) * 1000)
    assert _still_counted(attempt(env, ctx)), "the window ended before Retry-After said"
    env.clock.advance(1000)
    again = attempt(env, ctx)
    assert again.status_code != 429, ("the counter did not reset at Retry-After", again.json)
