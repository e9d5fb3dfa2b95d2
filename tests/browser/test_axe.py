"""WCAG 2.2 AA on every screen (issue 28): axe-core finds nothing, at 390×844 and 1366×900,
in the light and the dark colour scheme.

The tour (``tests/browser/axe_tour.py``) visits the lobby signed out and in, How to play (a
dialog), the waiting room with a toast, each rule system's table, a reveal during a break, the
final results with the chart (each system), the replay, the leaderboard and a profile. axe-core
is vendored (``tests/browser/vendor/axe.min.js``) and runs with the tags wcag2a, wcag2aa,
wcag21a, wcag21aa and wcag22aa.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.axe_tour import RULES, SIZES, THEMES, Found, axe_check, summary, tour

pytestmark = pytest.mark.browser


def test_axe_finds_no_violation_on_any_screen(server: LocalServer, browser: Browser) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    found: Found = {}
    try:
        tour(page, server.url, axe_check(page, found))
    finally:
        page.close()
    screens = {key.split("@")[0] for key in found}
    # every screen was looked at, at both sizes and in both schemes
    assert {f"table-{rules}" for rules in RULES} | {
        f"results-{rules}" for rules in RULES
    } <= screens
    assert {
        "lobby-signed-out",
        "lobby",
        "how-to-play",
        "waiting-room+toast",
        "reveal-break",
    } <= screens
    assert {"replay", "leaderboard", "profile"} <= screens
    assert len(found) == len(screens) * len(SIZES) * len(THEMES)
    bad = {key: v for key, v in found.items() if v}
    assert bad == {}, f"{summary(found)}\n{bad}"
    assert errors == []
