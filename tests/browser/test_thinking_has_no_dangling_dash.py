"""While a bot thinks, the turn lines say so in words, never with a dangling placeholder.

During a push's playback the bot's turn has no deadline yet (its clock starts when play reaches
it), and the countdown's placeholder "—" was left at the end of the line: "Waiting for Bot 1 —"
in the bid panel and "Thinking —" on the bot's card, as if something failed to load.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, guest_room_with_bots, start_game

pytestmark = pytest.mark.browser

RECORD_TURN_LINES = """() => {
  window.__lines = new Set();
  const note = () => {
    for (const el of document.querySelectorAll('.turn-line, .turn-chip')) {
      window.__lines.add(el.textContent.trim());
    }
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""

MY_TURN = """() => document.querySelector("[data-testid='bid-submit']")
    && !document.querySelector("[data-testid='bid-submit']").disabled"""


def test_a_thinking_bot_is_said_in_words(server: LocalServer, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        guest_room_with_bots(page, server.url, start=False)
        page.evaluate(RECORD_TURN_LINES)
        start_game(page)
        for _turn in range(3):
            page.wait_for_function(MY_TURN, timeout=20_000)
            thinking = page.evaluate(
                "[...window.__lines].filter((t) => /^(Waiting for|Thinking)/.test(t))"
            )
            if any(line.startswith("Waiting for Bot") for line in thinking):
                break
            page.click(by_testid("bid-submit"))
            page.wait_for_timeout(300)
        lines = page.evaluate("[...window.__lines]")
        assert any(line.startswith("Waiting for Bot") for line in lines), lines
        assert [line for line in lines if line.endswith("—")] == [], lines
    finally:
        context.close()
