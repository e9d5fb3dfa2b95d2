"""Every rule-system module the registry loads exports the interface of web/README.md.

Loaded in Chromium from the local server, as the client loads them (``systems/<rules>.js``).
Needs Debian's chromium at /usr/bin/chromium.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.support import by_testid

pytestmark = pytest.mark.browser

# What each system module's default export has (web/README.md), by the type JavaScript gives.
REQUIRED = {
    "rules": "string",
    "label": "string",
    "fields": "array",
    "chips": "function",
    "terms": "object",
    "panel": "function",
    "card": "function",
    "reveal": "function",
    "moveEvents": "array",
    "moveWords": "function",
    "actionWords": "function",
    "bidFromEvent": "function",
    "replay": "object",
}
OPTIONAL = {
    "short": "string",
    "note": "string",
    "maxPlayers": "number",
    "stylesheet": "string",
    "errors": "array",
    "revealWords": "function",
    "liarKey": "string",
    "liarActionKey": "string",
}
# Each term names a catalogue key (web/i18n/index.js); a system's own words are in its catalogue.
TERMS = {
    "round",
    "rounds",
    "Round",
    "roundN",
    "piecesInPlay",
    "finalPieces",
    "progress",
    "pieces",
    "bidsInOrder",
    "replayRounds",
    "loss",
    "revealHint",
    "revealTitle",
    "revealN",
    "previous",
    "roundOver",
}
OWN_WORDS = ["label", "summary", "help.goal", "help.steps", "help.tips"]
REPLAY = {"bidWords", "hands", "verdict", "loss"}

DESCRIBE = """async () => {
  const registry = await import('/systems/index.js');
  const i18n = await import('/i18n/index.js');
  const loaded = await registry.loadSystems();
  const kind = (v) => (Array.isArray(v) ? 'array' : typeof v);
  return loaded.map((s) => ({
    rules: s.rules,
    kinds: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, kind(v)])),
    terms: Object.keys(s.terms || {}),
    replay: Object.fromEntries(Object.entries(s.replay || {}).map(([k, v]) => [k, kind(v)])),
    own: ["label", "summary", "help.goal", "help.steps", "help.tips"].filter((k) => !i18n.has(`${s.rules}.${k}`)),
    terms_known: Object.values(s.terms || {}).every((key) => i18n.has(key)),
    errors_known: (s.errors || []).every((code) => i18n.has(`${s.rules}.error.${code}`)),
    fields: s.fields.map((f) => [typeof f.name, typeof f.label, kind(f.options), 'default' in f]),
    chips: kind(s.chips({})),
    fallback: registry.systemOf('no-such-rules').rules,
  }));
}"""


def test_every_registered_system_module_exports_the_system_interface(
    server: Any, browser: Browser
) -> None:
    """``server`` is conftest.py's local server (only its ``url`` is used)."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector(by_testid("guest-signin"))
        described: list[dict[str, Any]] = page.evaluate(DESCRIBE)
    finally:
        context.close()
    assert errors == []
    # unknown rules fall back to the first system, the default of new rooms
    assert described[0]["fallback"] == described[0]["rules"]
    assert len(described) >= 3
    for system in described:
        kinds = system["kinds"]
        name = system["rules"]
        for key, kind in REQUIRED.items():
            assert kinds.get(key) == kind, f"{name}: {key} should be a {kind}"
        for key in set(kinds) - set(REQUIRED):
            assert key in OPTIONAL, f"{name}: {key} is not in the interface (web/README.md)"
            assert kinds[key] == OPTIONAL[key], f"{name}: {key} should be a {OPTIONAL[key]}"
        assert set(system["terms"]) == TERMS, name
        assert system["replay"] == dict.fromkeys(REPLAY, "function"), name
        assert system["own"] == [], f"{name}: its catalogue lacks {system['own']} ({OWN_WORDS})"
        assert system["terms_known"] and system["errors_known"], name
        assert system["fields"] and all(
            f == ["string", "string", "array", True] for f in system["fields"]
        )
        assert system["chips"] == "array", name
