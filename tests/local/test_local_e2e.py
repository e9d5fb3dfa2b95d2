"""Issue 5 end to end on the local server: a guest plays a whole game against two bots over
HTTP while a signed-out spectator on ``/ws`` receives every update, never with hidden dice."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from liars_local.server import LocalServer
from tests.quick_bots import quick_bots


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    """The local server with quick bots, so a whole game ends well inside the test's bound."""
    with quick_bots(), LocalServer(access_log=lambda _: None) as running:
        yield running


class Spectator:
    """A signed-out WebSocket client subscribed to one room, collecting every message."""

    def __init__(self, ws_url: str, room_id: str) -> None:
        self.ws_url = ws_url
        self.room_id = room_id
        self.messages: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.finished = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        async with websockets.connect(self.ws_url) as ws:
            await ws.send(json.dumps({"action": "subscribe", "room_id": self.room_id}))
            # messages are handled in order per connection: the pong means we are subscribed
            await ws.send(json.dumps({"action": "ping"}))
            while not self.stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.2)
                except TimeoutError:
                    continue
                message = json.loads(raw)
                if message.get("type") == "pong":
                    self.ready.set()
                    continue
                self.messages.append(message)
                if message.get("type") == "room" and message["room"]["status"] == "finished":
                    self.finished.set()

    def __enter__(self) -> Spectator:
        self.thread.start()
        assert self.ready.wait(10), "the spectator never got its pong"
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)


def hidden_leaks(node: Any, path: str = "") -> list[str]:
    """Paths that carry dice or bid lists outside a revealed round's rows."""
    leaks: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}"
            if key == "rows":
                continue  # a completed round's reveal table: dice and bids are public there
            if key in ("dice", "bids", "bid_history", "hands") and value not in (None, []):
                leaks.append(here)
            leaks.extend(hidden_leaks(value, here))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            leaks.extend(hidden_leaks(value, f"{path}[{index}]"))
    return leaks


def my_move(room: dict[str, Any]) -> dict[str, Any] | None:
    """The guest's next action: open with one of its own faces, otherwise call Liar!."""
    game = room.get("game") or {}
    me = room["me"]["player_id"]
    turn = game.get("turn")
    if room["status"] != "playing" or game.get("phase") != "bidding" or not turn:
        return None
    if turn["player_id"] != me:
        return None
    if game.get("current_bid") is None:
        faces = [d for d in room["me"]["dice"] or [] if isinstance(d, int)]
        return {
            "type": "bid",
            "quantity": 1,
            "face": faces[0] if faces else 6,
            "turn": turn["number"],
        }
    return {"type": "liar", "turn": turn["number"]}


def test_guest_plays_a_whole_game_against_two_bots_while_a_spectator_watches(
    server: LocalServer,
) -> None:
    http = httpx.Client(base_url=server.url, timeout=10)
    signed_in = http.post("/auth/guest", json={"name": "Ada"})
    assert signed_in.status_code == 201, signed_in.text
    auth = {"Authorization": f"Bearer {signed_in.json()['token']}"}

    created = http.post("/rooms", json={"settings": {"starting_dice": 1}}, headers=auth)
    assert created.status_code == 201, created.text
    room_id = created.json()["id"]

    with Spectator(server.ws_url, room_id) as spectator:
        for _ in range(2):
            added = http.post(f"/rooms/{room_id}/bots", json={}, headers=auth)
            assert added.status_code == 201, added.text
        started = http.post(f"/rooms/{room_id}/start", headers=auth)
        assert started.status_code == 200, started.text

        room = started.json()
        for _ in range(200):  # bounded: a one-die game of three ends in two rounds
            if room["status"] == "finished":
                break
            move = my_move(room)
            if move is not None:
                acted = http.post(f"/rooms/{room_id}/actions", json=move, headers=auth)
                assert acted.status_code in (200, 409), acted.text
            else:
                time.sleep(0.05)  # the final reveal ends by the local timer loop
            room = http.get(f"/rooms/{room_id}", headers=auth).json()
        assert room["status"] == "finished", room

        assert spectator.finished.wait(15), "the spectator never saw the finished room"

    final = http.get(f"/rooms/{room_id}").json()
    rooms = [m["room"] for m in spectator.messages if m["type"] == "room"]
    versions = [r["version"] for r in rooms]
    assert rooms, spectator.messages
    assert versions == sorted(set(versions)), "pushes arrive once each and in order"
    # the subscription may first send the current view; then nothing after it is missing
    assert versions[0] <= created.json()["version"] + 1, "the first bot's update is pushed"
    assert versions == list(range(versions[0], versions[-1] + 1)), "no update is skipped"
    assert {"waiting", "playing", "finished"} <= {r["status"] for r in rooms}
    assert versions[-1] == final["version"]
    assert final["results"]["ranking"]
    for pushed in spectator.messages:
        assert hidden_leaks(pushed) == [], pushed
        if pushed["type"] == "room":
            assert pushed["room"]["me"]["player_id"] is None
            assert pushed["room"]["me"]["dice"] is None
