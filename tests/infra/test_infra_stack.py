"""The synthesized CloudFormation template, checked offline: lint, data, references, IAM, routes.

Each assertion reads the template the CDK app writes for a stage (``conftest.py``); none
needs an AWS account. Environment names are checked against ``chalicelib/settings.py`` so
the stack and the code cannot drift apart silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cfnlint.api import lint_file

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGES = ("dev", "prod")  # as in conftest.py
Template = dict[str, Any]

# What the code reads: settings.py, and Powertools' namespace variable in observability.py.
SETTINGS_SOURCE = "".join(
    (REPO_ROOT / "chalicelib" / name).read_text() for name in ("settings.py", "observability.py")
)

# Every deployed function needs these to reach its table, push to WebSockets and set timers.
REQUIRED_ENV = (
    "TABLE_NAME",
    "WEBSOCKET_API_ID",
    "WEBSOCKET_STAGE",
    "TIMER_FUNCTION_ARN",
    "SCHEDULER_ROLE_ARN",
    "SCHEDULER_GROUP",
    "TIMER_DEAD_LETTER_ARN",
)
TOKEN_SECRET_REFERENCES = ("TOKEN_SECRET_ARN", "TOKEN_SECRET_PARAM")
WEBSOCKET_HANDLERS = {
    "$connect": "app.ws_connect",
    "$default": "app.ws_message",
    "$disconnect": "app.ws_disconnect",
}
TIMER_HANDLER = "app.room_timer"
PSEUDO_PREFIX = "AWS::"


# --- template helpers --------------------------------------------------------------------


def resources(template: Template, kind: str) -> dict[str, dict[str, Any]]:
    """Resources of one CloudFormation type, by logical id."""
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def token_secret(template: Template) -> tuple[str, dict[str, Any]]:
    """The token-signing secret (the stack also makes the VAPID key's secret)."""
    found = {
        rid: r
        for rid, r in resources(template, "AWS::SecretsManager::Secret").items()
        if rid.startswith("TokenSecret")
    }
    assert len(found) == 1, sorted(found)
    return next(iter(found.items()))


def only(template: Template, kind: str) -> tuple[str, dict[str, Any]]:
    """The single resource of a type (fails if there are none or several)."""
    found = resources(template, kind)
    assert len(found) == 1, f"expected one {kind}, found {sorted(found)}"
    return next(iter(found.items()))


def functions_by_handler(template: Template) -> dict[str, tuple[str, dict[str, Any]]]:
    """Lambda functions keyed by handler (``app.ws_connect``), with their logical id."""
    found = resources(template, "AWS::Serverless::Function")
    return {res["Properties"]["Handler"]: (fid, res) for fid, res in found.items()}


def placeholder(name: str) -> str:
    """How ``render`` shows a reference: ``${Name}`` or ``${Name.Attribute}``."""
    return "${" + name + "}"


def render(value: Any) -> str:
    """A string-valued intrinsic as text: ``Ref X`` -> ``${X}``, ``GetAtt X.A`` -> ``${X.A}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref":
            return placeholder(arg)
        if fn == "Fn::GetAtt":
            return placeholder(".".join(arg) if isinstance(arg, list) else arg)
        if fn == "Fn::Join":
            return str(arg[0]).join(render(part) for part in arg[1])
        if fn == "Fn::Sub":
            text, variables = (arg, {}) if isinstance(arg, str) else arg
            for name, sub in variables.items():
                text = text.replace(placeholder(name), render(sub))
            return text
    raise AssertionError(f"cannot render {value!r}")


def references(node: Any) -> Iterator[tuple[str, str]]:
    """Every (kind, logical id) a Ref, GetAtt, Sub or DependsOn in ``node`` points to."""
    if isinstance(node, list):
        for item in node:
            yield from references(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "Ref":
            yield "Ref", value
        elif key == "Fn::GetAtt":
            target = value[0] if isinstance(value, list) else value.split(".", 1)[0]
            yield "GetAtt", target
        elif key == "Fn::Sub":
            text, variables = (value, {}) if isinstance(value, str) else value
            for name in re.findall(r"\$\{([^}!][^}]*)\}", text):
                target = name.split(".", 1)[0]
                if target not in variables:
                    yield "Sub", target
            yield from references(variables)
        elif key == "DependsOn":
            for target in [value] if isinstance(value, str) else value:
                yield "DependsOn", target
        else:
            yield from references(value)


def statements(template: Template) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every IAM policy statement in the template, with the logical id that holds it."""
    for rid, res in template["Resources"].items():
        props = res.get("Properties", {})
        if res["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            docs = [props["PolicyDocument"]]
        elif res["Type"] == "AWS::IAM::Role":
            docs = [p["PolicyDocument"] for p in props.get("Policies", [])]
        else:
            continue
        for doc in docs:
            for statement in doc["Statement"]:
                yield rid, statement


def as_list(value: Any) -> list[Any]:
    """A scalar or list IAM field as a list."""
    return value if isinstance(value, list) else [value]


def env_of(function: dict[str, Any]) -> dict[str, Any]:
    """A function's environment variables."""
    variables: dict[str, Any] = function["Properties"].get("Environment", {}).get("Variables", {})
    return variables


# --- lint --------------------------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
def test_cfn_lint_finds_no_errors(template_paths: dict[str, Path], stage: str) -> None:
    matches = lint_file(template_paths[stage])
    errors = [str(m) for m in matches if m.rule.id.startswith("E")]
    assert errors == []


# --- data --------------------------------------------------------------------------------


def test_table_has_string_keys_ttl_pitr_and_gsi1(dev: Template) -> None:
    _, table = only(dev, "AWS::DynamoDB::Table")
    props = table["Properties"]
    assert props["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    types = {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]}
    assert types == {
        "pk": "S",
        "sk": "S",
        "gsi1pk": "S",
        "gsi1sk": "S",
        "lbpk": "S",
        "rating": "N",
        "dlpk": "S",
        "dlsk": "N",
    }
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    gsi, board, due = props["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "gsi1"
    assert gsi["KeySchema"] == [
        {"AttributeName": "gsi1pk", "KeyType": "HASH"},
        {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
    ]
    assert board["IndexName"] == "gsi2"  # the leaderboard (issue 18)
    assert board["KeySchema"] == [
        {"AttributeName": "lbpk", "KeyType": "HASH"},
        {"AttributeName": "rating", "KeyType": "RANGE"},
    ]
    # The sweeper's sparse index of pending deadlines (issue 30): keys only, never scanned.
    assert due["IndexName"] == "gsi3"
    assert due["KeySchema"] == [
        {"AttributeName": "dlpk", "KeyType": "HASH"},
        {"AttributeName": "dlsk", "KeyType": "RANGE"},
    ]
    assert due["Projection"] == {"ProjectionType": "KEYS_ONLY"}


def test_the_sweeper_runs_every_minute_and_may_query_the_deadline_index(dev: Template) -> None:
    _, (_, sweeper) = next(
        (h, f) for h, f in functions_by_handler(dev).items() if h == "app.room_sweeper"
    )
    schedules = [
        e["Properties"]["Schedule"]
        for e in sweeper["Properties"].get("Events", {}).values()
        if e["Type"] == "Schedule"
    ]
    assert schedules == ["rate(1 minute)"]
    table_id, _ = only(dev, "AWS::DynamoDB::Table")
    queries = [
        st
        for _, st in statements(dev)
        if "dynamodb:Query" in as_list(st["Action"])
        and any("/index/" in render(r) for r in as_list(st["Resource"]))
    ]
    assert queries, "no statement allows a Query of the table's indexes"
    assert all(all(table_id in render(r) for r in as_list(st["Resource"])) for st in queries), (
        "the index Query is allowed on another table"
    )


class RecordingDynamoClient:
    """Records the table the store's ``ensure_table`` would create (no AWS, no moto)."""

    def __init__(self) -> None:
        self.calls: dict[str, dict[str, Any]] = {}

    def create_table(self, **kwargs: Any) -> None:
        self.calls["create_table"] = kwargs

    def update_time_to_live(self, **kwargs: Any) -> None:
        self.calls["update_time_to_live"] = kwargs

    def get_waiter(self, name: str) -> Any:
        return self

    def wait(self, **kwargs: Any) -> None:
        return None


def test_table_matches_the_one_the_store_adapter_creates(dev: Template) -> None:
    from chalicelib.adapters.dynamo import DynamoStore

    client = RecordingDynamoClient()
    DynamoStore("liars-lies", client=client).ensure_table()
    created = client.calls["create_table"]
    _, table = only(dev, "AWS::DynamoDB::Table")
    props = table["Properties"]

    def by_name(items: list[dict[str, Any]], key: str) -> dict[str, Any]:
        return {item[key]: item for item in items}

    assert props["KeySchema"] == created["KeySchema"]
    assert by_name(props["AttributeDefinitions"], "AttributeName") == by_name(
        created["AttributeDefinitions"], "AttributeName"
    )
    assert by_name(props["GlobalSecondaryIndexes"], "IndexName") == by_name(
        created["GlobalSecondaryIndexes"], "IndexName"
    )
    assert props["BillingMode"] == created["BillingMode"]
    ttl = client.calls["update_time_to_live"]["TimeToLiveSpecification"]
    assert props["TimeToLiveSpecification"] == ttl


def test_production_table_is_protected_and_dev_is_disposable(dev: Template, prod: Template) -> None:
    _, prod_table = only(prod, "AWS::DynamoDB::Table")
    _, dev_table = only(dev, "AWS::DynamoDB::Table")
    assert prod_table["Properties"]["DeletionProtectionEnabled"] is True
    assert prod_table["DeletionPolicy"] == "Retain"
    assert dev_table["Properties"].get("DeletionProtectionEnabled", False) is False
    assert dev_table["DeletionPolicy"] == "Delete"


def test_token_secret_value_is_generated_at_deploy_not_written_in_the_template(
    dev: Template,
) -> None:
    _, secret = token_secret(dev)
    assert "GenerateSecretString" in secret["Properties"]
    assert "SecretString" not in secret["Properties"]
    for _, function in functions_by_handler(dev).values():
        assert "TOKEN_SECRET" not in env_of(function)


# --- references --------------------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
def test_every_ref_and_getatt_target_exists(templates: dict[str, Template], stage: str) -> None:
    template = templates[stage]
    known = set(template["Resources"]) | set(template.get("Parameters", {}))
    sections = {k: template.get(k, {}) for k in ("Resources", "Outputs", "Conditions")}
    dangling = sorted(
        {
            (kind, target)
            for kind, target in references(sections)
            if not target.startswith(PSEUDO_PREFIX) and target not in known
        }
    )
    assert dangling == []


def test_reference_walker_sees_getatt_inside_iam_policies() -> None:
    """The walker must catch what cfn-lint once missed (NOTES-AWS.md)."""
    policy = {"Statement": [{"Resource": [{"Fn::GetAtt": ["Gone", "Arn"]}]}]}
    sub = {"Fn::Sub": ["${A}/${B.Arn}/${AWS::Region}", {"A": "x"}]}
    assert set(references([policy, sub])) == {
        ("GetAtt", "Gone"),
        ("Sub", "B"),
        ("Sub", "AWS::Region"),
    }


# --- functions and their environment ------------------------------------------------------


@pytest.mark.parametrize("name", [*REQUIRED_ENV, *TOKEN_SECRET_REFERENCES])
def test_settings_still_reads_each_variable_the_stack_sets(name: str) -> None:
    assert f'"{name}"' in SETTINGS_SOURCE


def test_timer_and_websocket_handlers_are_deployed(dev: Template) -> None:
    handlers = functions_by_handler(dev)
    assert TIMER_HANDLER in handlers
    assert set(WEBSOCKET_HANDLERS.values()) <= set(handlers)
    assert "app.app" in handlers


def test_every_function_gets_the_environment_the_code_reads(dev: Template) -> None:
    table_id, _ = only(dev, "AWS::DynamoDB::Table")
    secret_id, _ = token_secret(dev)
    _, group = only(dev, "AWS::Scheduler::ScheduleGroup")
    stage_name = only(dev, "AWS::ApiGatewayV2::Stage")[1]["Properties"]["StageName"]
    scheduler_role_id = scheduler_role(dev)[0]
    _, timer = functions_by_handler(dev)[TIMER_HANDLER]
    for handler, (_, function) in functions_by_handler(dev).items():
        env = env_of(function)
        missing = [n for n in REQUIRED_ENV if n not in env]
        assert missing == [], handler
        assert any(n in env for n in TOKEN_SECRET_REFERENCES), handler
        stray = [n for n in env if f'"{n}"' not in SETTINGS_SOURCE]
        assert stray == [], handler
        assert env["TABLE_NAME"] == {"Ref": table_id}
        assert env["WEBSOCKET_API_ID"] == {"Ref": "WebsocketAPI"}
        assert env["WEBSOCKET_STAGE"] == stage_name
        assert render(env["TIMER_FUNCTION_ARN"]).endswith(
            ":function:" + timer["Properties"]["FunctionName"]
        )
        assert env["SCHEDULER_ROLE_ARN"] == {"Fn::GetAtt": [scheduler_role_id, "Arn"]}
        assert env["SCHEDULER_GROUP"] == group["Properties"]["Name"]
        assert env["TOKEN_SECRET_ARN"] == {"Ref": secret_id}


def test_functions_fit_inside_the_api_gateway_integration_timeout(dev: Template) -> None:
    for handler, (_, function) in functions_by_handler(dev).items():
        assert 128 <= function["Properties"]["MemorySize"] <= 3008, handler
        assert function["Properties"]["Timeout"] < 29, handler


# --- IAM -----------------------------------------------------------------------------------


def scheduler_role(template: Template) -> tuple[str, dict[str, Any]]:
    """The one role EventBridge Scheduler may assume."""
    found = [
        (rid, role)
        for rid, role in resources(template, "AWS::IAM::Role").items()
        if any(
            s["Principal"].get("Service") == "scheduler.amazonaws.com"
            for s in role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        )
    ]
    assert len(found) == 1
    return found[0]


def test_no_dynamodb_scheduler_or_passrole_statement_uses_a_wildcard_resource(
    dev: Template,
) -> None:
    guarded = ("dynamodb:", "scheduler:", "iam:passrole", "execute-api:", "sqs:")
    checked = 0
    for rid, statement in statements(dev):
        actions = [a.lower() for a in as_list(statement["Action"])]
        if not any(a.startswith(guarded) for a in actions):
            continue
        checked += 1
        assert not any(a.endswith(":*") or a == "*" for a in actions), rid
        assert "NotResource" not in statement, rid
        for resource in as_list(statement["Resource"]):
            assert resource != "*", (rid, statement)
    assert checked >= 4


def test_app_statements_name_this_table_group_role_and_websocket_api(dev: Template) -> None:
    table_id, _ = only(dev, "AWS::DynamoDB::Table")
    _, group = only(dev, "AWS::Scheduler::ScheduleGroup")
    role_id, _ = scheduler_role(dev)
    stage_name = only(dev, "AWS::ApiGatewayV2::Stage")[1]["Properties"]["StageName"]
    by_action: dict[str, list[str]] = {}
    for _, statement in statements(dev):
        for action in as_list(statement["Action"]):
            by_action.setdefault(action, []).extend(
                render(r) for r in as_list(statement["Resource"])
            )
    for action in ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"):
        assert by_action[action]
        assert all(r.startswith(placeholder(f"{table_id}.Arn")) for r in by_action[action]), action
    for action in ("scheduler:CreateSchedule", "scheduler:DeleteSchedule"):
        assert by_action[action]
        assert all(
            r.endswith(f":schedule/{group['Properties']['Name']}/*") for r in by_action[action]
        )
    assert by_action["iam:PassRole"] == [placeholder(f"{role_id}.Arn")]
    assert by_action["execute-api:ManageConnections"]
    assert all(
        r.endswith(":${WebsocketAPI}/" + stage_name + "/*/@connections/*")
        for r in by_action["execute-api:ManageConnections"]
    )


def test_every_function_role_holds_the_app_policy(dev: Template) -> None:
    holders = [
        {role["Ref"] for role in policy["Properties"]["Roles"]}
        for policy in resources(dev, "AWS::IAM::Policy").values()
        if any(
            "iam:PassRole" in as_list(s["Action"])
            for s in policy["Properties"]["PolicyDocument"]["Statement"]
        )
    ]
    assert len(holders) == 1
    for handler, (_, function) in functions_by_handler(dev).items():
        role_id = function["Properties"]["Role"]["Fn::GetAtt"][0]
        assert role_id in holders[0], handler


def test_scheduler_role_trusts_scheduler_and_may_only_invoke_the_timer_or_dead_letter(
    dev: Template,
) -> None:
    role_id, role = scheduler_role(dev)
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"}
    assert trust["Action"] == "sts:AssumeRole"
    group_id, _ = only(dev, "AWS::Scheduler::ScheduleGroup")
    assert trust["Condition"]["ArnEquals"]["aws:SourceArn"] == {"Fn::GetAtt": [group_id, "Arn"]}
    _, timer = functions_by_handler(dev)[TIMER_HANDLER]
    held = [
        s
        for rid, s in statements(dev)
        if {"Ref": role_id} in dev["Resources"][rid]["Properties"].get("Roles", [])
        or rid == role_id
    ]
    actions = sorted(as_list(s["Action"]) for s in held)
    assert actions == [["lambda:InvokeFunction"], ["sqs:SendMessage"]]
    invoke = next(s for s in held if s["Action"] == "lambda:InvokeFunction")
    (resource,) = as_list(invoke["Resource"])
    assert render(resource).endswith(":function:" + timer["Properties"]["FunctionName"])
    queue_id, _ = only(dev, "AWS::SQS::Queue")
    send = next(s for s in held if s["Action"] == "sqs:SendMessage")
    assert as_list(send["Resource"]) == [{"Fn::GetAtt": [queue_id, "Arn"]}]
    assert "Policies" not in role["Properties"]
    assert "ManagedPolicyArns" not in role["Properties"]


# --- WebSocket API -----------------------------------------------------------------------


def test_websocket_routes_reach_their_handlers(dev: Template) -> None:
    routes = {
        route["Properties"]["RouteKey"]: route["Properties"]
        for route in resources(dev, "AWS::ApiGatewayV2::Route").values()
    }
    assert set(routes) == set(WEBSOCKET_HANDLERS)
    handlers = functions_by_handler(dev)
    for key, handler in WEBSOCKET_HANDLERS.items():
        assert routes[key]["ApiId"] == {"Ref": "WebsocketAPI"}
        integration_id = render(routes[key]["Target"]).removeprefix("integrations/")
        integration = dev["Resources"][integration_id.strip("${}")]
        function_id, _ = handlers[handler]
        assert placeholder(function_id) in render(integration["Properties"]["IntegrationUri"])
    _, api = only(dev, "AWS::ApiGatewayV2::Api")
    assert api["Properties"]["ProtocolType"] == "WEBSOCKET"


def test_outputs_give_a_frontend_its_rest_and_websocket_urls(dev: Template) -> None:
    outputs = dev["Outputs"]
    assert render(outputs["RestApiUrl"]["Value"]).startswith("https://${RestAPI}.execute-api.")
    assert render(outputs["WebSocketUrl"]["Value"]).startswith("wss://${WebsocketAPI}.execute-api.")
