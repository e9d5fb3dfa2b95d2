"""A tour of every screen of the web client, with axe-core (WCAG 2.2 AA) run on each.

``tour(page, base_url, check)`` visits the lobby (signed out and in), How to play, the waiting
room with a toast, each rule system's table, a reveal during a break, the final results with
the chart, the replay, the leaderboard and a profile, calling ``check(name)`` on each screen.
``axe_check(page, found)`` is such a check: it runs axe with the WCAG 2.0/2.1/2.2 A and AA tags
at 390×844 and 1366×900, in the light and the dark colour scheme, and records the violations.

Run by ``tests/browser/test_axe.py`` (zero violations), and by hand against any server to
count violations (the "before" counts of issue 28 came from main's tree):

    .venv/bin/python -m tests.browser.axe_tour http://127.0.0.1:8123
"""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.support import by_testid, click_first_live

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = [(390, 844), (1366, 900)]
THEMES = ["light", "dark"]
RULES = ["classic", "wild-stars", "poker", "perudo"]

# Moves a player can make, in the order the tour prefers them (challenges end games soonest).
MOVES = [
    "agree",
    "call-liar",
    "poker-liar",
    "poker-keep",
    "poker-claim",
    "poker-stop",
    "bid-submit",
]

Found = dict[str, list[dict[str, object]]]


def run_axe(page: Page) -> list[dict[str, object]]:
    """axe's violations on the page as it is: [{id, impact, nodes: [selector…]}]."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result: list[dict[str, object]] = page.evaluate(
        """async (tags) => {
            const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
            return r.violations.map((v) => ({ id: v.id, impact: v.impact,
              nodes: v.nodes.map((n) => n.target.join(' ')) }));
        }""",
        TAGS,
    )
    return result


def axe_check(page: Page, found: Found) -> Callable[[str], None]:
    """A check that runs axe at both sizes and in both schemes, recording under name@size/theme."""

    def check(name: str) -> None:
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            for theme in THEMES:
                page.emulate_media(color_scheme=theme, reduced_motion="reduce")  # type: ignore[arg-type]
                # Transitions end at once under reduced motion; give layout a frame.
                page.wait_for_timeout(60)
                found[f"{name}@{width}/{theme}"] = run_axe(page)
        page.set_viewport_size({"width": SIZES[-1][0], "height": SIZES[-1][1]})
        page.emulate_media(color_scheme="light")

    return check


def _play_to_end(page: Page, check: Callable[[str], None], *, break_name: str | None) -> None:
    """Make moves until the results are on screen; check the first break on the way."""
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if page.query_selector(by_testid("final-results")):
            return
        if break_name and page.query_selector(by_testid("agree")):
            check(break_name)
            break_name = None
        click_first_live(page, *MOVES)
        page.wait_for_timeout(250)
    raise AssertionError("the game did not end")


def _new_room(page: Page, base_url: str, rules: str, pieces: int) -> None:
    page.goto(f"{base_url}/#/")
    page.wait_for_selector(by_testid("create-room"))
    page.select_option(by_testid("create-setting-rules"), rules)
    field = "create-setting-lives" if rules == "poker" else "create-setting-starting_dice"
    page.select_option(by_testid(field), str(pieces))
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    page.select_option(by_testid("bot-level"), "easy")
    page.click(by_testid("add-bot"))
    page.wait_for_function("document.querySelectorAll(\"[data-testid='player-row']\").length === 2")


def tour(page: Page, base_url: str, check: Callable[[str], None]) -> None:
    """Visit every screen, calling check(name) on each."""
    page.goto(f"{base_url}/")
    page.wait_for_selector(by_testid("auth-card"))
    check("lobby-signed-out")
    name = f"axe_{secrets.token_hex(3)}"
    page.click(by_testid("auth-tab-register"))
    page.fill(by_testid("register-username"), name)
    page.fill(by_testid("register-password"), "correct horse battery")
    page.click(by_testid("register-submit"))
    page.wait_for_selector(by_testid("create-room"))
    check("lobby")
    page.click(by_testid("how-to-play"))
    page.wait_for_selector(by_testid("how-to-play-dialog"))
    check("how-to-play")
    page.click(by_testid("how-to-close"))

    first = True
    for rules in RULES:
        _new_room(page, base_url, rules, 2 if first else 1)
        if first:
            page.click(by_testid("copy-link"))
            page.wait_for_selector(by_testid("toast"))
            check("waiting-room+toast")
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("bid-panel"))
        if first:
            # Manual continue: the break waits for Agree, so it can be looked at.
            page.click(by_testid("continue-manual"))
            page.wait_for_selector("[data-testid='continue-manual'][aria-pressed='true']")
        check(f"table-{rules}")
        _play_to_end(page, check, break_name="reveal-break" if first else None)
        page.wait_for_selector(by_testid("dice-chart"))
        check(f"results-{rules}")
        if first:
            room_hash = page.evaluate("location.hash")
            page.click(by_testid("replay-link"))
            page.wait_for_selector(by_testid("replay-round"))
            check("replay")
            page.goto(f"{base_url}/{room_hash}")
            page.wait_for_selector(by_testid("final-results"))
        first = False
    page.goto(f"{base_url}/#/leaderboard")
    page.wait_for_selector("[data-testid='leaderboard'], [data-testid='leaderboard-empty']")
    check("leaderboard")
    page.goto(f"{base_url}/#/users/{name}")
    page.wait_for_selector(by_testid("profile-stats"))
    check("profile")


def summary(found: Found) -> dict[str, int]:
    """Violations (rule × node) per screen, all sizes and schemes summed."""
    out: dict[str, int] = {}
    for key, violations in found.items():
        screen = key.split("@")[0]
        nodes = [v["nodes"] for v in violations]
        out[screen] = out.get(screen, 0) + sum(len(n) for n in nodes if isinstance(n, list))
    return out


def main(base_url: str) -> None:  # pragma: no cover - a tool run by hand
    from playwright.sync_api import sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS

    found: Found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        try:
            tour(page, base_url, axe_check(page, found))
        finally:
            browser.close()
    rules: dict[str, set[str]] = {}
    for key, violations in found.items():
        for v in violations:
            rules.setdefault(key.split("@")[0], set()).add(f"{v['id']}({v['impact']})")
    for screen, count in summary(found).items():
        print(f"{screen:22} {count:4}  {' '.join(sorted(rules.get(screen, set())))}")
    print("total", sum(summary(found).values()))
    detail: dict[str, set[str]] = {}
    for key, violations in found.items():
        for v in violations:
            for node in v["nodes"]:  # type: ignore[attr-defined]
                detail.setdefault(f"{v['id']}: {node}", set()).add(key)
    for line, keys in sorted(detail.items()):
        print(" ", line, "|", len(keys), sorted(keys)[0])


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1])
