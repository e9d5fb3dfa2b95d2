"""The waiting room's add-bot control offers every level and says in one line what it does."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import OUTPUT, by_testid

pytestmark = pytest.mark.browser


def test_host_picks_a_medium_bot_and_reads_what_each_level_does(
    server: LocalServer, browser: Browser
) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        options = page.eval_on_selector_all(
            f"{by_testid('bot-level')} option", "els => els.map(e => e.value)"
        )
        assert options == ["strong", "medium", "easy"]
        hints = {}
        for level in ("easy", "medium", "strong"):
            page.select_option(by_testid("bot-level"), level)
            hints[level] = page.inner_text(by_testid("bot-level-hint"))
            assert hints[level].startswith(level.capitalize() + ":")
        assert len(set(hints.values())) == 3
        page.select_option(by_testid("bot-level"), "medium")
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.screenshot(path=str(OUTPUT / "bot-levels.png"))
        assert errors == []
    finally:
        context.close()
