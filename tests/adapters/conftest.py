"""Fixtures: the store under test, in memory and on moto's DynamoDB, plus AWS test credentials."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.memory import MemoryStore
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


@pytest.fixture(params=["memory", "moto"])
def store(request: pytest.FixtureRequest, aws_env: None) -> Iterator[Store]:
    """The same tests run against MemoryStore and DynamoStore on moto."""
    if request.param == "memory":
        yield MemoryStore()
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
