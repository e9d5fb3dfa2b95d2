"""A local wake-up whose handler fails is tried again later, as Lambda retries a failed
asynchronous invocation twice, instead of being dropped: a room nobody watches must not wait
for a client because the store was busy at the moment its deadline passed."""

from __future__ import annotations

import threading
import time

from liars_local.timers import LocalTimers


class Flaky:
    """A room_timer handler failing its first ``failures`` calls."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[float] = []
        self.lock = threading.Lock()

    def __call__(self, room_id: str, version: int) -> None:
        with self.lock:
            self.calls.append(time.monotonic())
            if len(self.calls) <= self.failures:
                raise RuntimeError("the store is unavailable")

    def wait_for(self, n: int, within_s: float = 5.0) -> int:
        end = time.monotonic() + within_s
        while time.monotonic() < end:
            with self.lock:
                if len(self.calls) >= n:
                    break
            time.sleep(0.01)
        time.sleep(0.15)  # and no more after that
        with self.lock:
            return len(self.calls)


def test_a_failed_wake_up_is_tried_again_after_a_pause() -> None:
    handler = Flaky(failures=1)
    with LocalTimers(handler, retry_delays_ms=(50, 50)) as timers:
        timers.schedule("r1", 3, int(time.time() * 1000))
        assert handler.wait_for(2) == 2
        assert timers.pending() == []
    first, second = handler.calls
    assert second - first >= 0.045


def test_a_wake_up_that_keeps_failing_is_given_up_after_its_retries() -> None:
    handler = Flaky(failures=10**6)
    with LocalTimers(handler, retry_delays_ms=(20, 20)) as timers:
        timers.schedule("r1", 3, int(time.time() * 1000))
        assert handler.wait_for(3) == 3
        assert timers.pending() == []


def test_a_cancelled_wake_up_is_not_tried_again() -> None:
    handler = Flaky(failures=1)
    with LocalTimers(handler, retry_delays_ms=(400,)) as timers:
        timers.schedule("r1", 3, int(time.time() * 1000))
        assert handler.wait_for(1) == 1
        timers.cancel("r1", 3)  # a newer version's commit drops this one's wake-up
        assert handler.wait_for(2, within_s=0.6) == 1
