"""Shared pieces of the browser tests: Debian's chromium, its flags, where screenshots go."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
GAME_TIMEOUT_S = 120


def by_testid(name: str) -> str:
    """CSS selector of an element by its ``data-testid``."""
    return f"[data-testid='{name}']"


def send_and_wait(page: Page, testid: str) -> None:
    """Click a button that sends an action and wait for the next room view to render."""
    version = page.get_attribute(by_testid("game-screen"), "data-version")
    page.click(by_testid(testid))
    page.wait_for_function(
        """(version) => document.querySelector("[data-testid='final-results']")
            || document.querySelector("[data-testid='game-screen']").dataset.version !== version""",
        arg=version,
    )


def click_first_live(page: Page, *testids: str) -> str | None:
    """Click the first of these buttons that is on screen and enabled, in one step in the page.

    Checking a button and then clicking it are two round trips; a push that re-renders the
    screen in between (a bot's move, the reveal, a break) would leave the test waiting for a
    button that is gone. Returns the test id clicked, or None if none was live.
    """
    clicked: str | None = page.evaluate(
        """(ids) => {
            for (const id of ids) {
                const button = document.querySelector(`[data-testid='${id}']`);
                if (button && !button.disabled) { button.click(); return id; }
            }
            return null;
        }""",
        list(testids),
    )
    return clicked


def guest_room_with_bots(
    page: Page,
    base_url: str,
    *,
    starting_dice: int | None = 5,
    bots: int = 2,
    level: str | None = "easy",
    start: bool = True,
) -> None:
    """Sign in as a guest, create a room, add bots and (unless ``start=False``) start.

    ``starting_dice`` and ``level`` None leave the room's and the bot picker's defaults.
    """
    page.goto(f"{base_url}/")
    page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    if starting_dice is not None:
        page.select_option(by_testid("create-setting-starting_dice"), str(starting_dice))
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    if level is not None:
        page.select_option(by_testid("bot-level"), level)
    for n in range(2, bots + 2):
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
        )
    if start:
        start_game(page)


def start_game(page: Page) -> None:
    """The host starts the game; wait for the table."""
    page.click(by_testid("start-game"))
    page.wait_for_selector(by_testid("game-screen"))
