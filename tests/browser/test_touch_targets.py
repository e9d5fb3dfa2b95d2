"""On a touch phone every control is a finger's size: at least 44 × 44 CSS px (WCAG 2.5.5).

A 360 × 640 phone with touch (``pointer: coarse``) goes through the lobby, the create form,
the waiting room and the game screens of a dice game and of Poker (its cup and its answer
buttons). The rule is the pointer's, not the width's: a desktop with a mouse keeps its compact
controls.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser

TARGET_PX = 44
CONTROLS = (
    "button, select, input:not([type='hidden']), a.btn, a.back-link, "
    "[role='button'], [role='radio'], [role='tab']"
)

SMALL_TARGETS = """([selector, least]) => {
  const small = [];
  for (const el of document.querySelectorAll(selector)) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (box.width < least - 0.5 || box.height < least - 0.5) {
      const name = el.dataset.testid || el.className || el.tagName;
      small.push(`${name} "${(el.textContent || el.value || '').trim().slice(0, 18)}" `
        + `${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }
  return small;
}"""


def small_targets(page: Page) -> list[str]:
    found: list[str] = page.evaluate(SMALL_TARGETS, [CONTROLS, TARGET_PX])
    return found


def start_game(page: Page, base_url: str, rules: str) -> list[str]:
    """Lobby → create → waiting room → game: the small targets met on the way."""
    small: list[str] = []
    page.goto(f"{base_url}/")
    page.wait_for_selector(by_testid("guest-signin"))
    small += small_targets(page)
    page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    page.select_option(by_testid("create-setting-rules"), rules)
    small += small_targets(page)
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    page.select_option(by_testid("bot-level"), "easy")
    page.click(by_testid("add-bot"))
    page.wait_for_function("document.querySelectorAll(\"[data-testid='player-row']\").length === 2")
    small += small_targets(page)
    page.click(by_testid("start-game"))
    page.wait_for_selector(by_testid("game-screen"))
    return small


def phone(browser: Browser) -> Any:
    return browser.new_context(
        viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True
    )


def test_every_control_on_a_touch_phone_is_finger_sized(
    server: LocalServer, browser: Browser
) -> None:
    context = phone(browser)
    page = context.new_page()
    try:
        small = start_game(page, server.url, "wild-stars")
        assert page.evaluate("matchMedia('(pointer: coarse)').matches")
        page.wait_for_function(
            """() => document.querySelector("[data-testid='bid-submit']")
                && !document.querySelector("[data-testid='bid-submit']").disabled""",
            timeout=20_000,
        )
        small += small_targets(page)
        assert not small, "\n".join(sorted(set(small)))
    finally:
        context.close()


def test_poker_controls_on_a_touch_phone_are_finger_sized(
    server: LocalServer, browser: Browser
) -> None:
    context = phone(browser)
    page = context.new_page()
    try:
        start_game(page, server.url, "poker")
        seen: set[str] = set()
        small: list[str] = []
        for _step in range(8):
            page.wait_for_function(
                """() => ["poker-accept", "poker-keep", "poker-claim", "poker-stop"].some(
                    (id) => document.querySelector(`[data-testid='${id}']`))
                    || document.querySelector("[data-testid='final-results']")""",
                timeout=20_000,
            )
            stage = page.get_attribute(by_testid("bid-panel"), "data-stage") or "over"
            seen.add(stage)
            small += small_targets(page)
            if stage == "over" or {"respond", "reroll", "claim"} <= seen:
                break
            page.evaluate(
                """() => {
                  for (const id of ['poker-accept', 'poker-keep', 'poker-better', 'poker-stop']) {
                    const b = document.querySelector(`[data-testid='${id}']`);
                    if (b && !b.disabled) { b.click(); break; }
                  }
                  const claim = document.querySelector("[data-testid='poker-claim']");
                  if (claim && !claim.disabled) claim.click();
                }"""
            )
            page.wait_for_timeout(400)
        assert not small, "\n".join(sorted(set(small)))
    finally:
        context.close()


TAP_REACHES = """async () => {
  const { toast } = await import('/core.js');
  const bid = document.querySelector("[data-testid='bid-submit']");
  bid.scrollIntoView({ block: 'end' });
  toast('Too late: the turn has moved on.');
  const box = bid.getBoundingClientRect();
  const toasts = document.querySelectorAll("[data-testid='toast']");
  const toastBox = toasts[toasts.length - 1].getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {
    overlaps: toastBox.top < box.bottom && toastBox.bottom > box.top,
    hit: hit && hit.closest('[data-testid]') ? hit.closest('[data-testid]').dataset.testid : null,
  };
}"""


def test_a_toast_over_the_bid_button_does_not_swallow_the_tap(
    server: LocalServer, browser: Browser
) -> None:
    """A toast (4.7 s) sits at the bottom of the screen, where a phone has Bid and Liar!."""
    context = phone(browser)
    page = context.new_page()
    try:
        start_game(page, server.url, "classic")
        page.wait_for_function(
            """() => document.querySelector("[data-testid='bid-submit']")
                && !document.querySelector("[data-testid='bid-submit']").disabled""",
            timeout=20_000,
        )
        found = page.evaluate(TAP_REACHES)
        assert found["overlaps"], found  # the case this is about: the toast covers the button
        assert found["hit"] == "bid-submit", found
    finally:
        context.close()
