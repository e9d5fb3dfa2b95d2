"""Fixtures for the REST API tests: the Chalice app on moto's DynamoDB, fakes for the rest.

Every call into moto goes through one lock (moto is not thread-safe), so in the race tests the
conditional write is the only guard. The clock is a settable fake; dice come from a seeded roller.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pytest
from argon2 import PasswordHasher
from chalice.test import Client
from moto import mock_aws

from chalicelib import auth, wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.engine.dice import SeededRoller
from chalicelib.settings import reset_settings
from tests.contract_check import check_pushes, check_response
from tests.offline_aws import REGION, use_offline_aws


class LockedClient:
    """A boto3 client whose every API call runs under one lock."""

    def __init__(self, client: Any, lock: threading.Lock) -> None:
        self._client = client
        self._lock = lock
        self.meta = client.meta
        self.exceptions = client.exceptions

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target):
            return target

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return target(*args, **kwargs)

        return locked


@dataclass
class Env:
    """What a test can reach: the HTTP client, the store, the fakes."""

    client: Client
    store: DynamoStore
    clock: FakeClock
    notifier: FakeNotifier
    timers: FakeTimers
    deps: wiring.Deps

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        raw: bytes | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """One HTTP request; returns the Chalice test response with ``.json`` parsed."""
        h = {"Content-Type": "application/json"}
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        h.update(headers or {})
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        resp = getattr(self.client.http, method.lower())(path, headers=h, body=data)
        resp.json = json.loads(resp.body) if resp.body else None
        # the documents are the wire: every answer a test sees fits docs/openapi.json
        check_response(method, path, resp.status_code, resp.json, resp.headers)
        return resp

    def ok(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        status: int | None = None,
    ) -> Any:
        """A request expected to succeed; returns the JSON answer."""
        resp = self.call(method, path, body, token)
        assert resp.status_code < 300, (method, path, resp.status_code, resp.json)
        if status is not None:
            assert resp.status_code == status
        return resp.json

    def register(
        self, username: str, password: str = "correct horse"
    ) -> tuple[str, dict[str, Any]]:
        """Register a user; (token, user)."""
        out = self.ok("POST", "/auth/register", {"username": username, "password": password})
        return out["token"], out["user"]

    def guest(self, name: str = "Guesty") -> tuple[str, dict[str, Any]]:
        """Sign in a guest; (token, user)."""
        out = self.ok("POST", "/auth/guest", {"name": name})
        return out["token"], out["user"]


@pytest.fixture
def api_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """The app on moto with fake clock, notifier and timers and a seeded roller."""
    use_offline_aws(monkeypatch, "liars-api-test")
    with mock_aws():
        import boto3

        lock = threading.Lock()
        raw = boto3.client("dynamodb", region_name=REGION)
        store = DynamoStore("liars-api-test", REGION, client=LockedClient(raw, lock))
        store.ensure_table()
        clock, notifier, timers = FakeClock(), FakeNotifier(), FakeTimers()
        deps = wiring.Deps(
            store=store, notifier=notifier, timers=timers, clock=clock, roller=SeededRoller(7)
        )
        wiring.set_deps(deps)
        from app import app

        with Client(app) as client:
            yield Env(client, store, clock, notifier, timers, deps)
        wiring.reset_deps()
        check_pushes(notifier.sent)  # and every push fits docs/asyncapi.json
    reset_settings()


@pytest.fixture(params=["moto", "sqlite"])
def both_stores_env(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> Iterator[Env]:
    """``api_env`` on moto, then the same app on a SQLite file (the local server's store)."""
    if request.param == "moto":
        yield request.getfixturevalue("api_env")
        return
    from chalicelib.adapters.sqlite import SqliteStore

    use_offline_aws(monkeypatch, "liars-api-test")
    clock, notifier, timers = FakeClock(), FakeNotifier(), FakeTimers()
    store = SqliteStore(str(tmp_path / "api.sqlite3"), clock=clock)
    deps = wiring.Deps(
        store=store, notifier=notifier, timers=timers, clock=clock, roller=SeededRoller(7)
    )
    wiring.set_deps(deps)
    from app import app

    try:
        with Client(app) as client:
            # Env names the DynamoDB store; the tests using this fixture use the port only.
            yield Env(client, cast(DynamoStore, store), clock, notifier, timers, deps)
    finally:
        wiring.reset_deps()
        store.close()
        reset_settings()
    check_pushes(notifier.sent)


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """argon2 at its minimum cost, for tests that make many accounts."""
    monkeypatch.setattr(auth, "_hasher", PasswordHasher(time_cost=1, memory_cost=64))
    auth._dummy_hash.cache_clear()
    yield
    auth._dummy_hash.cache_clear()
