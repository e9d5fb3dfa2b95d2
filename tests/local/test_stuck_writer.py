"""A writer stuck elsewhere stops no one for long: writes give up after the busy timeout (503
with Retry-After), ``/health`` and reads answer while every write waits, and a full disk is
said in the log once a minute, not once a request."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from chalicelib.adapters.sqlite import WRITER_LOCK_SUFFIX, SqliteStore
from chalicelib.adapters.sqlite import _base as sqlite_base
from chalicelib.ports import Unavailable
from liars_local.data import DB_FILE_NAME
from liars_local.server import LocalServer
from tests.local.support import ok


@contextmanager
def _writer_lock_held_elsewhere(db: Path) -> Iterator[None]:
    """Hold the writers' file lock as a stopped worker process would (its own open file)."""
    fd = os.open(f"{db}{WRITER_LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _guest(store: SqliteStore, n: int) -> None:
    store.create_user(f"u{n}", None, None, True, f"Guest {n}", now_ms=1)


def test_a_write_gives_up_after_the_busy_timeout_when_another_process_holds_the_lock(
    tmp_path: Path,
) -> None:
    db = tmp_path / DB_FILE_NAME
    store = SqliteStore(db, busy_timeout_seconds=0.3)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            _guest(store, 1)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    with _writer_lock_held_elsewhere(db):
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(20)  # without a bound the write would wait as long as the lock is held
        assert not writer.is_alive(), "the write waited past its busy timeout"
    store.close()

    assert len(outcome) == 1 and isinstance(outcome[0], Unavailable), outcome
    assert outcome[0].reason == "timeout" and outcome[0].retry_after >= 1


def test_a_write_waiting_on_the_lock_in_this_process_gives_up_too(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / DB_FILE_NAME, busy_timeout_seconds=0.3)
    store._writer.__enter__()  # a writer of this process that never finishes
    try:
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(_guest, store, 1)
            with pytest.raises(Unavailable):
                future.result(timeout=20)
    finally:
        store._writer.__exit__(None, None, None)
    _guest(store, 2)  # and the store works again once the lock is free
    store.close()


def test_health_and_reads_answer_while_every_write_waits_on_a_stuck_writer(
    tmp_path: Path,
) -> None:
    with (
        LocalServer(data_dir=tmp_path, access_log=lambda _: None) as server,
        ThreadPoolExecutor(8) as pool,
    ):
        with _writer_lock_held_elsewhere(tmp_path / DB_FILE_NAME):
            # more writes than the server has handler threads, each stuck on the lock
            writes = [
                pool.submit(httpx.post, f"{server.url}/auth/guest", json={"name": "W"}, timeout=60)
                for _ in range(6)
            ]
            for _ in range(3):
                # a bound only so that a starved server fails the test instead of hanging
                ok(httpx.get(f"{server.url}/health", timeout=10))
                ok(httpx.get(f"{server.url}/rooms", timeout=10))
        statuses = [w.result().status_code for w in writes]  # the lock is free again
    assert statuses == [201] * 6


def test_a_full_disk_is_logged_once_a_minute_not_once_a_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_base, "_disk_full_logged_at", [float("-inf")])
    store = SqliteStore(tmp_path / DB_FILE_NAME)
    _guest(store, 0)
    conn = store._conn()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    failures = 0
    with caplog.at_level(logging.ERROR, logger="chalicelib.adapters.sqlite"):
        for n in range(1, 200):
            try:
                store.create_user(f"u{n}", None, None, True, "x" * 2000, now_ms=1)
            except Unavailable:
                failures += 1
    store.close()

    full = [r for r in caplog.records if "disk is full" in r.getMessage()]
    assert failures > 10
    assert len(full) == 1, [r.getMessage() for r in full]
