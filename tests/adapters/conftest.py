"""Fixtures: the store under test, on SQLite (a file and in memory) and on moto's DynamoDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import Store

REGION = "us-east-1"


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and a region, so nothing can reach a real account."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.fixture
def moto_aws(aws_env: None) -> Iterator[None]:
    """Every boto3 call inside the test goes to moto."""
    with mock_aws():
        yield


@pytest.fixture(params=["sqlite", "sqlite-memory", "moto"])
def store(request: pytest.FixtureRequest, aws_env: None, tmp_path: Path) -> Iterator[Store]:
    """The same tests run against SqliteStore (file, in memory) and DynamoStore on moto.

    DynamoDB may show an expired item until its TTL sweep runs, so the contract asks nothing
    of expiry: the SQLite stores' clock stays at 0 here (SQLite's own tests cover expiry).
    """
    if request.param.startswith("sqlite"):
        path = tmp_path / "store.db" if request.param == "sqlite" else ":memory:"
        sqlite_store = SqliteStore(path, clock=FakeClock(0))
        yield sqlite_store
        sqlite_store.close()
        return
    with mock_aws():
        s = DynamoStore("liars-test", REGION, client=_shared_client())
        s.ensure_table()
        yield s


_clients: list[Any] = []


def _shared_client() -> Any:
    """One boto3 client for the contract tests: creating one costs more than a test."""
    if not _clients:
        _clients.append(boto3.client("dynamodb", region_name=REGION))
    return _clients[0]
