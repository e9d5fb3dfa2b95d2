"""``CORS_ALLOW_ORIGINS``: what an operator may write, and what is refused at start-up."""

from __future__ import annotations

import pytest

from chalicelib.cors import allowed_origin, parse_origins
from chalicelib.settings import ConfigError, Settings


def test_unset_or_empty_allows_no_origin() -> None:
    assert Settings.from_env({}).cors_allow_origins == ()
    assert Settings.from_env({"CORS_ALLOW_ORIGINS": " , "}).cors_allow_origins == ()


def test_origins_are_read_as_a_browser_sends_them() -> None:
    raw = "https://App.Example/, http://localhost:5173 ,http://[::1]:8080,https://app.example"

    assert parse_origins(raw) == (
        "https://app.example",
        "http://localhost:5173",
        "http://[::1]:8080",
    )


def test_a_star_anywhere_allows_every_origin() -> None:
    allowed = parse_origins("https://a.example, *")

    assert allowed == ("*",)
    assert allowed_origin("https://b.example", allowed) == "*"
    assert allowed_origin(None, allowed) is None


def test_an_origin_must_match_exactly() -> None:
    allowed = parse_origins("https://app.example")

    assert allowed_origin("https://app.example", allowed) == "https://app.example"
    assert allowed_origin("https://app.example:444", allowed) is None
    assert allowed_origin("http://app.example", allowed) is None
    assert allowed_origin("https://app.example.evil", allowed) is None


@pytest.mark.parametrize(
    "raw",
    ["app.example", "https://app.example/path", "ftp://x.example", "https://*.example", "https://"],
)
def test_an_entry_that_is_no_origin_is_a_config_error_naming_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="CORS_ALLOW_ORIGINS"):
        Settings.from_env({"CORS_ALLOW_ORIGINS": raw})
