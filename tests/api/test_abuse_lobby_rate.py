"""Lobby actions are limited per user (SPEC §10: limits nobody can abuse).

Every lobby action (ready, settings, bots, join, leave, requests, invitations, start, the
continue mode) is a room write pushed to every watcher of the room. Without a limit one
signed-in client toggled ``ready`` as fast as it could send requests and flooded the whole
table with pushes (and, on AWS, everyone's write units and WebSocket messages). They are
counted per user in all rooms together; game moves are bounded by turns and never counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from chalicelib.settings import reset_settings
from tests.api.conftest import Env
from tests.api.helpers import player_to_act, setup_game

WINDOW_MS = 10_000  # LOBBY_WINDOW_SECONDS' default


def _limit(monkeypatch: pytest.MonkeyPatch, env: Env, n: int) -> None:
    """``n`` lobby actions per user and window from now on, counted from a fresh window."""
    monkeypatch.setenv("LOBBY_ACTIONS_PER_USER", str(n))
    reset_settings()
    env.clock.now = (env.clock.now // WINDOW_MS + 1) * WINDOW_MS + 1234


def _version(env: Env, rid: str) -> int:
    stored = env.store.get_room(rid)
    assert stored is not None
    return stored.version


def _assert_refused(env: Env, resp: Any) -> int:
    assert resp.status_code == 429, resp.json
    assert resp.json["error"]["code"] == "rate_limited"
    header = resp.headers.get("Retry-After")
    assert header is not None and header.isdigit(), resp.headers
    wait = int(header)
    assert 1 <= wait <= WINDOW_MS // 1000
    return wait


def test_toggling_ready_past_the_limit_is_refused_with_retry_after_and_changes_nothing(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    host, _ = env.register("host")
    player, _ = env.register("player")
    rid = env.ok("POST", "/rooms", {}, host, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, player)
    _limit(monkeypatch, env, 5)
    ready = True
    for _ in range(5):
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": ready}, player)
        ready = not ready
    version, pushes = _version(env, rid), len(env.notifier.sent)
    shown = env.ok("GET", f"/rooms/{rid}", None, player)

    refused = env.call("PUT", f"/rooms/{rid}/ready", {"ready": ready}, player)
    wait = _assert_refused(env, refused)
    assert _version(env, rid) == version
    assert env.ok("GET", f"/rooms/{rid}", None, player) == shown
    assert len(env.notifier.sent) == pushes

    # The window that refused it ends after Retry-After: one second earlier, still refused.
    env.clock.advance((wait - 1) * 1000)
    _assert_refused(env, env.call("PUT", f"/rooms/{rid}/ready", {"ready": ready}, player))
    assert _version(env, rid) == version
    env.clock.advance(1000)
    after = env.ok("PUT", f"/rooms/{rid}/ready", {"ready": ready}, player)
    assert after["version"] == version + 1
    mine = next(p for p in after["players"] if p["id"] == after["me"]["player_id"])
    assert mine["ready"] is ready


def test_the_lobby_limit_is_per_user_in_all_rooms_together(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    host, _ = env.register("host")
    flooder, _ = env.register("flooder")
    bystander, _ = env.register("bystander")
    first = env.ok("POST", "/rooms", {}, host, 201)["id"]
    second = env.ok("POST", "/rooms", {}, host, 201)["id"]
    for rid in (first, second):
        env.ok("POST", f"/rooms/{rid}/join", {}, bystander)
    _limit(monkeypatch, env, 3)
    env.ok("POST", f"/rooms/{first}/join", {}, flooder)
    env.ok("PUT", f"/rooms/{first}/ready", {"ready": True}, flooder)
    env.ok("POST", f"/rooms/{second}/join", {}, flooder)
    # A third room is no way around it: the count is the user's, not the room's.
    _assert_refused(env, env.call("PUT", f"/rooms/{second}/ready", {"ready": True}, flooder))
    # Everyone else in the same rooms, in the same window, is not slowed.
    for rid in (first, second):
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, bystander)
        env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, host, 201)
    env.ok("PUT", f"/rooms/{first}/ready", {"ready": False}, bystander)


@dataclass(frozen=True)
class Lobby:
    """Three registered users and a waiting room of the host's (with one bot)."""

    host: str
    member: str
    outsider: str
    outsider_id: str
    rid: str
    bot: str


def _lobby(env: Env, joining: str = "approval") -> Lobby:
    host, _ = env.register("host")
    member, _ = env.register("member")
    outsider, outsider_user = env.register("outsider")
    rid = env.ok("POST", "/rooms", {}, host, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, member)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, member)
    view = env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, host, 201)
    bot = next(p["id"] for p in view["players"] if "level" in p)
    env.ok("PATCH", f"/rooms/{rid}/settings", {"joining": joining}, host)
    return Lobby(host, member, outsider, outsider_user["id"], rid, bot)


Request = tuple[str, str, Any, str]
LobbyRoute = Callable[[Env, Lobby], Request]


def _requested(env: Env, lb: Lobby) -> None:
    env.ok("POST", f"/rooms/{lb.rid}/join", {}, lb.outsider)


LOBBY_ROUTES: dict[str, LobbyRoute] = {
    "ready": lambda e, lb: ("PUT", f"/rooms/{lb.rid}/ready", {"ready": False}, lb.member),
    "settings": lambda e, lb: (
        "PATCH",
        f"/rooms/{lb.rid}/settings",
        {"starting_dice": 3},
        lb.host,
    ),
    "add bot": lambda e, lb: ("POST", f"/rooms/{lb.rid}/bots", {"level": "easy"}, lb.host),
    "remove bot": lambda e, lb: ("DELETE", f"/rooms/{lb.rid}/bots/{lb.bot}", None, lb.host),
    "request to join": lambda e, lb: ("POST", f"/rooms/{lb.rid}/join", {}, lb.outsider),
    "leave": lambda e, lb: ("POST", f"/rooms/{lb.rid}/leave", None, lb.member),
    "withdraw a request": lambda e, lb: (
        _requested(e, lb),
        ("POST", f"/rooms/{lb.rid}/leave", None, lb.outsider),
    )[1],
    "approve": lambda e, lb: (
        _requested(e, lb),
        ("POST", f"/rooms/{lb.rid}/requests/{lb.outsider_id}/approve", None, lb.host),
    )[1],
    "deny": lambda e, lb: (
        _requested(e, lb),
        ("POST", f"/rooms/{lb.rid}/requests/{lb.outsider_id}/deny", None, lb.host),
    )[1],
    "invite": lambda e, lb: (
        "POST",
        f"/rooms/{lb.rid}/invitations",
        {"username": "outsider"},
        lb.host,
    ),
    "start": lambda e, lb: ("POST", f"/rooms/{lb.rid}/start", None, lb.host),
    "continue mode": lambda e, lb: (
        "PATCH",
        "/me/preferences",
        {"continue_mode": "auto", "room_id": lb.rid},
        lb.member,
    ),
}


def _fill(env: Env, token: str) -> None:
    """One lobby action the rules always accept (the continue mode, no room named)."""
    env.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, token)


@pytest.mark.parametrize("name", sorted(LOBBY_ROUTES))
def test_each_lobby_action_is_refused_past_the_limit_and_counts_when_accepted(
    api_env: Env, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    env = api_env
    lb = _lobby(env)
    method, path, body, token = LOBBY_ROUTES[name](env, lb)
    _limit(monkeypatch, env, 1)
    _fill(env, token)
    version, pushes = _version(env, lb.rid), len(env.notifier.sent)
    me = env.ok("GET", "/me", None, token)

    # Past the limit the request is refused, and changes nothing.
    wait = _assert_refused(env, env.call(method, path, body, token))
    assert _version(env, lb.rid) == version
    assert len(env.notifier.sent) == pushes
    assert env.ok("GET", "/me", None, token) == me

    # In the next window it is accepted, and counted: the user's next action is refused.
    env.clock.advance(wait * 1000)
    accepted = env.call(method, path, body, token)
    assert accepted.status_code < 300, accepted.json
    _assert_refused(env, env.call("PATCH", "/me/preferences", {"continue_mode": "auto"}, token))


def test_a_lobby_request_the_rules_refuse_is_not_counted(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A refused request writes and pushes nothing: it spends no lobby action (and leaves no
    # counter behind: a refused request changes nothing, tests/api/test_edges.py's fuzz).
    env = api_env
    lb = _lobby(env)
    _limit(monkeypatch, env, 1)
    refused = [
        ("POST", f"/rooms/{lb.rid}/bots", {"level": "easy"}, lb.member),  # not_host
        ("PUT", f"/rooms/{lb.rid}/ready", {"ready": True}, lb.outsider),  # not_a_member
        ("POST", f"/rooms/{lb.rid}/join", {}, lb.member),  # already_joined
        ("DELETE", f"/rooms/{lb.rid}/bots/p99", None, lb.host),  # no such bot
        ("POST", f"/rooms/{lb.rid}/requests/u0/approve", None, lb.host),  # no such request
    ]
    counters = _lobby_counters(env)
    for method, path, body, token in refused * 3:
        resp = env.call(method, path, body, token)
        assert 400 <= resp.status_code < 500 and resp.status_code != 429, resp.json
    assert _lobby_counters(env) == counters
    for token in (lb.member, lb.outsider, lb.host):
        _fill(env, token)  # each still has their whole budget


def _lobby_counters(env: Env) -> list[Any]:
    items = env.store.client.scan(TableName=env.store.table_name)["Items"]
    return sorted(str(i) for i in items if i["pk"]["S"].startswith("RATE#lobby:"))


def test_a_refused_continue_mode_change_stores_no_preference(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=1)
    _limit(monkeypatch, env, 1)
    env.ok("PATCH", "/me/preferences", {"continue_mode": "manual", "room_id": rid}, tokens[1])
    version = _version(env, rid)
    refused = env.call(
        "PATCH", "/me/preferences", {"continue_mode": "auto", "room_id": rid}, tokens[1]
    )
    _assert_refused(env, refused)
    assert env.ok("GET", "/me", None, tokens[1])["preferences"]["continue_mode"] == "manual"
    assert _version(env, rid) == version


def test_game_moves_are_not_counted_and_make_no_extra_store_write(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0)
    _limit(monkeypatch, env, 1)
    hits: list[str] = []
    real_hit = env.store.hit

    def counting_hit(key: str, *args: Any, **kwargs: Any) -> bool:
        hits.append(key)
        return bool(real_hit(key, *args, **kwargs))

    monkeypatch.setattr(env.store, "hit", counting_hit)
    moves = 0
    for quantity in range(1, 7):
        token, view = player_to_act(env, rid, tokens)
        turn = view["game"]["turn"]["number"]
        bid = {"type": "bid", "quantity": quantity, "face": 2, "turn": turn}
        env.ok("POST", f"/rooms/{rid}/actions", bid, token)
        env.ok("POST", f"/rooms/{rid}/tick", None, token)
        moves += 1
    token, view = player_to_act(env, rid, tokens)
    env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "liar", "turn": view["game"]["turn"]["number"]},
        token,
    )
    assert moves == 6
    assert hits == [], "a game move or a view counted against a rate limit"
    # Both players' lobby budgets are untouched by all those moves in the same window.
    for t in tokens:
        env.ok("PATCH", "/me/preferences", {"continue_mode": "manual", "room_id": rid}, t)
    assert hits == [f"lobby:{u}" for u in _user_ids(env, tokens)]


def _user_ids(env: Env, tokens: list[str]) -> list[str]:
    return [env.ok("GET", "/me", None, t)["user"]["id"] for t in tokens]


def test_the_lobby_limit_is_configuration_documented_with_its_default() -> None:
    import chalicelib.settings as settings_module
    from chalicelib.settings import Settings

    defaults = Settings()
    assert (defaults.lobby_actions_per_user, defaults.lobby_window_seconds) == (30, 10)
    env = {"LOBBY_ACTIONS_PER_USER": "7", "LOBBY_WINDOW_SECONDS": "70"}
    loaded = Settings.from_env(env)
    assert (loaded.lobby_actions_per_user, loaded.lobby_window_seconds) == (7, 70)
    assert all(var in (settings_module.__doc__ or "") for var in env)


def test_a_join_the_lobby_limit_refuses_gives_its_right_passcode_attempt_back(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    host, _ = env.register("host")
    player, _ = env.register("player")
    settings = {"joining": "passcode", "passcode": "4321"}
    rid = env.ok("POST", "/rooms", {"settings": settings}, host, 201)["id"]
    _limit(monkeypatch, env, 1)
    _fill(env, player)
    version = _version(env, rid)

    def room_attempts() -> list[Any]:
        items = env.store.client.scan(TableName=env.store.table_name)["Items"]
        return sorted(
            (i["sk"]["S"], i["n"]["N"])
            for i in items
            if i["pk"]["S"].startswith("RATE#passcode-room:")
        )

    before = room_attempts()
    _assert_refused(env, env.call("POST", f"/rooms/{rid}/join", {"passcode": "4321"}, player))
    assert _version(env, rid) == version
    # The room-wide budget counts wrong passcodes only: this right one was given back.
    assert before == []
    assert [n for _, n in room_attempts()] in ([], ["0"]), room_attempts()
