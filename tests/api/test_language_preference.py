"""The interface language remembered on the server (issue 28): ``PATCH /me/preferences``
takes ``language`` (``en``, ``es``, ``pt-BR``), ``GET /me`` gives it back (null until chosen),
on both stores; anything else is a 400 naming the field and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Env


def _error(resp: Any) -> tuple[int, str, Any]:
    err = resp.json["error"]
    return resp.status_code, err["code"], err.get("field")


def test_language_round_trips_and_leaves_the_continue_mode_alone(both_stores_env: Env) -> None:
    env = both_stores_env
    token, _ = env.register("lingua")
    assert env.ok("GET", "/me", None, token)["preferences"] == {
        "continue_mode": "auto",
        "language": None,
    }
    answer = env.ok("PATCH", "/me/preferences", {"language": "es"}, token)
    assert answer["preferences"] == {"continue_mode": "auto", "language": "es"}
    assert env.ok("GET", "/me", None, token)["preferences"]["language"] == "es"
    # The continue mode alone keeps the language; both at once set both.
    env.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, token)
    assert env.ok("GET", "/me", None, token)["preferences"] == {
        "continue_mode": "manual",
        "language": "es",
    }
    both = {"continue_mode": "auto", "language": "pt-BR"}
    assert env.ok("PATCH", "/me/preferences", both, token)["preferences"] == both
    assert env.ok("GET", "/me", None, token)["preferences"] == both
    # Another user's choice is their own.
    other, _ = env.register("monolingua")
    assert env.ok("GET", "/me", None, other)["preferences"]["language"] is None


def test_a_guest_remembers_a_language_too(both_stores_env: Env) -> None:
    env = both_stores_env
    token, _ = env.guest("Gaia")
    env.ok("PATCH", "/me/preferences", {"language": "en"}, token)
    assert env.ok("GET", "/me", None, token)["preferences"]["language"] == "en"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"language": "fr"}, "language"),
        ({"language": "pt"}, "language"),
        ({"language": "ES"}, "language"),
        ({"language": ""}, "language"),
        ({"language": 7}, "language"),
        ({"language": ["es"]}, "language"),
        ({"language": "es", "continue_mode": "sometimes"}, "continue_mode"),
        ({}, "continue_mode"),
        ({"room_id": "abc"}, "continue_mode"),
    ],
)
def test_a_bad_language_is_a_400_naming_the_field_and_changes_nothing(
    both_stores_env: Env, body: dict[str, Any], field: str
) -> None:
    env = both_stores_env
    token, _ = env.register("picky")
    env.ok("PATCH", "/me/preferences", {"language": "pt-BR"}, token)
    resp = env.call("PATCH", "/me/preferences", body, token)
    assert _error(resp) == (400, "invalid_input", field)
    assert env.ok("GET", "/me", None, token)["preferences"] == {
        "continue_mode": "auto",
        "language": "pt-BR",
    }


def test_language_needs_a_sign_in(both_stores_env: Env) -> None:
    resp = both_stores_env.call("PATCH", "/me/preferences", {"language": "es"})
    assert resp.status_code == 401
