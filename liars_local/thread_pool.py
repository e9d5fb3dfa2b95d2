"""The handler threads: a few threads fed from one queue, each answer handed back to its loop.

Why hand-written rather than anyio's ``to_thread.run_sync`` or ``loop.run_in_executor``
(docs/DECISIONS.md, issues 14 and 25): anyio's capacity limiter, cancel scope and run-vars
cost more of the event loop's CPU per request than the whole Chalice bridge, and
``run_in_executor`` still a good part of that (a concurrent ``Future`` with its lock and
condition chained to an asyncio one for every request). ``HandlerThreads`` is a
``SimpleQueue`` in and one ``call_soon_threadsafe`` out.

Measured again for issue 25 (``bench/local.py --games 20 --storage sqlite --rounds 3
--compare`` the tree before the split, on a shared 2-core machine): ``AppRunner.in_thread``
through ``anyio.to_thread.run_sync`` with a ``CapacityLimiter`` of the same size, against
these threads, served at server CPU per action x1.20 and x1.19 and p50 x1.17 and x1.14 in
two runs; the split with these threads measured CPU per action x1.00 to x1.09 and p50 x0.90
to x1.17 in three runs of the same command (the noise of the shared machine).

A request's pushes wait for its answer (issue 32): each call runs inside
``effects.pushes_after_answer``; its answer goes back to the loop first, then the thread runs
the pushes it collected (rendering a view per kind of watcher and sending it), so an action's
answer no longer waits for its fan-out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from chalicelib import effects
from liars_local.profiling import profiled

log = logging.getLogger(__name__)

#: Handler threads at once. The work is CPU-bound Python under one GIL: more threads than a
#: few only make each request wait longer for its turn (and hold SQLite's write lock longer).
WORKER_THREADS = 8
#: Handler threads at once on SQLite, where a handler waits on nothing but the GIL (a store
#: call takes microseconds): with 8, the requests in hand share the interpreter in 5 ms
#: slices, so each one finishes only when most of them have, and the event loop's thread
#: queues for the GIL behind them all. Two keep a slow request (a password hash, which
#: leaves the GIL) from holding up the rest. Measured under ``bench/local.py --games 20``:
#: p99 x0.78 and CPU per action x0.91 against 8 (docs/DECISIONS.md, issue 14).
SQLITE_WORKER_THREADS = 2
#: Handler threads for requests that write nothing (``AppRunner.in_reader_thread``): besides
#: the writers' threads, so writers waiting on a stuck writer lock never starve ``/health``
#: and reads (issue 30).
READER_THREADS = 2
#: Handler threads for the requests that hash a password (``AppRunner.in_password_thread``):
#: argon2 leaves the GIL for tens of milliseconds, during which a writer's thread would serve
#: nothing else (issue 32).
PASSWORD_THREADS = 2


class HandlerThreads:
    """Handler threads fed from one queue, each answer handed straight back to its event loop.

    What ``loop.run_in_executor`` on a ``ThreadPoolExecutor`` does, for less of the loop's CPU:
    no concurrent ``Future`` (lock, condition) chained to an asyncio one, just a queue in and
    ``call_soon_threadsafe`` out.
    """

    def __init__(self, threads: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def submit(
        self,
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[Any],
        fn: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> None:
        self._jobs.put((loop, future, fn, args))

    def shutdown(self) -> None:
        """Let the threads finish what is queued, then end them."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()

    def _work(self) -> None:
        with profiled():
            self._serve()

    def _serve(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job is None:
                return
            loop, future, fn, args = job
            del job
            if future.cancelled():  # its caller stopped waiting before it started
                continue
            outcome: tuple[Callable[[asyncio.Future[Any], Any], None], Any, Any]
            with effects.pushes_after_answer() as pushes:
                try:
                    outcome = (_set_result, future, fn(*args))
                except BaseException as exc:  # handed to the caller, as an executor does
                    outcome = (_set_exception, future, exc)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for it
                loop.call_soon_threadsafe(*outcome)
            del outcome, future, fn, args, loop
            # the loop's thread takes the GIL to send the answer at the fan-out's first store
            # read (a SQLite call lets it go)
            for push in pushes:
                try:
                    push()  # logs its own failure (``effects``); this thread must live on
                except Exception:
                    log.exception("a push after the answer failed")
            del pushes


def _set_result(future: asyncio.Future[Any], result: Any) -> None:
    if not future.cancelled():
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], exc: BaseException) -> None:
    if isinstance(exc, StopIteration):  # an asyncio future refuses it (the caller would hang)
        wrapped = RuntimeError(f"the handler raised {exc!r}")
        wrapped.__cause__ = exc
        exc = wrapped
    if not future.cancelled():
        future.set_exception(exc)
