"""Quick play's use cases on a SQLite file, threads unserialized: the store's one-writer
transaction is the only guard (the API tests do the same on moto)."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from chalicelib import realtime, wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Room
from chalicelib.service import Caller, Service
from chalicelib.service.quickplay import TIMER_ID, Quickplay
from chalicelib.settings import Settings


def test_many_at_once_on_sqlite_each_sit_at_exactly_one_table(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SqliteStore(tmp_path / "qp.db", clock=clock)
    timers = FakeTimers()
    deps = wiring.Deps(store, FakeNotifier(), timers, clock, roller=SeededRoller(3))
    settings = Settings()
    try:
        callers = []
        for i in range(22):
            record = store.create_user(f"u{i}", f"name{i}", None, False, f"name{i}", now_ms=0)
            callers.append(Caller(record.id, record.name, False, record))
        rules = ["classic", "poker", "any"]
        barrier = threading.Barrier(len(callers))
        errors: list[BaseException] = []

        def play(i: int) -> None:
            barrier.wait()
            try:
                Quickplay(Service(deps, settings)).enqueue(callers[i], rules[i % 3], None)
            except BaseException as err:
                errors.append(err)

        threads = [threading.Thread(target=play, args=(i,)) for i in range(len(callers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        clock.advance(settings.quickplay_wait_seconds * 1000)
        realtime.on_timer(TIMER_ID, 0, deps=deps)
        seats: Counter[str] = Counter()
        rooms = set()
        for caller in callers:
            ticket = store.user_ticket(caller.user_id, clock.now)
            assert ticket is not None and ticket.status == "matched" and ticket.room_id
            rooms.add(ticket.room_id)
        for room_id in rooms:
            stored = store.get_room(room_id)
            assert stored is not None
            room = Room.from_dict(stored.state)
            assert room.quickplay and room.status.value == "playing"
            seats.update(p.user_id for p in room.players if p.user_id)
        assert set(seats) == {c.user_id for c in callers}
        assert set(seats.values()) == {1}
        assert store.waiting_counts(["classic", "poker", "any"], clock.now) == {
            "classic": 0,
            "poker": 0,
            "any": 0,
        }
    finally:
        store.close()
