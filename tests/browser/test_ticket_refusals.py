"""A refused WebSocket ticket that says "later" (429, 503) is asked for again, still signed in.

Tickets are rate limited per user (429 with Retry-After). A player whose ticket request met the
limit must not be quietly connected as a signed-out spectator, which would get no pushes of
their own dice and moves; the client waits the Retry-After and asks again.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Route

from liars_local.server import LocalServer
from tests.browser.support import by_testid

pytestmark = pytest.mark.browser


def test_a_rate_limited_ticket_is_retried_after_its_wait_and_the_socket_is_signed_in(
    server: LocalServer, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    calls: list[int] = []
    sockets: list[str] = []

    def tickets(route: Route) -> None:
        calls.append(len(calls))
        if len(calls) == 1:
            body = {"error": {"code": "rate_limited", "message": "Too many tickets."}}
            route.fulfill(
                status=429,
                headers={"Content-Type": "application/json", "Retry-After": "1"},
                body=json.dumps(body),
            )
        else:
            route.continue_()

    try:
        page.goto(f"{server.url}/")
        page.wait_for_selector(by_testid("guest-signin"))
        page.route("**/realtime/tickets", tickets)
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.click(by_testid("guest-signin"))
        page.wait_for_selector(by_testid("create-room"))
        for _ in range(40):  # up to 8 s: the Retry-After is 1 s
            if any("ticket=" in url for url in sockets):
                break
            page.wait_for_timeout(200)
        assert len(calls) >= 2, calls  # asked again after the 429
        assert sockets and "ticket=" in sockets[0], sockets  # never a spectator socket first
    finally:
        context.close()
