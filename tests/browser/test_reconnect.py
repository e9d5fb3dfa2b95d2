"""A dropped WebSocket mid-game: the table recovers by itself, with no reload and no bid list.

The socket is closed under the page (as a network change or a proxy does). The client says it
is offline, reconnects, resubscribes and resyncs over REST; a move made meanwhile over REST
counts; the bots' answers after that are announced live again (the new socket is subscribed),
and the screen shows only the current bid, never the round's earlier ones.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, click_first_live, guest_room_with_bots

pytestmark = pytest.mark.browser

MY_TURN = """() => document.querySelector("[data-testid='bid-submit']")
    && !document.querySelector("[data-testid='bid-submit']").disabled"""

DROP_SOCKET = """async () => {
  const { hooks, state } = await import('/core.js');
  window.__realtime = hooks.realtime;
  window.__state = state;
  window.__statuses = [];
  window.__oldSocket = hooks.realtime.ws;
  const realtime = hooks.realtime;
  const onStatus = realtime.onStatus;
  realtime.onStatus = (status) => { window.__statuses.push(status); onStatus(status); };
  hooks.realtime.ws.close();
}"""

RECONNECTED = """() => {
  const ws = window.__realtime.ws;
  return window.__state.connection === 'online' && ws && ws !== window.__oldSocket
    && ws.readyState === 1;
}"""

# Bid badges on the table outside the reveal of a past round and the bid preview: the current
# bid's line and the bidder's card, at most.
BIDS_ON_TABLE = """() => [...document.querySelectorAll("[data-testid='game-screen'] .bid-badge")]
  .filter((b) => !b.closest("[data-testid='reveal']") && !b.closest("[data-testid='bid-preview']"))
  .length"""


def test_the_table_recovers_from_a_dropped_socket(server: LocalServer, browser: Browser) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        guest_room_with_bots(page, server.url)
        page.wait_for_function(MY_TURN, timeout=20_000)
        # one move live, so that a bot's move is on the announcer when the socket drops
        before = page.get_attribute(by_testid("game-screen"), "data-version")
        assert click_first_live(page, "bid-submit") == "bid-submit"
        # my turn again after my move (a newer version: right after the click the old screen,
        # still showing my turn, would pass this wait before the move was even sent)
        page.wait_for_function(
            f"""(before) => document.querySelector("[data-testid='game-screen']")
                .dataset.version !== before && ({MY_TURN})() && !document.querySelector(
                "[data-testid='announcement']").classList.contains('muted')""",
            arg=before,
            timeout=20_000,
        )
        page.evaluate("window.__notReloaded = true")

        page.evaluate(DROP_SOCKET)
        page.wait_for_function(
            "document.querySelector('[data-status]').dataset.status !== 'online'"
        )
        assert "Offline" in page.inner_text(".site-header")
        # a move while the socket is down: REST still works
        assert click_first_live(page, "bid-submit") == "bid-submit"
        page.wait_for_function(RECONNECTED, timeout=10_000)
        assert page.evaluate("window.__statuses")[-1] == "online"
        assert "Live" in page.inner_text(".site-header")

        # Back at my turn with the bots' moves applied, and only the current bid on the table.
        page.wait_for_function(MY_TURN, timeout=20_000)
        assert page.evaluate(BIDS_ON_TABLE) <= 2
        # the bots' moves made while it was down are not announced late, nor is anything older
        # left on the announcer: it says whose turn it is
        assert page.locator(by_testid("card-say")).count() == 0
        assert page.inner_text(by_testid("announcement")) == "Your turn."

        # The new socket is subscribed: the bots' next moves are announced as they happen.
        page.evaluate(
            """() => {
              window.__said = [];
              const bar = document.querySelector("[data-testid='announcer']");
              new MutationObserver(() => window.__said.push(bar.textContent))
                .observe(bar, { subtree: true, childList: true, characterData: true });
            }"""
        )
        page.wait_for_function(MY_TURN, timeout=20_000)
        assert click_first_live(page, "bid-submit") == "bid-submit"
        page.wait_for_timeout(500)
        # the turn offered was the live one (not the screen from before the move made offline)
        toasts = page.locator(by_testid("toast")).all_inner_texts()
        assert [t for t in toasts if "Too late" in t] == [], toasts
        page.wait_for_function(
            "window.__said.some((t) => /^(Bot \\d: |Reveal: )/.test(t))", timeout=10_000
        )
        assert page.evaluate(BIDS_ON_TABLE) <= 2
        assert page.evaluate("window.__notReloaded") is True
        assert errors == []
    finally:
        context.close()
