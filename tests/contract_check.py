"""The documents are the wire: every answer and push the tests see is checked against them.

``check_response`` validates a REST answer against ``docs/openapi.json`` (its path, method and
status must be published, and the body must fit that status's schema); ``check_push``
validates a WebSocket message against the messages ``docs/asyncapi.json`` says the server
sends. The published schemas are closed (``additionalProperties: false``), so a field the
server sends that the documents do not name fails the test that saw it, as does a missing
required field, a value outside its enum or a time that is not ISO 8601. The API and realtime
fixtures call these on every answer and push (``tests/api/conftest.py``,
``tests/realtime/conftest.py``), so the documents and the server cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[1]
OPENAPI = ROOT / "docs" / "openapi.json"
ASYNCAPI = ROOT / "docs" / "asyncapi.json"

_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


@_FORMATS.checks("date-time", raises=ValueError)  # type: ignore[misc]
def _date_time(value: object) -> bool:
    """RFC 3339 date-time (no extra package needed)."""
    return not isinstance(value, str) or bool(_ISO.match(value))


@cache
def _document(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def _validator(path: Path, schema_json: str) -> jsonschema.Draft202012Validator:
    schema = {**json.loads(schema_json), "components": _document(path)["components"]}
    return jsonschema.Draft202012Validator(schema, format_checker=_FORMATS)


def _validate(path: Path, schema: Mapping[str, Any], value: Any, what: str) -> None:
    validator = _validator(path, json.dumps(schema, sort_keys=True))
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        shown = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
        raise AssertionError(f"{what} does not fit the published document:\n" + "\n".join(shown))


@cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    """Each published path as a pattern, literal paths first (``/me/games`` before ``/me/{x}``)."""
    out = []
    for template in _document(OPENAPI)["paths"]:
        parts = [
            "[^/]+" if part.startswith("{") else re.escape(part) for part in template.split("/")
        ]
        out.append((re.compile("^" + "/".join(parts) + "$"), template))
    out.sort(key=lambda item: item[1].count("{"))
    return out


def _template(path: str) -> str | None:
    for pattern, template in _routes():
        if pattern.match(path):
            return template
    return None


def response_schema(method: str, path: str, status: int) -> dict[str, Any] | None:
    """The published schema of an answer (``None``: the answer has no JSON body)."""
    template = _template(path.split("?", 1)[0])
    if template is None or method.lower() not in _document(OPENAPI)["paths"][template]:
        return {"$ref": "#/components/schemas/ErrorBody"}
    published = _document(OPENAPI)["paths"][template][method.lower()]["responses"][str(status)]
    content = published.get("content", {}).get("application/json")
    return None if content is None else dict(content["schema"])


def check_response(
    method: str, path: str, status: int, body: Any, headers: Mapping[str, str] | None = None
) -> None:
    """A REST answer fits the OpenAPI document (path, method, status and body)."""
    method = method.lower()
    if method in ("options", "head"):
        return  # CORS preflights and HEAD are the edge's, not the API's operations
    path = path.split("?", 1)[0]
    document = _document(OPENAPI)
    template = _template(path)
    error_schema = {"$ref": "#/components/schemas/ErrorBody"}
    where = f"{method.upper()} {path} → {status}"
    if template is None or method not in document["paths"][template]:
        # an unknown path or method: only an error, in the error shape, may answer
        assert status >= 400, f"{where}: answered for a path or method the document lacks"
        _validate(OPENAPI, error_schema, body, where)
        return
    responses = document["paths"][template][method]["responses"]
    assert str(status) in responses, f"{where}: status not published for {template}"
    published = responses[str(status)]
    content = published.get("content", {}).get("application/json")
    if content is not None:
        assert body is not None, f"{where}: published with a body, answered without"
        _validate(OPENAPI, content["schema"], body, where)
    for name, header in published.get("headers", {}).items():
        if header.get("required"):
            present = {k.lower() for k in (headers or {})}
            assert name.lower() in present, f"{where}: the {name} header is missing"


@cache
def _push_schema() -> dict[str, Any]:
    document = _document(ASYNCAPI)
    refs = []
    for operation in document["operations"].values():
        if operation["action"] != "send":
            continue
        for message in operation["messages"]:
            message_id = message["$ref"].rsplit("/", 1)[1]
            refs.append(document["components"]["messages"][message_id]["payload"])
    return {"oneOf": refs}


def check_push(message: Any) -> None:
    """A WebSocket message the server sent fits one of the AsyncAPI document's pushes."""
    _validate(ASYNCAPI, _push_schema(), message, f"push {str(message)[:120]}")


def check_pushes(messages: list[tuple[str, Any]]) -> None:
    """Every recorded push (``FakeNotifier.sent``: connection and message) fits the document."""
    for _connection, message in messages:
        check_push(message)
