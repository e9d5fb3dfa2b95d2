"""Operations resources in the synthesized templates: access logs, limits, DLQ, alarms, dashboard.

Reads the templates ``conftest.py`` synthesizes (default context values); the context parsing
itself is checked without a synth.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.infra.test_infra_stack import (
    STAGES,
    Template,
    as_list,
    functions_by_handler,
    only,
    render,
    resources,
    statements,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra"))

from operations import DEFAULT_CONCURRENCY, OpsSettings

ALARMED_FUNCTION_METRICS = ("Errors", "Throttles")


def log_group_ids(template: Template) -> dict[str, str]:
    """Log group logical ids by their names."""
    return {
        res["Properties"]["LogGroupName"]: rid
        for rid, res in resources(template, "AWS::Logs::LogGroup").items()
    }


def queue(template: Template) -> tuple[str, dict[str, Any]]:
    return only(template, "AWS::SQS::Queue")


def alarms(template: Template) -> dict[str, dict[str, Any]]:
    """Alarm properties by alarm name suffix (``...-Rest5xx`` -> ``Rest5xx``)."""
    return {
        res["Properties"]["AlarmName"].rsplit("-", 1)[-1]: res["Properties"]
        for res in resources(template, "AWS::CloudWatch::Alarm").values()
    }


# --- access logs and throttling ------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
def test_both_api_stages_write_json_access_logs_without_query_strings(
    templates: dict[str, Template], stage: str
) -> None:
    template = templates[stage]
    groups = log_group_ids(template)
    rest = template["Resources"]["RestAPI"]["Properties"]["AccessLogSetting"]
    ws = only(template, "AWS::ApiGatewayV2::Stage")[1]["Properties"]["AccessLogSettings"]
    for setting, name in ((rest, "rest-access"), (ws, "websocket-access")):
        group_id = groups[f"/aws/apigateway/liars-lies-{stage}-{name}"]
        assert setting["DestinationArn"] == {"Fn::GetAtt": [group_id, "Arn"]}
        fields = json.loads(setting["Format"])
        assert fields["requestId"] == "$context.requestId"
        assert fields["status"] == "$context.status"
        # $connect carries the WebSocket ticket in its query string: never logged.
        assert not any("querystring" in v.lower() or "$input" in v for v in fields.values())
    assert json.loads(ws["Format"])["connectionId"] == "$context.connectionId"


@pytest.mark.parametrize("stage", STAGES)
def test_access_log_groups_keep_the_stage_retention(
    templates: dict[str, Template], stage: str
) -> None:
    days = {"dev": 14, "prod": 90}[stage]
    for res in resources(templates[stage], "AWS::Logs::LogGroup").values():
        assert res["Properties"]["RetentionInDays"] == days


def test_both_stages_are_throttled_with_the_context_defaults(dev: Template) -> None:
    defaults = OpsSettings()
    (method,) = dev["Resources"]["RestAPI"]["Properties"]["MethodSettings"]
    assert method["ResourcePath"] == "/*" and method["HttpMethod"] == "*"
    assert method["ThrottlingRateLimit"] == defaults.throttle_rate
    assert method["ThrottlingBurstLimit"] == defaults.throttle_burst
    ws = only(dev, "AWS::ApiGatewayV2::Stage")[1]["Properties"]["DefaultRouteSettings"]
    assert ws["ThrottlingRateLimit"] == defaults.throttle_rate
    assert ws["ThrottlingBurstLimit"] == defaults.throttle_burst


def test_api_gateway_logs_with_an_account_role_that_outlives_the_stack(dev: Template) -> None:
    account_id, account = only(dev, "AWS::ApiGateway::Account")
    role_id = account["Properties"]["CloudWatchRoleArn"]["Fn::GetAtt"][0]
    role = dev["Resources"][role_id]
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "apigateway.amazonaws.com"}
    assert account["DeletionPolicy"] == "Retain" and role["DeletionPolicy"] == "Retain"
    # Logging is refused until the account has the role: both stages wait for it.
    _, ws_stage = only(dev, "AWS::ApiGatewayV2::Stage")
    assert account_id in as_list(ws_stage.get("DependsOn", []))
    assert account_id in as_list(dev["Resources"]["RestAPI"].get("DependsOn", []))


# --- functions: concurrency and dead letters ------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
def test_every_function_has_reserved_concurrency_and_the_dead_letter_queue(
    templates: dict[str, Template], stage: str
) -> None:
    template = templates[stage]
    queue_id, _ = queue(template)
    for handler, (_, function) in functions_by_handler(template).items():
        props = function["Properties"]
        name = "api_handler" if handler == "app.app" else handler.removeprefix("app.")
        assert props["ReservedConcurrentExecutions"] == DEFAULT_CONCURRENCY[name], handler
        assert props["DeadLetterQueue"] == {
            "Type": "SQS",
            "TargetArn": {"Fn::GetAtt": [queue_id, "Arn"]},
        }, handler


def test_the_dead_letter_queue_is_encrypted_kept_14_days_and_tls_only(dev: Template) -> None:
    _, res = queue(dev)
    assert res["Properties"]["SqsManagedSseEnabled"] is True
    assert res["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
    (policy,) = resources(dev, "AWS::SQS::QueuePolicy").values()
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_schedules_learn_the_dead_letter_queue_from_the_environment(dev: Template) -> None:
    queue_id, _ = queue(dev)
    for handler, (_, function) in functions_by_handler(dev).items():
        variables = function["Properties"]["Environment"]["Variables"]
        assert variables["TIMER_DEAD_LETTER_ARN"] == {"Fn::GetAtt": [queue_id, "Arn"]}, handler
        assert variables["POWERTOOLS_METRICS_NAMESPACE"] == "LiarsLies/dev"


def test_only_the_dead_letter_queue_may_be_sent_to(dev: Template) -> None:
    queue_id, _ = queue(dev)
    senders = [
        (rid, s)
        for rid, s in statements(dev)
        if any(a.lower().startswith("sqs:") for a in as_list(s["Action"]))
    ]
    assert len(senders) == 2  # the scheduler role and the app policy
    for rid, statement in senders:
        assert as_list(statement["Action"]) == ["sqs:SendMessage"], rid
        assert as_list(statement["Resource"]) == [{"Fn::GetAtt": [queue_id, "Arn"]}], rid


# --- alarms -----------------------------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
def test_alarms_cover_errors_throttles_5xx_dead_letters_and_dynamodb_throttles(
    templates: dict[str, Template], stage: str
) -> None:
    template = templates[stage]
    found = alarms(template)
    topic_id, _ = only(template, "AWS::SNS::Topic")
    for props in found.values():
        assert props["AlarmActions"] == [{"Ref": topic_id}]
        assert props["TreatMissingData"] == "notBreaching"
        assert props["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    for _, function in functions_by_handler(template).values():
        name = function["Properties"]["FunctionName"]
        watched = {
            props["MetricName"]
            for props in found.values()
            if props.get("Namespace") == "AWS/Lambda"
            and props["Dimensions"] == [{"Name": "FunctionName", "Value": name}]
        }
        assert watched == set(ALARMED_FUNCTION_METRICS), name

    rest = found["Rest5xx"]
    assert rest["Namespace"] == "AWS/ApiGateway" and rest["MetricName"] == "5XXError"
    dims = {d["Name"]: d["Value"] for d in rest["Dimensions"]}
    # The API is named so the metric can find it (dev and prod would share Chalice's title).
    assert dims["ApiName"] == template["Resources"]["RestAPI"]["Properties"]["Name"]
    assert dims["ApiName"] == f"liars-lies-{stage}-rest-api"

    letters = found["DeadLetters"]
    queue_id, _ = queue(template)
    assert letters["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert letters["Dimensions"] == [
        {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue_id, "QueueName"]}}
    ]
    assert letters["Threshold"] == 1

    dynamo = found["DynamoThrottles"]
    table_id, _ = only(template, "AWS::DynamoDB::Table")
    watched = {
        m["MetricStat"]["Metric"]["MetricName"]: m["MetricStat"]["Metric"]["Dimensions"]
        for m in dynamo["Metrics"]
        if "MetricStat" in m
    }
    assert set(watched) == {"ReadThrottleEvents", "WriteThrottleEvents"}
    for dimensions in watched.values():
        assert dimensions == [{"Name": "TableName", "Value": {"Ref": table_id}}]

    # The sweeper's count of rooms whose wake-up was lost (issue 30): any is a page.
    overdue = found["OverdueRooms"]
    assert overdue["Namespace"] == f"LiarsLies/{stage}"
    assert overdue["MetricName"] == "OverdueRooms"
    assert overdue["Dimensions"] == [{"Name": "service", "Value": "liars-lies"}]
    assert overdue["Threshold"] == 1


def test_the_alarm_topic_has_no_subscriber_without_an_alarm_email(dev: Template) -> None:
    assert resources(dev, "AWS::SNS::Subscription") == {}
    assert "AlarmTopicArn" in dev["Outputs"]


# --- dashboard ------------------------------------------------------------------------------


def test_the_dashboard_shows_actions_latency_conflicts_pushes_and_games(dev: Template) -> None:
    _, dashboard = only(dev, "AWS::CloudWatch::Dashboard")
    body = json.loads(render(dashboard["Properties"]["DashboardBody"]))
    widgets = {w["properties"]["title"]: json.dumps(w["properties"]) for w in body["widgets"]}
    by_title = {title.split(" (")[0].split(" per")[0]: text for title, text in widgets.items()}
    assert 'MetricName=\\"Actions\\"' in by_title["Actions"]
    assert '"p50"' in by_title["REST latency p50 / p99"]
    assert '"p99"' in by_title["REST latency p50 / p99"]
    assert "Conflicts" in by_title["Conflicts and timeouts"]
    assert "PushesSent" in by_title["Pushes"] and "PushesGone" in by_title["Pushes"]
    assert "GamesRunning" in by_title["Games running"]
    assert "LiarsLies/dev" in by_title["Actions"]


# --- context values ----------------------------------------------------------------------------


def context(**values: Any) -> Any:
    return values.get


def test_context_values_set_throttling_concurrency_and_the_alarm_email() -> None:
    ops = OpsSettings.from_context(
        context(
            throttle_rate="25",
            throttle_burst=40,
            reserved_concurrency='{"api_handler": 100}',
            alarm_email="ops@example.com",
            api_gateway_account_role="false",
        )
    )
    assert ops.throttle_rate == 25.0 and ops.throttle_burst == 40
    assert ops.concurrency["api_handler"] == 100
    assert ops.concurrency["room_timer"] == DEFAULT_CONCURRENCY["room_timer"]
    assert ops.alarm_email == "ops@example.com"
    assert ops.api_gateway_account_role is False
    assert OpsSettings.from_context(context()) == OpsSettings()


@pytest.mark.parametrize(
    "values",
    [
        {"throttle_rate": "0"},
        {"throttle_rate": "fast"},
        {"throttle_burst": "-1"},
        {"reserved_concurrency": "[1, 2]"},
        {"reserved_concurrency": '{"api_handler": 0}'},
        {"alarm_email": "not-an-address"},
    ],
)
def test_bad_context_values_are_refused(values: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        OpsSettings.from_context(context(**values))
