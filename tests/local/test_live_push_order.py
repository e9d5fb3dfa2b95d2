"""The local server hands each connection a room's pushes in version order.

Two changes to one room commit one after the other (v, v+1), but their fan-outs run on
different handler threads, or in different worker processes (``--workers 2``), and race to
the connection. A frontend keeps the newest view it has seen (docs/API.md), so a push that
arrives after a newer one is dropped with its events: a bid, a Liar! or a reveal that is
never announced. Measured before this guard, with two players toggling ready in parallel
for 8 s: 2-4 % of pushes arrived after a newer one, and with two workers three watchers
each saw a different order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib import effects
from chalicelib.realtime import handle_message
from liars_local.channel import PushChannel
from liars_local.notifier import HOLD_SECONDS, LocalNotifier
from tests.local.push_support import FakeWebSocket, loop_in_thread, service_table
from tests.service.conftest import Table


@pytest.fixture
def table() -> Iterator[Table]:
    with service_table(11) as made:
        yield made


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    with loop_in_thread() as running:
        yield running


def _connect(
    loop: asyncio.AbstractEventLoop, notifier: LocalNotifier, connection_id: str
) -> FakeWebSocket:
    ws = FakeWebSocket()
    asyncio.run_coroutine_threadsafe(
        notifier.register(connection_id, ws),  # type: ignore[arg-type]
        loop,
    ).result(5)
    return ws


def _wait_for(check: Callable[[], bool], seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.005)
    return check()


def _watched_room(table: Table, connection_id: str) -> tuple[Any, int]:
    host, other = table.user("Ann"), table.user("Bob")
    rid = table.playing(host, other)
    table.store.put_connection(connection_id, None, table.clock.now)
    assert table.store.subscribe(connection_id, rid)
    return table.room(rid)


def _subscribe(deps: Any, connection_id: str, room_id: str) -> None:
    """The connection subscribes: its answer is the room as read."""
    handle_message(
        connection_id, json.dumps({"action": "subscribe", "room_id": room_id}), deps=deps
    )


def test_a_push_whose_fan_out_lost_the_race_still_reaches_the_connection_first(
    table: Table, loop: asyncio.AbstractEventLoop
) -> None:
    notifier = LocalNotifier()
    ws = _connect(loop, notifier, "spect")
    room, version = _watched_room(table, "spect")
    deps = dataclasses.replace(table.deps, notifier=notifier)
    _subscribe(deps, "spect", room.id)

    # v+2's fan-out gets to the connection before v+1's (another handler thread was quicker).
    assert effects.publish(room, version + 2, [], deps=deps) == 1
    assert effects.publish(room, version + 1, [], deps=deps) == 1

    assert _wait_for(lambda: len(ws.versions()) == 3)
    assert ws.versions() == [version, version + 1, version + 2]


def test_pushes_relayed_from_another_worker_keep_the_rooms_version_order(
    table: Table, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    owner, sender = LocalNotifier(), LocalNotifier()
    owner.channel = PushChannel(tmp_path, 0, 2, deliver=owner.deliver, gone=lambda _: None)
    sender.channel = PushChannel(tmp_path, 1, 2, deliver=sender.deliver, gone=lambda _: None)
    owner.channel.start()
    sender.channel.start()
    try:
        connection_id = owner.new_connection_id()
        ws = _connect(loop, owner, connection_id)
        room, version = _watched_room(table, connection_id)
        # The change at v+3 committed in the other worker, which pushed first; v+1 and
        # v+2 were committed here, their fan-outs later and in the wrong order too.
        other = dataclasses.replace(table.deps, notifier=sender)
        here = dataclasses.replace(table.deps, notifier=owner)
        _subscribe(here, connection_id, room.id)
        assert effects.publish(room, version + 3, [], deps=other) == 1
        time.sleep(0.05)  # the relayed frame is there by now
        assert effects.publish(room, version + 2, [], deps=here) == 1
        assert effects.publish(room, version + 1, [], deps=here) == 1

        assert _wait_for(lambda: len(ws.versions()) == 4)
        assert ws.versions() == [version, version + 1, version + 2, version + 3]
    finally:
        owner.channel.stop()
        sender.channel.stop()


def test_a_version_that_never_comes_holds_the_next_push_only_briefly(
    table: Table, loop: asyncio.AbstractEventLoop
) -> None:
    notifier = LocalNotifier()
    ws = _connect(loop, notifier, "spect")
    room, version = _watched_room(table, "spect")
    deps = dataclasses.replace(table.deps, notifier=notifier)
    _subscribe(deps, "spect", room.id)
    assert _wait_for(lambda: ws.versions() == [version])

    # v+1's push was lost (its fan-out failed): v+2 waits for it, then goes anyway.
    started = time.monotonic()
    assert effects.publish(room, version + 2, [], deps=deps) == 1
    assert effects.publish(room, version + 3, [], deps=deps) == 1
    assert _wait_for(lambda: len(ws.versions()) == 3, HOLD_SECONDS + 2)
    waited = time.monotonic() - started
    assert ws.versions() == [version, version + 2, version + 3]
    assert HOLD_SECONDS * 0.8 <= waited < HOLD_SECONDS + 1.5


def test_a_subscribe_answer_sets_where_the_connections_pushes_continue(
    table: Table, loop: asyncio.AbstractEventLoop
) -> None:
    notifier = LocalNotifier()
    ws = _connect(loop, notifier, "spect")
    room, version = _watched_room(table, "spect")
    deps = dataclasses.replace(table.deps, notifier=notifier)
    # An earlier subscription saw v-3; the connection unsubscribed, and subscribes again.
    assert effects.publish(room, version - 3, [], deps=deps) == 1
    _subscribe(deps, "spect", room.id)
    assert _wait_for(lambda: ws.versions() == [version - 3, version])

    started = time.monotonic()
    assert effects.publish(room, version + 1, [], deps=deps) == 1
    assert _wait_for(lambda: len(ws.versions()) == 3)
    assert time.monotonic() - started < HOLD_SECONDS / 2  # not held: nothing is missing
    assert ws.versions() == [version - 3, version, version + 1]
