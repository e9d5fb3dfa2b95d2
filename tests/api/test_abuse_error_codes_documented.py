"""Every error ``code`` the server can send a client is listed in docs/API.md.

Frontends key their words on ``code`` (API.md, "Errors"), so a code missing from the contract is
one no client can show well. The codes are read from the source itself: every ``code = "..."``
of an error class, every ``code="..."`` keyword, and the code argument of the functions that
make error answers. The few codes that never reach a client are listed here with the reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "chalicelib").rglob("*.py"))]
API_MD = ROOT / "docs" / "API.md"

CODE = re.compile(r"[a-z]+(?:_[a-z]+)*")
MAKERS = frozenset(
    {
        "ApiError",
        "body",
        "error_body",
        "error_message",
        "unauthorized",
        "forbidden",
        "not_found",
        "rate_limited",
        "conflict",
    }
)
"""Functions whose string arguments shaped like a code are an error code."""

NEVER_SENT = {
    "domain_error": "the engine errors' base class; every kind has its own code",
    "forbidden": "the default of engine.errors.Forbidden; every raise names its own code",
    "store_error": "the store errors' base class",
    "version_conflict": "a lost race becomes 409 conflict (service.change_room)",
    "too_many_rating_changes": "caught: the room is saved without ratings (service.core.Service._write)",
    "user_exists": "a collision of random 64-bit user ids",
    "room_exists": "a collision of random 64-bit room ids",
    "config_error": "the operator's configuration, met at start-up",
    "schema_too_new": "the local database file, met at start-up",
    "internal_error": "a bug's 500, never an answer to input (API.md promises no 5xx)",
}


def _codes_in(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [getattr(t, "id", None) for t in node.targets]
            if names == ["code"] and isinstance(node.value.value, str):
                found.add(node.value.value)
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                found.add(str(kw.value.value))
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name in MAKERS:
            for arg in node.args:
                value = arg.value if isinstance(arg, ast.Constant) else None
                if isinstance(value, str) and CODE.fullmatch(value):
                    found.add(value)
    return found


def server_codes() -> set[str]:
    """Every error code the source can produce."""
    out: set[str] = set()
    for path in SOURCES:
        out |= _codes_in(path)
    return out


def test_every_error_code_a_client_can_meet_is_in_the_api_contract() -> None:
    documented = set(re.findall(r"`([a-z_]+)`", API_MD.read_text(encoding="utf-8")))
    missing = sorted(server_codes() - documented - set(NEVER_SENT))
    assert not missing, f"error codes the server sends that docs/API.md does not list: {missing}"


def test_the_codes_said_never_to_reach_a_client_still_exist() -> None:
    # An entry for a code the source no longer has would hide a new code of the same name.
    assert set(NEVER_SENT) <= server_codes()


def test_the_scan_finds_codes_of_every_kind_of_raise() -> None:
    codes = server_codes()
    # a class attribute, a code= keyword, ApiError's argument, a limit's code, a WS error
    assert {"stale_turn", "wrong_passcode", "invalid_json", "too_many_accounts"} <= codes
    assert {"unknown_action", "message_too_large"} <= codes
