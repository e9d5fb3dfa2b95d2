"""Fixtures for the realtime tests: the Chalice app on moto (DynamoDB and EventBridge Scheduler).

Pushes are recorded by ``FakeNotifier`` (moto's WebSocket management API never answers 410 and
runs messages together); the clock is a settable fake; dice come from a seeded roller. Every call
into moto goes through one lock. WebSocket events are built by hand, as API Gateway sends them,
and invoked through ``client.lambda_.invoke``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from chalice.test import Client
from moto import mock_aws

from chalicelib import wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock, FakeNotifier
from chalicelib.adapters.scheduler import SchedulerTimers, schedule_name
from chalicelib.engine.dice import SeededRoller
from chalicelib.settings import reset_settings
from tests.api.conftest import LockedClient
from tests.contract_check import check_pushes, check_response
from tests.offline_aws import REGION, use_offline_aws

TABLE = "liars-realtime-test"
TIMER_ARN = "arn:aws:lambda:us-east-1:123456789012:function:liars-lies-dev-room_timer"
ROLE_ARN = "arn:aws:iam::123456789012:role/liars-scheduler"
GROUP = "default"


@dataclass
class RealtimeEnv:
    """What a test can reach: the Chalice test client, the store, moto's scheduler, the fakes."""

    client: Client
    store: DynamoStore
    scheduler: Any
    timers: SchedulerTimers
    clock: FakeClock
    notifier: FakeNotifier
    deps: wiring.Deps
    _users: dict[str, str] = field(default_factory=dict)

    # --- REST -------------------------------------------------------------------------

    def ok(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        status: int | None = None,
    ) -> Any:
        """One HTTP request expected to succeed; its JSON answer."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        resp = getattr(self.client.http, method.lower())(
            path, headers=headers, body=json.dumps(body) if body is not None else None
        )
        answer = json.loads(resp.body) if resp.body else None
        check_response(method, path, resp.status_code, answer, resp.headers)
        assert resp.status_code < 300, (method, path, resp.status_code, answer)
        if status is not None:
            assert resp.status_code == status
        return answer

    def register(self, username: str) -> str:
        """Register a user; their token."""
        out = self.ok("POST", "/auth/register", {"username": username, "password": "pw-" * 4})
        self._users[out["token"]] = out["user"]["id"]
        token: str = out["token"]
        return token

    def user_id(self, token: str) -> str:
        """The user id behind a token made by ``register``."""
        return self._users[token]

    def ticket(self, token: str) -> str:
        """A fresh WebSocket ticket."""
        ticket: str = self.ok("POST", "/realtime/tickets", None, token, 201)["ticket"]
        return ticket

    # --- WebSocket --------------------------------------------------------------------

    def ws_event(
        self,
        connection_id: str,
        route_key: str,
        body: str | None = None,
        query: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """An API Gateway WebSocket event, as Lambda receives it."""
        event_type = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route_key, "MESSAGE")
        event: dict[str, Any] = {
            "requestContext": {
                "routeKey": route_key,
                "eventType": event_type,
                "connectionId": connection_id,
                "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
                "stage": "ws",
                "apiId": "abc123",
            },
            "queryStringParameters": query,
            "isBase64Encoded": False,
        }
        if body is not None:
            event["body"] = body
        return event

    def connect(self, connection_id: str, ticket: str | None = None) -> int:
        """Open a connection (with ``?ticket=`` when given); the handshake's status code."""
        query = {"ticket": ticket} if ticket is not None else None
        answer = self.client.lambda_.invoke(
            "ws_connect", self.ws_event(connection_id, "$connect", query=query)
        ).payload
        return int(answer["statusCode"])

    def send(self, connection_id: str, message: Any) -> list[dict[str, Any]]:
        """Send one client message (a dict is JSON-encoded); the messages pushed to this connection."""
        before = len(self.notifier.messages_for(connection_id))
        raw = message if isinstance(message, str) or message is None else json.dumps(message)
        self.client.lambda_.invoke("ws_message", self.ws_event(connection_id, "$default", raw))
        return self.notifier.messages_for(connection_id)[before:]

    def disconnect(self, connection_id: str) -> None:
        """Close a connection."""
        self.client.lambda_.invoke("ws_disconnect", self.ws_event(connection_id, "$disconnect"))

    def watch(self, connection_id: str, room_id: str, token: str | None = None) -> None:
        """Connect (signed in with a ticket when ``token`` is given) and subscribe to a room."""
        assert self.connect(connection_id, self.ticket(token) if token else None) == 200
        answer = self.send(connection_id, {"action": "subscribe", "room_id": room_id})
        assert [m["type"] for m in answer] == ["room"], answer

    # --- timers -----------------------------------------------------------------------

    def fire(self, room_id: str, version: int | None = None) -> Any:
        """Invoke the room_timer handler as EventBridge Scheduler would."""
        return self.client.lambda_.invoke(
            "room_timer", {"room_id": room_id, "version": version}
        ).payload

    def schedules(self, room_id: str) -> dict[int, dict[str, Any]]:
        """Every schedule stored in moto for ``room_id``, by version."""
        out: dict[int, dict[str, Any]] = {}
        listed = self.scheduler.list_schedules(GroupName=GROUP, NamePrefix=f"room-{room_id}-v")
        for summary in listed["Schedules"]:
            full = self.scheduler.get_schedule(Name=summary["Name"], GroupName=GROUP)
            version = json.loads(full["Target"]["Input"])["version"]
            assert full["Name"] == schedule_name(room_id, version)
            out[version] = full
        return out

    def room_state(self, room_id: str) -> tuple[dict[str, Any], int]:
        """The stored state and version."""
        stored = self.store.get_room(room_id)
        assert stored is not None
        return stored.state, stored.version


def at_of(ms: int) -> str:
    """The ``at()`` expression a deadline (epoch ms) is scheduled with: rounded up to a second."""
    seconds = -(-ms // 1000)
    return f"at({datetime.fromtimestamp(seconds, UTC):%Y-%m-%dT%H:%M:%S})"


def parse_iso(text: str) -> int:
    """ISO 8601 with ``Z`` to epoch ms."""
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


@pytest.fixture
def rt(monkeypatch: pytest.MonkeyPatch) -> Iterator[RealtimeEnv]:
    """The app on moto's DynamoDB and Scheduler, with a fake clock and notifier."""
    use_offline_aws(monkeypatch, TABLE)
    with mock_aws():
        import boto3

        lock = threading.Lock()
        store = DynamoStore(
            TABLE, REGION, client=LockedClient(boto3.client("dynamodb", region_name=REGION), lock)
        )
        store.ensure_table()
        scheduler = LockedClient(boto3.client("scheduler", region_name=REGION), lock)
        timers = SchedulerTimers(GROUP, TIMER_ARN, ROLE_ARN, REGION, client=scheduler)
        clock, notifier = FakeClock(), FakeNotifier()
        deps = wiring.Deps(
            store=store, notifier=notifier, timers=timers, clock=clock, roller=SeededRoller(11)
        )
        wiring.set_deps(deps)
        from app import app

        with Client(app) as client:
            yield RealtimeEnv(client, store, scheduler, timers, clock, notifier, deps)
        wiring.reset_deps()
        check_pushes(notifier.sent)  # every push fits docs/asyncapi.json
    reset_settings()
