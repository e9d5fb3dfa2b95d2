"""The local timer loop: fires each due wake-up once, never early, in order; dedup and cancel."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from liars_local.timers import LocalTimers


class Recorder:
    """A fake room_timer handler recording (room_id, version, fired_at_ms)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, float]] = []
        self.lock = threading.Lock()
        self.sentinel = threading.Event()

    def __call__(self, room_id: str, version: int) -> None:
        with self.lock:
            self.calls.append((room_id, version, time.time() * 1000))
        if room_id == "sentinel":
            self.sentinel.set()

    def fired(self) -> list[tuple[str, int]]:
        with self.lock:
            return [(room, version) for room, version, _ in self.calls]

    def wait_for_sentinel(self) -> None:
        assert self.sentinel.wait(5), "the sentinel wake-up never fired"


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def timers(recorder: Recorder) -> Iterator[LocalTimers]:
    with LocalTimers(recorder) as running:
        yield running


def now_ms() -> int:
    return int(time.time() * 1000)


def test_due_wakeup_fires_exactly_once_and_never_early(
    timers: LocalTimers, recorder: Recorder
) -> None:
    at_ms = now_ms() + 40
    timers.schedule("room1", 3, at_ms)
    timers.schedule("sentinel", 0, at_ms + 60)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("room1", 3), ("sentinel", 0)]
    fired_at = recorder.calls[0][2]
    assert fired_at >= at_ms
    assert timers.pending() == []


def test_wakeups_fire_in_due_order_whatever_the_scheduling_order(
    timers: LocalTimers, recorder: Recorder
) -> None:
    base = now_ms()
    timers.schedule("late", 1, base + 80)
    timers.schedule("early", 1, base + 20)
    timers.schedule("middle", 1, base + 50)
    timers.schedule("sentinel", 0, base + 120)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("early", 1), ("middle", 1), ("late", 1), ("sentinel", 0)]
    for (_room, _version, fired_at), due in zip(
        recorder.calls, [base + 20, base + 50, base + 80], strict=False
    ):
        assert fired_at >= due


def test_past_due_wakeup_fires_at_once(timers: LocalTimers, recorder: Recorder) -> None:
    timers.schedule("room1", 1, now_ms() - 5_000)
    timers.schedule("sentinel", 0, now_ms() + 30)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("room1", 1), ("sentinel", 0)]


def test_same_room_and_version_is_deduplicated(timers: LocalTimers, recorder: Recorder) -> None:
    base = now_ms()
    timers.schedule("room1", 7, base + 30)
    timers.schedule("room1", 7, base + 30)
    timers.schedule("room1", 7, base + 10)
    timers.schedule("room1", 8, base + 40)
    timers.schedule("sentinel", 0, base + 90)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("room1", 7), ("room1", 8), ("sentinel", 0)]


def test_cancelled_wakeup_never_fires(timers: LocalTimers, recorder: Recorder) -> None:
    base = now_ms()
    timers.schedule("room1", 1, base + 30)
    timers.schedule("room2", 1, base + 30)
    timers.cancel("room1", 1)
    timers.cancel("room9", 9)  # missing is fine
    timers.schedule("sentinel", 0, base + 80)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("room2", 1), ("sentinel", 0)]


def test_cancel_then_schedule_again_fires_once(timers: LocalTimers, recorder: Recorder) -> None:
    base = now_ms()
    timers.schedule("room1", 1, base + 20)
    timers.cancel("room1", 1)
    timers.schedule("room1", 1, base + 40)
    timers.schedule("sentinel", 0, base + 90)

    recorder.wait_for_sentinel()

    assert recorder.fired() == [("room1", 1), ("sentinel", 0)]
    assert recorder.calls[0][2] >= base + 40


def test_a_failing_handler_does_not_stop_the_loop() -> None:
    fired: list[str] = []
    done = threading.Event()

    def fire(room_id: str, version: int) -> None:
        fired.append(room_id)
        if room_id == "boom":
            raise RuntimeError("handler failed")
        done.set()

    with LocalTimers(fire) as timers:
        timers.schedule("boom", 1, now_ms())
        timers.schedule("after", 1, now_ms() + 20)
        assert done.wait(5)

    assert fired == ["boom", "after"]


def test_handler_may_schedule_the_next_wakeup_from_inside_a_firing(recorder: Recorder) -> None:
    done = threading.Event()
    fired: list[int] = []

    def fire(room_id: str, version: int) -> None:
        fired.append(version)
        if version < 3:
            timers.schedule(room_id, version + 1, now_ms() + 5)
        else:
            done.set()

    timers = LocalTimers(fire)
    with timers:
        timers.schedule("room1", 1, now_ms())
        assert done.wait(5)

    assert fired == [1, 2, 3]


def test_stop_drops_pending_wakeups_and_ends_the_thread(recorder: Recorder) -> None:
    timers = LocalTimers(recorder)
    timers.start()
    timers.schedule("room1", 1, now_ms() + 60_000)
    timers.stop()

    assert recorder.fired() == []
    assert not any(t.name == "liars-dice-timers" and t.is_alive() for t in threading.enumerate())


def test_only_a_new_earliest_wakeup_or_a_stop_wakes_the_sleeping_thread(
    recorder: Recorder,
) -> None:
    # Every action schedules a wake-up and cancels one; the thread reads the clock each time
    # it wakes, so its clock reads count its wake-ups.
    reads: list[float] = []
    reads_lock = threading.Lock()

    def clock() -> float:
        with reads_lock:
            reads.append(time.time())
        return time.time() * 1000

    def settled() -> int:
        time.sleep(0.2)
        with reads_lock:
            return len(reads)

    with LocalTimers(recorder, now_ms=clock) as running:
        running.schedule("first", 1, now_ms() + 60_000)
        asleep = settled()
        running.schedule("later", 1, now_ms() + 120_000)
        running.cancel("first", 1)
        running.cancel("nothing", 7)
        after_later_and_cancels = settled()
        running.schedule("sooner", 1, now_ms() + 30_000)
        after_sooner = settled()

    assert asleep >= 1
    assert after_later_and_cancels == asleep
    assert after_sooner == asleep + 1
    assert recorder.fired() == []
