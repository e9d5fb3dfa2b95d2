"""The round that put you out has its moment before the results (issue 28 defect 1).

Lose your last die (or life) while two bots play on: the bots can finish the game in the same
push, and the view's reveal is then their last round. Before the fix the screen jumped to the
results with the bots' reveal; your own losing round was only in the replay. Now its reveal
(from the hand history) is on screen first, then the results. All four rule systems.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.play_helpers import MY_TURN, OVER, boldest_move, guest_room
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser

RECORD = """() => {
  window.__order = [];
  const seen = new Set();
  new MutationObserver(() => {
    for (const [id, name] of [['out-reveal', 'out'], ['final-results', 'results']]) {
      const node = document.querySelector(`[data-testid='${id}']`);
      if (node && !seen.has(name)) { seen.add(name); window.__order.push([name, node.dataset.round || null]); }
    }
  }).observe(document.body, { subtree: true, childList: true });
}"""


def _history(server: LocalServer, room_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/rooms/{room_id}/history", timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
    return data


@pytest.mark.parametrize("rules", ["classic", "wild-stars", "poker", "perudo"])
def test_the_round_that_put_you_out_is_shown_before_the_results(
    server: LocalServer, browser: Browser, rules: str
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        # The dice decide who goes out first: play until the guest is out with two bots left.
        for _attempt in range(4):
            guest_room(page, server.url, rules, pieces=1, bots=2)
            room_id = page.evaluate("location.hash").split("/")[2]
            page.evaluate(RECORD)
            for _move in range(12):
                page.wait_for_function(f"() => ({OVER})() || ({MY_TURN})()", timeout=40_000)
                if page.evaluate(OVER):
                    break
                boldest_move(page, rules)
                page.wait_for_timeout(400)
            page.wait_for_selector(by_testid("final-results"), timeout=40_000, state="attached")
            me = page.evaluate("""() => document.querySelector("[data-testid='player-card'].is-me, tr.is-me")
                ?.dataset.playerId""")
            history = _history(server, room_id)
            out_round = next(
                (r["round"] for r in history["rounds"] if me in r["reveal"]["eliminated"]), None
            )
            last_round = history["rounds"][-1]["round"]
            if out_round is not None and out_round < last_round:
                break
        else:
            raise AssertionError("the guest never went out first in four games")
        order = page.evaluate("window.__order")
        # the guest's losing round first, with its reveal, then the results
        assert order[0] == ["out", str(out_round)], order
        assert ["results", None] in order, order
        if rules == "poker":
            # issue 28 defect 4: nothing is "counted" in Poker
            assert "counted" not in page.inner_text("#live-log")
        assert errors == []
    finally:
        context.close()
