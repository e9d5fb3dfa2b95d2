"""An opt-in CPU profile of a serving process, one file per thread (``LIARS_PROFILE_DIR``).

``py-spy`` samples a worker from outside, but on a busy 2-core machine it cannot tell a
thread that runs from one that waits for the GIL or a core, so its shares of a saturated
run mislead (docs/DECISIONS.md, "Where a request's time goes"). With ``LIARS_PROFILE_DIR``
set, every thread that serves (the event loop, the handler threads, the timer thread, the
push channel's readers) runs under ``cProfile`` timed by ``time.thread_time`` (its own
CPU, never a wait). Each writes ``<pid>-<thread name>-<ident>.prof`` into that folder when
it ends, and every one still running writes its profile so far when a file named ``dump``
appears there (a worker stopped by SIGTERM ends without running its threads' ``finally``).
Read them with ``pstats``. cProfile slows Python code down by about half; the shares, not
the times, are the point. Unset (always, unless someone measures), nothing is profiled.
"""

from __future__ import annotations

import cProfile
import marshal
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "LIARS_PROFILE_DIR"
#: How often the watcher looks for the ``dump`` file.
POLL_SECONDS = 0.5

_active: dict[str, cProfile.Profile] = {}
_lock = threading.Lock()
_watched: set[str] = set()
"""The folders a watcher looks at for ``dump``."""


def profile_dir() -> str | None:
    """The folder to write profiles into; None when profiling is off."""
    return os.environ.get(ENV) or None


def _write(profile: cProfile.Profile, path: str) -> None:
    """What ``Profile.dump_stats`` writes, without stopping the profile (any thread)."""
    profile.snapshot_stats()
    with open(path, "wb") as out:
        marshal.dump(profile.stats, out)


def _watch(folder: str) -> None:
    trigger = os.path.join(folder, "dump")
    while True:
        time.sleep(POLL_SECONDS)
        if os.path.exists(trigger):
            with _lock:
                running = dict(_active)
            for path, profile in running.items():
                _write(profile, path)
            return


@contextmanager
def profiled(name: str | None = None) -> Iterator[None]:
    """Profile the calling thread's CPU for the block, when ``LIARS_PROFILE_DIR`` is set."""
    folder = profile_dir()
    if folder is None:
        yield
        return
    label = (name or threading.current_thread().name).replace("/", "_")
    path = os.path.join(folder, f"{os.getpid()}-{label}-{threading.get_ident()}.prof")
    profile = cProfile.Profile(time.thread_time)
    with _lock:
        _active[path] = profile
        if folder not in _watched:
            _watched.add(folder)
            threading.Thread(target=_watch, args=(folder,), daemon=True).start()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        with _lock:
            _active.pop(path, None)
        _write(profile, path)
