"""Drive the web client in headless Chromium: a guest plays a whole game against a bot.

Needs Debian's chromium at /usr/bin/chromium (``apt-get install chromium``). Screenshots of the
game screen and of the final results are written to ``test-output/``.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import GAME_TIMEOUT_S, OUTPUT, by_testid, click_first_live

pytestmark = pytest.mark.browser


def create_room_with_a_bot(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/")
    page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    # Two dice each: a short game that still has a break and a second round.
    page.select_option(by_testid("create-setting-starting_dice"), "2")
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    assert "#/rooms/" in page.url
    page.select_option(by_testid("bot-level"), "easy")
    page.click(by_testid("add-bot"))
    page.wait_for_function("document.querySelectorAll(\"[data-testid='player-row']\").length === 2")
    page.click(by_testid("start-game"))
    page.wait_for_selector(by_testid("game-screen"))


def play_until_finished(page: Page) -> bool:
    """Bid when there is nothing to challenge, call Liar! otherwise; True if a reveal was seen."""
    saw_reveal = False
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while time.monotonic() < deadline:
        page.wait_for_function(
            """() => document.querySelector("[data-testid='final-results']")
                || (document.querySelector("[data-testid='bid-submit']")
                    && !document.querySelector("[data-testid='bid-submit']").disabled)""",
            timeout=GAME_TIMEOUT_S * 1000,
        )
        if page.locator(by_testid("final-results")).count():
            return saw_reveal
        if not saw_reveal and page.locator(by_testid("reveal-table")).count():
            saw_reveal = True
            page.screenshot(path=str(OUTPUT / "game-screen.png"), full_page=True)
        version = page.get_attribute(by_testid("game-screen"), "data-version")
        liar = page.locator(by_testid("call-liar"))
        if liar.is_enabled():
            liar.click()
        else:
            preview = page.inner_text(by_testid("bid-preview"))
            assert preview.startswith("You bid "), preview
            page.click(by_testid("bid-submit"))
        # The answer (a newer room view) re-renders the screen before we decide again.
        page.wait_for_function(
            """(version) => document.querySelector("[data-testid='final-results']")
                || document.querySelector("[data-testid='game-screen']").dataset.version !== version""",
            arg=version,
        )
    raise AssertionError("the game did not finish in time")


def test_guest_plays_a_whole_game_against_a_bot(server: LocalServer, browser: Browser) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        create_room_with_a_bot(page, server.url)
        page.wait_for_selector(by_testid("bid-panel"))
        page.screenshot(path=str(OUTPUT / "game-start.png"), full_page=True)
        # Wide screens: bidding controls, player cards, metrics left to right; reveal below.
        # measured in one step in the page, once all four are drawn (a push that re-renders
        # the table between two separate measurements would leave one of them detached)
        names = ["bid-panel", "player-cards", "metrics", "reveal"]
        page.wait_for_function(
            "(names) => names.every((n) => document.querySelector(`[data-testid='${n}']`))",
            arg=names,
        )
        boxes = page.evaluate(
            """(names) => names.map((n) => {
                const node = document.querySelector(`[data-testid='${n}']`);
                if (!node) return null;
                const r = node.getBoundingClientRect();
                return { x: r.x, y: r.y, width: r.width, height: r.height };
            })""",
            names,
        )
        row, reveal = boxes[:3], boxes[3]
        assert all(box is not None for box in row) and reveal is not None
        xs = [box["x"] for box in row if box is not None]
        assert xs == sorted(xs) and len(set(xs)) == 3
        assert all(reveal["y"] > box["y"] + box["height"] - 1 for box in row if box is not None)

        saw_reveal = play_until_finished(page)

        results = page.locator(by_testid("final-results"))
        results.wait_for()
        page.screenshot(path=str(OUTPUT / "final-results.png"), full_page=True)
        assert page.locator(by_testid("ranking-row")).count() == 2
        assert page.locator(by_testid("winner")).inner_text().endswith(" wins")
        assert page.locator(f"{by_testid('dice-chart')} svg polyline").count() == 2
        assert page.locator(f"{by_testid('reveal-table')} tbody tr").count() == 2
        assert saw_reveal or page.locator(by_testid("reveal-table")).count() == 1
        assert errors == []
    finally:
        context.close()


def test_narrow_screen_stacks_the_game_boxes_in_order(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        create_room_with_a_bot(page, server.url)
        page.wait_for_selector(by_testid("bid-panel"))
        boxes = [
            by_testid("bid-panel"),
            by_testid("player-cards"),
            by_testid("metrics"),
            by_testid("reveal"),
        ]
        tops = [page.locator(box).bounding_box() for box in boxes]
        assert all(box is not None for box in tops)
        ys = [box["y"] for box in tops if box is not None]
        assert ys == sorted(ys)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(OUTPUT / "game-screen-phone.png"), full_page=True)
    finally:
        context.close()


def test_switching_to_manual_in_a_game_makes_the_break_wait_for_agree(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        create_room_with_a_bot(page, server.url)
        page.click(by_testid("continue-manual"))
        # The seat itself switches (the button follows the room view, not just the profile).
        page.wait_for_selector(f"{by_testid('continue-manual')}[aria-pressed='true']")
        deadline = time.monotonic() + GAME_TIMEOUT_S
        while not page.locator(by_testid("agree")).count():
            assert time.monotonic() < deadline, "no break offered Agree"
            page.wait_for_function(
                """() => document.querySelector("[data-testid='agree']")
                    || (document.querySelector("[data-testid='bid-submit']")
                        && !document.querySelector("[data-testid='bid-submit']").disabled)"""
            )
            if page.locator(by_testid("agree")).count():
                break
            version = page.get_attribute(by_testid("game-screen"), "data-version")
            if click_first_live(page, "call-liar", "bid-submit") is None:
                continue  # the screen changed under us (e.g. the break began): look again
            page.wait_for_function(
                """(v) => document.querySelector("[data-testid='agree']")
                    || document.querySelector("[data-testid='game-screen']").dataset.version !== v""",
                arg=version,
            )
        page.click(by_testid("agree"))
        page.wait_for_selector(by_testid("bid-panel"))
    finally:
        context.close()
