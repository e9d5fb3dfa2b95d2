"""Drive the web client through a Wild Stars game: a guest against a bot, star bids and a show.

Needs Debian's chromium at /usr/bin/chromium. Writes ``test-output/wild-stars.png`` (the game
screen after a reveal, or the final results if no reveal was captured during play).
"""

from __future__ import annotations

import contextlib
import time

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from liars_local.server import LocalServer
from tests.browser.support import GAME_TIMEOUT_S, OUTPUT, by_testid, send_and_wait

pytestmark = pytest.mark.browser


def wait_for_my_move(page: Page) -> bool:
    """Wait until the game is over (False) or the bid button is live (True)."""
    page.wait_for_function(
        """() => document.querySelector("[data-testid='final-results']")
            || (document.querySelector("[data-testid='bid-submit']")
                && !document.querySelector("[data-testid='bid-submit']").disabled)""",
        timeout=GAME_TIMEOUT_S * 1000,
    )
    return page.locator(by_testid("final-results")).count() == 0


def test_guest_plays_wild_stars_with_a_star_bid_and_a_show(
    server: LocalServer, browser: Browser
) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        # Classic-only settings disappear once Wild Stars is chosen.
        assert page.locator(by_testid("create-setting-wildcard_chance")).is_visible()
        page.select_option(by_testid("create-setting-rules"), "wild-stars")
        assert "★" in page.inner_text(by_testid("create-setting-rules-help"))
        assert not page.locator(by_testid("create-setting-wildcard_chance")).is_visible()
        assert not page.locator(by_testid("create-setting-penalty")).is_visible()
        page.select_option(by_testid("create-setting-starting_dice"), "5")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        assert page.locator(by_testid("setting-rules")).input_value() == "wild-stars"
        assert not page.locator(by_testid("setting-penalty")).is_visible()
        page.select_option(by_testid("bot-level"), "easy")
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("game-screen"))

        # Wild Stars faces: the star, then 2-6 (no 1).
        faces = page.locator(f"{by_testid('bid-face')} button")
        assert faces.count() == 6
        assert page.locator(by_testid("bid-face-star")).count() == 1
        assert page.locator(by_testid("bid-face-1")).count() == 0

        star_bid = showed = False
        saw_reveal = False
        deadline = time.monotonic() + GAME_TIMEOUT_S
        while time.monotonic() < deadline and wait_for_my_move(page):
            if page.locator(by_testid("reveal-table")).count() and not saw_reveal:
                saw_reveal = True
                page.screenshot(path=str(OUTPUT / "wild-stars.png"), full_page=True)
            liar = page.locator(by_testid("call-liar"))
            if liar.is_enabled() and star_bid and showed:
                send_and_wait(page, "call-liar")
                continue
            if not star_bid:
                page.click(by_testid("bid-face-star"))
                preview = page.inner_text(by_testid("bid-preview"))
                if preview.startswith("You bid "):
                    assert " star" in preview and "showing ★" in preview, preview
                    star_bid = True
                else:
                    page.click(by_testid("bid-face-6"))
            else:
                page.click(by_testid("bid-face-6"))
            preview = page.inner_text(by_testid("bid-preview"))
            if not preview.startswith("You bid "):
                # nothing left to raise: challenge instead
                send_and_wait(page, "call-liar")
                continue
            cup = page.locator(by_testid("cup-die"))
            if not showed and cup.count() > 1:
                cup.nth(0).click()
                assert "set out 1 die" in page.inner_text(by_testid("show-reroll-hint"))
                assert page.get_attribute(by_testid("show-reroll"), "aria-pressed") == "true"
                me = page.locator(f"{by_testid('player-card')}.is-me")
                send_and_wait(page, "bid-submit")
                if page.locator(by_testid("final-results")).count():
                    continue
                # The die set out is on my card, for everyone to see, until the round ends. The
                # bot may call Liar! on this very bid, and then the reveal replaces the round:
                # the show counts only once seen on the card (else try again on a later turn).
                shown = me.locator(by_testid("shown-dice"))
                # wait for whichever comes first: the die on my card, the bot's answer (a newer
                # version: its raise keeps the die on my card, its Liar! replaces the round) or
                # the results; a loaded machine can take seconds to draw the bid's push
                after = page.get_attribute(by_testid("game-screen"), "data-version")
                with contextlib.suppress(PlaywrightTimeout):
                    page.wait_for_function(
                        """(version) => document.querySelector(
                              ".is-me [data-testid='shown-dice'], [data-testid='final-results']")
                            || document.querySelector("[data-testid='game-screen']")
                                 .dataset.version !== version""",
                        arg=after,
                        timeout=15_000,
                    )
                if shown.count() == 1:
                    page.screenshot(path=str(OUTPUT / "wild-stars-shown.png"), full_page=True)
                    showed = True
                continue
            send_and_wait(page, "bid-submit")

        results = page.locator(by_testid("final-results"))
        results.wait_for(timeout=GAME_TIMEOUT_S * 1000)
        assert star_bid and showed
        assert page.locator(by_testid("ranking-row")).count() == 2
        assert page.locator(by_testid("winner")).inner_text().endswith(" wins")
        table = page.locator(by_testid("reveal-table"))
        assert table.count() == 1
        assert page.locator(by_testid("reveal-lost")).count() >= 1 or (
            page.locator(by_testid("reveal-perfect")).count() == 1
        )
        if not saw_reveal:
            page.screenshot(path=str(OUTPUT / "wild-stars.png"), full_page=True)
        assert errors == []
    finally:
        context.close()
