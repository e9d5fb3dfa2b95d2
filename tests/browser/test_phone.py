"""The web client on a phone (issue 13), at 390×844 and 360×740.

One page per size plays the worst case: a 24-character name (with an emoji) against nine bots,
10 players × 10 dice, through a reveal, the results and "play again"; a second page per size
goes through joining (passcode, invitation, denial) as a registered user. Each checks, on every
screen, that nothing is wider than the phone and that messages are in plain words.

``UPDATE_SCREENSHOTS=1`` writes the screenshots to ``docs/screenshots/`` (committed); otherwise
they go to ``test-output/``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import GAME_TIMEOUT_S, OUTPUT, by_testid

pytestmark = pytest.mark.browser

SIZES = [(390, 844), (360, 740)]
NAME = "🎲Maximilian_Longname_Tes"  # 24 characters (the most), the first outside the BMP
VALIDATOR_WORDS = re.compile(
    r"String should|should match|pattern|Field required|Input should|Extra inputs|"
    r"validation error|Value error|\bloc\b",
    re.IGNORECASE,
)
SHOTS = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS")
    else OUTPUT
)

# Everything on the page inside the phone's width; `selectors` name the elements that must be
# whole (inside the viewport and not clipped inside themselves).
LAYOUT_PROBLEMS = """(selectors) => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const page = document.documentElement.scrollWidth;
  if (page > width) problems.push(`page is ${page}px wide on a ${width}px screen`);
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const what = `${selector} "${el.textContent.trim().slice(0, 24)}"`;
      if (box.left < -0.5 || box.right > width + 0.5) {
        problems.push(`${what} spans ${Math.round(box.left)}..${Math.round(box.right)}`);
      }
      const style = getComputedStyle(el);
      const clips = style.overflowX === 'hidden' || style.overflowX === 'clip';
      if (clips && style.textOverflow !== 'ellipsis' && el.scrollWidth > el.clientWidth + 1) {
        problems.push(`${what} cuts its content (${el.scrollWidth} > ${el.clientWidth})`);
      }
    }
  }
  return problems;
}"""

GAME_PARTS = [
    "[data-testid='player-card']",
    ".player-card-name",
    ".dice-count",
    ".player-card-dice",
    "[data-testid='bid-panel']",
    "[data-testid='metrics']",
    ".site-header",
    ".room-head-inner > *",
]


def check_layout(page: Page, *selectors: str) -> None:
    problems = page.evaluate(LAYOUT_PROBLEMS, list(selectors))
    if problems:
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "phone-layout-problem.png"), full_page=True)
    assert problems == [], problems


def no_validator_words(text: str) -> None:
    assert text.strip(), "an empty message"
    assert not VALIDATOR_WORDS.search(text), text


def shot(page: Page, size: tuple[int, int], name: str, at: str | None = None) -> None:
    """What the phone shows (one screen), scrolled to ``at`` when given."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    if at == "top":
        page.evaluate("window.scrollTo(0, 0)")
    elif at:
        page.locator(at).first.evaluate("(el) => el.scrollIntoView({ block: 'start' })")
    page.wait_for_timeout(200)
    page.screenshot(path=str(SHOTS / f"phone-{size[0]}x{size[1]}-{name}.png"))
    page.evaluate("window.scrollTo(0, 0)")


def rest(
    base: str, method: str, path: str, body: Any = None, token: str | None = None
) -> dict[str, Any]:
    """One call to the local server's REST API (the other side of the table)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return dict(json.loads(answer.read() or b"{}"))
    except urllib.error.HTTPError as err:  # pragma: no cover - shown on failure
        raise AssertionError(f"{method} {path}: {err.code} {err.read()!r}") from None


def phone(browser: Browser, size: tuple[int, int], token: str | None = None) -> Page:
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, is_mobile=True, has_touch=True
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    # The share sheet is the phone's; here the link goes to the clipboard.
    script = "Object.defineProperty(navigator, 'share', { value: undefined });"
    if token:
        script += f"localStorage.setItem('liars-lies.token', {json.dumps(token)});"
    context.add_init_script(script)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def wait_for_my_turn(page: Page) -> None:
    page.wait_for_function(
        """() => document.querySelector("[data-testid='bid-submit']")
            && !document.querySelector("[data-testid='bid-submit']").disabled""",
        timeout=GAME_TIMEOUT_S * 1000,
    )


# --- 1, 2, 6, 7, 8, 9, 11: a whole phone game at 10 × 10 ---------------------------------------


def lobby_and_sign_in(page: Page, base: str, size: tuple[int, int]) -> None:
    page.goto(f"{base}/")
    page.wait_for_selector(by_testid("auth-card"))
    check_layout(page, ".site-header", "[data-testid='auth-card']", ".lobby-rooms")

    # 11. How to play, from the lobby: one short panel per rule system.
    page.click(by_testid("how-to-play"))
    dialog = page.locator(by_testid("how-to-play-dialog"))
    dialog.wait_for()
    for rules in ("classic", "wild-stars", "poker"):
        page.click(by_testid(f"how-to-tab-{rules}"))
        panel = page.locator(by_testid(f"how-to-panel-{rules}"))
        assert panel.is_visible() and len(panel.locator("li").all()) >= 5
        check_layout(page, "[data-testid='how-to-play-dialog']", ".howto-steps li")
        if rules == "wild-stars":
            assert "Die Hard" in panel.inner_text()
        if rules == "poker":
            assert "five aces" in panel.inner_text().lower()
            if size == SIZES[0]:
                shot(page, size, "how-to-play")
    page.click(by_testid("how-to-close"))
    dialog.wait_for(state="detached")

    # 2. The username rules are on screen before anything is sent; refusals are in words.
    page.click(by_testid("auth-tab-register"))
    rules_line = page.locator(by_testid("username-rules"))
    assert rules_line.is_visible() and "3 to 24" in rules_line.inner_text()
    for bad in ("ab", "jo hn", "naïve"):
        page.fill(by_testid("register-username"), bad)
        page.fill(by_testid("register-password"), "correct horse")
        page.click(by_testid("register-submit"))
        error = page.locator(by_testid("register-error"))
        error.wait_for()
        no_validator_words(error.inner_text())
    page.click(by_testid("auth-tab-login"))
    page.fill(by_testid("login-username"), f"nobody{size[0]}")
    page.fill(by_testid("login-password"), "abc")  # shorter than the policy: still just wrong
    page.click(by_testid("login-submit"))
    page.wait_for_function(
        "document.querySelector(\"[data-testid='login-error']\")?.textContent.length > 0"
    )
    assert page.inner_text(by_testid("login-error")) == "Wrong username or password."
    assert page.locator(by_testid("toast")).count() == 0

    # 2. The one table (messages.js) words the server's real refusals without its validator.
    worded = page.evaluate(
        """async () => {
          const { errorMessage } = await import('/messages.js');
          const cases = [
            ['/auth/register', { username: 'a b', password: 'longenough' }, 'register'],
            ['/auth/register', { username: 'ab', password: 'longenough' }, 'register'],
            ['/auth/register', { username: 'okname', password: 'short' }, 'register'],
            ['/auth/register', { username: 'okname' }, 'register'],
            ['/auth/register', { username: 'okname', password: 'longenough', admin: true }, 'register'],
            ['/auth/login', { username: 'x', password: 'y' }, 'login'],
            ['/auth/guest', { name: 'x'.repeat(40) }, 'guest'],
            ['/rooms', { settings: { starting_dice: 11 } }, null],
          ];
          const out = [];
          for (const [path, body, action] of cases) {
            const answer = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
            const error = (await answer.json()).error;
            out.push({ raw: error.message, text: errorMessage({ ...error, status: answer.status }, action) });
          }
          return out;
        }"""
    )
    assert any(VALIDATOR_WORDS.search(case["raw"]) for case in worded)  # what was shown before
    for case in worded:
        no_validator_words(case["text"])

    # 6. Names are counted and cut by grapheme: no half emoji, never over 24.
    page.click(by_testid("auth-tab-guest"))
    page.fill(by_testid("guest-name"), "")
    page.type(by_testid("guest-name"), "🎲" * 30)
    cut = page.evaluate(
        """() => {
          const value = document.querySelector("[data-testid='guest-name']").value;
          return { points: Array.from(value).length, lone: /[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]/.test(value) };
        }"""
    )
    assert cut == {"points": 24, "lone": False}
    assert page.inner_text(by_testid("guest-name-count")) == "24 / 24"
    page.fill(by_testid("guest-name"), "")
    page.type(by_testid("guest-name"), NAME + "overflow")
    assert page.input_value(by_testid("guest-name")) == NAME
    page.click(by_testid("guest-signin"))
    page.wait_for_selector(by_testid("create-room"))
    assert page.inner_text(f"{by_testid('current-user')} .avatar") == "🎲"


def select_texts_fit(page: Page) -> list[str]:
    """Selects whose chosen option is wider than the select shows (text cut with '…')."""
    return list(
        page.evaluate(
            """() => {
              const canvas = document.createElement('canvas').getContext('2d');
              const cut = [];
              for (const select of document.querySelectorAll('select')) {
                if (!select.offsetParent) continue;
                const style = getComputedStyle(select);
                canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
                const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 18;
                for (const option of select.options) {
                  if (canvas.measureText(option.text).width > room) cut.push(option.text);
                }
              }
              return cut;
            }"""
        )
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_phone_game_with_a_long_name_and_ten_players_of_ten_dice(
    server: LocalServer, browser: Browser, size: tuple[int, int]
) -> None:
    page = phone(browser, size)
    try:
        lobby_and_sign_in(page, server.url, size)

        # 8. No setting is cut in its select ("Loser gives 1 die to the w…").
        page.select_option(by_testid("create-setting-starting_dice"), "10")
        page.select_option(by_testid("create-setting-wildcard_chance"), "0")
        assert select_texts_fit(page) == []
        check_layout(page, ".create-card", ".create-card select")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        for n in range(2, 11):
            page.click(by_testid("add-bot"))
            page.wait_for_function(
                f"document.querySelectorAll(\"[data-testid='player-row']\").length === {n}"
            )
        check_layout(page, "[data-testid='player-row']", ".player-row-name", ".host-actions")
        assert select_texts_fit(page) == []
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("bid-panel"))
        assert page.locator(by_testid("player-card")).count() == 10

        # 1. Ten cards of ten dice and a 24-character name fit; the dice count is whole.
        check_layout(page, *GAME_PARTS)
        counts = page.locator(".dice-count").all_inner_texts()
        assert len(counts) == 10 and all(re.fullmatch(r"\d+ dic?e", c) for c in counts), counts

        # 8. The connection dot says what it means; Share link says what it did.
        label = page.locator("#connection-label")
        assert label.is_visible() and label.inner_text() in {"Live", "Connecting…"}
        page.click(by_testid("share-room"))
        page.wait_for_selector(f"{by_testid('toast')}:has-text('Link copied')")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.endswith(page.url.split("#", 1)[1])

        # 11. How to play from the game opens on the room's rules.
        page.click(by_testid("how-to-play"))
        page.wait_for_selector(by_testid("how-to-panel-classic"))
        assert page.get_attribute(by_testid("how-to-tab-classic"), "aria-selected") == "true"
        page.click(by_testid("how-to-close"))

        # 8. Chat is one tap away during play.
        page.click(by_testid("chat-jump"))
        page.wait_for_function(
            """() => { const box = document.querySelector("[data-testid='chat']").getBoundingClientRect();
                       return box.top >= 0 && box.top < window.innerHeight; }"""
        )
        page.evaluate("window.scrollTo(0, 0)")

        # Manual: the break waits for this player, so it can be looked at.
        page.click(by_testid("continue-manual"))
        page.wait_for_selector(f"{by_testid('continue-manual')}[aria-pressed='true']")
        wait_for_my_turn(page)
        # 8. "2.5" is not "at least 1"; 7. a 0 % wildcard room never says "or *".
        page.fill(by_testid("bid-quantity"), "2.5")
        preview = page.inner_text(by_testid("bid-preview"))
        assert "whole number" in preview and "at least 1" not in preview
        page.click(by_testid("bid-face-6"))
        page.fill(by_testid("bid-quantity"), "60")
        preview = page.inner_text(by_testid("bid-preview"))
        assert preview == "You bid 60 sixes: at least 60 dice showing 6", preview
        page.evaluate("document.activeElement.blur()")
        shot(page, size, "game", at="top")
        version = page.get_attribute(by_testid("game-screen"), "data-version")
        page.click(by_testid("bid-submit"))
        # Sixty sixes among a hundred dice: the next bot calls Liar! and the round is revealed.
        page.wait_for_function(
            """(version) => document.querySelector("[data-testid='game-screen']").dataset.version !== version
                && document.querySelector("[data-testid='reveal-table']")""",
            arg=version,
            timeout=GAME_TIMEOUT_S * 1000,
        )
        try:
            page.wait_for_selector(f"{by_testid('bid-panel')}[data-phase='break']")
        except Exception:
            page.screenshot(path=str(OUTPUT / "phone-no-break.png"), full_page=True)
            raise

        # 1. Every reveal row and its Bids cell are on screen; 7. no "or *" in the reveal.
        rows = page.locator(f"{by_testid('reveal-table')} tbody tr")
        assert rows.count() == 10
        check_layout(
            page,
            *GAME_PARTS,
            "[data-testid='reveal-table'] tbody tr",
            "[data-testid='reveal-table'] td",
            ".reveal-bids",
            ".reveal-summary p",
        )
        assert "or *" not in page.inner_text(by_testid("reveal"))
        assert "★" not in page.inner_text(f"{by_testid('reveal')} .reveal-summary")
        # 8. A break is one short line, not a big empty bidding card; no "No bid yet".
        idle = page.locator(by_testid("bid-panel")).bounding_box()
        assert idle is not None and idle["height"] < 110, idle
        assert "No bid yet" not in page.inner_text(by_testid("game-screen"))
        if size == SIZES[0]:
            shot(page, size, "cards", at=by_testid("player-cards"))
        shot(page, size, "reveal", at=by_testid("reveal"))

        page.click(by_testid("resign"))
        page.click(by_testid("resign-confirm"))
        page.wait_for_selector(by_testid("final-results"), timeout=GAME_TIMEOUT_S * 1000)

        # 1. Every results column on screen, named; the chart readable; every line visible.
        assert page.locator(by_testid("ranking-row")).count() == 10
        check_layout(
            page,
            "[data-testid='ranking-row']",
            "[data-testid='ranking-row'] td",
            "[data-testid='dice-chart']",
            ".legend li",
        )
        # The same results rated (the worst case: ten 24-character names with ratings).
        page.evaluate(
            """async (name) => {
              const { resultsCard } = await import('/results.js');
              const players = Array.from({ length: 10 }, (_, i) => ({
                id: `p${i}`, name: i ? `${name.slice(2, 22)}_${i}`.padEnd(24, 'x') : name, kind: 'human', seat: i, dice_count: 10 - i, rank: i + 1,
              }));
              const ranking = players.map((p, i) => ({ player_id: p.id, rank: i + 1, rating_before: 1512.3 + i, rating_after: 1498.7 - i * 3.1 }));
              const card = resultsCard({ id: 'stub-rated', rated: true, players, settings: { rules: 'classic' }, me: {},
                results: { ranking, dice_progress: [{ round: 1, counts: {} }] } });
              card.id = 'stub-results';
              document.querySelector('#app').prepend(card);
            }""",
            NAME,
        )
        check_layout(page, "#stub-results [data-testid='ranking-row']", "#stub-results td")
        labels = page.evaluate(
            """() => [...document.querySelectorAll("#stub-results [data-testid='ranking-row']:first-child td")]
                .map((td) => getComputedStyle(td, '::before').content + '|' + td.textContent)"""
        )
        # "ELO 1512.3 → 1498.7 −13.6": before, after and change, on screen and named
        assert labels[3:] == ['"ELO "|1512.3', '"→ "|1498.7', "none|−13.6"] or labels[3:] == [
            '"ELO "|1512.3',
            '"→ "|1498.7',
            '""|−13.6',
        ], labels
        shot(page, size, "results-rated", at="#stub-results")
        page.evaluate("document.querySelector('#stub-results').remove()")
        smallest = page.evaluate(
            """() => Math.min(...[...document.querySelectorAll('.chart text')]
                .map((t) => t.getBoundingClientRect().height))"""
        )
        assert smallest >= 9, smallest
        lines = page.evaluate(
            """() => [...document.querySelectorAll('.chart polyline')]
                .map((p) => p.getAttribute('points') + p.getAttribute('stroke-dasharray'))"""
        )
        assert len(lines) == 10 and len(set(lines)) == 10
        if size == SIZES[0]:
            shot(page, size, "chart", at=by_testid("dice-chart"))

        # 8. The ELO preview table names its columns (answer stubbed: this game is unrated).
        page.route(
            "**/rooms/stub-room/elo-preview",
            lambda route: route.fulfill(
                json={
                    "changes": [
                        {"player_id": "p1", "before": 1500, "delta": 16, "after": 1516},
                        {"player_id": "p2", "before": 1500, "delta": -16, "after": 1484},
                    ]
                }
            ),
        )
        page.evaluate(
            """async (name) => {
              const { eloPreviewCard } = await import('/results.js');
              const players = [{ id: 'p1', name, seat: 0, dice_count: 1 }, { id: 'p2', name: 'Bot 1', seat: 1, dice_count: 0 }];
              const card = eloPreviewCard({ id: 'stub-room', rated: true, players });
              card.id = 'stub-elo';
              document.querySelector('#app').append(card);
            }""",
            NAME,
        )
        page.click(f"#stub-elo {by_testid('elo-preview-submit')}")
        page.wait_for_selector(f"#stub-elo {by_testid('elo-table')}")
        heads = page.locator(f"#stub-elo {by_testid('elo-table')} th").all_inner_texts()
        assert [h.lower() for h in heads] == ["player", "now", "change", "after"]
        check_layout(page, "#stub-elo", "#stub-elo td")
        page.evaluate("document.querySelector('#stub-elo').remove()")

        # 9. Play again keeps the nine bots: one click, then Start.
        old_bots = page.evaluate(
            """() => [...document.querySelectorAll("[data-testid='ranking-row'] td:nth-child(2)")]
                .map((td) => td.querySelector('.name-text').textContent).filter((n) => n.startsWith('Bot ')).sort()"""
        )
        page.click(by_testid("recreate-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 10"
        )
        bots = sorted(
            page.locator(
                f"{by_testid('player-row')}.is-bot .player-row-name strong"
            ).all_inner_texts()
        )
        assert bots == old_bots and len(bots) == 9
        assert page.locator(by_testid("start-game")).is_enabled()
        check_layout(page, "[data-testid='player-row']")
        if size == SIZES[0]:
            shot(page, size, "play-again")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.context.close()


# --- 3, 4, 5, 8: joining as a registered user, and an unknown room ------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_phone_joining_words_passcode_invitation_and_denial(
    server: LocalServer, browser: Browser, size: tuple[int, int]
) -> None:
    base = server.url
    host = rest(
        base, "POST", "/auth/register", {"username": f"host{size[0]}", "password": "pass-word-1"}
    )
    guest_name = f"joiner{size[0]}"
    joiner = rest(
        base, "POST", "/auth/register", {"username": guest_name, "password": "pass-word-2"}
    )
    h_token, j_token, j_id = host["token"], joiner["token"], joiner["user"]["id"]
    locked = rest(
        base,
        "POST",
        "/rooms",
        {"settings": {"joining": "passcode", "passcode": "4321"}},
        h_token,
    )["id"]
    page = phone(browser, size, j_token)
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if r.url.endswith("/join") else None)
    try:
        # 8. An unknown room says so once: no toast, no chat beside it.
        page.goto(f"{base}/#/rooms/no-such-room")
        page.wait_for_selector(by_testid("room-error"))
        page.wait_for_timeout(1200)
        assert page.locator(by_testid("room-error")).count() == 1
        assert page.locator(by_testid("toast")).count() == 0
        assert not page.locator(by_testid("chat")).is_visible()

        # 5. Passcode: nothing is sent until four digits are typed; wrong codes are said beside
        # the field (no stack of toasts); the lock says how long and what else to do.
        page.goto(f"{base}/#/rooms/{locked}")
        page.wait_for_selector(by_testid("join-passcode"))
        error = page.locator(by_testid("join-error"))
        for typed in ("", "12"):
            page.fill(by_testid("join-passcode"), typed)
            page.click(by_testid("join-room"))
            page.wait_for_selector(f"{by_testid('join-error')}:has-text('four digits')")
        assert joins == []
        page.fill(by_testid("join-passcode"), "abcd")
        assert page.input_value(by_testid("join-passcode")) == ""
        for _attempt in range(6):
            page.fill(by_testid("join-passcode"), "0000")
            page.click(by_testid("join-room"))
            page.wait_for_function(
                "document.querySelector(\"[data-testid='join-error']\").textContent.length > 0"
            )
            text = error.inner_text()
            no_validator_words(text)
            assert page.locator(by_testid("toast")).count() == 0
        assert "15 minutes" in text and "invite" in text, text
        check_layout(page, "[data-testid='waiting-room'] .card", "[data-testid='join-error']")
        if size == SIZES[0]:
            shot(page, size, "passcode-locked", at="[data-slot='join'] .card")

        # 3. Invited: no passcode asked, and joining works (even while locked out).
        rest(base, "POST", f"/rooms/{locked}/invitations", {"username": guest_name}, h_token)
        page.wait_for_selector(by_testid("join-invited"))
        assert page.locator(by_testid("join-passcode")).count() == 0
        page.click(by_testid("join-room"))
        page.wait_for_selector(by_testid("leave-room"))

        # 4. A denial is said once, with no dead button, and forgotten when it no longer applies.
        asked = rest(base, "POST", "/rooms", {"settings": {"joining": "approval"}}, h_token)["id"]
        page.goto(f"{base}/#/rooms/{asked}")
        page.click(by_testid("join-room"))
        page.wait_for_selector(by_testid("join-request-pending"))
        rest(base, "POST", f"/rooms/{asked}/requests/{j_id}/deny", None, h_token)
        page.wait_for_selector(by_testid("join-request-denied"))
        no_validator_words(page.inner_text(by_testid("join-request-denied")))
        assert page.locator(by_testid("join-room")).count() == 0
        check_layout(page, "[data-testid='waiting-room'] .card")
        rest(base, "PATCH", f"/rooms/{asked}/settings", {"joining": "open"}, h_token)
        page.wait_for_selector(f"{by_testid('join-room')}:has-text('Join room')")
        assert page.locator(by_testid("join-request-denied")).count() == 0
        page.click(by_testid("join-room"))
        page.click(by_testid("leave-room"))
        page.wait_for_selector(by_testid("join-room"))
        rest(base, "PATCH", f"/rooms/{asked}/settings", {"joining": "approval"}, h_token)
        page.wait_for_selector(f"{by_testid('join-room')}:has-text('Request to join')")
        assert page.locator(by_testid("join-request-denied")).count() == 0
        page.click(by_testid("join-room"))
        page.wait_for_selector(by_testid("join-request-pending"))
        check_layout(page, "[data-testid='waiting-room'] .card", ".site-header")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.context.close()
