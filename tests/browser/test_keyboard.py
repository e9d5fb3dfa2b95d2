"""A whole game with the keyboard alone, and where the focus goes after each action (issue 28).

Before: the focus dropped to the top of the page after every action (Create room, Add bot,
Start, Bid, Liar!, Agree): 3–11 Tabs to get back each turn, and three Enters on Add bot added
one bot (defect 2). Now it stays on the control or moves to the next sensible one, and B / L
bid and call Liar! (never while typing in the chat).

Only ``page.keyboard`` acts here: Tab to a control, Enter or Space on it, the shortcuts.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser

FOCUSED = "() => { const a = document.activeElement; return a && a !== document.body ? (a.dataset.testid || a.tagName) : null; }"
OVER = "() => Boolean(document.querySelector(\"[data-testid='final-results'], [data-testid='out-reveal']\"))"
MY_TURN = """() => ['bid-submit', 'poker-claim', 'poker-accept', 'poker-keep', 'poker-stop', 'call-liar', 'poker-liar']
  .some((id) => { const b = document.querySelector(`[data-testid='${id}']`); return b && !b.disabled; })"""


def focused(page: Page) -> str | None:
    value: str | None = page.evaluate(FOCUSED)
    return value


def tab_to(page: Page, testid: str, limit: int = 80) -> None:
    """Press Tab until the control with this test id has the focus."""
    for _ in range(limit):
        if focused(page) == testid:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{testid} is not reachable with Tab (focus on {focused(page)})")


def choose(page: Page, testid: str, value: str) -> None:
    """Choose a select's option with the keyboard (Home, then ArrowDown until it is chosen)."""
    tab_to(page, testid)
    page.keyboard.press("Home")
    for _ in range(12):
        if page.eval_on_selector(by_testid(testid), "(s) => s.value") == value:
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"{testid} has no option {value}")


def settle(page: Page) -> None:
    page.wait_for_timeout(400)


def new_room_by_keyboard(page: Page, base_url: str, rules: str) -> None:
    page.goto(f"{base_url}/")
    tab_to(page, "guest-signin")
    page.keyboard.press("Enter")
    page.wait_for_selector(by_testid("create-room"))
    choose(page, "create-setting-rules", rules)
    choose(
        page, "create-setting-lives" if rules == "poker" else "create-setting-starting_dice", "1"
    )
    tab_to(page, "create-room")
    page.keyboard.press("Enter")
    page.wait_for_selector(by_testid("waiting-room"))
    # Create room → the focus is on the next thing to do: Add bot
    page.wait_for_function(f"() => ({FOCUSED})() === 'add-bot'", timeout=40_000)


def test_focus_after_each_action_and_three_enters_add_three_bots(
    server: LocalServer, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        new_room_by_keyboard(page, server.url, "classic")
        choose(page, "bot-level", "easy")
        tab_to(page, "add-bot")
        for n in (2, 3, 4):
            page.keyboard.press("Enter")
            page.wait_for_function(
                f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
            )
            settle(page)
            assert focused(page) == "add-bot", n  # still there: Enter again adds another
        tab_to(page, "start-game")
        page.keyboard.press("Enter")
        page.wait_for_selector(by_testid("bid-panel"))
        settle(page)
        assert focused(page) in {"bid-quantity", "bid-heading"}, focused(page)
        # Continue: Manual, so that the break waits for Agree
        tab_to(page, "continue-manual")
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-testid='continue-manual'][aria-pressed='true']")
        settle(page)
        assert focused(page) == "continue-manual"
        acted = set()
        for _ in range(40):
            page.wait_for_function(
                f"() => ({OVER})() || ({MY_TURN})() || document.querySelector(\"[data-testid='agree']\")",
                timeout=40_000,
            )
            if page.evaluate(OVER):
                break
            if page.locator(by_testid("agree")).count():
                tab_to(page, "agree")
                page.keyboard.press("Enter")
                # agreed (the break goes on), or the next round began at once
                page.wait_for_function("""() => !document.querySelector("[data-testid='agree']")""")
                settle(page)
                acted.add("agree")
                assert focused(page) not in {None, "BODY"}, "focus dropped after Agree"
                continue
            # the shortcuts: L calls Liar! when there is a bid, B bids the default bid
            liar = page.locator(f"{by_testid('call-liar')}:not([disabled])").count()
            page.keyboard.press("l" if liar else "b")
            settle(page)
            acted.add("liar" if liar else "bid")
            assert focused(page) not in {None, "BODY"}, f"focus dropped after {acted}"
        assert {"bid", "liar"} & acted
    finally:
        page.close()


@pytest.mark.parametrize("rules", ["classic", "wild-stars", "poker", "perudo"])
def test_a_whole_game_with_the_keyboard_alone(
    server: LocalServer, browser: Browser, rules: str
) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        new_room_by_keyboard(page, server.url, rules)
        choose(page, "bot-level", "easy")
        tab_to(page, "add-bot")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        tab_to(page, "start-game")
        page.keyboard.press("Enter")
        page.wait_for_selector(by_testid("bid-panel"))
        # the chat has the focus while typing: B and L are letters there, not moves
        if page.locator(by_testid("chat-input")).count():
            tab_to(page, "chat-input")
            page.keyboard.type("bl")
            assert page.input_value(by_testid("chat-input")) == "bl"
        for _ in range(60):
            page.wait_for_function(f"() => ({OVER})() || ({MY_TURN})()", timeout=40_000)
            if page.evaluate(OVER):
                break
            live = {
                id_
                for id_ in ("poker-accept", "poker-keep", "poker-stop", "call-liar", "poker-liar")
                if page.locator(f"{by_testid(id_)}:not([disabled])").count()
            }
            if "poker-accept" in live or "poker-keep" in live or "poker-stop" in live:
                # no shortcut for these: Tab to the button, then Enter
                target = next(i for i in ("poker-accept", "poker-keep", "poker-stop") if i in live)
                tab_to(page, target)
                page.keyboard.press("Enter")
            elif live & {"call-liar", "poker-liar"}:
                page.keyboard.press("l")
            else:
                page.keyboard.press("b")
            settle(page)
        page.wait_for_selector(by_testid("final-results"), timeout=40_000)
        assert errors == []
    finally:
        page.close()
