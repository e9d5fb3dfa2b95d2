"""EventBridge Scheduler timers and WebSocket pushes, on moto and botocore's Stubber."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from chalicelib import retry
from chalicelib.adapters.fakes import FakeNotifier, FakeTimers
from chalicelib.adapters.notifier import ApiGatewayNotifier, endpoint_url
from chalicelib.adapters.scheduler import SchedulerTimers, at_expression, schedule_name
from chalicelib.ports import Unavailable

TARGET = "arn:aws:lambda:us-east-1:123456789012:function:liars-lies-dev-room_timer"
ROLE = "arn:aws:iam::123456789012:role/liars-scheduler"


@pytest.fixture
def timers(moto_aws: None) -> Iterator[SchedulerTimers]:
    yield SchedulerTimers("default", TARGET, ROLE, "us-east-1")


def test_at_expression_is_utc_and_rounds_up_to_the_next_second() -> None:
    assert at_expression(1_700_000_000_000) == "at(2023-11-14T22:13:20)"
    assert at_expression(1_700_000_000_001) == "at(2023-11-14T22:13:21)"
    assert at_expression(1_700_000_000_999) == "at(2023-11-14T22:13:21)"


def test_schedule_names_are_deterministic_and_valid() -> None:
    assert schedule_name("abc123", 7) == "room-abc123-v7"
    odd = schedule_name("room/with=odd chars", 3)
    long = schedule_name("x" * 80, 12345)
    for name in (odd, long):
        assert len(name) <= 64 and all(c.isalnum() or c in "-_." for c in name)
    assert odd == schedule_name("room/with=odd chars", 3) and odd != schedule_name("other", 3)


def test_schedule_creates_a_one_time_self_deleting_schedule(timers: SchedulerTimers) -> None:
    timers.schedule("r1", 4, 1_700_000_000_500)
    got = timers.client.get_schedule(Name="room-r1-v4", GroupName="default")
    assert got["ScheduleExpression"] == "at(2023-11-14T22:13:21)"
    assert got["ScheduleExpressionTimezone"] == "UTC"
    assert got["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert got["ActionAfterCompletion"] == "DELETE"
    assert got["Target"]["Arn"] == TARGET and got["Target"]["RoleArn"] == ROLE
    assert json.loads(got["Target"]["Input"]) == {"room_id": "r1", "version": 4}
    assert got["Target"]["RetryPolicy"] == {
        "MaximumRetryAttempts": 3,
        "MaximumEventAgeInSeconds": 300,
    }


def test_repeated_schedule_is_harmless_and_cancel_deletes(timers: SchedulerTimers) -> None:
    timers.schedule("r1", 4, 1_700_000_000_000)
    timers.schedule("r1", 4, 1_700_000_000_000)
    timers.cancel("r1", 4)
    timers.cancel("r1", 4)
    names = [s["Name"] for s in timers.client.list_schedules()["Schedules"]]
    assert names == []


def test_other_scheduler_errors_propagate(aws_env: None) -> None:
    client = boto3.client("scheduler", region_name="us-east-1")
    timers = SchedulerTimers("default", TARGET, ROLE, client=client)
    stub = Stubber(client)
    stub.add_client_error("create_schedule", "ValidationException", http_status_code=400)
    stub.add_client_error("delete_schedule", "AccessDeniedException", http_status_code=403)
    # Not swallowed: raised as Unavailable (refused), with the AWS error as its cause.
    with stub, pytest.raises(Unavailable) as err:
        timers.schedule("r1", 1, 1_700_000_000_000)
    assert isinstance(err.value.__cause__, ClientError) and err.value.reason == "refused"
    assert err.value.__cause__.response["Error"]["Code"] == "ValidationException"
    with stub, pytest.raises(Unavailable) as err:
        timers.cancel("r1", 1)
    assert isinstance(err.value.__cause__, ClientError)
    assert err.value.__cause__.response["Error"]["Code"] == "AccessDeniedException"


def test_fake_timers_keep_the_first_and_report_due() -> None:
    fake = FakeTimers()
    fake.schedule("r1", 2, 5_000)
    fake.schedule("r1", 2, 9_000)
    fake.schedule("r2", 1, 1_000)
    assert fake.due(5_000) == [("r2", 1), ("r1", 2)]
    fake.cancel("r2", 1)
    assert fake.due(10_000) == [("r1", 2)]


# --- notifier -----------------------------------------------------------------------------


def _stubbed(aws_env: None) -> tuple[ApiGatewayNotifier, Stubber]:
    client = boto3.client(
        "apigatewaymanagementapi",
        region_name="us-east-1",
        endpoint_url=endpoint_url("abc123", "ws", "us-east-1"),
    )
    return ApiGatewayNotifier("abc123", "ws", "us-east-1", client=client), Stubber(client)


def test_endpoint_is_built_from_api_id_stage_and_region() -> None:
    url = endpoint_url("abc123", "ws", "eu-west-1")
    assert url == "https://abc123.execute-api.eu-west-1.amazonaws.com/ws"


def test_send_posts_compact_json(aws_env: None) -> None:
    notifier, stub = _stubbed(aws_env)
    stub.add_response("post_to_connection", {}, {"ConnectionId": "c1", "Data": b'{"type":"pong"}'})
    with stub:
        assert notifier.send("c1", {"type": "pong"}) is True
    stub.assert_no_pending_responses()


def test_gone_connection_answers_false(aws_env: None) -> None:
    notifier, stub = _stubbed(aws_env)
    stub.add_client_error("post_to_connection", "GoneException", http_status_code=410)
    with stub:
        assert notifier.send("c1", {"type": "pong"}) is False


def test_other_failures_are_raised_for_the_fan_out_to_log_and_count(
    aws_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Never delivered, never gone: raised (the fan-out logs it, counts PushesFailed, goes on;
    # tests/adapters/test_push_failure_metrics.py and the realtime tests hold the action whole).
    monkeypatch.setattr(retry, "sleep", lambda _s: None)
    notifier, stub = _stubbed(aws_env)
    for _ in range(retry.ATTEMPTS):
        stub.add_client_error("post_to_connection", "LimitExceededException", http_status_code=429)
    with stub, pytest.raises(Unavailable):
        notifier.send("c1", {"type": "pong"})


def test_send_against_moto_succeeds(moto_aws: None) -> None:
    notifier = ApiGatewayNotifier("abc123", "ws", "us-east-1")
    assert notifier.send("c1", {"type": "room", "room": {"id": "r1"}}) is True


def test_fake_notifier_records_and_honours_gone() -> None:
    fake = FakeNotifier(gone={"dead"})
    assert fake.send("c1", {"type": "pong"})
    assert not fake.send("dead", {"type": "pong"})
    assert fake.sent == [("c1", {"type": "pong"})]
    assert fake.messages_for("c1") == [{"type": "pong"}]
