"""When the last human is out, the bots finish at once, and the table still ends on the outcome.

A table where no human has dice may finish at once: one push then carries several rounds'
events, all stamped at the same moment. Events were told apart by version, type, moment and
player, so the second round's "challenge_resolved" (no player) looked like the first one and
was never announced: the game ended with the announcer on a "Bot 2: Liar!" and no word of who
lost the final challenge.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, guest_room_with_bots

pytestmark = pytest.mark.browser

MY_TURN = """() => document.querySelector("[data-testid='bid-submit']")
    && !document.querySelector("[data-testid='bid-submit']").disabled"""


def test_the_last_challenge_of_a_bots_only_finish_is_announced(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        guest_room_with_bots(page, server.url, starting_dice=1)
        for _round in range(3):
            page.wait_for_function(
                f'() => document.querySelector("{by_testid("final-results")}") || ({MY_TURN})()',
                timeout=30_000,
            )
            if page.locator(by_testid("final-results")).count():
                break
            # the highest bid there is (three 6s of three dice): the next player must call it
            page.fill(by_testid("bid-quantity"), "3")
            page.dispatch_event(by_testid("bid-quantity"), "input")
            page.click(by_testid("bid-face-6"))
            page.click(by_testid("bid-submit"))
            page.wait_for_timeout(500)
        page.locator(by_testid("final-results")).wait_for(timeout=30_000)
        page.wait_for_timeout(300)
        text = page.inner_text(by_testid("announcement"))
        # the final reveal's outcome, as the reveal panel says it
        assert text.startswith("Reveal: "), text
        loser = page.locator(f"{by_testid('reveal-table')} tr.is-loser td.reveal-name")
        assert loser.count() == 1
    finally:
        context.close()
