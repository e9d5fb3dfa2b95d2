"""After the server was down past a human's turn deadline, that turn starts again from the
moment the server is back: nobody loses a turn they could not play. (While the server is up,
a late wake-up still catches up exactly: tests/realtime/test_timers.py,
``test_a_room_left_alone_catches_up_to_what_punctual_timers_give``.)"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.model import Room
from chalicelib.service.core import summary
from liars_local.data import DB_FILE_NAME
from liars_local.server import LocalServer
from tests.local.support import auth, ok
from tests.quick_bots import quick_bots


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _humans_turn(url: str, rid: str, token: str, within_s: float = 30) -> dict[str, Any]:
    """The room's view once it is the human's turn (the bot opens quickly, if it opens)."""
    end = time.monotonic() + within_s
    while True:
        view: dict[str, Any] = ok(httpx.get(f"{url}/rooms/{rid}", headers=auth(token)))
        human = next(p["id"] for p in view["players"] if p["kind"] == "human")
        turn = (view.get("game") or {}).get("turn")
        if turn and turn["player_id"] == human:
            return view
        assert time.monotonic() < end, view
        time.sleep(0.1)


def _move_deadline_back(db: Path, rid: str, by_ms: int) -> int:
    """As if the server had been down ``by_ms`` past the deadline: the deadline it had then."""
    store = SqliteStore(db)
    stored = store.get_room(rid)
    assert stored is not None
    room = Room.from_dict(stored.state)
    assert room.game is not None and room.game.deadline is not None
    room.game.deadline = int(time.time() * 1000) - by_ms
    store.save_room(rid, room.to_dict(), summary(room), stored.version)
    store.close()
    return room.game.deadline


def test_a_turn_that_ran_out_while_the_server_was_down_starts_again(tmp_path: Path) -> None:
    with quick_bots(), LocalServer(data_dir=tmp_path, access_log=lambda _: None) as first:
        token = ok(httpx.post(f"{first.url}/auth/guest", json={"name": "Solo"}), 201)["token"]
        rid = ok(
            httpx.post(
                f"{first.url}/rooms",
                json={"settings": {"turn_seconds": 30}},
                headers=auth(token),
            ),
            201,
        )["id"]
        ok(httpx.post(f"{first.url}/rooms/{rid}/bots", json={}, headers=auth(token)), 201)
        ok(httpx.post(f"{first.url}/rooms/{rid}/start", headers=auth(token)))
        before = _humans_turn(first.url, rid, token)["game"]["turn"]
    _move_deadline_back(tmp_path / DB_FILE_NAME, rid, by_ms=10 * 60_000)

    back_at = int(time.time() * 1000)
    with quick_bots(), LocalServer(data_dir=tmp_path, access_log=lambda _: None) as second:
        assert second.timers is not None
        end = time.monotonic() + 10
        while not any(r == rid for r, _, _ in second.timers.pending()):
            assert time.monotonic() < end, "the room was never woken"
            time.sleep(0.05)
        after = ok(httpx.get(f"{second.url}/rooms/{rid}", headers=auth(token)))["game"]["turn"]

    assert after is not None, "the human's turn was timed out"
    assert (after["number"], after["player_id"]) == (before["number"], before["player_id"])
    assert _epoch_ms(after["deadline"]) >= back_at + 30_000  # the whole turn, from the restart


def test_a_deadline_still_ahead_at_the_restart_is_kept(tmp_path: Path) -> None:
    with quick_bots(), LocalServer(data_dir=tmp_path, access_log=lambda _: None) as first:
        token = ok(httpx.post(f"{first.url}/auth/guest", json={"name": "Solo"}), 201)["token"]
        rid = ok(
            httpx.post(
                f"{first.url}/rooms",
                json={"settings": {"turn_seconds": 60}},
                headers=auth(token),
            ),
            201,
        )["id"]
        ok(httpx.post(f"{first.url}/rooms/{rid}/bots", json={}, headers=auth(token)), 201)
        ok(httpx.post(f"{first.url}/rooms/{rid}/start", headers=auth(token)))
        before = _humans_turn(first.url, rid, token)["game"]["turn"]
    with quick_bots(), LocalServer(data_dir=tmp_path, access_log=lambda _: None) as second:
        after = ok(httpx.get(f"{second.url}/rooms/{rid}", headers=auth(token)))["game"]["turn"]
    assert after == before
