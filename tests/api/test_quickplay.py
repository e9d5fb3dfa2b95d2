"""Quick play through the API on moto: Play now, status, cancel, the wake-up, the countdown.

The race test calls the use case the route calls from threads (Chalice's test client keeps
one current request, see test_races.py); every call into moto holds one lock, so the
conditional claim is the only guard. The wake-up is the timer handler invoked by the test
(moto's Scheduler never fires) with the fake clock moved past the wait: nothing sleeps.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from chalicelib import realtime
from chalicelib.engine.model import Room
from chalicelib.service import Caller, Service, accounts
from chalicelib.service.quickplay import TIMER_ID, Quickplay
from tests.api.conftest import Env

WAIT_MS = 20_000


@pytest.fixture(autouse=True)
def _cheap(cheap_hashes: None) -> None:
    """Many accounts: argon2 at its minimum cost."""


def _users(env: Env, n: int, prefix: str = "qp") -> list[tuple[str, dict[str, Any]]]:
    return [env.register(f"{prefix}{i:02d}") for i in range(n)]


def _room(env: Env, room_id: str) -> Room:
    stored = env.store.get_room(room_id)
    assert stored is not None
    return Room.from_dict(stored.state)


def _wake(env: Env) -> dict[str, Any]:
    """What EventBridge Scheduler would do at the armed time: invoke the timer handler."""
    pending = sorted(v for rid, v in env.timers.scheduled if rid == TIMER_ID)
    assert pending, "a quick-play wake-up must be armed"
    return realtime.on_timer(TIMER_ID, pending[-1], deps=env.deps)


def test_twelve_users_at_once_each_sit_at_exactly_one_table(api_env: Env) -> None:
    env = api_env
    users = _users(env, 12)
    service = Service(env.deps)
    barrier = threading.Barrier(len(users))
    answers: dict[str, tuple[int, dict[str, Any]]] = {}
    errors: list[BaseException] = []

    def play(user: dict[str, Any]) -> None:
        barrier.wait()
        try:
            caller = accounts.known(service, Caller(user["id"], user["name"], False))
            answers[user["id"]] = Quickplay(service).enqueue(caller, "classic", None, "10.0.0.1")
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=play, args=(u,)) for _, u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert {status for status, _ in answers.values()} <= {202}
    # Whatever a pass left (a pass that lost every claim), the wake-up after the wait seats.
    env.clock.advance(WAIT_MS)
    _wake(env)
    seats: dict[str, list[str]] = {}
    rooms: set[str] = set()
    for token, _ in users:
        ticket = env.ok("GET", "/quickplay", token=token)["ticket"]
        assert ticket["status"] == "matched"
        rooms.add(ticket["room_id"])
    for room_id in rooms:
        room = _room(env, room_id)
        assert room.status.value == "playing" and room.quickplay
        for p in room.players:
            if p.user_id:
                seats.setdefault(p.user_id, []).append(room_id)
    assert sorted(seats) == sorted(u["id"] for _, u in users)
    assert all(len(where) == 1 for where in seats.values()), seats
    status = env.ok("GET", "/quickplay")
    assert status["ticket"] is None and set(status["waiting"].values()) == {0}
    # Every room starts: past its countdown, the first round is on.
    env.clock.advance(10_000)
    for room_id in rooms:
        view = env.ok("GET", f"/rooms/{room_id}")
        assert view["game"]["round"] == 1 and view["quickplay"] is True


def test_four_players_meet_at_once_and_hear_it_pushed(api_env: Env) -> None:
    env = api_env
    users = _users(env, 4)
    ticket = env.ok("POST", "/realtime/tickets", token=users[0][0])["ticket"]
    assert realtime.connect("conn-0", {"ticket": ticket}, deps=env.deps)["statusCode"] == 200
    answers = [env.call("POST", "/quickplay", {"rules": "classic"}, tok) for tok, _ in users]
    assert [a.status_code for a in answers] == [202, 202, 202, 202]
    assert [a.json["ticket"]["status"] for a in answers] == ["waiting"] * 3 + ["matched"]
    room_id = answers[-1].json["ticket"]["room_id"]
    pushes = [m for m in env.notifier.messages_for("conn-0") if m.get("type") == "match_found"]
    assert pushes == [
        {"type": "match_found", "ticket_id": answers[0].json["ticket"]["id"], "room_id": room_id}
    ]
    view = env.ok("GET", f"/rooms/{room_id}", token=users[0][0])
    assert view["quickplay"] is True and view["rated"] is True
    assert view["status"] == "playing" and view["game"]["starts_at"] is not None
    assert sorted(p["user_id"] for p in view["players"]) == sorted(u["id"] for _, u in users)
    assert all(p["kind"] == "human" for p in view["players"])
    # Closed to joins from outside.
    outsider, _ = env.register("outsider")
    assert env.call("POST", f"/rooms/{room_id}/join", {}, outsider).status_code == 409


def test_asking_again_answers_the_same_ticket(api_env: Env) -> None:
    env = api_env
    (token, _), *_ = _users(env, 1)
    first = env.call("POST", "/quickplay", {"rules": "perudo"}, token)
    again = env.call("POST", "/quickplay", {"rules": "poker"}, token)
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json["ticket"] == first.json["ticket"]
    waiting = env.ok("GET", "/quickplay", token=token)["waiting"]
    assert waiting["perudo"] == 1 and waiting["poker"] == 0


def test_one_user_alone_gets_a_bot_table_after_the_wait(api_env: Env) -> None:
    env = api_env
    (token, user), *_ = _users(env, 1)
    ticket = env.ok("POST", "/quickplay", {"rules": "classic"}, token, 202)["ticket"]
    assert ticket["status"] == "waiting"
    env.clock.advance(WAIT_MS - 1)
    _wake(env)  # an early delivery seats nobody
    assert env.ok("GET", "/quickplay", token=token)["ticket"]["status"] == "waiting"
    env.clock.advance(1)
    result = _wake(env)
    assert len(result["rooms"]) == 1
    mine = env.ok("GET", "/quickplay", token=token)["ticket"]
    assert mine["status"] == "matched" and mine["room_id"] == result["rooms"][0]
    view = env.ok("GET", f"/rooms/{mine['room_id']}", token=token)
    humans = [p for p in view["players"] if p["kind"] == "human"]
    bots = [p for p in view["players"] if p["kind"] == "bot"]
    assert [h["user_id"] for h in humans] == [user["id"]] and len(bots) == 3
    assert {b["level"] for b in bots} == {"medium"}  # the newcomer's 1500
    assert view["rated"] is False  # one human: nothing to rate


def test_cancel_before_a_match_is_never_seated(api_env: Env) -> None:
    env = api_env
    users = _users(env, 4)
    env.ok("POST", "/quickplay", {"rules": "classic"}, users[0][0], 202)
    assert env.call("DELETE", "/quickplay", token=users[0][0]).status_code == 204
    assert env.ok("GET", "/quickplay", token=users[0][0])["ticket"] is None
    for token, _ in users[1:]:
        env.ok("POST", "/quickplay", {"rules": "classic"}, token, 202)
    env.clock.advance(WAIT_MS)
    _wake(env)
    rooms = {env.ok("GET", "/quickplay", token=t)["ticket"]["room_id"] for t, _ in users[1:]}
    assert len(rooms) == 1
    room = _room(env, rooms.pop())
    assert users[0][1]["id"] not in {p.user_id for p in room.players}
    assert len([p for p in room.players if not p.is_bot]) == 3


def test_cancel_after_the_match_is_409_already_matched(api_env: Env) -> None:
    env = api_env
    users = _users(env, 2)
    for token, _ in users:
        env.ok("POST", "/quickplay", {"rules": "poker"}, token, 202)
    resp = env.call("DELETE", "/quickplay", token=users[0][0])
    assert resp.status_code == 409 and resp.json["error"]["code"] == "already_matched"


def test_a_guest_gets_a_bot_table_at_once(api_env: Env) -> None:
    env = api_env
    token, guest = env.guest("Visitor")
    resp = env.call("POST", "/quickplay", {"rules": "wild-stars"}, token)
    assert resp.status_code == 201
    ticket = resp.json["ticket"]
    assert ticket["status"] == "matched" and ticket["room_id"]
    view = env.ok("GET", f"/rooms/{ticket['room_id']}", token=token)
    assert [p["user_id"] for p in view["players"] if p["kind"] == "human"] == [guest["id"]]
    assert len(view["players"]) == 4 and view["rated"] is False
    assert view["settings"]["rules"] == "wild-stars"
    # A guest never waits in a queue other people are matched from.
    assert set(env.ok("GET", "/quickplay")["waiting"].values()) == {0}


def test_a_seat_left_in_the_countdown_goes_to_a_bot(api_env: Env) -> None:
    env = api_env
    users = _users(env, 2)
    for token, _ in users:
        env.ok("POST", "/quickplay", {"rules": "poker"}, token)
    room_id = env.ok("GET", "/quickplay", token=users[0][0])["ticket"]["room_id"]
    view = env.ok("POST", f"/rooms/{room_id}/leave", None, users[0][0])
    assert view["me"]["player_id"] is None
    kinds = sorted(p["kind"] for p in view["players"])
    assert kinds == ["bot", "human"] and view["rated"] is False
    # The one who left may play again at once; the other still holds their table.
    assert env.call("POST", "/quickplay", {"rules": "poker"}, users[0][0]).status_code == 202
    again = env.call("POST", "/quickplay", {"rules": "poker"}, users[1][0])
    assert again.status_code == 200 and again.json["ticket"]["room_id"] == room_id
    # After the countdown, leaving is resigning.
    env.clock.advance(10_000)
    late = env.call("POST", f"/rooms/{room_id}/leave", None, users[1][0])
    assert late.status_code == 409 and late.json["error"]["code"] == "countdown_over"


@pytest.mark.parametrize(
    "body",
    [
        {"rules": "chess"},
        {"rules": "classic", "extra": 1},
        {"rules": 3},
        {},
        {"rules": "classic", "play_again": 7},
    ],
)
def test_bad_input_is_400_and_changes_nothing(api_env: Env, body: dict[str, Any]) -> None:
    env = api_env
    token, _ = env.register("badinput")
    resp = env.call("POST", "/quickplay", body, token)
    assert resp.status_code == 400
    assert resp.json["error"]["code"] in {"invalid_input", "unknown_field"}
    assert env.ok("GET", "/quickplay", token=token)["ticket"] is None


def test_signed_out_callers_cannot_play_but_see_who_waits(api_env: Env) -> None:
    env = api_env
    assert env.call("POST", "/quickplay", {"rules": "classic"}).status_code == 401
    assert env.call("DELETE", "/quickplay").status_code == 401
    token, _ = env.register("waiter")
    env.ok("POST", "/quickplay", {"rules": "any"}, token)
    assert env.ok("GET", "/quickplay") == {
        "ticket": None,
        "waiting": {"classic": 0, "wild-stars": 0, "poker": 0, "perudo": 0, "any": 1},
    }


def test_play_now_and_cancel_flooding_is_429(api_env: Env) -> None:
    env = api_env
    token, _ = env.register("flooder")
    codes = []
    for i in range(12):
        method = "POST" if i % 2 == 0 else "DELETE"
        resp = env.call(method, "/quickplay", {"rules": "classic"} if i % 2 == 0 else None, token)
        codes.append(resp.status_code)
    assert codes[:10] == [202, 204] * 5
    assert codes[10:] == [429, 429]
    assert env.ok("GET", "/quickplay", token=token)["ticket"] is None


def test_play_again_seats_the_same_people_together(api_env: Env) -> None:
    env = api_env
    users = _users(env, 2)
    for token, _ in users:
        env.ok("POST", "/quickplay", {"rules": "poker"}, token)
    room_id = env.ok("GET", "/quickplay", token=users[0][0])["ticket"]["room_id"]
    # Not before the game is over.
    early = env.call("POST", "/quickplay", {"rules": "poker", "play_again": room_id}, users[0][0])
    assert early.status_code in (200, 409)
    # Both resign-and-finish: play it out quickly by resigning one, which ends a duel.
    env.clock.advance(10_000)
    env.ok("POST", f"/rooms/{room_id}/actions", {"type": "resign"}, users[0][0])
    assert env.ok("GET", f"/rooms/{room_id}")["status"] == "finished"
    strangers = _users(env, 1, "st")
    env.ok("POST", "/quickplay", {"rules": "poker"}, strangers[0][0], 202)
    first = env.call("POST", "/quickplay", {"rules": "poker", "play_again": room_id}, users[0][0])
    assert first.status_code == 202 and first.json["ticket"]["status"] == "waiting"
    second = env.call("POST", "/quickplay", {"rules": "poker", "play_again": room_id}, users[1][0])
    assert second.json["ticket"]["status"] == "matched"
    new_room = _room(env, second.json["ticket"]["room_id"])
    assert {p.user_id for p in new_room.players} == {u["id"] for _, u in users}
    assert env.ok("GET", "/quickplay", token=strangers[0][0])["ticket"]["status"] == "waiting"


def test_play_now_is_limited_per_source_address_across_users(
    api_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = api_env
    from chalicelib.settings import reset_settings

    monkeypatch.setenv("QUICKPLAY_ACTIONS_PER_SOURCE", "3")
    reset_settings()
    (a, _), (b, _) = _users(env, 2, "src")
    assert env.call("POST", "/quickplay", {"rules": "classic"}, a).status_code == 202
    assert env.call("DELETE", "/quickplay", token=a).status_code == 204
    assert env.call("POST", "/quickplay", {"rules": "classic"}, b).status_code == 202
    refused = env.call("DELETE", "/quickplay", token=b)
    assert refused.status_code == 429 and refused.json["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert env.ok("GET", "/quickplay", token=b)["ticket"]["status"] == "waiting"
