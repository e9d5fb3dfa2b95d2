"""Fault injection: the app on moto with the store's, notifier's and scheduler's clients wrapped.

Each boto3 client is wrapped by ``FaultyClient`` (outside the moto lock, inside the adapters'
``GuardedClient``), which counts the API calls and raises a chosen AWS error on a chosen call,
once or from then on: the errors botocore's own retries did not absorb. Pauses between the
server's own retries are skipped (``chalicelib.retry.sleep``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from chalice.test import Client
from moto import mock_aws

from chalicelib import retry, wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock
from chalicelib.adapters.notifier import ApiGatewayNotifier, endpoint_url
from chalicelib.adapters.scheduler import SchedulerTimers
from chalicelib.adapters.sns_push import RecordingMobilePush
from chalicelib.engine.dice import SeededRoller
from chalicelib.notify import Deliverer
from chalicelib.push_endpoints import parse_allow_list
from chalicelib.settings import reset_settings
from chalicelib.webpush import VapidKey, WebPushSender
from tests.api.conftest import LockedClient
from tests.offline_aws import REGION, use_offline_aws

TABLE = "liars-fault-test"
API_ID = "abc123"
STAGE = "ws"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:liars-lies-dev-room_timer"
ROLE_ARN = "arn:aws:iam::123456789012:role/liars-scheduler"

ErrorFactory = Callable[[str], Exception]


def client_error(code: str, status: int, **extra: Any) -> ErrorFactory:
    """A botocore ClientError with ``code`` and HTTP ``status`` for the failing operation."""

    def make(operation: str) -> Exception:
        response: dict[str, Any] = {
            "Error": {"Code": code, "Message": f"injected {code}"},
            "ResponseMetadata": {"HTTPStatusCode": status},
            **extra,
        }
        return ClientError(response, operation)  # type: ignore[arg-type]

    return make


def transaction_conflict(operation: str) -> Exception:
    """A transaction cancelled by a concurrent one (TransactionConflict on its items)."""
    reasons = [{"Code": "TransactionConflict"}, {"Code": "None"}]
    return client_error("TransactionCanceledException", 400, CancellationReasons=reasons)(operation)


def read_timeout(operation: str) -> Exception:
    return ReadTimeoutError(endpoint_url=f"https://aws/{operation}")


def no_connection(operation: str) -> Exception:
    return EndpointConnectionError(endpoint_url=f"https://aws/{operation}")


STORE_ERRORS: dict[str, ErrorFactory] = {
    "ProvisionedThroughputExceeded": client_error("ProvisionedThroughputExceededException", 400),
    "Throttling": client_error("ThrottlingException", 400),
    "RequestLimitExceeded": client_error("RequestLimitExceeded", 400),
    "InternalServerError": client_error("InternalServerError", 500),
    "ServiceUnavailable": client_error("ServiceUnavailable", 503),
    "TransactionConflictException": client_error("TransactionConflictException", 400),
    "TransactionConflict": transaction_conflict,
    "ReadTimeout": read_timeout,
    "EndpointConnection": no_connection,
}
SCHEDULER_ERRORS: dict[str, ErrorFactory] = {
    "Throttling": client_error("ThrottlingException", 400),
    "InternalServerException": client_error("InternalServerException", 500),
    "ReadTimeout": read_timeout,
}
NOTIFIER_ERRORS: dict[str, ErrorFactory] = {
    "LimitExceeded": client_error("LimitExceededException", 429),
    "InternalServerError": client_error("InternalServerErrorException", 500),
    "EndpointConnection": no_connection,
}


class FaultyClient:
    """A boto3 client that fails on demand: call number ``fail_at`` (once, or from then on)."""

    def __init__(self, inner: Any, name: str) -> None:
        self._inner = inner
        self.name = name
        self.calls: list[str] = []
        self.fail_at: int | None = None
        self.persistent = False
        self.error: ErrorFactory | None = None
        self.failed: list[str] = []
        self.operation: str | None = None
        self.where: Callable[[dict[str, Any]], bool] | None = None
        self.meta = inner.meta
        self.exceptions = inner.exceptions

    def arm(self, fail_at: int, error: ErrorFactory, *, persistent: bool = False) -> None:
        """Fail the ``fail_at``-th call from now (1-based); every later one too if persistent."""
        self.calls.clear()
        self.failed.clear()
        self.fail_at, self.error, self.persistent = fail_at, error, persistent

    def arm_operation(
        self,
        operation: str,
        error: ErrorFactory,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """Fail every call of ``operation`` (whose arguments satisfy ``where``) from now on."""
        self.disarm()
        self.operation, self.error, self.where = operation, error, where

    def disarm(self) -> None:
        """Stop failing and forget the counts."""
        self.fail_at, self.error, self.operation, self.where = None, None, None, None
        self.calls.clear()
        self.failed.clear()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if not callable(target) or name in ("get_waiter", "can_paginate", "get_paginator"):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            n = len(self.calls)
            if self.error is not None and (
                (name == self.operation and (self.where is None or self.where(kwargs)))
                or (
                    self.fail_at is not None
                    and (n == self.fail_at or (self.persistent and n > self.fail_at))
                )
            ):
                self.failed.append(name)
                raise self.error(name)
            return target(*args, **kwargs)

        return call


@dataclass
class FaultEnv:
    """The app and its wrapped clients."""

    client: Client
    store: DynamoStore
    raw_dynamodb: Any
    scheduler: Any
    clock: FakeClock
    faulty: dict[str, FaultyClient]
    deps: wiring.Deps

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, dict[str, str], Any]:
        """One request: status, headers, parsed JSON body."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body) if body is not None else None
        resp = getattr(self.client.http, method.lower())(path, headers=headers, body=data)
        return resp.status_code, dict(resp.headers), json.loads(resp.body) if resp.body else None

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """A request that must succeed (no fault armed)."""
        status, _, answer = self.call(method, path, body, token)
        assert status < 300, (method, path, status, answer)
        return answer

    def disarm(self) -> None:
        """No faults anywhere."""
        for f in self.faulty.values():
            f.disarm()

    def snapshot(self, *, skip: tuple[str, ...] = ("RATE#",)) -> dict[tuple[str, str], Any]:
        """Every item in the table by key (rate-limit windows left out: an attempt counts)."""
        items: dict[tuple[str, str], Any] = {}
        params: dict[str, Any] = {"TableName": TABLE}
        while True:
            page = self.raw_dynamodb.scan(**params)
            for item in page["Items"]:
                key = (item["pk"]["S"], item["sk"]["S"])
                if not key[0].startswith(skip):
                    items[key] = item
            if "LastEvaluatedKey" not in page:
                return items
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def ws(
        self, connection_id: str, route_key: str, body: str | None = None, query: Any = None
    ) -> Any:
        """Invoke a WebSocket handler with an API Gateway event."""
        event_type = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route_key, "MESSAGE")
        event: dict[str, Any] = {
            "requestContext": {
                "routeKey": route_key,
                "eventType": event_type,
                "connectionId": connection_id,
                "domainName": f"{API_ID}.execute-api.{REGION}.amazonaws.com",
                "stage": STAGE,
                "apiId": API_ID,
            },
            "queryStringParameters": query,
            "isBase64Encoded": False,
        }
        if body is not None:
            event["body"] = body
        name = {"$connect": "ws_connect", "$disconnect": "ws_disconnect"}.get(
            route_key, "ws_message"
        )
        return self.client.lambda_.invoke(name, event)


class PushLog:
    """Records what reaches moto's post_to_connection (moto itself runs messages together)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.sent: list[tuple[str, Any]] = []
        self.meta = inner.meta
        self.exceptions = inner.exceptions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def post_to_connection(self, **kwargs: Any) -> Any:
        answer = self._inner.post_to_connection(**kwargs)
        self.sent.append((kwargs["ConnectionId"], json.loads(kwargs["Data"])))
        return answer

    def messages_for(self, connection_id: str) -> list[Any]:
        return [m for c, m in self.sent if c == connection_id]


_made: list[Any] = []


def _clients() -> tuple[Any, Any, Any]:
    """boto3 clients for moto, made once: making them costs more than most tests here."""
    if not _made:
        import boto3

        _made.extend(
            [
                boto3.client("dynamodb", region_name=REGION),
                boto3.client("scheduler", region_name=REGION),
                boto3.client(
                    "apigatewaymanagementapi",
                    region_name=REGION,
                    endpoint_url=endpoint_url(API_ID, STAGE, REGION),
                ),
            ]
        )
    return _made[0], _made[1], _made[2]


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultEnv]:
    """The app on moto's DynamoDB, Scheduler and WebSocket management API, clients wrapped."""
    use_offline_aws(monkeypatch, TABLE)
    monkeypatch.setenv("MAX_ROOMS_PER_USER", "1000")  # each case opens fresh rooms
    monkeypatch.setattr(retry, "sleep", lambda _s: None)
    with mock_aws():
        lock = threading.Lock()
        raw, raw_scheduler, raw_pushes = _clients()
        faulty = {
            "store": FaultyClient(LockedClient(raw, lock), "store"),
            "scheduler": FaultyClient(LockedClient(raw_scheduler, lock), "scheduler"),
        }
        pushes = PushLog(raw_pushes)
        faulty["notifier"] = FaultyClient(LockedClient(pushes, lock), "notifier")
        store = DynamoStore(TABLE, REGION, client=faulty["store"])
        store.ensure_table()
        clock = FakeClock()
        deps = wiring.Deps(
            store=store,
            notifier=ApiGatewayNotifier(API_ID, STAGE, REGION, client=faulty["notifier"]),
            timers=SchedulerTimers(
                "default", TIMER_ARN, ROLE_ARN, REGION, client=faulty["scheduler"]
            ),
            clock=clock,
            roller=SeededRoller(5),
            # Notifications on (the routes that store subscriptions and devices are under
            # faults too); a push service's name resolves to nothing, so nothing leaves here.
            push=Deliverer(
                store,
                WebPushSender(
                    VapidKey.from_secret("faults-vapid-secret-0123456789abcdef0123456789"),
                    subject="mailto:faults@example.org",
                    allow=parse_allow_list(None),
                    resolve=lambda _host, _port: [],
                    sleep=lambda _s: None,
                ),
                RecordingMobilePush(),
            ),
        )
        wiring.set_deps(deps)
        from app import app

        with Client(app) as client:
            env = FaultEnv(client, store, raw, faulty["scheduler"], clock, faulty, deps)
            env.pushes = pushes  # type: ignore[attr-defined]
            yield env
        wiring.reset_deps()
    reset_settings()
