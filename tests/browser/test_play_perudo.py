"""Drive the web client through a whole Perudo game: a guest against three bots.

It checks what the Perudo module shows: aces marked as aces, no opening on aces, the halving
rule in the bid preview ("three aces beats five 4s"), the Calza button when it is legal, the
palifico banner (the game's first lost die always brings a palifico round: four players of
three dice), the reveal's words and How to play. Needs Debian's chromium at /usr/bin/chromium.

Screenshots at the phone size (390×844): ``UPDATE_SCREENSHOTS=1`` writes them to
``docs/screenshots/perudo-*.png`` (committed); otherwise they go to ``test-output/``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.support import GAME_TIMEOUT_S, OUTPUT, by_testid, send_and_wait

pytestmark = pytest.mark.browser

SHOTS = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS")
    else OUTPUT
)


def wait_for_my_move(page: Page) -> bool:
    """Wait until the game is over (False) or my bid button is live (True)."""
    page.wait_for_function(
        """() => document.querySelector("[data-testid='final-results']")
            || (document.querySelector("[data-testid='bid-submit']")
                && !document.querySelector("[data-testid='bid-submit']").disabled)""",
        timeout=GAME_TIMEOUT_S * 1000,
    )
    return page.locator(by_testid("final-results")).count() == 0


def current_bid(page: Page) -> tuple[int, int] | None:
    """The current bid from the bid panel's badge, if any."""
    badge = page.locator(f"{by_testid('current-bid')} .bid-badge")
    if badge.count() == 0:
        return None
    quantity = int(badge.locator(".bid-qty").inner_text().rstrip("×"))
    face = int(badge.locator(".die").get_attribute("data-face") or "0")
    return quantity, face


def set_quantity(page: Page, quantity: int) -> None:
    page.fill(by_testid("bid-quantity"), str(quantity))
    page.dispatch_event(by_testid("bid-quantity"), "input")


WATCH_PALIFICO = """() => {
  window.palificoSeen = null;
  setInterval(() => {
    const banner = document.querySelector("[data-testid='palifico-banner']");
    if (banner && !window.palificoSeen) window.palificoSeen = banner.textContent;
  }, 25);
}"""
"""Records the first palifico banner shown, whoever's turn it was."""


def test_guest_plays_perudo_against_bots(server: Any, browser: Browser) -> None:
    """``server`` is conftest.py's local server with quick bots (only its ``url`` is used)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.add_init_script(f"({WATCH_PALIFICO})()")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    seen = {"ace_rule": False, "calza_button": False, "calza": False, "palifico_shot": False}
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        page.select_option(by_testid("create-setting-rules"), "perudo")
        assert "Aces are wild" in page.inner_text(by_testid("create-setting-rules-help"))
        assert not page.locator(by_testid("create-setting-wildcard_chance")).is_visible()
        page.select_option(by_testid("create-setting-starting_dice"), "3")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.select_option(by_testid("bot-level"), "easy")
        for n in (2, 3, 4):
            page.click(by_testid("add-bot"))
            page.wait_for_function(
                f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
            )
        # How to play tells the Perudo rules
        page.click(by_testid("how-to-play"))
        page.click(by_testid("how-to-tab-perudo"))
        howto = page.inner_text(by_testid("how-to-panel-perudo"))
        assert "three aces beats five 4s" in howto and "Calza" in howto and "Palifico" in howto
        page.screenshot(path=str(SHOTS / "perudo-how-to-play.png"))
        page.click(by_testid("how-to-close"))
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("game-screen"))

        # my dice: a 1 is an ace and looks like one
        mine = page.locator(f"{by_testid('player-card')}.is-me .die")
        for i in range(mine.count()):
            d = mine.nth(i)
            if d.get_attribute("data-face") == "1":
                assert "die-ace" in (d.get_attribute("class") or "")
                assert d.get_attribute("aria-label") == "ace"

        deadline = time.monotonic() + GAME_TIMEOUT_S
        while time.monotonic() < deadline and wait_for_my_move(page):
            palifico = page.locator(by_testid("palifico-banner")).count() > 0
            if palifico and not seen["palifico_shot"]:
                seen["palifico_shot"] = True
                page.screenshot(path=str(SHOTS / "perudo-palifico.png"), full_page=True)
            current = current_bid(page)
            if current is None:
                # no opening on aces, except in palifico
                assert page.locator(by_testid("bid-face-1")).count() == (1 if palifico else 0)
                if not palifico:
                    assert "No opening on aces" in page.inner_text(by_testid("bid-preview"))
                page.click(by_testid("bid-face-1" if palifico else "bid-face-2"))
                send_and_wait(page, "bid-submit")
                continue
            if current[1] != 1 and not palifico and not seen["ace_rule"]:
                # going to aces: the preview says the halving rule ("three aces beats five 4s")
                page.click(by_testid("bid-face-1"))
                set_quantity(page, (current[0] + 1) // 2)
                preview = page.inner_text(by_testid("bid-preview"))
                assert preview.startswith("You bid "), preview
                assert " beats " in preview and "half" in preview, preview
                assert not page.is_disabled(by_testid("bid-submit"))
                seen["ace_rule"] = True
                page.screenshot(path=str(SHOTS / "perudo-bid.png"), full_page=True)
            calza = page.locator(by_testid("call-calza"))
            if calza.count() and calza.is_enabled():
                seen["calza_button"] = True
                if not seen["calza"]:
                    send_and_wait(page, "call-calza")
                    seen["calza"] = True
                    continue
            send_and_wait(page, "call-liar")

        page.locator(by_testid("final-results")).wait_for(timeout=GAME_TIMEOUT_S * 1000)
        assert page.locator(by_testid("ranking-row")).count() == 4
        reveal = page.inner_text(by_testid("reveal"))
        assert "Dudo!" in reveal or "Calza!" in reveal
        page.screenshot(path=str(SHOTS / "perudo-results.png"), full_page=True)
        # the game's first lost die (anyone's) makes the next round palifico
        banner = page.evaluate("window.palificoSeen")
        assert banner and "aces are not wild" in banner, banner
        assert seen["ace_rule"] and seen["calza_button"] and seen["calza"], seen
        assert errors == []
    finally:
        context.close()
