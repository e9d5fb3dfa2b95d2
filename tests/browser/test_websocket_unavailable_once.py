"""A server without WebSockets is announced once per outage, not at every retry.

The local server answers each WebSocket of an app without handlers with a
``websocket_unavailable`` error and closes it; the client retries every ~10 s and used to toast
the same sentence each time. The page's WebSocket is stubbed to behave like that server (open,
the error, a close) and the page clock runs a minute ahead in a moment.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from liars_local.server import LocalServer

pytestmark = pytest.mark.browser

STUB = """
(() => {
  window.__toasts = [];
  window.__sockets = [];
  // Each new socket takes the next plan: 'refuse' (open, the error, close 1011) or 'up'.
  window.__plan = window.__plan || [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.classList && n.classList.contains('toast')) window.__toasts.push(n.textContent);
    }
  }).observe(document, { childList: true, subtree: true });
  class FakeSocket extends EventTarget {
    constructor(url) {
      super();
      this.url = url;
      this.readyState = 0;
      const plan = window.__plan.length ? window.__plan.shift() : 'refuse';
      window.__sockets.push(this);
      setTimeout(() => {
        this.readyState = 1;
        this.dispatchEvent(new Event('open'));
        if (plan !== 'refuse') return;
        const error = { code: 'websocket_unavailable', message: 'no WebSocket handlers' };
        this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify({ type: 'error', error }) }));
        this.close();
      }, 0);
    }
    send() {}
    close() {
      if (this.readyState === 3) return;
      this.readyState = 3;
      setTimeout(() => this.dispatchEvent(new CloseEvent('close', { code: 1011 })), 0);
    }
  }
  FakeSocket.CONNECTING = 0; FakeSocket.OPEN = 1; FakeSocket.CLOSING = 2; FakeSocket.CLOSED = 3;
  window.WebSocket = FakeSocket;
})();
"""
WORDS = "Live updates are off on this server"


@pytest.fixture
def page(server: LocalServer, browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    context.add_init_script(STUB)
    page = context.new_page()
    page.clock.install()
    yield page
    context.close()


def until(page: Page, condition: str) -> None:
    """Run the page clock in small steps until ``condition`` holds (real fetches finish too)."""
    deadline = time.monotonic() + 10
    while not page.evaluate(condition):
        assert time.monotonic() < deadline, f"never: {condition}"
        page.clock.run_for(100)
        time.sleep(0.02)


def open_lobby(page: Page, server: LocalServer, plan: list[str]) -> None:
    page.add_init_script(f"window.__plan = {plan!r};")
    page.goto(server.url)
    until(page, "window.__sockets.length >= 1")


def refusal_toasts(page: Page) -> int:
    return int(page.evaluate("(w) => window.__toasts.filter((t) => t.includes(w)).length", WORDS))


def test_websocket_unavailable_is_said_once_while_every_retry_is_refused(
    page: Page, server: LocalServer
) -> None:
    open_lobby(page, server, [])
    page.clock.run_for(60_000)
    sockets = int(page.evaluate("window.__sockets.length"))
    assert sockets >= 6, f"the client retried only {sockets} times in a minute"
    assert refusal_toasts(page) == 1


def test_websocket_unavailable_is_said_again_after_a_connection_was_up_and_lost(
    page: Page, server: LocalServer
) -> None:
    open_lobby(page, server, ["refuse", "up"])
    page.clock.run_for(3_000)  # the refusal, then the retry that stays up
    assert refusal_toasts(page) == 1
    until(page, "window.__sockets.length >= 2 && window.__sockets[1].readyState === 1")
    page.clock.run_for(8_000)  # up for a while
    page.evaluate("window.__sockets[1].close()")  # lost; the retries are refused again
    page.clock.run_for(60_000)
    assert refusal_toasts(page) == 2
