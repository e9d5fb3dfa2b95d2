"""The installable app: the service worker registers at load without asking anything, a push
delivered through Chromium's DevTools protocol (``ServiceWorker.deliverPushMessage``) shows a
notification naming the room, and its click brings the page to the room."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser

from liars_local.server import LocalServer
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser

MESSAGE = {
    "type": "your_turn",
    "room_id": "room42abc",
    "rules": "classic",
    "title": "Your turn",
    "body": "ana played. It is your turn in Classic (you have 24 h).",
}


def test_manifest_and_icons_are_served(server: LocalServer) -> None:
    manifest = httpx.get(f"{server.url}/manifest.webmanifest").json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    for icon in manifest["icons"]:
        answer = httpx.get(f"{server.url}/{icon['src']}")
        assert answer.status_code == 200 and answer.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_delivered_push_shows_a_notification_whose_click_opens_the_room(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context()
    try:
        context.grant_permissions(["notifications"], origin=server.url)
        page = context.new_page()
        prompts: list[str] = []
        page.on("dialog", lambda d: prompts.append(d.message))
        page.goto(server.url)
        page.wait_for_selector(by_testid("lobby"))
        # registered at load, and nothing asked of the player
        scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)", [])
        assert scope == f"{server.url}/"
        assert page.evaluate("Notification.permission") == "granted"  # granted by the test
        assert prompts == []
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10_000)

        cdp = context.new_cdp_session(page)
        registrations: dict[str, str] = {}
        seen = threading.Event()

        def updated(params: dict[str, Any]) -> None:
            for r in params.get("registrations", []):
                if not r.get("isDeleted"):
                    registrations[r["scopeURL"]] = r["registrationId"]
                    seen.set()

        cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
        cdp.send("ServiceWorker.enable")
        deadline = time.monotonic() + 10
        while f"{server.url}/" not in registrations and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        registration_id = registrations[f"{server.url}/"]
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": f"{server.url}/",
                "registrationId": registration_id,
                "data": json.dumps(MESSAGE),
            },
        )
        [worker] = context.service_workers or [context.wait_for_event("serviceworker")]
        shown: list[dict[str, Any]] = []
        for _ in range(100):
            shown = worker.evaluate(
                """() => self.registration.getNotifications().then((ns) => ns.map((n) => (
                    {title: n.title, body: n.body, tag: n.tag, data: n.data})))"""
            )
            if shown:
                break
            page.wait_for_timeout(50)
        room_url = f"{server.url}/#/rooms/room42abc"
        assert shown == [
            {
                "title": "Your turn",
                "body": MESSAGE["body"],
                "tag": "room-room42abc",
                "data": {"url": room_url, "room_id": "room42abc", "type": "your_turn"},
            }
        ]
        # the click: the worker's notificationclick handler gets the notification
        worker.evaluate(
            """() => self.registration.getNotifications().then((ns) => {
                self.dispatchEvent(new NotificationEvent('notificationclick', {notification: ns[0]}));
            })"""
        )
        page.wait_for_function("location.hash === '#/rooms/room42abc'", timeout=10_000)
        remaining = worker.evaluate(
            "() => self.registration.getNotifications().then((ns) => ns.length)"
        )
        assert remaining == 0  # the click closed it
    finally:
        context.close()


def test_offline_navigation_says_you_are_offline(server: LocalServer, browser: Browser) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10_000)
        context.set_offline(True)
        page.reload()
        page.wait_for_selector(by_testid("offline"))
        assert "You are offline" in page.inner_text("h1")
    finally:
        context.close()


def _register(server: LocalServer, name: str) -> tuple[str, str]:
    answer = httpx.post(
        f"{server.url}/auth/register", json={"username": name, "password": "correct horse"}
    ).json()
    return answer["token"], answer["user"]["id"]


def test_the_lobby_lists_my_games_my_turn_first_and_offers_notifications(
    server: LocalServer, browser: Browser
) -> None:
    suffix = str(time.monotonic_ns())[-6:]
    tokens = dict(
        [_register(server, f"ana{suffix}")[::-1], _register(server, f"ben{suffix}")[::-1]]
    )
    (ana_id, ana), (ben_id, ben) = tokens.items()
    settings = {"pace": "correspondence", "starting_dice": 2}
    auth = {"Authorization": f"Bearer {ana}"}
    rid = httpx.post(f"{server.url}/rooms", json={"settings": settings}, headers=auth).json()["id"]
    ben_auth = {"Authorization": f"Bearer {ben}"}
    httpx.post(f"{server.url}/rooms/{rid}/join", json={}, headers=ben_auth)
    httpx.put(f"{server.url}/rooms/{rid}/ready", json={"ready": True}, headers=ben_auth)
    view = httpx.post(f"{server.url}/rooms/{rid}/start", json={}, headers=auth).json()
    holder = next(p for p in view["players"] if p["id"] == view["game"]["turn"]["player_id"])
    token = tokens[holder["user_id"]]
    context = browser.new_context()
    try:
        context.add_init_script(f"localStorage.setItem('liars-lies.token', {json.dumps(token)})")
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector(by_testid("my-game"))
        assert page.inner_text(by_testid("my-games-summary")) == "Your turn in 1 game"
        assert page.get_attribute(by_testid("my-game"), "data-room-id") == rid
        assert page.is_visible(by_testid("my-turn"))
        # the opt-in is offered, and nothing was asked at load
        assert page.inner_text(by_testid("push-toggle")) == "Turn on notifications"
        assert page.evaluate("Notification.permission") == "default"
        # the create form's pace: correspondence takes a day per turn
        page.select_option(by_testid("create-setting-pace"), "correspondence")
        assert page.input_value(by_testid("create-setting-turn_seconds")) == "86400"
        hidden = page.eval_on_selector_all(
            f"{by_testid('create-setting-turn_seconds')} option",
            "(os) => os.filter((o) => !o.hidden).map((o) => o.value)",
        )
        assert hidden == ["3600", "43200", "86400", "259200"]
    finally:
        context.close()
    assert ana_id and ben_id
