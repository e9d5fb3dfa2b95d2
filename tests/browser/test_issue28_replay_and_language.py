"""Issue 28's last two pieces in the browser: the replay shows a round a resignation abandoned
(defect 9), and the language a signed-in user picks follows them to a fresh browser."""

from __future__ import annotations

import json
import secrets
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser


def _rest(server: LocalServer, method: str, path: str, body: Any = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{server.url}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def _register(server: LocalServer, prefix: str) -> tuple[str, str]:
    name = f"{prefix}_{secrets.token_hex(3)}"
    out = _rest(server, "POST", "/auth/register", {"username": name, "password": "correct horse"})
    return name, str(out["token"])


def test_the_replay_shows_the_round_a_resignation_abandoned(
    server: LocalServer, browser: Browser
) -> None:
    _, ann = _register(server, "ann")
    _, bob = _register(server, "bob")
    rid = _rest(server, "POST", "/rooms", {"settings": {"starting_dice": 2}}, ann)["id"]
    _rest(server, "POST", f"/rooms/{rid}/join", {}, bob)
    _rest(server, "PUT", f"/rooms/{rid}/ready", {"ready": True}, bob)
    view = _rest(server, "POST", f"/rooms/{rid}/start", None, ann)
    tokens = {
        _rest(server, "GET", f"/rooms/{rid}", None, t)["me"]["player_id"]: t for t in (ann, bob)
    }
    for quantity in (1, 2):  # a bid each, then bob walks out mid-round: the game ends
        turn = view["game"]["turn"]
        action = {"type": "bid", "quantity": quantity, "face": 3, "turn": turn["number"]}
        view = _rest(server, "POST", f"/rooms/{rid}/actions", action, tokens[turn["player_id"]])
    assert _rest(server, "POST", f"/rooms/{rid}/actions", {"type": "resign"}, bob)["status"] == (
        "finished"
    )
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/#/rooms/{rid}/replay")
        page.wait_for_selector(by_testid("replay-round"))
        assert page.locator(by_testid("replay-round")).get_attribute("data-round") == str(
            view["game"]["round"]
        )
        outcome = page.inner_text(by_testid("replay-outcome"))
        assert "resigned" in outcome and "bob_" in outcome, outcome
        assert len(page.query_selector_all(by_testid("replay-bid"))) == 2
        # No die of the abandoned round: it was never revealed.
        assert page.query_selector_all(by_testid("replay-hand")) == []
        assert page.query_selector(by_testid("replay-call")) is None
    finally:
        context.close()


def test_a_language_picked_signed_in_follows_the_user_to_a_fresh_browser(
    server: LocalServer, browser: Browser
) -> None:
    name = f"lang_{secrets.token_hex(3)}"
    first = browser.new_context(locale="en-US")
    page = first.new_page()
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("auth-tab-register"))
        page.fill(by_testid("register-username"), name)
        page.fill(by_testid("register-password"), "correct horse battery")
        page.click(by_testid("register-submit"))
        page.wait_for_selector(by_testid("create-room"))
        assert page.evaluate("document.documentElement.lang") == "en"
        with page.expect_response(
            lambda r: r.url.endswith("/me/preferences") and r.request.method == "PATCH"
        ) as saved:
            page.select_option(by_testid("language"), "es")
        assert saved.value.status == 200
        page.wait_for_function("document.documentElement.lang === 'es'")
    finally:
        first.close()

    fresh = browser.new_context(locale="en-US")  # nothing remembered on this browser
    page = fresh.new_page()
    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector(by_testid("auth-card"))
        assert page.evaluate("document.documentElement.lang") == "en"
        page.click(by_testid("auth-tab-login"))
        page.fill(by_testid("login-username"), name)
        page.fill(by_testid("login-password"), "correct horse battery")
        page.click(by_testid("login-submit"))
        page.wait_for_function("document.documentElement.lang === 'es'")
        page.wait_for_selector(by_testid("create-room"))
        page.reload()
        page.wait_for_selector(by_testid("create-room"))
        assert page.evaluate("document.documentElement.lang") == "es"
        assert page.input_value(by_testid("language")) == "es"
        assert "Create room" not in page.inner_text(by_testid("create-room"))
    finally:
        fresh.close()
