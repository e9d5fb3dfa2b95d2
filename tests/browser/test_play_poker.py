"""Drive the web client through a Poker Liar Dice game: a guest against an easy bot, to the end.

Uses accept, a reroll with an exposed die, a claim built in the claim builder and one made with
"Better". Needs Debian's chromium at /usr/bin/chromium. Writes ``test-output/poker.png`` (the
game screen at the claim builder) and ``test-output/poker-results.png`` (the final results).
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer
from tests.browser.support import GAME_TIMEOUT_S, OUTPUT, by_testid, send_and_wait

pytestmark = pytest.mark.browser

MY_MOVE = """() => document.querySelector("[data-testid='final-results']")
    || ["poker-accept", "poker-keep", "poker-claim-builder", "poker-stop"].some(
        (id) => document.querySelector(`[data-testid='${id}']`))"""


def wait_for_my_move(page: Page) -> str | None:
    """Wait until the game is over (None) or it is my turn: the stage of the poker panel."""
    page.wait_for_function(MY_MOVE, timeout=GAME_TIMEOUT_S * 1000)
    if page.locator(by_testid("final-results")).count():
        return None
    return page.get_attribute(by_testid("bid-panel"), "data-stage")


def test_guest_plays_poker_to_the_end(server: LocalServer, browser: Browser) -> None:
    OUTPUT.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server.url}/")
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        # Poker shows lives and dog's life and hides the dice settings.
        assert not page.locator(by_testid("create-setting-lives")).is_visible()
        page.select_option(by_testid("create-setting-rules"), "poker")
        assert "poker dice" in page.inner_text(by_testid("create-setting-rules-help"))
        for hidden in ("starting_dice", "wildcard_chance", "penalty"):
            assert not page.locator(by_testid(f"create-setting-{hidden}")).is_visible()
        page.select_option(by_testid("create-setting-lives"), "2")
        page.click(by_testid("create-room"))
        page.wait_for_selector(by_testid("waiting-room"))
        assert page.locator(by_testid("setting-rules")).input_value() == "poker"
        assert page.locator(by_testid("setting-lives")).input_value() == "2"
        assert not page.locator(by_testid("setting-starting_dice")).is_visible()
        page.select_option(by_testid("setting-dogs_life"), "true")
        page.wait_for_function(
            """() => document.querySelector("[data-testid='setting-dogs_life']").value === 'true'"""
        )
        page.select_option(by_testid("bot-level"), "easy")
        page.click(by_testid("add-bot"))
        page.wait_for_function(
            "document.querySelectorAll(\"[data-testid='player-row']\").length === 2"
        )
        page.click(by_testid("start-game"))
        page.wait_for_selector(by_testid("game-screen"))
        page.wait_for_selector(by_testid("poker-cup"))
        assert page.locator(f"{by_testid('poker-cup')} {by_testid('poker-die')}").count() == 5
        # Lives, not dice, on the player cards.
        assert page.locator(f"{by_testid('player-card')} {by_testid('lives')}").count() == 2

        done = {"accept": False, "reroll": False, "builder": False, "better": False}
        shot = saw_reveal = False
        deadline = time.monotonic() + GAME_TIMEOUT_S
        while time.monotonic() < deadline:
            stage = wait_for_my_move(page)
            if stage is None:
                break
            if page.locator(by_testid("reveal-table")).count():
                saw_reveal = True
            everything = all(done.values())
            if stage == "respond":
                claim = page.inner_text(by_testid("poker-current-claim"))
                assert claim.startswith("Current claim:") and "by Bot 1" in claim, claim
                if everything:
                    send_and_wait(page, "poker-liar")
                else:
                    send_and_wait(page, "poker-accept")
                    done["accept"] = True
            elif stage == "reroll":
                # Only the cup holder sees the five faces.
                faces = page.locator(by_testid("poker-die"))
                assert all(faces.nth(i).get_attribute("data-face") for i in range(5))
                if not done["reroll"]:
                    page.locator(by_testid("poker-expose")).nth(0).click()
                    assert (
                        page.locator(by_testid("poker-expose")).nth(0).inner_text() == "Take back"
                    )
                    page.locator(by_testid("poker-die")).nth(1).click()
                    assert page.inner_text(by_testid("poker-reroll")) == "Reroll one die"
                    send_and_wait(page, "poker-reroll")
                    done["reroll"] = True
                    notes = page.locator(by_testid("poker-reroll-note")).all_inner_texts()
                    assert "You rerolled one die" in notes, notes
                else:
                    send_and_wait(page, "poker-keep")
            elif stage == "claim":
                if not shot:
                    page.screenshot(path=str(OUTPUT / "poker.png"), full_page=True)
                    shot = True
                # "Better" fills the builder with the lowest hand that beats the claim ...
                page.click(by_testid("poker-better"))
                assert page.inner_text(by_testid("poker-preview")).startswith("You claim ")
                done["better"] = True
                if not done["builder"]:
                    # ... and the builder makes a hand from a category and its faces.
                    page.select_option(by_testid("poker-category"), "5")  # four of a kind
                    page.locator(by_testid("poker-claim-face")).nth(0).select_option("6")  # aces
                    preview = page.inner_text(by_testid("poker-preview"))
                    if preview.startswith("You claim four aces"):
                        done["builder"] = True
                    else:
                        page.select_option(by_testid("poker-category"), "6")
                        preview = page.inner_text(by_testid("poker-preview"))
                        done["builder"] = preview.startswith("You claim five ")
                        if not done["builder"]:
                            page.click(by_testid("poker-better"))
                preview = page.inner_text(by_testid("poker-preview"))
                assert re.match(r"You claim (a |two |three |four |five |\w+ high)", preview), (
                    preview
                )
                send_and_wait(page, "poker-claim")
            else:
                assert stage == "aces", stage
                send_and_wait(page, "poker-stop")

        results = page.locator(by_testid("final-results"))
        results.wait_for(timeout=GAME_TIMEOUT_S * 1000)
        assert all(done.values()), done
        assert page.locator(by_testid("ranking-row")).count() == 2
        assert page.locator(by_testid("winner")).inner_text().endswith(" wins")
        assert "final lives" in page.inner_text(by_testid("ranking-table")).lower()
        assert page.locator(f"{by_testid('dice-chart')} svg polyline").count() == 2
        # The last hand's reveal: the lifted cup and each player's claims (or a dash).
        assert page.locator(by_testid("reveal-table")).count() == 1
        assert page.locator(by_testid("poker-lost-life")).count() >= 1 or (
            page.locator(by_testid("poker-five-aces")).count() == 1
        )
        page.screenshot(path=str(OUTPUT / "poker-results.png"), full_page=True)
        assert saw_reveal or page.locator(by_testid("reveal")).count() == 1
        assert errors == []
    finally:
        context.close()
