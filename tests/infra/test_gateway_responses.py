"""The REST API's own answers in the synthesized templates: the project's error shape.

API Gateway answers an unknown path, throttling and its own 5xx without the Lambda; the
stack declares those answers (``infra/edges.py``) in the API's definition, and sends every
method a path does not declare to the app (which answers 405 with ``Allow``). Reads the
templates ``conftest.py`` synthesizes; the definition rewrite is also checked without a synth.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.infra.test_infra_stack import STAGES, Template, only

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra"))

from edges import ANY_METHOD, GATEWAY_RESPONSES_KEY, RETRY_AFTER_SECONDS, with_edge_answers

SNAKE = re.compile(r"^[a-z]+(_[a-z]+)*$")
DECLARED = ("get", "put", "post", "delete", "options", "head", "patch")


def definition(template: Template) -> dict[str, Any]:
    _, api = only(template, "AWS::Serverless::Api")
    body: dict[str, Any] = api["Properties"]["DefinitionBody"]
    return body


def gateway_responses(template: Template) -> dict[str, dict[str, Any]]:
    responses: dict[str, dict[str, Any]] = definition(template)[GATEWAY_RESPONSES_KEY]
    return responses


def body_of(
    response: dict[str, Any], api_gateway_says: str = "Missing Authentication Token"
) -> Any:
    """The JSON a client receives (``messageString`` is API Gateway's message, JSON-quoted)."""
    template = response["responseTemplates"]["application/json"]
    return json.loads(
        template.replace("$context.error.messageString", json.dumps(api_gateway_says))
    )


@pytest.mark.parametrize("stage", STAGES)
def test_every_gateway_response_is_the_project_error_shape_in_json(
    templates: dict[str, Template], stage: str
) -> None:
    responses = gateway_responses(templates[stage])

    assert {"DEFAULT_4XX", "DEFAULT_5XX", "MISSING_AUTHENTICATION_TOKEN"} <= set(responses)
    for name, response in responses.items():
        payload = body_of(response)
        assert set(payload) == {"error"}, name
        assert set(payload["error"]) == {"code", "message"}, name
        assert SNAKE.match(payload["error"]["code"]), name
        assert payload["error"]["message"], name
        headers = response["responseParameters"]
        assert headers["gatewayresponse.header.Content-Type"] == "'application/json'", name


def test_an_unknown_path_is_404_not_found(dev: Template) -> None:
    response = gateway_responses(dev)["MISSING_AUTHENTICATION_TOKEN"]

    assert response["statusCode"] == "404"
    assert body_of(response)["error"]["code"] == "not_found"


def test_api_gateways_own_5xx_are_503_unavailable_with_retry_after(dev: Template) -> None:
    responses = gateway_responses(dev)

    for name in ("DEFAULT_5XX", "INTEGRATION_TIMEOUT", "INTEGRATION_FAILURE"):
        response = responses[name]
        assert response["statusCode"] == "503", name
        assert body_of(response)["error"]["code"] == "unavailable", name
        retry = response["responseParameters"]["gatewayresponse.header.Retry-After"]
        assert retry == f"'{RETRY_AFTER_SECONDS}'", name


def test_throttling_is_429_rate_limited_with_retry_after(dev: Template) -> None:
    response = gateway_responses(dev)["THROTTLED"]

    assert response["statusCode"] == "429"
    assert body_of(response)["error"]["code"] == "rate_limited"
    assert "gatewayresponse.header.Retry-After" in response["responseParameters"]


def test_other_4xx_keep_their_status_and_say_api_gateways_words(dev: Template) -> None:
    response = gateway_responses(dev)["DEFAULT_4XX"]

    assert "statusCode" not in response  # each 4xx type keeps its own status
    assert body_of(response, 'say "hi"')["error"] == {"code": "bad_request", "message": 'say "hi"'}


def test_the_retry_after_is_what_the_apps_own_503_says() -> None:
    from chalicelib.ports import Unavailable

    assert Unavailable("x").retry_after == RETRY_AFTER_SECONDS


@pytest.mark.parametrize("stage", STAGES)
def test_every_path_sends_undeclared_methods_to_the_app(
    templates: dict[str, Template], stage: str
) -> None:
    paths = definition(templates[stage])["paths"]

    assert "/auth/guest" in paths and "/rooms/{room_id}" in paths
    for path, methods in paths.items():
        declared = [m for m in DECLARED if m in methods]
        assert declared, path
        catch_all = methods[ANY_METHOD]
        integration = methods[declared[0]]["x-amazon-apigateway-integration"]
        assert catch_all["x-amazon-apigateway-integration"] == integration, path
        assert catch_all.get("parameters") == methods[declared[0]].get("parameters"), path


def test_the_rewrite_copies_integration_and_path_parameters() -> None:
    integration = {"type": "aws_proxy", "uri": "arn:lambda"}
    params = [{"name": "room_id", "in": "path", "required": True, "type": "string"}]
    original = {
        "swagger": "2.0",
        "paths": {
            "/rooms/{room_id}": {
                "get": {"x-amazon-apigateway-integration": integration, "parameters": params}
            },
            "/health": {"get": {"x-amazon-apigateway-integration": integration}},
        },
    }

    out = with_edge_answers(original)

    assert out["paths"]["/rooms/{room_id}"][ANY_METHOD]["parameters"] == params
    assert "parameters" not in out["paths"]["/health"][ANY_METHOD]
    assert out["paths"]["/health"]["get"] == original["paths"]["/health"]["get"]
    assert ANY_METHOD not in original["paths"]["/health"]  # the input is left as it was
    assert GATEWAY_RESPONSES_KEY in out


def test_the_rewrite_refuses_a_definition_without_paths() -> None:
    with pytest.raises(ValueError):
        with_edge_answers({"swagger": "2.0", "paths": {}})
