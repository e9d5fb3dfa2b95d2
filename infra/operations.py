"""What an operator needs around the app: access logs, limits, alarms and a dashboard.

``add_operations`` is called by ``LiarsLiesStack`` once the Chalice resources exist. It adds:

- JSON access logs on the REST and WebSocket stages (one log group each; no query strings, so
  no WebSocket ticket is ever logged) and the account-level role API Gateway logs with;
- stage throttling (steady rate and burst, the same for both stages);
- reserved concurrency for every function, and the timer dead-letter queue as every
  function's asynchronous-invocation DLQ (only the timer is invoked asynchronously);
- CloudWatch alarms to one SNS topic: Lambda errors and throttles, REST 5xx, dead letters
  present, DynamoDB throttles (``docs/OPERATIONS.md`` says what each means and what to do);
- a dashboard: actions per minute, REST latency p50/p99, conflicts, pushes, games.

Every limit is a CDK context value (``OpsSettings.from_context``), so an operator tunes it
with ``cdk deploy -c key=value`` without editing code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigateway
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sam as sam
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs

SERVICE = "liars-lies"  # the ``service`` dimension chalicelib/observability.py emits

DEFAULT_CONCURRENCY: dict[str, int] = {
    "api_handler": 20,
    "ws_connect": 5,
    "ws_message": 10,
    "ws_disconnect": 5,
    "room_timer": 10,
    "games_gauge": 1,
    "room_sweeper": 1,
}
"""Reserved concurrency per function (52 in all): small on purpose, see docs/OPERATIONS.md."""

REST_ACCESS_LOG = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "userAgent": "$context.identity.userAgent",
    "requestTime": "$context.requestTime",
    "method": "$context.httpMethod",
    "resource": "$context.resourcePath",
    "status": "$context.status",
    "responseLength": "$context.responseLength",
    "latencyMs": "$context.responseLatency",
    "integrationLatencyMs": "$context.integrationLatency",
    "error": "$context.error.message",
}
"""One JSON object per REST request; the path template, never the query string or headers."""

WEBSOCKET_ACCESS_LOG = {
    "requestId": "$context.requestId",
    "connectionId": "$context.connectionId",
    "routeKey": "$context.routeKey",
    "eventType": "$context.eventType",
    "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime",
    "status": "$context.status",
    "integrationLatencyMs": "$context.integrationLatency",
    "error": "$context.error.message",
}
"""One JSON object per WebSocket event; no query string (``$connect`` carries the ticket)."""


@dataclass(frozen=True)
class OpsSettings:
    """The operator's knobs, from CDK context (``-c key=value``); defaults in parentheses."""

    throttle_rate: float = 50.0
    """``throttle_rate``: steady requests per second per stage (50)."""
    throttle_burst: int = 100
    """``throttle_burst``: burst bucket per stage (100)."""
    concurrency: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_CONCURRENCY))
    """``reserved_concurrency``: JSON object, function name -> reserved executions."""
    alarm_email: str | None = None
    """``alarm_email``: subscribed to the alarm topic (confirm the email AWS sends)."""
    api_gateway_account_role: bool = True
    """``api_gateway_account_role``: declare API Gateway's account-wide CloudWatch role."""

    @classmethod
    def from_context(cls, get: Callable[[str], Any]) -> OpsSettings:
        """Read the settings with ``get`` (``node.try_get_context``); raise ValueError."""
        d = cls()
        concurrency = dict(DEFAULT_CONCURRENCY)
        raw = get("reserved_concurrency")
        if raw is not None:
            given = json.loads(raw) if isinstance(raw, str) else raw
            if not isinstance(given, dict):
                raise ValueError("reserved_concurrency must be a JSON object of name: number")
            for name, value in given.items():
                concurrency[str(name)] = _positive_int(f"reserved_concurrency.{name}", value)
        email = get("alarm_email")
        if email is not None and (not isinstance(email, str) or "@" not in email):
            raise ValueError("alarm_email must be an email address")
        return cls(
            throttle_rate=float(_positive_number("throttle_rate", get("throttle_rate"), d)),
            throttle_burst=_positive_int(
                "throttle_burst", get("throttle_burst") or d.throttle_burst
            ),
            concurrency=concurrency,
            alarm_email=email or None,
            api_gateway_account_role=_flag(get("api_gateway_account_role"), True),
        )


def _positive_number(name: str, value: Any, defaults: OpsSettings) -> float:
    if value is None:
        return float(getattr(defaults, name))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if number <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value!r}")
    return number


def _positive_int(name: str, value: Any) -> int:
    try:
        number = int(str(value), 10)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if number <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value!r}")
    return number


def _flag(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in ("false", "0", "no", "off")


def add_operations(
    scope: cdk.Stack,
    *,
    prefix: str,
    stage: str,
    ops: OpsSettings,
    retention: logs.RetentionDays,
    removal_policy: cdk.RemovalPolicy,
    functions: Mapping[str, sam.CfnFunction],
    rest_api: cdk.CfnResource,
    websocket_stage: Any,
    websocket_api: Any,
    table: dynamodb.Table,
    dead_letters: sqs.Queue,
) -> None:
    """Add access logs, limits, DLQs, alarms and the dashboard around the Chalice resources."""
    _access_logs_and_throttling(
        scope, prefix, ops, retention, removal_policy, rest_api, websocket_stage
    )

    unknown = sorted(set(ops.concurrency) - set(functions))
    if unknown:
        raise ValueError(
            f"reserved_concurrency names no function: {unknown}; known: {sorted(functions)}"
        )
    for name, function in functions.items():
        function.reserved_concurrent_executions = ops.concurrency.get(
            name, DEFAULT_CONCURRENCY.get(name, 5)
        )
        # Only asynchronous invocations use it: the timer's (Scheduler invokes it so). On the
        # synchronous API and WebSocket handlers it never receives anything.
        function.dead_letter_queue = sam.CfnFunction.DeadLetterQueueProperty(
            target_arn=dead_letters.queue_arn, type="SQS"
        )

    topic = sns.Topic(
        scope,
        "AlarmTopic",
        topic_name=f"{prefix}-alarms",
        display_name=f"{prefix} alarms",
        enforce_ssl=True,
    )
    if ops.alarm_email:
        topic.add_subscription(subscriptions.EmailSubscription(ops.alarm_email))
    notify = cw_actions.SnsAction(topic)
    rest_name = f"{prefix}-rest-api"
    rest_stage = str(rest_api.stage_name)  # type: ignore[attr-defined]
    namespace = f"LiarsLies/{stage}"

    def alarm(
        cid: str, metric: cloudwatch.IMetric, description: str, threshold: float = 1
    ) -> cloudwatch.Alarm:
        made = cloudwatch.Alarm(
            scope,
            cid,
            alarm_name=f"{prefix}-{cid}",
            alarm_description=description + " See docs/OPERATIONS.md.",
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        made.add_alarm_action(notify)
        return made

    five_minutes = cdk.Duration.minutes(5)
    for name, function in functions.items():
        dims = {"FunctionName": str(function.function_name)}
        alarm(
            f"{_camel(name)}Errors",
            cloudwatch.Metric(
                namespace="AWS/Lambda",
                metric_name="Errors",
                dimensions_map=dims,
                statistic="Sum",
                period=five_minutes,
            ),
            f"{name}: the function raised (the app maps every error, so this is a bug or a timeout).",
        )
        alarm(
            f"{_camel(name)}Throttles",
            cloudwatch.Metric(
                namespace="AWS/Lambda",
                metric_name="Throttles",
                dimensions_map=dims,
                statistic="Sum",
                period=five_minutes,
            ),
            f"{name}: invocations refused at its reserved concurrency.",
        )
    alarm(
        "Rest5xx",
        cloudwatch.Metric(
            namespace="AWS/ApiGateway",
            metric_name="5XXError",
            dimensions_map={"ApiName": rest_name, "Stage": rest_stage},
            statistic="Sum",
            period=five_minutes,
        ),
        "REST API answered 5xx (503 on an AWS fault, or a bug).",
    )
    alarm(
        "DeadLetters",
        dead_letters.metric_approximate_number_of_messages_visible(
            statistic="Maximum", period=five_minutes
        ),
        "Room wake-ups could not be delivered and are waiting in the dead-letter queue.",
    )
    alarm(
        "DynamoThrottles",
        cloudwatch.MathExpression(
            expression="reads + writes",
            using_metrics={
                "reads": table.metric("ReadThrottleEvents", statistic="Sum", period=five_minutes),
                "writes": table.metric("WriteThrottleEvents", statistic="Sum", period=five_minutes),
            },
            label="DynamoDB throttle events",
            period=five_minutes,
        ),
        "DynamoDB throttled reads or writes of the rooms table.",
    )
    alarm(
        "OverdueRooms",
        cloudwatch.Metric(
            namespace=namespace,
            metric_name="OverdueRooms",
            dimensions_map={"service": SERVICE},
            statistic="Maximum",
            period=five_minutes,
        ),
        "The sweeper found rooms whose deadline passed over a minute ago: their Scheduler "
        "wake-ups were lost (it woke them).",
    )

    _dashboard(scope, prefix, namespace, rest_name, rest_stage, functions)
    cdk.CfnOutput(scope, "AlarmTopicArn", value=topic.topic_arn)
    cdk.CfnOutput(scope, "TimerDeadLetterQueueUrl", value=dead_letters.queue_url)


def _access_logs_and_throttling(
    scope: cdk.Stack,
    prefix: str,
    ops: OpsSettings,
    retention: logs.RetentionDays,
    removal_policy: cdk.RemovalPolicy,
    rest_api: cdk.CfnResource,
    websocket_stage: Any,
) -> None:
    account: cdk.CfnResource | None = None
    if ops.api_gateway_account_role:
        # API Gateway writes access logs with one role per account and region. The role and
        # the setting outlive the stack: another stage (or stack) may be logging with them.
        role = iam.Role(
            scope,
            "ApiGatewayLogsRole",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name(
                    "service-role/AmazonAPIGatewayPushToCloudWatchLogs"
                )
            ],
        )
        role.apply_removal_policy(cdk.RemovalPolicy.RETAIN)
        account = apigateway.CfnAccount(
            scope, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn
        )
        account.apply_removal_policy(cdk.RemovalPolicy.RETAIN)

    rest_logs = logs.LogGroup(
        scope,
        "RestAccessLogs",
        log_group_name=f"/aws/apigateway/{prefix}-rest-access",
        retention=retention,
        removal_policy=removal_policy,
    )
    rest_api.add_property_override("Name", f"{prefix}-rest-api")
    rest_api.add_property_override(
        "AccessLogSetting",
        {"DestinationArn": rest_logs.log_group_arn, "Format": json.dumps(REST_ACCESS_LOG)},
    )
    rest_api.add_property_override(
        "MethodSettings",
        [
            {
                "ResourcePath": "/*",
                "HttpMethod": "*",
                "ThrottlingRateLimit": ops.throttle_rate,
                "ThrottlingBurstLimit": ops.throttle_burst,
            }
        ],
    )
    if account is not None:
        rest_api.node.add_dependency(account)

    if isinstance(websocket_stage, cdk.CfnResource):
        ws_logs = logs.LogGroup(
            scope,
            "WebSocketAccessLogs",
            log_group_name=f"/aws/apigateway/{prefix}-websocket-access",
            retention=retention,
            removal_policy=removal_policy,
        )
        websocket_stage.add_property_override(
            "AccessLogSettings",
            {"DestinationArn": ws_logs.log_group_arn, "Format": json.dumps(WEBSOCKET_ACCESS_LOG)},
        )
        websocket_stage.add_property_override(
            "DefaultRouteSettings",
            {
                "ThrottlingRateLimit": ops.throttle_rate,
                "ThrottlingBurstLimit": ops.throttle_burst,
            },
        )
        if account is not None:
            websocket_stage.node.add_dependency(account)


def _dashboard(
    scope: cdk.Stack,
    prefix: str,
    namespace: str,
    rest_name: str,
    rest_stage: str,
    functions: Mapping[str, sam.CfnFunction],
) -> None:
    minute = cdk.Duration.minutes(1)

    def app_metric(name: str, label: str, statistic: str = "Sum") -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace=namespace,
            metric_name=name,
            dimensions_map={"service": SERVICE},
            statistic=statistic,
            period=minute,
            label=label,
        )

    def by(
        dimension: str, name: str, label: str, statistic: str = "Sum"
    ) -> cloudwatch.MathExpression:
        # One line per value of the dimension (kind of action, rule system).
        return cloudwatch.MathExpression(
            expression=(
                f"SEARCH('{{{namespace},service,{dimension}}} MetricName=\"{name}\"', "
                f"'{statistic}', 60)"
            ),
            using_metrics={},
            label=label,
            period=minute,
        )

    def latency(stat: str) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace="AWS/ApiGateway",
            metric_name="Latency",
            dimensions_map={"ApiName": rest_name, "Stage": rest_stage},
            statistic=stat,
            period=minute,
            label=f"REST {stat}",
        )

    dashboard = cloudwatch.Dashboard(scope, "Dashboard", dashboard_name=f"{prefix}-operations")
    dashboard.add_widgets(
        cloudwatch.GraphWidget(
            title="Actions per minute (by kind)",
            left=[by("kind", "Actions", "")],
            width=12,
        ),
        cloudwatch.GraphWidget(
            title="REST latency p50 / p99 (ms)",
            left=[latency("p50"), latency("p99")],
            width=12,
        ),
    )
    dashboard.add_widgets(
        cloudwatch.GraphWidget(
            title="Conflicts and timeouts per minute",
            left=[
                app_metric("Conflicts", "conflicts (409 or server retry)"),
                app_metric("TimeoutsApplied", "turn timeouts applied"),
            ],
            width=12,
        ),
        cloudwatch.GraphWidget(
            title="Pushes per minute",
            left=[
                app_metric("PushesSent", "sent"),
                app_metric("PushesGone", "gone (410)"),
                app_metric("PushesFailed", "failed"),
            ],
            width=12,
        ),
    )
    dashboard.add_widgets(
        cloudwatch.GraphWidget(
            title="Games started and finished per minute (by rules)",
            left=[by("rules", "GamesStarted", "started")],
            right=[by("rules", "GamesFinished", "finished")],
            width=12,
        ),
        cloudwatch.GraphWidget(
            title="Games running (sampled every 5 minutes)",
            left=[
                cloudwatch.Metric(
                    namespace=namespace,
                    metric_name="GamesRunning",
                    dimensions_map={"service": SERVICE},
                    statistic="Maximum",
                    period=cdk.Duration.minutes(5),
                    label="rooms playing",
                )
            ],
            width=12,
        ),
    )
    dashboard.add_widgets(
        cloudwatch.GraphWidget(
            title="Schedules per minute",
            left=[
                app_metric("SchedulesCreated", "created"),
                app_metric("SchedulesFailed", "failed"),
            ],
            width=8,
        ),
        cloudwatch.GraphWidget(
            title="Bot decision time p99 (ms, by rules)",
            left=[by("rules", "BotDecisionTime", "", statistic="p99")],
            width=8,
        ),
        cloudwatch.GraphWidget(
            title="Lambda errors and throttles",
            left=[
                cloudwatch.Metric(
                    namespace="AWS/Lambda",
                    metric_name=metric,
                    dimensions_map={"FunctionName": str(f.function_name)},
                    statistic="Sum",
                    period=minute,
                    label=f"{name} {metric.lower()}",
                )
                for name, f in functions.items()
                for metric in ("Errors", "Throttles")
            ],
            width=8,
        ),
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
