"""The supervisor replaces a worker that stops answering (SIGSTOP, a stuck event loop), not
only one that dies: its share of newcomers would otherwise wait for it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from liars_local.workers import PING_TIMEOUT_SECONDS, WorkerPool
from tests.local.support import ok


def test_a_stopped_worker_is_replaced_and_newcomers_are_served(tmp_path: Path) -> None:
    with WorkerPool(workers=2, data_dir=tmp_path, stdout=subprocess.DEVNULL) as pool:
        stopped = pool.pids()[1]
        os.kill(stopped, signal.SIGSTOP)
        try:
            # the supervisor's loop, as run() drives it; a bound so a failure does not hang
            end = time.monotonic() + PING_TIMEOUT_SECONDS + 30
            while pool.pids().get(1) == stopped and time.monotonic() < end:
                pool._poll(0.25)
            replaced = pool.pids().get(1)
            for _ in range(3):
                pool._poll(0.25)
        finally:
            with contextlib.suppress(ProcessLookupError):  # replaced: killed already
                os.kill(stopped, signal.SIGCONT)
        assert replaced is not None and replaced != stopped
        assert pool.restarts == 1
        for _ in range(10):  # fresh connections, spread over both workers by the kernel
            ok(httpx.get(f"{pool.url}/health", timeout=10))


def test_a_busy_but_answering_worker_is_left_alone(tmp_path: Path) -> None:
    with WorkerPool(workers=2, data_dir=tmp_path, stdout=subprocess.DEVNULL) as pool:
        before = pool.pids()
        end = time.monotonic() + PING_TIMEOUT_SECONDS + 2
        while time.monotonic() < end:
            pool._poll(0.25)
            httpx.post(f"{pool.url}/auth/guest", json={"name": "Busy"}, timeout=10)
        assert pool.pids() == before and pool.restarts == 0
