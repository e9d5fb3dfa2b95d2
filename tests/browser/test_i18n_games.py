"""A whole game in Spanish and one in Brazilian Portuguese: no English on any screen (issue 28).

The browser's language picks the catalogue (``locale``). On every screen of the game (lobby,
How to play, waiting room, table, reveal, results, replay) neither the visible text nor the
names given to screen readers (aria-label, title) hold an English sentence of the catalogues.
The tables at phone size go to ``docs/screenshots/`` (``es-390x844-table.png``,
``pt-BR-390x844-table.png``). The picker's choice is remembered over a reload.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.play_helpers import MY_TURN
from tests.browser.support import by_testid, click_first_live

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
SHOTS = ROOT / "docs" / "screenshots"
RULES = ["classic", "wild-stars", "poker", "perudo"]
MOVES = [
    "agree",
    "call-liar",
    "poker-liar",
    "poker-keep",
    "poker-claim",
    "poker-stop",
    "bid-submit",
]

SCREEN_WORDS = """() => {
  const parts = [document.body.innerText];
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (el.closest('[hidden]')) continue;
    parts.push(el.getAttribute('aria-label') || '', el.getAttribute('title') || '', el.getAttribute('placeholder') || '');
  }
  for (const option of document.querySelectorAll('option')) parts.push(option.textContent);
  return parts.join('\\n');
}"""


def _values(value: object) -> list[str]:
    if isinstance(value, dict):
        return [str(v) for v in value.values()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def english_fragments(lang: str) -> set[str]:
    """Pieces of English catalogue sentences (between placeholders) that the language has not."""
    english: list[str] = []
    other: list[str] = []
    catalogues = [(WEB / "i18n" / "en.json", WEB / "i18n" / f"{lang}.json")]
    for path in [WEB / "i18n" / "en.json", WEB / "i18n" / f"{lang}.json"]:
        assert path.exists()
    for en_path, lang_path in catalogues:
        for v in json.loads(en_path.read_text()).values():
            english += _values(v)
        for v in json.loads(lang_path.read_text()).values():
            other += _values(v)
    for rules in RULES:
        data = json.loads((WEB / "systems" / f"{rules}.i18n.json").read_text())
        for v in data["en"].values():
            english += _values(v)
        for v in data[lang].values():
            other += _values(v)
    theirs = "\n".join(other)
    out = set()
    for sentence in english:
        for piece in re.split(r"\{\w+\}", sentence):
            piece = piece.strip(" .,:;!?()·—-")
            # words, not a name, a number or a symbol; not the same in the other language
            wordy = (len(piece) >= 6 and " " in piece) or (len(piece) >= 7 and piece.isalpha())
            if wordy and piece not in theirs:
                out.add(piece)
    assert len(out) > 150
    return out


def no_english(page: Page, fragments: set[str], where: str) -> None:
    words = page.evaluate(SCREEN_WORDS)
    found = sorted(f for f in fragments if f in words)
    assert found == [], f"English on the {where} screen: {found[:10]}"


@pytest.mark.parametrize(
    ("locale", "lang", "rules"), [("es-ES", "es", "perudo"), ("pt-BR", "pt-BR", "classic")]
)
def test_a_whole_game_without_english(
    server: LocalServer, browser: Browser, locale: str, lang: str, rules: str
) -> None:
    fragments = english_fragments(lang)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector(by_testid("guest-signin"))
        assert page.evaluate("document.documentElement.lang") == lang
        no_english(page, fragments, "signed-out lobby")
        page.click(by_testid("how-to-play"))
        page.wait_for_selector(by_testid("how-to-play-dialog"))
        for system in RULES:
            page.click(by_testid(f"how-to-tab-{system}"))
            no_english(page, fragments, f"How to play ({system})")
        page.click(by_testid("how-to-close"))
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        for system in RULES:
            page.select_option(by_testid("create-setting-rules"), system)
            no_english(page, fragments, f"lobby ({system})")
        page.select_option(by_testid("create-setting-rules"), rules)
        page.select_option(by_testid("create-setting-starting_dice"), "2")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.select_option(by_testid("bot-level"), "easy")
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        no_english(page, fragments, "waiting room")
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("bid-panel"))
        page.wait_for_function(f"() => ({MY_TURN})()", timeout=30_000)
        page.wait_for_function(
            "() => !document.querySelector(\"[data-testid='toast']\")", timeout=10_000
        )
        no_english(page, fragments, "table")
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{lang}-390x844-table.png"))
        seen_reveal = False
        for _ in range(80):
            if page.query_selector(by_testid("final-results")):
                break
            if not seen_reveal and page.query_selector(by_testid("reveal-table")):
                seen_reveal = True
                no_english(page, fragments, "reveal")
            click_first_live(page, *MOVES)
            page.wait_for_timeout(300)
        page.wait_for_selector(by_testid("final-results"), timeout=40_000)
        assert seen_reveal
        no_english(page, fragments, "results")
        page.click(by_testid("replay-link"))
        page.wait_for_selector(by_testid("replay-round"))
        no_english(page, fragments, "replay")
        # the picker's choice wins over the browser's language, and is remembered
        page.goto(f"{server.url}/")
        page.select_option(by_testid("language"), "en")
        page.wait_for_function("document.documentElement.lang === 'en'")
        page.reload()
        page.wait_for_selector(by_testid("create-room"))
        assert page.evaluate("document.documentElement.lang") == "en"
        assert "Create room" in page.inner_text(by_testid("create-room"))
        assert errors == []
    finally:
        context.close()


def test_switching_language_mid_game_redraws_the_table_and_its_announcement(
    server: LocalServer, browser: Browser
) -> None:
    """Announcements are kept as events and put into words when drawn: a switch rewords them."""
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        page.select_option(by_testid("bot-level"), "easy")
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.click(by_testid("start-game"))
        page.wait_for_function(f"() => ({MY_TURN})()", timeout=30_000)
        click_first_live(page, "bid-submit")
        # our bid is on the announcer, in English
        page.wait_for_function(
            "() => document.querySelector(\"[data-testid='announcement']\").textContent.startsWith('You: ')",
            timeout=10_000,
        )
        english = page.inner_text(by_testid("announcement"))
        page.select_option(by_testid("language"), "es")
        page.wait_for_function("document.documentElement.lang === 'es'")
        spanish = page.inner_text(by_testid("announcement"))
        assert spanish != english, (english, spanish)
        # ours (still up: each announcement stays 1.5 s), or a bot's answer, in Spanish words
        assert re.match(r"^(Tú|Bot \d): ", spanish) and "You" not in spanish, spanish
        assert page.inner_text(by_testid("bid-heading")) in {"Tu turno", "Apuestas"}
        # the picker keeps the focus after the redraw
        assert page.evaluate("document.activeElement.id") == "language"
    finally:
        context.close()
