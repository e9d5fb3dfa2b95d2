"""A push API Gateway refuses (throttled past the retries, a network failure) is counted as
``PushesFailed``, the metric operators watch, and never as ``PushesSent``; the fan-out still
goes on to the other watchers and the change that pushed is not failed by it."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from chalicelib import effects, observability, retry, wiring
from chalicelib.adapters.fakes import FakeClock, FakeTimers
from chalicelib.adapters.notifier import ApiGatewayNotifier, endpoint_url
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from tests.realtime.test_observability import emf, metric_total


def test_a_refused_push_counts_as_failed_and_the_fan_out_goes_on(
    aws_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(retry, "sleep", lambda _s: None)
    clock = FakeClock()
    store = SqliteStore(clock=clock)
    for conn in ("c1", "c2"):
        store.put_connection(conn, None, clock.now_ms())
        store.subscribe(conn, "r1")
    client = boto3.client(
        "apigatewaymanagementapi",
        region_name="us-east-1",
        endpoint_url=endpoint_url("abc123", "ws", "us-east-1"),
    )
    stub = Stubber(client)
    for _ in range(retry.ATTEMPTS):  # the first watcher's push, every try throttled
        stub.add_client_error("post_to_connection", "LimitExceededException", http_status_code=429)
    stub.add_response("post_to_connection", {})  # the second watcher's
    notifier = observability.ObservedNotifier(
        ApiGatewayNotifier("abc123", "ws", "us-east-1", client=client)
    )
    deps = wiring.Deps(
        store=store,
        notifier=notifier,
        timers=FakeTimers(),
        clock=FakeClock(),
        roller=SeededRoller(1),
    )
    observability.enable()
    try:
        with stub:
            delivered = effects.publish_chat("r1", {"id": "m1", "text": "hi"}, deps=deps)
        observability.flush()
    finally:
        observability.disable()
    stub.assert_no_pending_responses()
    blobs = emf(capsys.readouterr().out)
    assert delivered == 1
    assert metric_total(blobs, "PushesFailed") == 1
    assert metric_total(blobs, "PushesSent") == 1
    assert store.get_connection("c1") is not None  # a refused push is no gone connection
