"""A burst of sign-ups does not hold up the tables: the requests that hash a password run on
threads of their own, so room changes and guest sign-ins are served while hashes are still
being computed (issue 32)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from chalicelib import auth
from liars_local.server import LocalServer
from liars_local.thread_pool import SQLITE_WORKER_THREADS
from tests.local.support import PASSWORD, ok


def test_a_guest_signs_in_while_every_writer_thread_could_be_hashing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As many registrations as the server has writer threads, each held inside its password
    # hash until the test lets go: on the writers' threads they would leave none for the guest.
    hashing = threading.Semaphore(0)
    release = threading.Event()
    real_hash = auth.hash_password

    def held_hash(password: str) -> str:
        hashing.release()
        release.wait(60)
        return real_hash(password)

    monkeypatch.setattr(auth, "hash_password", held_hash)
    registrations = SQLITE_WORKER_THREADS
    with (
        LocalServer(data_dir=tmp_path, access_log=lambda _: None) as server,
        ThreadPoolExecutor(registrations) as pool,
    ):
        try:
            pending = [
                pool.submit(
                    httpx.post,
                    f"{server.url}/auth/register",
                    json={"username": f"burst{n}", "password": PASSWORD},
                    timeout=90,
                )
                for n in range(registrations)
            ]
            for _ in range(registrations):
                assert hashing.acquire(timeout=30), "a registration never reached its hash"

            # bounded only so that a starved guest fails the test instead of hanging it
            guest = ok(httpx.post(f"{server.url}/auth/guest", json={"name": "G"}, timeout=20), 201)
            assert not any(p.done() for p in pending)  # the hashes were still held meanwhile
        finally:
            release.set()
        statuses = [p.result().status_code for p in pending]
    assert guest["user"]["name"] == "G"
    assert statuses == [201] * registrations
