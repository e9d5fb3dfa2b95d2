"""In the dark colour scheme the game's main controls are readable: text contrast ≥ 4.5:1.

The dark theme lightens the accent and danger colours (#818cf8, #f87171) but kept white text
on them: Bid, Liar!, the pressed Auto/Manual segment and the bubble on a mover's card came
out at 2.8–3.0:1, under WCAG's 4.5:1 for text of this size.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, guest_room_with_bots

pytestmark = pytest.mark.browser

CONTRASTS = """(selectors) => {
  const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }).reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const out = {};
  for (const selector of selectors) {
    const el = document.querySelector(selector);
    if (!el) { out[selector] = null; continue; }
    const style = getComputedStyle(el);
    const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
    out[selector] = Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100;
  }
  return out;
}"""

CONTROLS = [
    "[data-testid='bid-submit']",
    "[data-testid='call-liar']",
    ".seg[aria-pressed='true']",
    "[data-testid='create-room']",
]


def test_dark_scheme_controls_have_readable_text(server: LocalServer, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        found = page.evaluate(CONTRASTS, CONTROLS[3:])
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("bid-panel"))
        found.update(page.evaluate(CONTRASTS, CONTROLS[:3]))
        assert all(v is not None for v in found.values()), found
        assert {k: v for k, v in found.items() if v < 4.5} == {}, found
    finally:
        context.close()


def test_an_invalid_bid_reads_clearly_in_the_light_theme(
    server: LocalServer, browser: Browser
) -> None:
    """The bid preview's refusal ("Choose a quantity of at least 1.") is red on pale red."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="light")
    page = context.new_page()
    try:
        guest_room_with_bots(page, server.url, starting_dice=None, bots=1, level=None)
        page.wait_for_selector(by_testid("bid-panel"))
        preview = ".bid-preview.is-invalid"
        # in one step: a redraw of the table in between would start from a legal bid again
        found = page.evaluate(
            f"""() => {{
              const input = document.querySelector("[data-testid='bid-quantity']");
              input.value = '0';
              input.dispatchEvent(new Event('input'));
              return ({CONTRASTS})(["{preview}"]);
            }}"""
        )
        assert found[preview] >= 4.5, found
    finally:
        context.close()
