"""Play now in the browser: two signed-in people press it and sit at the same table.

Two browser contexts (two people), each registered; both choose Poker (a table of two) and
press Play now: the second completes the table, the first hears ``match_found`` (or its poll
answers it), and both land on the same room with its countdown.
"""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import OUTPUT, by_testid

pytestmark = pytest.mark.browser


def _register(page: Page, url: str, name: str) -> None:
    """A registered person: the account made over the API, the client holding its token."""
    answer = page.request.post(
        f"{url}/auth/register", data={"username": name, "password": "correct horse battery"}
    )
    assert answer.status == 201, answer.text()
    token = answer.json()["token"]
    page.add_init_script(f"localStorage.setItem('liars-lies.token', {token!r});")
    page.goto(f"{url}/")
    page.wait_for_selector(by_testid("play-now"))


def test_two_people_press_play_now_and_meet_at_one_table(
    server: LocalServer, browser: Browser
) -> None:
    OUTPUT.mkdir(exist_ok=True)
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        suffix = secrets.token_hex(3)
        for i, page in enumerate(pages):
            _register(page, server.url, f"qp{i}{suffix}")
        first, second = pages
        first.select_option(by_testid("quickplay-rules"), "poker")
        first.click(by_testid("play-now"))
        first.wait_for_selector(by_testid("quickplay-waiting"))
        # The second person sees someone waiting for Poker before pressing.
        second.wait_for_selector(f"{by_testid('quickplay-count')}[data-rules='poker']")
        second.select_option(by_testid("quickplay-rules"), "poker")
        second.click(by_testid("play-now"))
        for page in pages:
            page.wait_for_url("**/#/rooms/*", timeout=15_000)
            page.wait_for_selector(by_testid("game-screen"))
        rooms = [page.url.rsplit("/", 1)[-1] for page in pages]
        assert rooms[0] == rooms[1]
        first.screenshot(path=str(OUTPUT / "quickplay-table.png"))
        assert errors == []
    finally:
        for c in contexts:
            c.close()
