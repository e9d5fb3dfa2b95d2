"""Moves the browser tests of issue 28 make: rooms of any rule system, and the boldest move.

``boldest_move`` makes the move most likely to lose the round: a bid no one can raise (all the
dice in play, on the top face), a claim of five aces, so the next player calls Liar! on it.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.browser.support import by_testid, click_first_live

MY_TURN = """() => {
  const live = (id) => { const b = document.querySelector(`[data-testid='${id}']`); return b && !b.disabled; };
  return ['bid-submit', 'poker-claim', 'poker-accept', 'poker-keep', 'poker-stop'].some(live);
}"""

OVER = "() => Boolean(document.querySelector(\"[data-testid='final-results'], [data-testid='out-reveal']\"))"


def guest_room(
    page: Page,
    base_url: str,
    rules: str,
    *,
    pieces: int = 1,
    bots: int = 2,
    level: str = "easy",
    turn_seconds: int | None = None,
) -> None:
    """Sign in as a guest (if not yet), make a room of these rules, add bots, start."""
    page.goto(f"{base_url}/?fresh={page.evaluate('Date.now()')}#/")  # a new document
    page.wait_for_selector(f"{by_testid('guest-signin')}, {by_testid('create-room')}")
    if page.locator(by_testid("guest-signin")).count():
        page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    page.select_option(by_testid("create-setting-rules"), rules)
    field = "create-setting-lives" if rules == "poker" else "create-setting-starting_dice"
    page.select_option(by_testid(field), str(pieces))
    if turn_seconds is not None:
        page.select_option(by_testid("create-setting-turn_seconds"), str(turn_seconds))
    page.click(by_testid("create-room"))
    page.wait_for_selector(by_testid("waiting-room"))
    page.select_option(by_testid("bot-level"), level)
    for n in range(2, bots + 2):
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
        )
    page.click(by_testid("start-game"))
    page.wait_for_selector(by_testid("game-screen"))


def boldest_move(page: Page, rules: str) -> None:
    """On my turn: the move most likely to be called and lost."""
    if rules == "poker":
        if click_first_live(page, "poker-accept", "poker-keep"):
            page.wait_for_timeout(300)
            return
        if page.locator(f"{by_testid('poker-claim')}:not([disabled])").count():
            page.select_option(by_testid("poker-category"), "6")
            page.select_option(f"{by_testid('poker-claim-face')}[data-group='0']", "6")
            page.click(by_testid("poker-claim"))
            return
        click_first_live(page, "poker-stop")
        return
    total = page.get_attribute(by_testid("bid-quantity"), "max") or "1"
    has_bid = "muted" not in (page.get_attribute(by_testid("current-bid"), "class") or "")
    face = {"classic": "6", "wild-stars": "star", "perudo": "1" if has_bid else "6"}[rules]
    page.fill(by_testid("bid-quantity"), total)
    page.dispatch_event(by_testid("bid-quantity"), "input")
    page.click(by_testid(f"bid-face-{face}"))
    if not click_first_live(page, "bid-submit"):
        click_first_live(page, "call-liar")
