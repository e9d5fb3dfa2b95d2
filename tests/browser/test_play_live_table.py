"""The live table in headless Chromium: bots' moves are played one after another at their stamps,
and a timeout says what was played for whom.

The server's bots think 150–300 ms here (``conftest.BOT_THINK_MS``); in production 1–2.5 s.
Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import itertools
import re

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import OUTPUT, by_testid

pytestmark = pytest.mark.browser

RECORD_ANNOUNCEMENTS = """() => {
  window.__said = [];
  const note = () => {
    const a = document.querySelector("[data-testid='announcement']");
    const text = a ? a.textContent : '';
    const last = window.__said[window.__said.length - 1];
    if (!last || last.text !== text) window.__said.push({ text, at: performance.now() });
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def room_against_bots(page: Page, base_url: str, bots: int, turn_seconds: str = "30") -> None:
    page.goto(f"{base_url}/")
    page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    page.select_option(by_testid("create-setting-turn_seconds"), turn_seconds)
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    for n in range(2, bots + 2):
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
        )
    page.evaluate(RECORD_ANNOUNCEMENTS)
    page.click(by_testid("start-game"))
    page.wait_for_selector(by_testid("game-screen"))


def my_turn(page: Page, timeout_ms: int = 20_000) -> None:
    page.wait_for_function(
        """() => document.querySelector("[data-testid='bid-submit']")
            && !document.querySelector("[data-testid='bid-submit']").disabled""",
        timeout=timeout_ms,
    )


def test_bots_bids_appear_one_after_another(server: LocalServer, browser: Browser) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        room_against_bots(page, server.url, bots=4)
        # The dice are random: a bot may call Liar! at once on our bid, so play up to a few
        # rounds until our bid is answered by at least two bot moves.
        for _ in range(4):
            my_turn(page, timeout_ms=30_000)
            # each announcement stays up a moment (issue 28 defect 6): let the bar catch up first
            page.wait_for_function(
                "() => !document.querySelector(\"[data-testid='announcer']:not([data-queued='0'])\")",
                timeout=15_000,
            )
            page.evaluate("window.__said = []")
            page.click(by_testid("bid-submit"))
            # the four bots answer: each move is its own moment, on the mover's card
            page.wait_for_function(
                """() => window.__said.some((s) => /^Bot \\d: /.test(s.text))
                    && document.querySelector("[data-testid='card-say']")"""
            )
            page.screenshot(path=str(OUTPUT / "live-table-bot-bid.png"), full_page=True)
            page.wait_for_function(
                """() => window.__said.filter((s) => /^Bot \\d: /.test(s.text)).length >= 3
                    || window.__said.some((s) => s.text.startsWith("Reveal:"))""",
                timeout=20_000,
            )
            page.wait_for_timeout(1500)
            said = page.evaluate("window.__said")
            mine = [i for i, s in enumerate(said) if s["text"].startswith("You: ")]
            assert mine, said  # our own bid is announced first, then the bots answer
            said = said[mine[0] :]
            bots = [s for s in said if re.match(r"^Bot \d: ", s["text"])]
            if len(bots) >= 2:
                break
        assert len(bots) >= 2, said
        # one after another, each shown for a while (the think time apart), never all at once
        gaps = [b["at"] - a["at"] for a, b in itertools.pairwise(bots)]
        assert all(gap >= 100 for gap in gaps), said
        words = re.compile(r"^Bot \d: (Liar!|\w+ (\d|star)\w*( \(shows .*\))?)$")
        assert all(words.match(b["text"]) for b in bots), bots
        # no running list of the round's bids: one announcement at a time
        assert page.locator(by_testid("card-say")).count() <= 1
        assert errors == []
    finally:
        context.close()


def test_a_timeout_notice_says_what_was_played_for_you(
    server: LocalServer, browser: Browser
) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        room_against_bots(page, server.url, bots=1, turn_seconds="15")
        my_turn(page)
        assert page.title().startswith("● Your turn")
        # let the turn run out: the countdown ends, the client ticks, the server plays for us
        notice = page.wait_for_selector(by_testid("timeout-notice"), timeout=25_000)
        text = notice.inner_text()
        assert re.match(r"^Time ran out: (Liar! was called|one 1 was bid) for you$", text), text
        page.screenshot(path=str(OUTPUT / "live-table-timeout.png"), full_page=True)
    finally:
        context.close()
