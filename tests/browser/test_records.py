"""Browser: replay a finished game round by round, download its history; leaderboard, profiles.

The games are set up over the local server's REST API (the replay and the leaderboard are
what is under test); the pages are then driven in Chromium. Writes ``test-output/replay.png``
and ``test-output/leaderboard.png``.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import OUTPUT, by_testid

pytestmark = pytest.mark.browser


def _call(
    server: LocalServer, method: str, path: str, body: Any = None, token: str | None = None
) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{server.url}{path}", data=data, method=method, headers=headers
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"null")


def _register(server: LocalServer, name: str) -> str:
    token: str = _call(
        server, "POST", "/auth/register", {"username": name, "password": "correct horse"}
    )["token"]
    return token


def _bot_game(server: LocalServer, token: str) -> str:
    """A human and two bots; the human resigns at once and the bots play the game out."""
    rid: str = _call(server, "POST", "/rooms", {"settings": {"starting_dice": 3}}, token)["id"]
    for _ in range(2):
        _call(server, "POST", f"/rooms/{rid}/bots", {"level": "easy"}, token)
    _call(server, "POST", f"/rooms/{rid}/start", None, token)
    _call(server, "POST", f"/rooms/{rid}/actions", {"type": "resign"}, token)
    deadline = time.monotonic() + 30
    while _call(server, "GET", f"/rooms/{rid}")["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.3)
    return rid


def test_replay_steps_through_a_finished_game_and_downloads_it(
    server: LocalServer, browser: Browser
) -> None:
    OUTPUT.mkdir(exist_ok=True)
    token = _register(server, "replayer")
    rid = _bot_game(server, token)
    history = _call(server, "GET", f"/rooms/{rid}/history")
    rounds = history["rounds"]
    assert len(rounds) >= 2
    context = browser.new_context(viewport={"width": 1100, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/#/rooms/{rid}")
        page.wait_for_selector(by_testid("final-results"))
        # One replay link on the results (issue 28 defect 8: there were two).
        assert page.locator(by_testid("replay-link")).count() == 1
        page.click(by_testid("replay-link"))
        page.wait_for_selector(by_testid("replay-round"))
        for i, record in enumerate(rounds):
            panel = page.locator(by_testid("replay-round"))
            assert panel.get_attribute("data-round") == str(record["round"])
            assert page.inner_text(by_testid("replay-position")) == f"{i + 1} of {len(rounds)}"
            # Bids in order, by whom; every revealed hand with its dice; the call and outcome.
            bidders = page.eval_on_selector_all(
                by_testid("replay-bid"), "els => els.map(e => e.dataset.playerId)"
            )
            assert bidders == [b["player_id"] for b in record["bids"]]
            hands = page.eval_on_selector_all(
                by_testid("replay-hand"),
                "els => els.map(e => [e.dataset.playerId, e.querySelectorAll('.die').length])",
            )
            outcome = page.inner_text(by_testid("replay-outcome"))
            if record["reveal"] is None:
                # the round the human's resignation abandoned (docs/HISTORY.md): no hands shown
                assert hands == []
                assert "resigned: the round ended without a reveal" in outcome
            else:
                rows = record["reveal"]["rows"]
                assert hands == [[r["player_id"], len(r["dice"])] for r in rows]
                assert f"Counted: {record['reveal']['count']}." in outcome
            counts = page.eval_on_selector_all(
                by_testid("replay-count"), "els => els.map(e => e.dataset.playerId)"
            )
            assert counts == [p for p, n in record["dice_counts"].items() if n > 0]
            if i == 0:
                page.screenshot(path=str(OUTPUT / "replay.png"), full_page=True)
            if i < len(rounds) - 1:
                page.click(by_testid("replay-next"))
        assert page.locator(by_testid("replay-next")).is_disabled()
        page.click(by_testid("replay-prev"))
        assert page.locator(by_testid("replay-round")).get_attribute("data-round") == str(
            rounds[-2]["round"]
        )
        with page.expect_download() as download:
            page.click(by_testid("download-history"))
        assert download.value.suggested_filename == f"liars-lies-{rid}.json"
        saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert saved == history
        assert errors == []
    finally:
        context.close()


def test_leaderboard_and_profile_pages(server: LocalServer, browser: Browser) -> None:
    OUTPUT.mkdir(exist_ok=True)
    top, low = _register(server, "lbtop"), _register(server, "lblow")
    rooms = []
    for _ in range(5):
        rid = _call(server, "POST", "/rooms", {"settings": {}}, top)["id"]
        _call(server, "POST", f"/rooms/{rid}/join", {}, low)
        _call(server, "PUT", f"/rooms/{rid}/ready", {"ready": True}, low)
        view = _call(server, "POST", f"/rooms/{rid}/start", None, top)
        for _ in range(2):  # a move each (a walk-out without one is not rated)
            turn = view["game"]["turn"]
            mine = _call(server, "GET", f"/rooms/{rid}", None, top)["me"]["player_id"]
            mover = top if mine == turn["player_id"] else low
            bid = view["game"]["current_bid"]
            quantity = 1 if bid is None else bid["quantity"] + 1
            action = {"type": "bid", "quantity": quantity, "face": 3, "turn": turn["number"]}
            view = _call(server, "POST", f"/rooms/{rid}/actions", action, mover)
        _call(server, "POST", f"/rooms/{rid}/actions", {"type": "resign"}, low)
        rooms.append(rid)
    board = _call(server, "GET", "/leaderboard")["players"]
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("leaderboard-link"))
        page.wait_for_selector(by_testid("leaderboard"))
        names = page.eval_on_selector_all(
            by_testid("leaderboard-name"), "els => els.map(e => e.textContent)"
        )
        assert names == [p["name"] for p in board]
        assert names.index("lbtop") < names.index("lblow")
        page.screenshot(path=str(OUTPUT / "leaderboard.png"), full_page=True)
        page.click(f"{by_testid('leaderboard-name')}:text-is('lbtop')")
        page.wait_for_selector(by_testid("profile-games"))
        stats = page.eval_on_selector_all(
            by_testid("profile-stat"),
            "els => els.map(e => [e.dataset.stat, e.querySelector('strong').textContent])",
        )
        assert dict(stats)["rated"] == "5" and dict(stats)["wins"] == "5"
        assert dict(stats)["best"] == "1st"
        assert page.locator(by_testid("profile-game")).count() == 5
        page.locator(by_testid("profile-replay")).first.click()
        page.wait_for_selector(by_testid("replay-ranking"))
        assert page.url.endswith(f"#/rooms/{rooms[-1]}/replay")
        assert errors == []
    finally:
        context.close()
