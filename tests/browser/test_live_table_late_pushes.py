"""The live table after pushes it could not play in time: the clock and the announcer stay true.

A phone that wakes a background tab, a socket that reconnects, a poll while offline: the room
view arrives after its moves' moments (or without its events at all). Those moves are not
announced late (the client skips events older than a few seconds), and the announcement on
screen from before them must go too: otherwise "Bot 2: two 3s" stays up beside a current bid
of three 3s, and the bubble on Bot 2's card says a bid that is no longer the one to beat.
Nor may a late push's ``server_time`` set the page's idea of the server's clock back: the turn
countdown would show seconds the server does not give.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid, guest_room_with_bots

pytestmark = pytest.mark.browser

MY_TURN = """() => document.querySelector("[data-testid='bid-submit']")
    && !document.querySelector("[data-testid='bid-submit']").disabled"""

CAN_CALL_LIAR = """() => document.querySelector("[data-testid='call-liar']")
    && !document.querySelector("[data-testid='call-liar']").disabled"""

# Hold every WebSocket message in the page until released (a tab in the background, a phone
# asleep); released, they arrive in order, as a browser delivers a backlog.
HOLD_PUSHES = """async () => {
  const { hooks } = await import('/core.js');
  const realtime = hooks.realtime;
  const deliver = realtime.onMessage;
  window.__held = [];
  window.__holding = true;
  realtime.onMessage = (message) => {
    if (window.__holding) window.__held.push(message); else deliver(message);
  };
  window.__release = () => {
    window.__holding = false;
    for (const message of window.__held.splice(0)) deliver(message);
  };
}"""

ANNOUNCEMENT = """() => {
  const a = document.querySelector("[data-testid='announcement']");
  return { text: a.textContent, idle: a.classList.contains('muted'),
           says: [...document.querySelectorAll("[data-testid='card-say']")].map((s) => s.textContent) };
}"""


COUNTDOWN_ERROR = """() => {
  const node = document.querySelector("[data-testid='bid-panel'] [data-deadline]");
  const [m, sec] = node.textContent.split(':').map(Number);
  const real = (Date.parse(node.dataset.deadline) - Date.now()) / 1000;
  return { shown: node.textContent, real, error_s: Math.abs(m * 60 + sec - real) };
}"""


def test_moves_that_arrive_too_late_to_play_clear_the_announcement(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        guest_room_with_bots(page, server.url)
        page.wait_for_function(MY_TURN, timeout=20_000)
        page.evaluate(HOLD_PUSHES)
        for _attempt in range(6):
            before = page.evaluate(ANNOUNCEMENT)
            page.click(by_testid("bid-submit"))
            # the bots answer meanwhile; their push waits until it is too old to play
            page.wait_for_timeout(5000)
            page.evaluate("window.__release()")
            page.wait_for_timeout(1000)
            if page.evaluate(CAN_CALL_LIAR):
                break
            # a round ended meanwhile: play on live to my next turn, then try again
            page.wait_for_function(MY_TURN, timeout=20_000)
            page.wait_for_timeout(500)
            page.evaluate("window.__holding = true")
        else:
            raise AssertionError("never back at my turn after the bots' moves")
        # The countdown still runs on the server's clock (here the same as the page's): the
        # late push's `server_time` is not taken for the time now.
        left = page.evaluate(COUNTDOWN_ERROR)
        assert left["error_s"] < 1.5, left
        shown = page.evaluate(ANNOUNCEMENT)
        # The bots' moves were missed: no announcement (nor bubble) from before them stays.
        assert shown["idle"], (before, shown)
        assert shown["text"] == "Your turn.", shown
        assert shown["says"] == [], shown
        assert errors == []
    finally:
        context.close()
