"""The local server's Web Push: a VAPID key made once in the data folder, and a 24-hour-turn
game between two registered players where each move reaches the other as a push they decrypt
(the push service is a fake on loopback, allowed with ``PUSH_ENDPOINT_ALLOW``)."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from chalicelib.settings import reset_settings
from liars_local.push import VAPID_FILE_NAME, load_or_create_vapid_secret
from liars_local.server import LocalServer
from tests.local.support import PASSWORD, auth, ok
from tests.push.fake_push_service import running


def test_the_vapid_secret_is_made_once_owner_only(tmp_path: Path) -> None:
    first = load_or_create_vapid_secret(tmp_path)
    path = tmp_path / VAPID_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_vapid_secret(tmp_path) == first
    assert [p.name for p in tmp_path.iterdir()] == [VAPID_FILE_NAME]  # no temporary left
    os.chmod(path, 0o644)
    assert load_or_create_vapid_secret(tmp_path) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_processes_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    seen: list[str] = []
    threads = [
        threading.Thread(target=lambda: seen.append(load_or_create_vapid_secret(tmp_path)))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1 and len(seen) == 8


def test_a_short_vapid_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / VAPID_FILE_NAME).write_text("short\n")
    with pytest.raises(ValueError, match="delete it"):
        load_or_create_vapid_secret(tmp_path)


def test_two_players_finish_a_24_hour_game_each_move_pushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running() as push:
        monkeypatch.setenv("PUSH_ENDPOINT_ALLOW", push.origin)
        reset_settings()
        try:
            _play(tmp_path, push)
        finally:
            monkeypatch.delenv("PUSH_ENDPOINT_ALLOW")
            reset_settings()


def _play(tmp_path: Path, push: Any) -> None:
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as server:
        url = server.url
        key = ok(httpx.get(f"{url}/push/vapid-public-key"))["key"]
        tokens: dict[str, str] = {}
        browsers = {}
        for name in ("ana", "ben"):
            out = ok(
                httpx.post(f"{url}/auth/register", json={"username": name, "password": PASSWORD}),
                201,
            )
            tokens[out["user"]["id"]] = out["token"]
            browsers[out["user"]["id"]] = b = push.new_subscription(name)
            ok(
                httpx.post(
                    f"{url}/me/push-subscriptions", json=b.to_json(), headers=auth(out["token"])
                ),
                201,
            )
        ana, ben = list(tokens.values())
        settings = {"pace": "correspondence", "turn_seconds": 86400, "starting_dice": 2}
        rid = ok(httpx.post(f"{url}/rooms", json={"settings": settings}, headers=auth(ana)), 201)[
            "id"
        ]
        ok(httpx.post(f"{url}/rooms/{rid}/join", json={}, headers=auth(ben)))
        ok(httpx.put(f"{url}/rooms/{rid}/ready", json={"ready": True}, headers=auth(ben)))
        ok(httpx.post(f"{url}/rooms/{rid}/start", json={}, headers=auth(ana)))
        pushed = 0
        for _ in range(200):
            view = ok(httpx.get(f"{url}/rooms/{rid}", headers=auth(ana)))
            if view["status"] != "playing":
                break
            game = view["game"]
            if game["phase"] == "break":
                for tok in tokens.values():
                    httpx.post(
                        f"{url}/rooms/{rid}/actions", json={"type": "agree"}, headers=auth(tok)
                    )
                continue
            if game["turn"] is None:
                time.sleep(0.2)  # the final reveal's three seconds, on the server's clock
                continue
            seat = next(p for p in view["players"] if p["id"] == game["turn"]["player_id"])
            mover = seat["user_id"]
            other = next(u for u in tokens if u != mover)
            mine = ok(httpx.get(f"{url}/me/games", headers=auth(tokens[mover])))["games"]
            assert mine[0]["room_id"] == rid and mine[0]["my_turn"]
            before = len(push.requests)
            turn = game["turn"]["number"]
            action: dict[str, Any] = {"type": "liar", "turn": turn}
            if game["current_bid"] is None:
                action = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
            ok(httpx.post(f"{url}/rooms/{rid}/actions", json=action, headers=auth(tokens[mover])))
            after = ok(httpx.get(f"{url}/rooms/{rid}", headers=auth(ana)))
            new = push.requests[before:]
            holder = after["game"]["turn"] if after["status"] == "playing" else None
            next_user = next(
                (
                    p["user_id"]
                    for p in after["players"]
                    if holder and p["id"] == holder["player_id"]
                ),
                None,
            )
            if next_user == other:
                assert len(new) == 1  # the other player is told it is their turn
                told = json.loads(browsers[other].decrypt(new[0].body))
                assert told["type"] == "your_turn" and told["room_id"] == rid
                assert new[0].headers["Authorization"].endswith(f"k={key}")
                pushed += 1
            else:
                assert new == []  # nobody is told of their own turn
        assert ok(httpx.get(f"{url}/rooms/{rid}", headers=auth(ana)))["status"] == "finished"
        assert pushed >= 2
    assert stat.S_IMODE((tmp_path / VAPID_FILE_NAME).stat().st_mode) == 0o600
