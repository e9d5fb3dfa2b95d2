"""Fixtures of the browser tests: a local server and a headless Chromium per test module.

Module scope on purpose: both must be gone before other tests run (Playwright keeps an event
loop running in this thread, and the server swaps the app's dependencies while it runs).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from liars_local.server import LocalServer
from tests.browser.support import CHROMIUM, CHROMIUM_ARGS
from tests.quick_bots import quick_bots

BOT_THINK_MS = ("150", "300")
"""The bots' think time in the browser tests: short, so whole games stay quick, but long enough
that each bot's move is played as its own moment (tests/browser/test_play_live_table.py)."""


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    """The one-command local server, on a free loopback port, with quick bots."""
    with quick_bots(*BOT_THINK_MS), LocalServer(access_log=lambda _line: None) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium driven by Playwright (its own browser download is unreachable)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
