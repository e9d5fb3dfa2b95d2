"""API Gateway's own answers carry the CORS headers when the stack allows origins.

A page on an allowed origin must be able to read a 404, 429 or 503 that API Gateway makes
without the app; without origins (the default, the session's synthesized templates) they
carry no CORS header and the functions get no ``CORS_ALLOW_ORIGINS``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chalicelib import cors
from tests.infra.test_gateway_responses import gateway_responses
from tests.infra.test_infra_stack import Template, env_of, resources

INFRA = Path(__file__).resolve().parents[2] / "infra"
sys.path.insert(0, str(INFRA))

from edges import CORS_EXPOSE_HEADERS, GATEWAY_RESPONSES_KEY, with_edge_answers  # noqa: E402

ALLOW = "gatewayresponse.header.Access-Control-Allow-Origin"
EXPOSE = "gatewayresponse.header.Access-Control-Expose-Headers"
VARY = "gatewayresponse.header.Vary"


def definition() -> dict[str, Any]:
    integration = {"type": "aws_proxy", "uri": "arn:lambda"}
    return {
        "swagger": "2.0",
        "paths": {"/health": {"get": {"x-amazon-apigateway-integration": integration}}},
    }


def rendered(origins: tuple[str, ...]) -> dict[str, dict[str, str]]:
    responses = with_edge_answers(definition(), origins)[GATEWAY_RESPONSES_KEY]
    return {name: response["responseParameters"] for name, response in responses.items()}


def infra_app() -> ModuleType:
    """``infra/app.py`` under another name (``app`` is the Chalice app)."""
    spec = importlib.util.spec_from_file_location("infra_app_for_tests", INFRA / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_with_one_origin_every_gateway_answer_allows_exactly_it() -> None:
    for name, headers in rendered(("https://app.example",)).items():
        assert headers[ALLOW] == "'https://app.example'", name
        assert headers[VARY] == "'Origin'", name
        assert "Retry-After" in headers[EXPOSE], name


def test_with_a_star_every_gateway_answer_allows_any_origin() -> None:
    for name, headers in rendered(("*",)).items():
        assert headers[ALLOW] == "'*'", name
        assert VARY not in headers, name


def test_with_several_origins_the_gateway_answers_the_requests_origin() -> None:
    # API Gateway cannot choose from a list: it echoes Origin on bodies that hold only the error.
    for name, headers in rendered(("https://a.example", "https://b.example")).items():
        assert headers[ALLOW] == "method.request.header.Origin", name
        assert headers[VARY] == "'Origin'", name


def test_throttling_and_5xx_expose_retry_after_to_the_page() -> None:
    headers = rendered(("https://app.example",))

    for name in ("THROTTLED", "DEFAULT_5XX", "INTEGRATION_TIMEOUT"):
        assert headers[name]["gatewayresponse.header.Retry-After"] == "'1'", name
        exposed = [h.strip() for h in headers[name][EXPOSE].strip("'").split(",")]
        assert "Retry-After" in exposed, name


def test_the_gateway_exposes_the_headers_the_app_exposes() -> None:
    assert CORS_EXPOSE_HEADERS == cors.EXPOSE_HEADERS


def test_without_origins_no_gateway_answer_has_a_cors_header() -> None:
    for name, headers in rendered(()).items():
        assert not [h for h in headers if "Access-Control" in h or h == VARY], name


def test_the_default_stack_sets_no_cors_header_or_variable(dev: Template) -> None:
    for name, response in gateway_responses(dev).items():
        assert not [h for h in response["responseParameters"] if "Access-Control" in h], name
    for name, function in resources(dev, "AWS::Serverless::Function").items():
        assert "CORS_ALLOW_ORIGINS" not in env_of(function), name


def test_the_context_is_read_as_the_functions_read_the_variable() -> None:
    read = infra_app().cors_origins_from_context

    assert read(None) == ()
    assert read("https://App.example/, http://localhost:5173") == (
        "https://app.example",
        "http://localhost:5173",
    )
    assert read(["*"]) == ("*",)
    with pytest.raises(ValueError, match="not an origin"):
        read("app.example")
    assert "app" not in sys.modules or hasattr(sys.modules["app"], "app")
