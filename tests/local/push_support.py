"""Pieces the push-order tests share: a recorded WebSocket, the service on fakes, and an
event loop running in its own thread (as uvicorn's runs beside the handler threads)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from chalicelib import wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.settings import Settings
from tests.service.conftest import Table


class FakeWebSocket:
    """What the writer task needs of a Starlette WebSocket: ``send_text``, recorded."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.lock = threading.Lock()

    async def send_text(self, text: str) -> None:
        with self.lock:
            self.texts.append(text)

    def versions(self) -> list[int]:
        with self.lock:
            return [json.loads(t)["room"]["version"] for t in self.texts]


@contextmanager
def service_table(seed: int) -> Iterator[Table]:
    """The service on fakes (as ``tests/service``) with a seeded roller, to make real rooms."""
    clock, timers = FakeClock(), FakeTimers()
    store = SqliteStore(":memory:", clock=clock)
    deps = wiring.Deps(store, FakeNotifier(), timers, clock, roller=SeededRoller(seed))
    try:
        yield Table(store, deps.notifier, timers, clock, deps, Settings())  # type: ignore[arg-type]
    finally:
        store.close()


@contextmanager
def loop_in_thread() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop running in its own thread; its tasks are cancelled and it is closed after."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:

        async def cancel_writers() -> None:
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(cancel_writers(), running).result(5)
        running.call_soon_threadsafe(running.stop)
        thread.join(5)
        running.close()
