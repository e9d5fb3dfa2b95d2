"""A correspondence game driven by ticks across days of fake time, on both stores.

Two registered players each register a browser whose push service is a fake on loopback;
every move reaches the other player as a push they decrypt to the documented JSON, and the
turn that runs out after 24 hours is applied by the timer (the schedule only wakes).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from chalicelib import realtime, wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.notify import Deliverer
from chalicelib.push_endpoints import parse_allow_list
from chalicelib.service import Caller, Service, lobby, notifications, play
from chalicelib.webpush import VapidKey, WebPushSender
from tests.push.fake_push_service import FakeBrowser, FakePushService, running

DAY_MS = 24 * 3600 * 1000
SECRET = "correspondence-test-vapid-secret-0123456789abcdef"


@pytest.fixture
def push() -> Iterator[FakePushService]:
    with running() as svc:
        yield svc


@pytest.fixture(params=["sqlite", "moto"])
def deps(
    request: pytest.FixtureRequest, push: FakePushService, monkeypatch: pytest.MonkeyPatch
) -> Iterator[wiring.Deps]:
    clock = FakeClock()
    web = WebPushSender(
        VapidKey.from_secret(SECRET),
        subject="mailto:t@example.org",
        allow=parse_allow_list(push.origin),
        sleep=lambda s: None,
    )
    if request.param == "sqlite":
        store: Any = SqliteStore(":memory:", clock=clock)
        d = wiring.Deps(store, FakeNotifier(), FakeTimers(), clock, SeededRoller(5))
        yield wiring.Deps(**{**d.__dict__, "push": Deliverer(store, web)})
        store.close()
        return
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        dyn = DynamoStore("corr-test", "us-east-1", client=boto3.client("dynamodb"))
        dyn.ensure_table()
        d = wiring.Deps(dyn, FakeNotifier(), FakeTimers(), clock, SeededRoller(5))
        yield wiring.Deps(**{**d.__dict__, "push": Deliverer(dyn, web)})


def user(deps: wiring.Deps, uid: str, name: str) -> Caller:
    deps.store.create_user(uid, name, "x", False, name, now_ms=deps.clock.now_ms())
    return Caller(uid, name, False)


def subscribe(deps: wiring.Deps, caller: Caller, browser: FakeBrowser) -> None:
    data = browser.to_json()
    created, _ = notifications.subscribe(
        Service(deps),
        caller.user_id,
        data["endpoint"],
        data["keys"]["p256dh"],
        data["keys"]["auth"],
    )
    assert created


def received(push: FakePushService, browser: FakeBrowser) -> list[dict[str, Any]]:
    path = browser.endpoint.split(str(push.port), 1)[1]
    return [json.loads(browser.decrypt(r.body)) for r in push.for_path(path)]


def test_two_players_finish_a_24_hour_game_told_by_push(
    deps: wiring.Deps, push: FakePushService
) -> None:
    ana, ben = user(deps, "u1", "ana"), user(deps, "u2", "ben")
    browsers = {"u1": push.new_subscription("ana"), "u2": push.new_subscription("ben")}
    subscribe(deps, ana, browsers["u1"])
    subscribe(deps, ben, browsers["u2"])
    svc = Service(deps)
    rid = lobby.create_room(svc, ana, {"pace": "correspondence", "starting_dice": 2})["id"]
    assert play.get_room(svc, rid, ana)["settings"]["turn_seconds"] == 86400
    lobby.join(svc, ben, rid, None)
    lobby.set_ready(svc, ben, rid, True)
    lobby.start(svc, ana, rid)

    games = notifications.my_games(Service(deps), "u1")["games"]
    assert [g["room_id"] for g in games] == [rid]
    assert games[0]["pace"] == "correspondence" and games[0]["status"] == "playing"

    by_user = {"u1": ana, "u2": ben}
    moves = 0
    timed_out = False
    for _ in range(60):
        view = play.get_room(svc, rid, ana)
        if view["status"] != "playing":
            break
        game = view["game"]
        if game["phase"] == "break":
            # nobody agrees: the break lasts one turn length, then the timer starts the round
            deps.clock.advance(DAY_MS + 1000)
            realtime.on_timer(rid, deps=deps)
            continue
        if game["turn"] is None:  # the final reveal's few seconds
            deps.clock.advance(10_000)
            realtime.on_timer(rid, deps=deps)
            continue
        holder = next(p for p in view["players"] if p["id"] == game["turn"]["player_id"])
        mover = by_user[holder["user_id"]]
        other = "u2" if mover.user_id == "u1" else "u1"
        mine = notifications.my_games(Service(deps), mover.user_id)["games"][0]
        assert mine["my_turn"] and mine["turn_player_id"] == holder["id"]
        assert mine["deadline"] is not None
        assert not notifications.my_games(Service(deps), other)["games"][0]["my_turn"]
        if not timed_out and game["current_bid"] is not None:
            # this player sleeps through their turn: 23 hours change nothing, 24 do
            deps.clock.advance(23 * 3600 * 1000)
            realtime.on_timer(rid, deps=deps)
            assert play.get_room(svc, rid, ana)["game"]["turn"]["number"] == game["turn"]["number"]
            deps.clock.advance(3600 * 1000 + 1)
            realtime.on_timer(rid, deps=deps)
            timed_out = True
            continue
        deps.clock.advance(5 * 3600 * 1000)  # a move now and then
        turn = game["turn"]["number"]
        before = len(received(push, browsers[other]))
        action: dict[str, Any] = {"type": "liar", "turn": turn}
        if game["current_bid"] is None:
            action = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
        play.act(svc, mover, rid, action)
        moves += 1
        after = play.get_room(svc, rid, ana)
        told = received(push, browsers[other])
        turn_now = after["game"]["turn"] if after["status"] == "playing" else None
        holder_now = next(
            (
                p["user_id"]
                for p in after["players"]
                if turn_now and p["id"] == turn_now["player_id"]
            ),
            None,
        )
        if holder_now == other:
            assert len(told) == before + 1, "the other player was not told"
            assert told[-1]["type"] == "your_turn" and told[-1]["room_id"] == rid
            assert set(told[-1]) == {"type", "room_id", "rules", "title", "body"}
            assert mover.name in told[-1]["body"]
        else:
            assert len(told) == before
    final = play.get_room(svc, rid, ana)
    assert final["status"] == "finished" and timed_out and moves >= 1
    # the game is over: it left both players' lists
    assert notifications.my_games(Service(deps), "u1")["games"] == []
    assert notifications.my_games(Service(deps), "u2")["games"] == []
    assert all(received(push, b) for b in browsers.values())
    # no push ever carried a die: every payload is the documented five keys
    for b in browsers.values():
        for message in received(push, b):
            assert set(message) == {"type", "room_id", "rules", "title", "body"}
