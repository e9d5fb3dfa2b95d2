"""On a small phone a player sees their own dice while choosing a bid.

The game screen stacks the bid panel above the player cards on narrow screens, so on a
360 × 640 or 320 × 568 phone (and in landscape) the player's own card (their dice) was a screen below the Bid
button: every turn meant scrolling down to look and back up to bid. The bid panel now shows
the player's dice too (on wide screens the cards stand beside it and it does not).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, guest_room_with_bots

pytestmark = pytest.mark.browser

MY_TURN = """() => document.querySelector("[data-testid='bid-submit']")
    && !document.querySelector("[data-testid='bid-submit']").disabled"""

# The faces of my dice (the room view's `me.dice`) that are on screen now, outside the face
# picker: the Bid button is scrolled to the bottom of the screen first.
MY_DICE_ON_SCREEN = """async () => {
  const { state } = await import('/core.js');
  document.querySelector("[data-testid='bid-submit']").scrollIntoView({ block: 'end' });
  const mine = state.room.me.dice.map(String).sort();
  // what the sticky site header covers does not count as on screen
  const cover = Math.max(0, document.querySelector('.site-header').getBoundingClientRect().bottom);
  const inView = (el) => {
    const b = el.getBoundingClientRect();
    return b.width > 0 && b.top >= cover - 1 && b.bottom <= window.innerHeight + 1;
  };
  const rows = [...document.querySelectorAll('.dice-row')].filter((row) => !row.closest('.face-picker'));
  const seen = rows.filter((row) => [...row.querySelectorAll('.die')].every(inView))
    .map((row) => [...row.querySelectorAll('.die')].map((d) => d.dataset.face).sort());
  return { mine, seen, bid: inView(document.querySelector("[data-testid='bid-submit']")) };
}"""


@pytest.mark.parametrize(("width", "height"), [(320, 568), (844, 390)])
def test_my_dice_are_on_screen_with_the_bid_button(
    server: LocalServer, browser: Browser, width: int, height: int
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        page.select_option(by_testid("create-setting-rules"), "perudo")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("game-screen"))
        page.wait_for_function(MY_TURN, timeout=20_000)
        page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
        found = page.evaluate(MY_DICE_ON_SCREEN)
        assert found["bid"], found
        assert found["mine"] in found["seen"], found
        # Perudo's aces look like aces there too
        aces = page.locator(f"{by_testid('panel-dice')} .die[data-face='1']")
        for i in range(aces.count()):
            assert aces.nth(i).get_attribute("aria-label") == "ace"
    finally:
        context.close()


def test_a_wide_screen_shows_the_dice_on_the_cards_only(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        guest_room_with_bots(page, server.url, starting_dice=None, bots=1, level=None)
        page.wait_for_selector(by_testid("bid-panel"))
        assert not page.locator(by_testid("panel-dice")).is_visible()
        assert page.locator(f"{by_testid('player-card')}.is-me .die").count() >= 1
    finally:
        context.close()
