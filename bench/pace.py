"""How far apart bots' moves reach a watcher: the raw WebSocket stream of the local server.

A guest plays against four strong bots on ``liars-dice``'s local server (real clock, default
think times unless ``BOT_THINK_MIN_MS``/``BOT_THINK_MAX_MS`` are set). A signed-out spectator
records every ``room`` push. For each bot move (``bid_placed``, ``liar_called`` with ``by:
"bot"``) it prints the gap between its ``at`` stamp and the event before it, and the gap
between a bot's Liar! and its reveal. The human bids the lowest raise, or calls Liar! on every
third turn, until ``ROUNDS`` rounds have been decided.

With ``--browser`` it plays the same way in headless Chromium (Debian's ``/usr/bin/chromium``)
through the bundled client, and prints how long each announcement ("Bot 3: four 5s") stayed
on screen before the table's next announcement replaced it (our own clicks excluded: the
bench bids as soon as its turn shows).

Run: ``.venv/bin/python bench/pace.py [--browser]`` (about a minute). Figures only.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

import httpx
import websockets

from liars_local.server import LocalServer

ROUNDS = 6


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def watch(ws_url: str, room_id: str, pushes: list[dict[str, Any]], stop: threading.Event) -> None:
    async def run() -> None:
        async with websockets.connect(ws_url) as ws:
            await ws.send(json.dumps({"action": "subscribe", "room_id": room_id}))
            while not stop.is_set():
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except TimeoutError:
                    continue
                if message.get("type") == "room":
                    pushes.append(message)

    asyncio.run(run())


def browser_main() -> None:
    from playwright.sync_api import sync_playwright

    chromium = "/usr/bin/chromium"
    record = """() => { window.__said = []; new MutationObserver(() => {
        const a = document.querySelector("[data-testid='announcement']");
        const text = a ? a.textContent : '';
        const last = window.__said[window.__said.length - 1];
        if (!last || last.text !== text) window.__said.push({ text, at: performance.now() });
      }).observe(document.body, { subtree: true, childList: true, characterData: true }); }"""
    mine = """() => document.querySelector("[data-testid='final-results']")
        || (document.querySelector("[data-testid='bid-submit']")
            && !document.querySelector("[data-testid='bid-submit']").disabled)"""
    with LocalServer(access_log=lambda _line: None) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.url}/")
        page.click("[data-testid='guest-signin']")
        page.click("[data-testid='create-room']")
        page.wait_for_selector("[data-testid='waiting-room']")
        for n in range(2, 6):
            page.click("[data-testid='add-bot']")
            page.wait_for_function(
                f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
            )
        page.evaluate(record)
        page.click("[data-testid='start-game']")
        for _ in range(10):
            page.wait_for_function(mine, timeout=60_000)
            if page.locator("[data-testid='final-results']").count():
                break
            page.click("[data-testid='bid-submit']")
            page.wait_for_timeout(300)
        page.wait_for_timeout(3000)
        said = page.evaluate("window.__said")
        browser.close()
    shown = [
        b["at"] - a["at"]
        for a, b in itertools.pairwise(said)
        # the next one is the table's, not our own click (which may come at once)
        if a["text"].startswith("Bot ") and ": " in a["text"] and not b["text"].startswith("You")
    ]
    print(f"announcements recorded: {len(said)}")
    if shown:
        print(
            f"a bot's move on screen before the next announcement: n={len(shown)} min "
            f"{min(shown):.0f} ms, median {statistics.median(shown):.0f} ms, max {max(shown):.0f} ms"
        )


def main() -> None:
    if "--browser" in sys.argv:
        browser_main()
        return
    with LocalServer(access_log=lambda _line: None) as server:
        http = httpx.Client(base_url=server.url, timeout=10)
        token = http.post("/auth/guest", json={}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        rid = http.post("/rooms", json={}, headers=auth).json()["id"]
        for _ in range(4):
            http.post(f"/rooms/{rid}/bots", json={"level": "strong"}, headers=auth)
        pushes: list[dict[str, Any]] = []
        stop = threading.Event()
        watcher = threading.Thread(target=watch, args=(server.ws_url, rid, pushes, stop))
        watcher.start()
        time.sleep(0.5)
        http.post(f"/rooms/{rid}/start", headers=auth)
        turns = 0
        while True:
            view = http.get(f"/rooms/{rid}", headers=auth).json()
            game = view["game"]
            if view["status"] != "playing" or game["round"] > ROUNDS:
                break
            turn = game["turn"]
            if game["phase"] != "bidding" or turn["player_id"] != view["me"]["player_id"]:
                time.sleep(0.2)
                continue
            # act when the table reaches our turn, as the bundled client does
            start = ms(turn["deadline"]) - view["settings"]["turn_seconds"] * 1000
            time.sleep(max(0.0, (start - view["server_time"]) / 1000) + 0.3)
            bid = game["current_bid"]
            turns += 1
            if bid and (turns % 3 == 0 or bid["quantity"] >= game["total_dice"]):
                action: dict[str, Any] = {"type": "liar"}
            elif bid is None:
                action = {"type": "bid", "quantity": 1, "face": 2}
            elif bid["face"] < 6:
                action = {"type": "bid", "quantity": bid["quantity"], "face": bid["face"] + 1}
            else:
                action = {"type": "bid", "quantity": bid["quantity"] + 1, "face": 2}
            http.post(
                f"/rooms/{rid}/actions", json={**action, "turn": turn["number"]}, headers=auth
            )
        time.sleep(3)
        stop.set()
        watcher.join()
    moves, reveals = [], []
    for push in pushes:
        events = push["events"]
        for before, event in itertools.pairwise(events):
            gap = ms(event["at"]) - ms(before["at"])
            if event.get("by") == "bot" and event["type"] in ("bid_placed", "liar_called"):
                moves.append(gap)
            if event["type"] == "challenge_resolved":
                caller = next(e for e in reversed(events[: events.index(event)]) if "by" in e)
                if caller["by"] == "bot":
                    reveals.append(ms(event["at"]) - ms(caller["at"]))
    print(f"pushes recorded: {len(pushes)}, human actions: {turns}")
    for name, gaps in (
        ("bot move after the event before", moves),
        ("reveal after bot Liar!", reveals),
    ):
        if gaps:
            print(
                f"{name}: n={len(gaps)} min {min(gaps)} ms, median {statistics.median(gaps):.0f} ms,"
                f" max {max(gaps)} ms"
            )


if __name__ == "__main__":
    main()
