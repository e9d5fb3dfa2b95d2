"""A precise local timer loop implementing the Timers port in place of EventBridge Scheduler.

One background thread sleeps until the earliest due wake-up and then calls ``fire(room_id,
version)``. A wake-up is identified by ``(room_id, version)``: scheduling the same pair again
while it is pending keeps the first one, as a duplicate Scheduler name is refused in AWS.
Once fired, the pair is forgotten (Scheduler deletes a completed one-time schedule). A fire
that fails is tried again after ``RETRY_DELAYS_MS`` (Lambda retries a failed asynchronous
invocation twice), unless the pair was cancelled meanwhile; then it is dropped (the room
still advances on its next touch).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence

from liars_local.profiling import profiled

log = logging.getLogger(__name__)

Fire = Callable[[str, int], None]

RETRY_DELAYS_MS = (1_000, 5_000)
"""Pauses before each new try of a wake-up whose handler failed."""


def _wall_ms() -> float:
    return time.time() * 1000.0


class LocalTimers:
    """Timers port: a heap of wake-ups served by one daemon thread."""

    def __init__(
        self,
        fire: Fire,
        now_ms: Callable[[], float] = _wall_ms,
        *,
        retry_delays_ms: Sequence[int] = RETRY_DELAYS_MS,
    ) -> None:
        self._fire = fire
        self._now_ms = now_ms
        self._retry_delays_ms = tuple(retry_delays_ms)
        self._failures: dict[tuple[str, int], int] = {}
        self._cond = threading.Condition()
        # heap entries: (at_ms, seq, room_id, version); cancelled ones are skipped lazily
        self._heap: list[tuple[int, int, str, int]] = []
        self._pending: dict[tuple[str, int], int] = {}
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._stopping = False

    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        """Wake the timer handler for ``room_id`` at ``at_ms``; a pending duplicate is ignored."""
        key = (room_id, version)
        with self._cond:
            if key in self._pending:
                return
            seq = next(self._seq)
            self._pending[key] = seq
            entry = (int(at_ms), seq, room_id, version)
            heapq.heappush(self._heap, entry)
            # The thread sleeps until the earliest wake-up: only a new earliest one changes
            # that (every action schedules one, mostly later than another room's).
            if self._heap[0] is entry:
                self._cond.notify()

    def cancel(self, room_id: str, version: int) -> None:
        """Forget the pending wake-up for ``(room_id, version)`` (missing is fine).

        The thread is not woken: a cancelled wake-up is skipped when its time comes.
        """
        with self._cond:
            self._pending.pop((room_id, version), None)
            self._failures.pop((room_id, version), None)

    def pending(self) -> list[tuple[str, int, int]]:
        """The pending wake-ups as ``(room_id, version, at_ms)``, earliest first."""
        with self._cond:
            return sorted(
                (
                    (room_id, version, at_ms)
                    for at_ms, seq, room_id, version in self._heap
                    if self._pending.get((room_id, version)) == seq
                ),
                key=lambda item: item[2],
            )

    def start(self) -> None:
        """Start the background thread (a daemon, so it never keeps the process alive)."""
        with self._cond:
            if self._thread is not None:
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="liars-dice-timers", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the background thread; pending wake-ups are dropped."""
        with self._cond:
            thread = self._thread
            self._stopping = True
            self._cond.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        with self._cond:
            self._thread = None

    def __enter__(self) -> LocalTimers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_due(self) -> tuple[str, int] | None:
        """Wait until a wake-up is due and pop it; None when stopping."""
        with self._cond:
            while not self._stopping:
                while (
                    self._heap
                    and self._pending.get((self._heap[0][2], self._heap[0][3])) != self._heap[0][1]
                ):
                    heapq.heappop(self._heap)  # cancelled or superseded
                if not self._heap:
                    self._cond.wait()
                    continue
                at_ms, _seq, room_id, version = self._heap[0]
                delay_ms = at_ms - self._now_ms()
                if delay_ms > 0:
                    # never early: re-check the clock after every wake-up
                    self._cond.wait(delay_ms / 1000.0)
                    continue
                heapq.heappop(self._heap)
                del self._pending[(room_id, version)]
                return room_id, version
            return None

    def _run(self) -> None:
        with profiled():
            self._serve()

    def _serve(self) -> None:
        while True:
            due = self._next_due()
            if due is None:
                return
            try:
                self._fire(*due)
            except Exception:
                log.exception("room timer for %s v%s failed", *due)
                self._try_again_later(*due)
            else:
                with self._cond:
                    self._failures.pop(due, None)

    def _try_again_later(self, room_id: str, version: int) -> None:
        """Schedule a failed wake-up again after its next pause, if it has one left."""
        key = (room_id, version)
        with self._cond:
            failed = self._failures.get(key, 0)
            if self._stopping or failed >= len(self._retry_delays_ms):
                self._failures.pop(key, None)
                if not self._stopping:
                    log.error("room timer for %s v%s failed %d times: dropped", *key, failed + 1)
                return
            self._failures[key] = failed + 1
        self.schedule(room_id, version, int(self._now_ms()) + self._retry_delays_ms[failed])
