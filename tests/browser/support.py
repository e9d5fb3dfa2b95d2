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
