"""The local server answers a request first and pushes its change after (issue 32).

A handler thread runs the request inside ``effects.pushes_after_answer``: the pushes of the
changes it committed are collected, the answer is handed to the event loop, and only then do
the pushes run, in the same thread. Lambda (no collector) still pushes in place.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chalicelib import effects
from chalicelib.adapters.fakes import FakeNotifier
from chalicelib.realtime import handle_message
from liars_local.notifier import LocalNotifier
from liars_local.thread_pool import HandlerThreads
from tests.local.push_support import FakeWebSocket, loop_in_thread, service_table
from tests.service.conftest import Table


@pytest.fixture
def table() -> Iterator[Table]:
    with service_table(5) as made:
        yield made


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    with loop_in_thread() as running:
        yield running


@pytest.fixture
def threads() -> Iterator[HandlerThreads]:
    pool = HandlerThreads(2, "test-handler")
    yield pool
    pool.shutdown()


def _watched(table: Table, *connection_ids: str) -> tuple[Any, int]:
    rid = table.playing(table.user("Ann"), table.user("Bob"))
    for connection_id in connection_ids:
        table.store.put_connection(connection_id, None, table.clock.now)
        assert table.store.subscribe(connection_id, rid)
    return table.room(rid)


def _in_thread(loop: asyncio.AbstractEventLoop, pool: HandlerThreads, fn: Callable[[], Any]) -> Any:
    """What ``AppRunner.in_thread`` does: run ``fn`` on a handler thread, await its answer."""

    async def call() -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pool.submit(asyncio.get_running_loop(), future, fn, ())
        return await future

    return asyncio.run_coroutine_threadsafe(call(), loop).result(10)


def _wait_for(check: Callable[[], bool], seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.005)
    return check()


def test_pushes_collected_in_the_block_run_only_when_their_jobs_do(table: Table) -> None:
    room, version = _watched(table, "c1")
    with effects.pushes_after_answer() as later:
        effects.run(table.deps, [effects.Publish(room, version, [])])
        assert table.notifier.messages_for("c1") == []  # collected, not pushed
    assert len(later) == 1
    later[0]()
    assert [m["room"]["version"] for m in table.notifier.messages_for("c1")] == [version]


def test_without_a_collector_a_push_runs_in_place_as_on_lambda(table: Table) -> None:
    room, version = _watched(table, "c1")
    effects.run(table.deps, [effects.Publish(room, version, [])])
    assert [m["room"]["version"] for m in table.notifier.messages_for("c1")] == [version]


def test_the_answer_is_handed_back_before_the_changes_pushes_run(
    table: Table, loop: asyncio.AbstractEventLoop, threads: HandlerThreads
) -> None:
    room, version = _watched(table, "c1")
    answered = threading.Event()
    seen: list[bool] = []

    class WaitingNotifier(FakeNotifier):
        def send(self, connection_id: str, message: dict[str, Any]) -> bool:
            # inline, this push would hold the answer back and never see it sent
            seen.append(answered.wait(5))
            return super().send(connection_id, message)

    deps = dataclasses.replace(table.deps, notifier=WaitingNotifier())

    def request() -> str:
        effects.run(deps, [effects.Publish(room, version, [])])
        return "answer"

    assert _in_thread(loop, threads, request) == "answer"
    answered.set()
    assert _wait_for(lambda: seen == [True])


def test_a_failing_push_after_the_answer_fails_nothing_and_the_next_still_run(
    table: Table, loop: asyncio.AbstractEventLoop, threads: HandlerThreads
) -> None:
    room, version = _watched(table, "c1")

    class BrokenNotifier(FakeNotifier):
        def send(self, connection_id: str, message: dict[str, Any]) -> bool:
            raise RuntimeError("the push failed")

    broken = dataclasses.replace(table.deps, notifier=BrokenNotifier())

    def request() -> str:
        effects.run(broken, [effects.Publish(room, version, [])])
        effects.run(table.deps, [effects.Publish(room, version + 1, [])])
        return "answer"

    assert _in_thread(loop, threads, request) == "answer"
    # the handler thread is alive and serves the next request
    assert _in_thread(loop, threads, lambda: "next") == "next"
    assert _wait_for(lambda: len(table.notifier.messages_for("c1")) > 0)
    time.sleep(0.05)  # a wrongly repeated push would show by now
    versions = [m["room"]["version"] for m in table.notifier.messages_for("c1")]
    assert versions == [version + 1]


def test_deferred_pushes_of_many_changes_reach_each_connection_once_and_in_order(
    table: Table, loop: asyncio.AbstractEventLoop, threads: HandlerThreads
) -> None:
    notifier = LocalNotifier()
    names = ("a", "b", "c")
    sockets = {}
    for name in names:
        sockets[name] = ws = FakeWebSocket()
        asyncio.run_coroutine_threadsafe(
            notifier.register(name, ws),  # type: ignore[arg-type]
            loop,
        ).result(5)
    room, version = _watched(table, *names)
    deps = dataclasses.replace(table.deps, notifier=notifier)
    for name in names:
        handle_message(name, json.dumps({"action": "subscribe", "room_id": room.id}), deps=deps)

    changes = range(version + 1, version + 31)

    def request(v: int) -> Callable[[], int]:
        def run() -> int:
            effects.run(deps, [effects.Publish(room, v, [])])
            return v

        return run

    async def all_requests() -> list[int]:
        running = asyncio.get_running_loop()
        futures = []
        for v in changes:  # committed in order, handled by whichever thread is free
            future: asyncio.Future[int] = running.create_future()
            threads.submit(running, future, request(v), ())
            futures.append(future)
        return list(await asyncio.gather(*futures))

    assert asyncio.run_coroutine_threadsafe(all_requests(), loop).result(10) == list(changes)
    expected = [version, *changes]
    for name in names:
        ws = sockets[name]

        def arrived(ws: FakeWebSocket = ws) -> bool:
            return len(ws.versions()) >= len(expected)

        assert _wait_for(arrived, 5)
        assert ws.versions() == expected


def test_a_push_job_that_raises_anyway_leaves_the_handler_thread_serving(
    table: Table,
    loop: asyncio.AbstractEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    room, version = _watched(table, "c1")

    def explode(deps: Any, effect: Any) -> None:
        raise RuntimeError("a push that does not log its own failure")

    monkeypatch.setattr(effects, "_run_push", explode)
    pool = HandlerThreads(1, "test-single")  # one thread: if it died, nothing would answer
    try:

        def request() -> str:
            effects.run(table.deps, [effects.Publish(room, version, [])])
            return "answer"

        assert _in_thread(loop, pool, request) == "answer"
        assert _in_thread(loop, pool, lambda: "next") == "next"
    finally:
        pool.shutdown()
