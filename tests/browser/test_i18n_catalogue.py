"""The web client's message catalogues are complete (issue 28): every key in every language.

Shared words are in ``web/i18n/<lang>.json``; each rule system's in
``web/systems/<rules>.i18n.json`` (``{"en": …, "es": …, "pt-BR": …}``, keys prefixed
``<rules>.``). For every key: present in all three languages, the same {placeholders}, plural
values with at least ``one`` and ``other``, lists of the same length. Every key the code names
literally (``t('…')``, ``tNodes('…')``, ``tList('…')``) exists. The plural cases are checked
through the client's own ``t()`` and ``Intl.PluralRules`` in Chromium: "1 dado" / "2 dados",
"1 vida" / "2 vidas".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer

WEB = Path(__file__).resolve().parents[2] / "web"
LANGS = ["en", "es", "pt-BR"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
REGISTRY = WEB / "systems" / "index.js"


def _rules() -> list[str]:
    match = re.search(r"export const RULES = \[([^\]]*)\];", REGISTRY.read_text())
    assert match
    return re.findall(r"'([^']+)'", match.group(1))


def _catalogues() -> dict[str, dict[str, dict[str, Any]]]:
    """{source: {lang: {key: value}}} for the shared catalogue and each system's."""
    out = {
        "shared": {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text()) for lang in LANGS}
    }
    for rules in _rules():
        out[rules] = json.loads((WEB / "systems" / f"{rules}.i18n.json").read_text())
    return out


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [str(v) for v in value.values()]
    if isinstance(value, list):
        return [str(v) for v in value]
    raise AssertionError(f"unexpected catalogue value {value!r}")


def _placeholders(value: Any) -> set[str]:
    return {name for text in _texts(value) for name in PLACEHOLDER.findall(text)}


def test_every_key_is_in_every_language_with_the_same_placeholders() -> None:
    problems = []
    for source, by_lang in _catalogues().items():
        assert set(by_lang) == set(LANGS), f"{source}: languages {sorted(by_lang)}"
        keys = set().union(*(set(c) for c in by_lang.values()))
        assert len(keys) > 10, f"{source} has too few keys"
        for key in sorted(keys):
            if source != "shared" and not key.startswith(f"{source}."):
                problems.append(f"{source}: {key} is not prefixed {source}.")
            missing = [lang for lang in LANGS if key not in by_lang[lang]]
            if missing:
                problems.append(f"{source}: {key} missing in {missing}")
                continue
            values = [by_lang[lang][key] for lang in LANGS]
            kinds = {type(v).__name__ for v in values}
            if len(kinds) != 1:
                problems.append(f"{source}: {key} is {kinds} across languages")
                continue
            if isinstance(values[0], dict):
                for lang, value in zip(LANGS, values, strict=True):
                    if key != "common.ordinal" and not {"one", "other"} <= set(value):
                        problems.append(
                            f"{source}: {key} ({lang}) lacks one/other: {sorted(value)}"
                        )
            if isinstance(values[0], list) and len({len(v) for v in values}) != 1:
                problems.append(f"{source}: {key} lists differ in length")
            marks = [_placeholders(v) for v in values]
            if any(m != marks[0] for m in marks):
                problems.append(f"{source}: {key} placeholders differ: {marks}")
            for lang, value in zip(LANGS, values, strict=True):
                if any(not text.strip() for text in _texts(value)):
                    problems.append(f"{source}: {key} ({lang}) is empty")
    assert problems == [], "\n".join(problems)


def test_translations_are_not_english() -> None:
    """A catalogue entry copied untranslated shows English on a Spanish or Portuguese screen."""
    # Words that are the same in the three languages (names, symbols, loanwords).
    same = re.compile(
        r"^[\W\d_]*$|^(Chat|Perudo|Palifico!?|Dudo!|Calza!|ELO.*|bot|bots|Manual|Replay|Links)$"
    )
    alike = {
        "app.name",
        "bid.face",
        "bid.faceN",
        "game.botLevel",
        "settings.botMark",
        "settings.seconds",
    }
    copied = []
    for source, by_lang in _catalogues().items():
        for key, en in by_lang["en"].items():
            for lang in ("es", "pt-BR"):
                if (
                    key not in alike
                    and by_lang[lang].get(key) == en
                    and isinstance(en, str)
                    and len(en) > 3
                ):
                    texts = PLACEHOLDER.sub("", en).strip()
                    if not same.match(texts) and not same.match(en):
                        copied.append(f"{source}: {key} ({lang}) = {en!r}")
    assert copied == [], "\n".join(copied)


def test_every_key_the_code_names_exists() -> None:
    catalogues = _catalogues()
    english: set[str] = set(catalogues["shared"]["en"])
    for rules in _rules():
        english |= set(catalogues[rules]["en"])
    named = re.compile(r"""\b(?:t|tNodes|tList|has)\(\s*'([^'$`]+)'""")
    missing = []
    for path in sorted(WEB.rglob("*.js")):
        if path == WEB / "i18n" / "index.js":
            continue  # its comment shows what not to write
        for key in named.findall(path.read_text()):
            if key not in english:
                missing.append(f"web/{path.relative_to(WEB)}: {key}")
    assert len(english) > 300
    assert missing == [], "\n".join(missing)


PLURALS = """async () => {
  const i18n = await import('/i18n/index.js');
  const out = {};
  for (const lang of ['en', 'es', 'pt-BR']) {
    i18n.setLanguage(lang);
    out[lang] = [1, 2, 0].map((count) => [i18n.t('dice.dice', { count }), i18n.t('poker.lives', { count })]);
  }
  i18n.setLanguage('en');
  return out;
}"""


@pytest.mark.browser
def test_plural_cases_through_intl_plural_rules(server: LocalServer, browser: Browser) -> None:
    """The client's own t() in Chromium, with the catalogues the page loaded."""
    page = browser.new_page()
    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector("[data-testid='guest-signin']")
        out = page.evaluate(PLURALS)
    finally:
        page.close()
    assert out["es"][0] == ["1 dado", "1 vida"]
    assert out["es"][1] == ["2 dados", "2 vidas"]
    assert out["pt-BR"][0] == ["1 dado", "1 vida"]
    assert out["pt-BR"][1] == ["2 dados", "2 vidas"]
    assert out["en"][0] == ["1 die", "1 life"]
    assert out["en"][1] == ["2 dice", "2 lives"]
    # zero is plural in Spanish and English, singular in Brazilian Portuguese (CLDR)
    assert out["es"][2] == ["0 dados", "0 vidas"]
    assert out["pt-BR"][2] == ["0 dado", "0 vida"]
