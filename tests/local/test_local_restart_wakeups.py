"""The local server's wake-ups live in its memory, the rooms' deadlines in the data folder: after
a restart every room in play is woken once (as a late timer would), so a game nobody is
watching still moves on when its deadline passes, without a client touching the room."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from liars_local.server import LocalServer
from tests.local.support import auth, ok


def _wake_ups(server: LocalServer, room_id: str, within_s: float = 5.0) -> list[tuple[int, int]]:
    """The (version, at_ms) wake-ups pending for the room, once any is (or after a while)."""
    assert server.timers is not None
    end = time.monotonic() + within_s
    while True:
        found = [(v, at) for rid, v, at in server.timers.pending() if rid == room_id]
        if found or time.monotonic() > end:
            return found
        time.sleep(0.05)


def test_a_game_in_play_is_woken_again_after_a_restart(tmp_path: Path) -> None:
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as first:
        token = ok(httpx.post(f"{first.url}/auth/guest", json={"name": "Solo"}), 201)["token"]
        rid = ok(httpx.post(f"{first.url}/rooms", json={"settings": {}}, headers=auth(token)), 201)[
            "id"
        ]
        ok(httpx.post(f"{first.url}/rooms/{rid}/bots", json={}, headers=auth(token)), 201)
        view: dict[str, Any] = ok(httpx.post(f"{first.url}/rooms/{rid}/start", headers=auth(token)))
        armed = _wake_ups(first, rid)
        assert armed, "the started game has no wake-up"

    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as second:
        # Nobody touches the room: the new process arms its wake-up from the stored deadline.
        rearmed = _wake_ups(second, rid)
        assert [at for _, at in rearmed] == [at for _, at in armed], (armed, rearmed)
        assert rearmed[0][0] == view["version"]
