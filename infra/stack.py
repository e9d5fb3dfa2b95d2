"""The whole Liar's Lies backend as one CDK stack per stage.

The Chalice construct packages ``app.py`` (REST API, WebSocket API, Lambda functions and one
role per function, read from ``.chalice/config.json``). This stack adds what Chalice cannot
declare: the DynamoDB table, the EventBridge Scheduler group and the role it assumes, the
token secret, the least-privilege policy every function role gets, and the environment
variables ``chalicelib/settings.py`` reads.

Two CloudFormation cycles are avoided on purpose (see the comments where they matter):
the timer function's ARN is built from its fixed name instead of ``Fn::GetAtt``, and the
WebSocket stage name is copied as a literal instead of ``Ref``-ing the stage resource.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sam as sam
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sqs as sqs
from chalice.cdk import Chalice
from constructs import Construct
from edges import add_edge_answers
from operations import OpsSettings, add_operations

APP_NAME = "liars-lies"
TIMER_FUNCTION = "room_timer"
"""The ``@app.lambda_function`` name EventBridge Scheduler invokes with ``{room_id, version}``."""


@dataclass(frozen=True)
class StageSettings:
    """What differs between a throw-away stage and a production one."""

    production: bool
    log_retention: logs.RetentionDays

    @property
    def removal_policy(self) -> cdk.RemovalPolicy:
        """Production data survives a stack deletion; dev data does not."""
        return cdk.RemovalPolicy.RETAIN if self.production else cdk.RemovalPolicy.DESTROY


STAGES: dict[str, StageSettings] = {
    "dev": StageSettings(production=False, log_retention=logs.RetentionDays.TWO_WEEKS),
    "prod": StageSettings(production=True, log_retention=logs.RetentionDays.THREE_MONTHS),
}

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PushSettings:
    """Notifications' configuration from CDK context (docs/OPERATIONS.md, "Notifications").

    ``sns_apns_arn`` / ``sns_fcm_arn``: SNS platform applications (made by the operator with
    the APNs key or FCM credentials, which never enter this repository); without them mobile
    push is off. ``push_endpoint_allow``: the Web Push allow-list (default: the browsers'
    services). ``vapid_subject``: the contact push services see (``mailto:`` or ``https:``).
    """

    sns_apns_arn: str | None = None
    sns_fcm_arn: str | None = None
    push_endpoint_allow: str | None = None
    vapid_subject: str | None = None

    @classmethod
    def from_context(cls, get: Any) -> PushSettings:
        def text(key: str) -> str | None:
            value = get(key)
            if value is None or value == "":
                return None
            if not isinstance(value, str):
                raise ValueError(f"{key} must be a string")
            return value

        made = cls(
            text("sns_apns_application_arn"),
            text("sns_fcm_application_arn"),
            text("push_endpoint_allow"),
            text("vapid_subject"),
        )
        for arn in (made.sns_apns_arn, made.sns_fcm_arn):
            if arn is not None and ":app/" not in arn:
                raise ValueError(f"{arn!r} is not an SNS platform application ARN (…:app/…)")
        return made

    def environment(self) -> dict[str, str]:
        env = {
            "SNS_APNS_APPLICATION_ARN": self.sns_apns_arn,
            "SNS_FCM_APPLICATION_ARN": self.sns_fcm_arn,
            "PUSH_ENDPOINT_ALLOW": self.push_endpoint_allow,
            "VAPID_SUBJECT": self.vapid_subject,
        }
        return {k: v for k, v in env.items() if v}

    def statements(self) -> list[iam.PolicyStatement]:
        """Least privilege for mobile push: endpoints of these applications only."""
        apps = [a for a in (self.sns_apns_arn, self.sns_fcm_arn) if a]
        if not apps:
            return []
        endpoints = [a.replace(":app/", ":endpoint/", 1) + "/*" for a in apps]
        return [
            iam.PolicyStatement(
                sid="MobilePushEndpoints",
                actions=["sns:CreatePlatformEndpoint"],
                resources=apps,
            ),
            iam.PolicyStatement(
                sid="MobilePushSend",
                actions=["sns:Publish", "sns:DeleteEndpoint"],
                resources=endpoints,
            ),
        ]


class LiarsLiesStack(cdk.Stack):
    """One deployable stage of the backend: app, table, scheduler, secret and permissions."""

    def __init__(
        self,
        scope: Construct,
        stage: str,
        *,
        source_dir: Path = REPO_ROOT,
        token_secret_arn: str | None = None,
        ops: OpsSettings | None = None,
        cors_allow_origins: tuple[str, ...] = (),
        push: PushSettings | None = None,
        **kwargs: Any,
    ) -> None:
        """Declare the stage; the construct id is the Chalice stage name (the construct's rule)."""
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r}; known: {sorted(STAGES)}")
        settings = STAGES[stage]
        ops = ops or OpsSettings()
        super().__init__(scope, stage, stack_name=f"{APP_NAME}-{stage}", **kwargs)
        prefix = f"{APP_NAME}-{stage}"

        table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="sk", type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute="expires_at",
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            deletion_protection=settings.production,
            removal_policy=settings.removal_policy,
        )
        table.add_global_secondary_index(
            index_name="gsi1",
            partition_key=dynamodb.Attribute(name="gsi1pk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="gsi1sk", type=dynamodb.AttributeType.STRING),
            # As chalicelib/adapters/dynamo/_table.py creates it locally (a test compares the two).
            projection_type=dynamodb.ProjectionType.INCLUDE,
            non_key_attributes=["room_id", "summary"],
        )
        table.add_global_secondary_index(
            # The leaderboard (issue 18): sparse (only listed players carry lbpk) and sharded
            # over LB#0..LB#7 so no partition is hot; the rating is the sort key.
            index_name="gsi2",
            partition_key=dynamodb.Attribute(name="lbpk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="rating", type=dynamodb.AttributeType.NUMBER),
            projection_type=dynamodb.ProjectionType.INCLUDE,
            non_key_attributes=["user_id", "name", "games"],
        )
        table.add_global_secondary_index(
            # Pending deadlines (issue 30): sparse (only a room with a deadline carries dlpk),
            # by minute and shard; the room_sweeper function queries it for lost wake-ups.
            index_name="gsi3",
            partition_key=dynamodb.Attribute(name="dlpk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="dlsk", type=dynamodb.AttributeType.NUMBER),
            projection_type=dynamodb.ProjectionType.KEYS_ONLY,
        )

        # The signing key is generated by Secrets Manager at deploy time: it is in neither the
        # repository nor the template. An operator may bring their own with -c token_secret_arn=.
        if token_secret_arn:
            secret = secretsmanager.Secret.from_secret_complete_arn(
                self, "TokenSecret", token_secret_arn
            )
        else:
            secret = secretsmanager.Secret(
                self,
                "TokenSecret",
                description=f"{prefix}: key that signs session tokens and WebSocket tickets",
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    password_length=64, exclude_punctuation=True
                ),
                removal_policy=settings.removal_policy,
            )

        # The Web Push (VAPID) key is derived from this secret's text (chalicelib/webpush.py):
        # generated at deploy time, never rotated (browsers' subscriptions are bound to it).
        push = push or PushSettings()
        vapid_secret = secretsmanager.Secret(
            self,
            "VapidSecret",
            description=f"{prefix}: text the Web Push (VAPID) key is derived from; never rotate",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                password_length=64, exclude_punctuation=True
            ),
            removal_policy=settings.removal_policy,
        )

        group = scheduler.CfnScheduleGroup(self, "SchedulerGroup", name=prefix)
        schedules_arn = self.format_arn(
            service="scheduler",
            resource="schedule",
            resource_name=f"{group.name}/*",
        )

        chalice = Chalice(self, "Chalice", source_dir=str(source_dir))
        included = chalice.sam_template.node.children
        functions = [res for res in included if isinstance(res, sam.CfnFunction)]
        roles = [res for res in included if isinstance(res, iam.CfnRole)]

        # Fixed function names, as `chalice deploy` gives them. The timer's ARN is built from
        # its name: a GetAtt would make the function's own environment, and the scheduler role
        # the function passes, depend on the function itself (a cycle).
        # Log groups are declared here, not by Chalice's log_retention_in_days (its generated
        # Fn::Sub names a logical id that does not exist, which CfnInclude rejects).
        for function in functions:
            function.function_name = f"{prefix}-{python_name(function)}"
            logs.LogGroup(
                self,
                f"{function.node.id}Logs",
                log_group_name=f"/aws/lambda/{function.function_name}",
                retention=settings.log_retention,
                removal_policy=settings.removal_policy,
            )

        timer_arn = self.format_arn(
            service="lambda",
            resource="function",
            resource_name=f"{prefix}-{TIMER_FUNCTION}",
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )

        # Wake-ups that cannot be delivered: Scheduler's (after its RetryPolicy) and Lambda's
        # own asynchronous-invocation failures. An alarm fires on the first message.
        dead_letters = sqs.Queue(
            self,
            "TimerDeadLetters",
            queue_name=f"{prefix}-timer-dead-letters",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
            removal_policy=settings.removal_policy,
        )

        scheduler_role = iam.Role(
            self,
            "SchedulerRole",
            description=f"{prefix}: lets EventBridge Scheduler wake the room timer, nothing else",
            # Only schedules in this stage's group may assume it (confused-deputy guard).
            assumed_by=iam.ServicePrincipal(
                "scheduler.amazonaws.com",
                conditions={
                    "StringEquals": {"aws:SourceAccount": self.account},
                    "ArnEquals": {"aws:SourceArn": group.attr_arn},
                },
            ),
        )
        scheduler_role.add_to_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[timer_arn])
        )
        scheduler_role.add_to_policy(
            iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[dead_letters.queue_arn])
        )

        environment = {
            "TABLE_NAME": table.table_name,
            "TIMER_FUNCTION_ARN": timer_arn,
            "SCHEDULER_ROLE_ARN": scheduler_role.role_arn,
            "SCHEDULER_GROUP": str(group.name),
            "TOKEN_SECRET_ARN": secret.secret_arn,
            "TIMER_DEAD_LETTER_ARN": dead_letters.queue_arn,
            "VAPID_SECRET_ARN": vapid_secret.secret_arn,
            **push.environment(),
            **({"CORS_ALLOW_ORIGINS": ",".join(cors_allow_origins)} if cors_allow_origins else {}),
            # Powertools: EMF namespace per stage (chalicelib/observability.py)
            "POWERTOOLS_METRICS_NAMESPACE": f"LiarsLies/{stage}",
        }
        app_statements = [
            iam.PolicyStatement(
                sid="RoomsTable",
                actions=[
                    "dynamodb:GetItem",
                    "dynamodb:BatchGetItem",
                    "dynamodb:Query",
                    "dynamodb:PutItem",
                    "dynamodb:UpdateItem",
                    "dynamodb:DeleteItem",
                    "dynamodb:BatchWriteItem",
                    "dynamodb:ConditionCheckItem",
                ],
                resources=[table.table_arn, f"{table.table_arn}/index/*"],
            ),
            iam.PolicyStatement(
                sid="RoomTimers",
                actions=[
                    "scheduler:CreateSchedule",
                    "scheduler:UpdateSchedule",
                    "scheduler:DeleteSchedule",
                    "scheduler:GetSchedule",
                ],
                resources=[schedules_arn],
            ),
            iam.PolicyStatement(
                sid="PassSchedulerRole",
                actions=["iam:PassRole"],
                resources=[scheduler_role.role_arn],
                conditions={"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}},
            ),
            iam.PolicyStatement(
                sid="ReadTokenSecret",
                actions=["secretsmanager:GetSecretValue"],
                resources=[secret.secret_arn],
            ),
            iam.PolicyStatement(
                sid="ReadVapidSecret",
                actions=["secretsmanager:GetSecretValue"],
                resources=[vapid_secret.secret_arn],
            ),
            *push.statements(),
            iam.PolicyStatement(
                # Lambda writes a failed asynchronous invocation with the function's own role.
                sid="DeadLetters",
                actions=["sqs:SendMessage"],
                resources=[dead_letters.queue_arn],
            ),
        ]

        # Chalice declares the WebSocket API only when app.py has WebSocket handlers.
        by_id = {res.node.id: res for res in included}
        websocket_api = by_id.get("WebsocketAPI")
        if isinstance(websocket_api, cdk.CfnResource):
            # A Ref to the stage resource would be a cycle (stage -> deployment -> routes ->
            # integrations -> functions -> environment), so copy its name as a literal.
            ws_stage = str(by_id["WebsocketAPIStage"].stage_name)  # type: ignore[attr-defined]
            environment["WEBSOCKET_API_ID"] = websocket_api.ref
            environment["WEBSOCKET_STAGE"] = ws_stage
            app_statements.append(
                iam.PolicyStatement(
                    sid="PushToConnections",
                    actions=["execute-api:ManageConnections"],
                    resources=[
                        self.format_arn(
                            service="execute-api",
                            resource=websocket_api.ref,
                            resource_name=f"{ws_stage}/*/@connections/*",
                        )
                    ],
                )
            )
            cdk.CfnOutput(
                self,
                "WebSocketUrl",
                description="WebSocket URL (frontends connect with ?ticket=...)",
                value=cdk.Fn.sub(
                    "wss://${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}/" + ws_stage,
                    {"Api": websocket_api.ref},
                ),
            )

        app_policy = iam.Policy(
            self,
            "AppPolicy",
            statements=app_statements,
        )
        # Chalice makes one role per function (autogen_policy is off, so each holds only the
        # log permissions of .chalice/policy-logs.json); every function gets the same grants.
        for role in roles:
            app_policy.attach_to_role(iam.Role.from_role_name(self, f"{role.node.id}Ref", role.ref))

        for function in functions:
            for key, value in environment.items():
                chalice.add_environment_variable(key, value, function.node.id)

        rest_api = chalice.get_resource("RestAPI")
        # Undeclared methods reach the app (405 with Allow); API Gateway's own answers
        # (unknown path, throttling, timeouts) get the project's error shape.
        add_edge_answers(rest_api, cors_allow_origins)
        rest_stage = str(rest_api.stage_name)  # type: ignore[attr-defined]
        cdk.CfnOutput(
            self,
            "RestApiUrl",
            description="Base URL of the REST API (frontends call it)",
            value=cdk.Fn.sub(
                "https://${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}/" + rest_stage + "/",
                {"Api": rest_api.ref},
            ),
        )
        add_operations(
            self,
            prefix=prefix,
            stage=stage,
            ops=ops,
            retention=settings.log_retention,
            removal_policy=settings.removal_policy,
            functions={python_name(f): f for f in functions},
            rest_api=rest_api,
            websocket_stage=by_id.get("WebsocketAPIStage"),
            websocket_api=websocket_api,
            table=table,
            dead_letters=dead_letters,
        )
        cdk.CfnOutput(self, "TableName", value=table.table_name)
        cdk.CfnOutput(self, "TokenSecretArn", value=secret.secret_arn)
        cdk.CfnOutput(self, "VapidSecretArn", value=vapid_secret.secret_arn)


def python_name(function: sam.CfnFunction) -> str:
    """The Python function behind a packaged Lambda, from its ``app.<name>`` handler."""
    handler = str(function.handler)
    return handler.rsplit(".", 1)[-1] if handler != "app.app" else "api_handler"
