"""Every error ``code`` the server can send has the player's own words in ``web/messages.js``.

The codes are read from the server's source (every ``code="…"``, ``ApiError(status, "…")``,
``forbidden(…, "…")`` and the like, and the store's ``code = "…"``), so a code added later
without words fails here. A code's words must not be the server's developer ``message`` (the
fallback for a code the table does not know) and must be a sentence; codes that come with an
input ``field`` must be worded for what went wrong, not for the field's format.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CODE_PATTERNS = [
    r'code(?::\s*str)?\s*=\s*"([a-z][a-z_]+)"',
    r'AuthError\(\s*"([a-z][a-z_]+)"',
    r'ApiError\(\s*\d+,\s*"([a-z][a-z_]+)"',
    r"(?:unauthorized|forbidden|not_found|rate_limited|conflict|_limit)\("
    r'(?:[^()]|\([^()]*\))*?,\s*"([a-z][a-z_]+)",?\s*(?:\w+=[^()]*)?\)',
    r'"code":\s*"([a-z][a-z_]+)"',
    r'body\(\s*"([a-z][a-z_]+)"',
]
NOT_ANSWERS = {"config_error", "schema_too_new"}
"""Codes of errors raised at start-up (settings, the database's schema), never sent to a client."""

MARKER = "zq developer hint"

# The codes that come with a `field`: their words say what went wrong (a word of each).
WITH_FIELD = [
    ("name_taken", "name", "registered"),
    ("name_reserved", "name", "bots"),
    ("too_many_invitations", "username", "invitations"),
    ("opening_on_aces", "face", "opening bid"),
    ("palifico_face_fixed", "face", "palifico"),
    ("aces_below_half", "quantity", "half"),
    ("leaving_aces_too_low", "quantity", "twice"),
    ("invalid_order", "order", "ranks"),
]

WORDS = """async ([codes, marker, withField]) => {
  const { errorMessage } = await import('/messages.js');
  const plain = {};
  for (const code of codes) plain[code] = errorMessage({ code, status: 409, message: marker });
  const fielded = withField.map(([code, field]) => errorMessage({ code, field, status: 400, message: marker }));
  const unknown = errorMessage({ code: 'zq_not_a_code', status: 409, message: marker });
  return { plain, fielded, unknown };
}"""


def server_codes() -> set[str]:
    sources = [*(ROOT / "chalicelib").rglob("*.py"), *(ROOT / "liars_local").rglob("*.py")]
    sources.append(ROOT / "app.py")
    codes: set[str] = set()
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for pattern in CODE_PATTERNS:
            codes.update(re.findall(pattern, text, re.S))
    return codes - NOT_ANSWERS


def documented_codes() -> set[str]:
    """The codes docs/API.md names in its error table and its list of codes clients meet."""
    text = (ROOT / "docs" / "API.md").read_text(encoding="utf-8")
    start = text.index("Every** error answer")
    end = text.index("## Accounts")
    return set(re.findall(r"`([a-z]+_[a-z_]+)`", text[start:end]))


def test_the_code_harvest_finds_the_documented_codes() -> None:
    codes = server_codes()
    assert {"method_not_allowed", "unsupported_media_type", "opening_on_aces"} <= codes
    assert documented_codes() - codes == set()


def test_every_error_code_has_words_of_its_own(server: LocalServer, browser: Browser) -> None:
    codes = sorted(server_codes() | documented_codes())
    page = browser.new_page()
    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector("[data-testid='guest-signin']")  # the systems are loaded
        words = page.evaluate(WORDS, [codes, MARKER, [list(case[:2]) for case in WITH_FIELD]])
    finally:
        page.close()
    # The fallback for a code the table lacks shows the developer's message: proves the check.
    assert MARKER in words["unknown"].lower()
    unworded = {code: text for code, text in words["plain"].items() if MARKER in text.lower()}
    assert unworded == {}, f"codes without words in web/messages.js: {sorted(unworded)}"
    for code, text in words["plain"].items():
        assert text[:1].isupper() and text.rstrip("”)").endswith((".", "!")), (code, text)
    for (code, _field, word), text in zip(WITH_FIELD, words["fielded"], strict=True):
        assert word in text, (code, text)
