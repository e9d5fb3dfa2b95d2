"""The REST routes of "my games" and notifications (on moto, with a push service on loopback)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import realtime, wiring
from chalicelib.adapters.sns_push import RecordingMobilePush
from chalicelib.notify import Deliverer, stored_language
from chalicelib.push_endpoints import parse_allow_list
from chalicelib.webpush import VapidKey, WebPushSender, b64u_decode
from tests.api.conftest import Env
from tests.push.fake_push_service import FakePushService, running
from tests.push.test_push_endpoints import REFUSED

SECRET = "api-test-vapid-secret-0123456789abcdef0123456789"


@pytest.fixture
def push() -> Iterator[FakePushService]:
    with running() as svc:
        yield svc


@pytest.fixture
def env(api_env: Env, push: FakePushService, cheap_hashes: None) -> Env:
    web = WebPushSender(
        VapidKey.from_secret(SECRET),
        subject="mailto:t@example.org",
        allow=parse_allow_list(push.origin),
        sleep=lambda s: None,
    )
    mobile = RecordingMobilePush()
    deliverer = Deliverer(api_env.store, web, mobile, stored_language(api_env.store))
    deps = dataclasses.replace(api_env.deps, push=deliverer)
    wiring.set_deps(deps)
    api_env.deps = deps
    return api_env


def test_the_vapid_key_is_public_and_a_p256_point(env: Env) -> None:
    key = env.ok("GET", "/push/vapid-public-key")["key"]
    assert key == VapidKey.from_secret(SECRET).public_key
    raw = b64u_decode(key)
    assert len(raw) == 65 and raw[0] == 4


def test_subscribe_201_then_200_and_delete_204(env: Env, push: FakePushService) -> None:
    token, _ = env.register("ana")
    sub = push.new_subscription().to_json()
    first = env.call("POST", "/me/push-subscriptions", sub, token)
    assert first.status_code == 201 and first.json == {"endpoint": sub["endpoint"]}
    again = env.call("POST", "/me/push-subscriptions", sub, token)
    assert again.status_code == 200
    gone = env.call("DELETE", "/me/push-subscriptions", {"endpoint": sub["endpoint"]}, token)
    assert gone.status_code == 204 and gone.body in ("", b"", None)
    assert env.store.push_subscriptions(env.store.get_user_by_username("ana").id) == []  # type: ignore[union-attr]


@pytest.mark.parametrize("endpoint", [e for e in REFUSED if isinstance(e, str) and e])
def test_an_endpoint_off_the_list_is_refused_and_never_contacted(
    env: Env, push: FakePushService, endpoint: str
) -> None:
    token, user = env.register("ana")
    sub = push.new_subscription().to_json()
    sub["endpoint"] = endpoint[:2048]
    resp = env.call("POST", "/me/push-subscriptions", sub, token)
    assert resp.status_code == 400
    assert resp.json["error"]["code"] in ("push_endpoint_not_allowed", "invalid_input")
    if len(endpoint) <= 2048:
        assert resp.json["error"]["code"] == "push_endpoint_not_allowed"
        assert resp.json["error"]["field"] == "endpoint"
    assert env.store.push_subscriptions(user["id"]) == []
    assert push.connections == 0


def test_bad_keys_are_refused(env: Env, push: FakePushService) -> None:
    token, _ = env.register("ana")
    sub = push.new_subscription().to_json()
    sub["keys"]["p256dh"] = "AAAA"
    resp = env.call("POST", "/me/push-subscriptions", sub, token)
    assert resp.status_code == 400 and resp.json["error"]["code"] == "invalid_push_keys"


def test_guests_cannot_subscribe(env: Env, push: FakePushService) -> None:
    token, _ = env.guest()
    resp = env.call("POST", "/me/push-subscriptions", push.new_subscription().to_json(), token)
    assert resp.status_code == 403


def test_nobody_deletes_or_takes_over_another_users_subscription_by_naming_it(
    env: Env, push: FakePushService
) -> None:
    ana, ana_user = env.register("ana")
    ben, _ = env.register("ben")
    sub = push.new_subscription().to_json()
    env.ok("POST", "/me/push-subscriptions", sub, ana)
    resp = env.call("DELETE", "/me/push-subscriptions", {"endpoint": sub["endpoint"]}, ben)
    assert resp.status_code == 204
    assert len(env.store.push_subscriptions(ana_user["id"])) == 1


def _room(env: Env, host: str, *others: str, **settings: Any) -> str:
    rid: str = env.ok("POST", "/rooms", {"settings": {"starting_dice": 2, **settings}}, host)["id"]
    for other in others:
        env.ok("POST", f"/rooms/{rid}/join", {}, other)
        env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, other)
    return rid


def _to_move(env: Env, rid: str, tokens: dict[str, str]) -> tuple[str, str, int]:
    """(user id, token, turn number) of whoever is to move in ``rid``."""
    view = env.ok("GET", f"/rooms/{rid}", token=next(iter(tokens.values())))
    turn = view["game"]["turn"]
    seat = next(p for p in view["players"] if p["id"] == turn["player_id"])
    return seat["user_id"], tokens[seat["user_id"]], turn["number"]


def test_my_games_lists_my_open_rooms_my_turn_first(env: Env) -> None:
    ana, ana_user = env.register("ana")
    ben, _ = env.register("ben")
    waiting = _room(env, ana)
    mine = _room(env, ana, ben, pace="correspondence")
    env.ok("POST", f"/rooms/{mine}/start", {}, ana)
    theirs = _room(env, ben, ana, pace="correspondence")
    env.ok("POST", f"/rooms/{theirs}/start", {}, ben)
    tokens = {ana_user["id"]: ana, env.store.get_user_by_username("ben").id: ben}  # type: ignore[union-attr]
    for rid in (mine, theirs):  # make it ana's turn in both, then let ben move in one
        uid, tok, turn = _to_move(env, rid, tokens)
        if uid != ana_user["id"]:
            bid = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
            env.ok("POST", f"/rooms/{rid}/actions", bid, tok)
    uid, tok, turn = _to_move(env, theirs, tokens)
    assert uid == ana_user["id"]
    bid = {"type": "bid", "quantity": 3, "face": 3, "turn": turn}
    env.ok("POST", f"/rooms/{theirs}/actions", bid, ana)  # now ben's turn in theirs
    games = env.ok("GET", "/me/games", token=ana)["games"]
    assert games[0]["room_id"] == mine
    assert {g["room_id"] for g in games} == {waiting, mine, theirs}
    first = games[0]
    assert first["my_turn"] is True and first["pace"] == "correspondence"
    assert first["deadline"].endswith("Z") and first["turn_player_id"]
    assert [g["my_turn"] for g in games] == [True, False, False]
    entry = next(g for g in games if g["room_id"] == waiting)
    assert entry == {
        "room_id": waiting,
        "rules": "classic",
        "status": "waiting",
        "pace": "live",
        "my_turn": False,
        "deadline": None,
        "turn_player_id": None,
        "updated_at": entry["updated_at"],
    }
    # another user sees only their own
    ben_games = env.ok("GET", "/me/games", token=ben)["games"]
    assert {g["room_id"] for g in ben_games} == {mine, theirs}
    # leaving a waiting room takes it off the list
    env.ok("POST", f"/rooms/{waiting}/leave", {}, ana)
    assert waiting not in {g["room_id"] for g in env.ok("GET", "/me/games", token=ana)["games"]}
    assert env.call("GET", "/me/games").status_code == 401
    assert ana_user["id"]


def test_a_move_writes_nothing_more_than_the_room(env: Env) -> None:
    """Seats are written on joining and leaving, never on a move (one write per action)."""
    ana, _ = env.register("ana")
    ben, ben_user = env.register("ben")
    rid = _room(env, ana, ben, pace="correspondence")
    env.ok("POST", f"/rooms/{rid}/start", {}, ana)
    tokens = {env.store.get_user_by_username(n).id: t for n, t in (("ana", ana), ("ben", ben))}  # type: ignore[union-attr]
    _, mover, turn = _to_move(env, rid, tokens)
    calls: list[str] = []
    client = env.store.client

    def count(model: Any, **_: Any) -> None:
        calls.append(model.name)

    client.unguarded._client.meta.events.register("before-call.dynamodb.*", count)  # type: ignore[attr-defined]
    env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "bid", "quantity": 1, "face": 2, "turn": turn},
        mover,
    )
    writes = [
        c
        for c in calls
        if c in ("PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem")
    ]
    assert len(writes) == 1, calls
    assert ben_user["id"]


def test_a_live_turn_is_pushed_only_to_a_player_not_watching(
    env: Env, push: FakePushService
) -> None:
    ana, ana_user = env.register("ana")
    ben, ben_user = env.register("ben")
    browsers = {}
    tokens = {ana_user["id"]: ana, ben_user["id"]: ben}
    for uid, tok in tokens.items():
        browsers[uid] = push.new_subscription(uid)
        env.ok("POST", "/me/push-subscriptions", browsers[uid].to_json(), tok)
    rid = _room(env, ana, ben)
    env.ok("POST", f"/rooms/{rid}/start", {}, ana)
    mover, tok, turn = _to_move(env, rid, tokens)
    waiting = next(u for u in tokens if u != mover)
    push.requests.clear()
    bid = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
    env.ok("POST", f"/rooms/{rid}/actions", bid, tok)
    [request] = push.requests
    told = json.loads(browsers[waiting].decrypt(request.body))
    assert told["type"] == "your_turn" and told["room_id"] == rid
    assert request.headers["Urgency"] == "high"
    # now both watch the room: the next moves are not pushed
    for uid in tokens:
        env.store.put_connection(f"c-{uid}", uid, env.clock.now_ms())
        env.store.subscribe(f"c-{uid}", rid)
    for quantity in (2, 3):
        _, tok, turn = _to_move(env, rid, tokens)
        bid = {"type": "bid", "quantity": quantity, "face": 2, "turn": turn}
        env.ok("POST", f"/rooms/{rid}/actions", bid, tok)
    assert len(push.requests) == 1
    assert realtime  # the timer module stays importable beside the routes


def test_an_invitation_is_pushed_and_a_gone_subscription_forgotten(
    env: Env, push: FakePushService
) -> None:
    ana, _ = env.register("ana")
    ben, ben_user = env.register("ben")
    browser = push.new_subscription("ben")
    env.ok("POST", "/me/push-subscriptions", browser.to_json(), ben)
    rid = _room(env, ana)
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "ben"}, ana)
    [told] = [json.loads(browser.decrypt(r.body)) for r in push.requests]
    assert told == {
        "type": "invited",
        "room_id": rid,
        "rules": "classic",
        "title": "You are invited",
        "body": "ana invited you to a table of Classic.",
    }
    push.answer(410)
    other = _room(env, ana)
    env.ok("POST", f"/rooms/{other}/invitations", {"username": "ben"}, ana)
    assert env.store.push_subscriptions(ben_user["id"]) == []


def test_a_notification_is_written_in_the_language_the_user_chose(
    env: Env, push: FakePushService
) -> None:
    ana, _ = env.register("ana")
    ben, _ = env.register("ben")
    env.ok("PATCH", "/me/preferences", {"language": "es"}, ben)
    browser = push.new_subscription("ben")
    env.ok("POST", "/me/push-subscriptions", browser.to_json(), ben)
    rid = _room(env, ana)
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "ben"}, ana)
    [told] = [json.loads(browser.decrypt(r.body)) for r in push.requests]
    assert told == {
        "type": "invited",
        "room_id": rid,
        "rules": "classic",
        "title": "Tienes una invitación",
        "body": "ana te ha invitado a una mesa de Clásico.",
    }
    env.ok("PATCH", "/me/preferences", {"language": "pt-BR"}, ben)
    push.requests.clear()
    env.ok("POST", f"/rooms/{_room(env, ana)}/invitations", {"username": "ben"}, ana)
    [told] = [json.loads(browser.decrypt(r.body)) for r in push.requests]
    assert (told["title"], told["body"]) == (
        "Você foi convidado",
        "ana convidou você para uma mesa de Clássico.",
    )


def test_devices_register_and_receive_through_the_mobile_port(env: Env) -> None:
    ana, _ = env.register("ana")
    ben, ben_user = env.register("ben")
    resp = env.call("POST", "/me/devices", {"platform": "fcm", "token": "fcm-token-123456"}, ben)
    assert resp.status_code == 201
    assert (
        env.call(
            "POST", "/me/devices", {"platform": "fcm", "token": "fcm-token-123456"}, ben
        ).status_code
        == 200
    )
    bad = env.call("POST", "/me/devices", {"platform": "wns", "token": "x" * 20}, ben)
    assert bad.status_code == 400
    rid = _room(env, ana)
    env.ok("POST", f"/rooms/{rid}/invitations", {"username": "ben"}, ana)
    mobile = env.deps.push.mobile
    [(device, body, message)] = mobile.sent
    assert device.token == "fcm-token-123456" and message["type"] == "invited"
    assert "GCM" in json.loads(body)
    assert env.call("DELETE", "/me/devices", {"token": "fcm-token-123456"}, ben).status_code == 204
    assert env.store.devices(ben_user["id"]) == []
    assert mobile.unregistered == ["fcm-token-123456"]


def test_a_quick_play_match_is_pushed_to_those_who_waited(env: Env, push: FakePushService) -> None:
    users = [env.register(f"qp{i}") for i in range(4)]
    browsers = []
    for token, user in users:
        browsers.append(push.new_subscription(user["id"]))
        env.ok("POST", "/me/push-subscriptions", browsers[-1].to_json(), token)
    answers = [env.call("POST", "/quickplay", {"rules": "classic"}, tok) for tok, _ in users]
    assert [a.json["ticket"]["status"] for a in answers] == ["waiting"] * 3 + ["matched"]
    room_id = answers[-1].json["ticket"]["room_id"]
    told = {
        user["id"]: [json.loads(b.decrypt(r.body)) for r in push.for_path(f"/push/{user['id']}")]
        for (_, user), b in zip(users, browsers, strict=True)
    }
    for _, user in users[:3]:  # those who waited are told; the one who completed it has the answer
        assert [m["type"] for m in told[user["id"]]] == ["match_found"]
        assert told[user["id"]][0]["room_id"] == room_id
    assert [m["type"] for m in told[users[3][1]["id"]]] == []
