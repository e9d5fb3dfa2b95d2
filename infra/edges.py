"""The answers API Gateway makes itself, in the project's error shape.

A request the REST API cannot route never reaches the Lambda: API Gateway answers it with its
own body (``{"message": "Missing Authentication Token"}``, 403, for an unknown path or an
undeclared method). ``add_edge_answers`` changes two things in the REST API's OpenAPI body
(the ``DefinitionBody`` Chalice generates), so the change is deployed with the API itself:

- every path also gets ``x-amazon-apigateway-any-method`` on the same Lambda integration, so a
  method the path does not declare (``PUT /auth/guest``, ``OPTIONS``, ``HEAD``) reaches the app,
  which answers 405 ``method_not_allowed`` with ``Allow`` (the path's declared methods keep
  their own integration: API Gateway prefers a declared method to ANY);
- ``x-amazon-apigateway-gateway-responses``: every answer API Gateway still makes itself has
  ``{"error": {"code", "message"}}`` (``GATEWAY_RESPONSES``): an unknown path is 404
  ``not_found``, throttling 429 ``rate_limited`` with ``Retry-After``, and every 5xx of its own
  (integration timeout or failure, configuration) a 503 ``unavailable`` with ``Retry-After``.

With allowed origins (the ``cors_allow_origins`` context, the functions'
``CORS_ALLOW_ORIGINS``), the app answers preflights and adds the CORS headers to its own
answers (``chalicelib/cors.py``), and these gateway responses carry them too, so a page on an
allowed origin can read a 404, 429 or 503 it gets: ``Access-Control-Allow-Origin`` is ``*``
or the one allowed origin; with several, API Gateway cannot pick from a list, so it is the
request's own ``Origin`` (``method.request.header.Origin``), with ``Vary: Origin``. These
answers hold nothing but the error, and no answer allows credentials, so that is harmless.
Without origins they carry no CORS header, as before. No route declares Chalice's own CORS
(one origin per route): a test fails if one does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import aws_cdk as cdk

ANY_METHOD = "x-amazon-apigateway-any-method"
GATEWAY_RESPONSES_KEY = "x-amazon-apigateway-gateway-responses"
RETRY_AFTER_SECONDS = 1
"""What the app's own 503 says for a throttled or failing dependency (``chalicelib/ports.py``)."""

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


@dataclass(frozen=True)
class Edge:
    """One gateway response: status (None keeps API Gateway's), code, message, Retry-After."""

    status: int | None
    code: str
    message: str | None
    """None: API Gateway's own words (``$context.error.messageString``)."""
    retry: bool = False

    def template(self) -> str:
        """The response's body template (VTL; ``messageString`` is already a JSON string)."""
        message = json.dumps(self.message) if self.message else "$context.error.messageString"
        return '{"error": {"code": ' + json.dumps(self.code) + ', "message": ' + message + "}}"

    def render(self, cors_origins: tuple[str, ...] = ()) -> dict[str, Any]:
        """The ``x-amazon-apigateway-gateway-responses`` entry."""
        headers = {"gatewayresponse.header.Content-Type": "'application/json'"}
        if self.retry:
            headers["gatewayresponse.header.Retry-After"] = f"'{RETRY_AFTER_SECONDS}'"
        headers.update(cors_headers(cors_origins))
        out: dict[str, Any] = {
            "responseParameters": headers,
            "responseTemplates": {"application/json": self.template()},
        }
        if self.status is not None:
            out["statusCode"] = str(self.status)
        return out


_UNAVAILABLE = "the service is busy or briefly unavailable; nothing was changed, try again"
_NOT_FOUND = "no such resource"

GATEWAY_RESPONSES: dict[str, Edge] = {
    # No route matched (API Gateway says 403 "Missing Authentication Token"). With a
    # (non-AWS) Authorization header it complains about the signature instead: this API has
    # no IAM-signed route, so both only mean "no such path".
    "MISSING_AUTHENTICATION_TOKEN": Edge(404, "not_found", _NOT_FOUND),
    "INVALID_SIGNATURE": Edge(404, "not_found", _NOT_FOUND),
    "RESOURCE_NOT_FOUND": Edge(404, "not_found", _NOT_FOUND),
    "REQUEST_TOO_LARGE": Edge(413, "body_too_large", "the body is too large"),
    "UNSUPPORTED_MEDIA_TYPE": Edge(415, "unsupported_media_type", None),
    "THROTTLED": Edge(429, "rate_limited", "too many requests; try again shortly", retry=True),
    "QUOTA_EXCEEDED": Edge(429, "rate_limited", "too many requests; try again later", retry=True),
    # The Lambda did not answer in time, failed, or could not be invoked: nothing the client
    # sent is at fault, and the app's writes are all-or-nothing, so a retry is safe.
    "INTEGRATION_TIMEOUT": Edge(503, "unavailable", _UNAVAILABLE, retry=True),
    "INTEGRATION_FAILURE": Edge(503, "unavailable", _UNAVAILABLE, retry=True),
    "DEFAULT_5XX": Edge(503, "unavailable", _UNAVAILABLE, retry=True),
    "DEFAULT_4XX": Edge(None, "bad_request", None),
}
"""Every answer API Gateway makes itself (the others fall back to DEFAULT_4XX/DEFAULT_5XX)."""


CORS_EXPOSE_HEADERS = "Retry-After, Allow"
"""As ``chalicelib.cors.EXPOSE_HEADERS`` (a test compares the two)."""


def cors_headers(origins: tuple[str, ...]) -> dict[str, str]:
    """A gateway response's CORS headers for the allowed ``origins`` (none: no header)."""
    if not origins:
        return {}
    prefix = "gatewayresponse.header."
    headers = {prefix + "Access-Control-Expose-Headers": f"'{CORS_EXPOSE_HEADERS}'"}
    if origins == ("*",):
        headers[prefix + "Access-Control-Allow-Origin"] = "'*'"
    elif len(origins) == 1:
        headers[prefix + "Access-Control-Allow-Origin"] = f"'{origins[0]}'"
        headers[prefix + "Vary"] = "'Origin'"
    else:
        headers[prefix + "Access-Control-Allow-Origin"] = "method.request.header.Origin"
        headers[prefix + "Vary"] = "'Origin'"
    return headers


def with_edge_answers(
    definition: dict[str, Any], cors_origins: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The API definition with an ANY method on every path and the gateway responses.

    ``cors_origins`` (as ``chalicelib.cors.parse_origins`` reads them) adds the CORS headers
    to the gateway responses.
    """
    paths: dict[str, Any] = definition.get("paths") or {}
    if not paths:
        raise ValueError("the REST API definition has no paths")
    out = dict(definition)
    out["paths"] = {}
    for path, methods in paths.items():
        declared = [m for m in HTTP_METHODS if m in methods]
        if not declared:
            raise ValueError(f"{path} declares no method")
        first = methods[declared[0]]
        any_method: dict[str, Any] = {
            "x-amazon-apigateway-integration": first["x-amazon-apigateway-integration"],
            "responses": {"405": {"description": "405 response"}},
        }
        if "parameters" in first:
            any_method["parameters"] = first["parameters"]
        out["paths"][path] = {**methods, ANY_METHOD: any_method}
    out[GATEWAY_RESPONSES_KEY] = {
        name: edge.render(cors_origins) for name, edge in GATEWAY_RESPONSES.items()
    }
    return out


def add_edge_answers(rest_api: cdk.CfnResource, cors_origins: tuple[str, ...] = ()) -> None:
    """Rewrite the Chalice REST API's definition (``AWS::Serverless::Api``) in place."""
    body = rest_api.definition_body  # type: ignore[attr-defined]
    if not isinstance(body, dict):
        raise TypeError("the REST API's DefinitionBody is not an inline OpenAPI object")
    rest_api.definition_body = with_edge_answers(body, cors_origins)  # type: ignore[attr-defined]
