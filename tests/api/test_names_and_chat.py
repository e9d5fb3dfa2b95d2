"""Display names and chat text refuse what would deceive or hide (SPEC §10)."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.text import clean_chat, reads_as_bot, skeleton
from tests.api.conftest import Env


def _error(resp: Any) -> tuple[int, str, str | None]:
    err = resp.json["error"]
    return resp.status_code, err["code"], err.get("field")


@pytest.mark.parametrize(
    "name",
    [
        "Ann\x00",  # NUL
        "evil\u202eman",  # right-to-left override
        "\u2066Ann\u2069",  # bidirectional isolates
        "An\u200bn",  # zero-width space (a format character)
        "line\nbreak",
        "tab\there",
        "bell\x07",
        "Ann\u2028",  # line separator
        "\ufeffAnn",  # byte order mark
    ],
)
def test_guest_names_refuse_control_format_and_bidi_characters(api_env: Env, name: str) -> None:
    answer = api_env.call("POST", "/auth/guest", {"name": name})
    assert _error(answer) == (400, "invalid_name", "name")


@pytest.mark.parametrize(
    "name", ["\u200b\u200b", "\u3164", "\u2800\u2800", "\u0301\u0301", "\u115f"]
)
def test_names_of_only_invisible_characters_are_refused(api_env: Env, name: str) -> None:
    assert _error(api_env.call("POST", "/auth/guest", {"name": name})) == (
        400,
        "invalid_name",
        "name",
    )


@pytest.mark.parametrize(
    "name", ["Bot 3", "bot3", "BOT  7", "b o t 1", "Bot-2", "Ｂｏｔ３", "B\u043et 4", "bot"]
)
def test_names_that_read_as_a_bot_are_refused(api_env: Env, name: str) -> None:
    assert _error(api_env.call("POST", "/auth/guest", {"name": name})) == (
        400,
        "name_reserved",
        "name",
    )


@pytest.mark.parametrize("username", ["Bot3", "bot_3", "BOT-12", "bot"])
def test_usernames_that_read_as_a_bot_are_refused(api_env: Env, username: str) -> None:
    answer = api_env.call(
        "POST", "/auth/register", {"username": username, "password": "long enough"}
    )
    assert _error(answer) == (400, "name_reserved", "username")
    assert api_env.store.get_user_by_username(username) is None


@pytest.mark.parametrize(
    "name",
    [
        "admin",
        "ADMIN",
        "\u0430dmin",  # Cyrillic а
        "\uff41\uff44\uff4d\uff49\uff4e",  # fullwidth
        "\u0391DMIN",  # Greek capital alpha
        "Ádmin",
    ],
)
def test_guest_names_that_read_as_a_registered_user_are_refused(api_env: Env, name: str) -> None:
    api_env.register("admin")
    assert _error(api_env.call("POST", "/auth/guest", {"name": name})) == (
        400,
        "name_taken",
        "name",
    )


def test_ordinary_names_still_work(api_env: Env) -> None:
    api_env.register("admin")
    for name in ["Ann Smith", "Zoë", "Робот", "李雷", "Botticelli", "Robot 3", "admiral"]:
        out = api_env.ok("POST", "/auth/guest", {"name": name}, status=201)
        assert out["user"]["name"] == name
    # spaces are trimmed and collapsed
    assert api_env.ok("POST", "/auth/guest", {"name": "  Ann   Lee "})["user"]["name"] == "Ann Lee"


def test_chat_strips_control_and_bidi_characters(api_env: Env) -> None:
    env = api_env
    token, _ = env.register("chatter")
    rid = env.ok("POST", "/rooms", {}, token, 201)["id"]
    sent = env.ok(
        "POST",
        f"/rooms/{rid}/chat",
        {"text": "hi\x00 the\u202ere\x1b[31m\r\nbye \U0001f468\u200d\U0001f469"},
        token,
        201,
    )
    assert sent["text"] == "hi there[31m\nbye \U0001f468\u200d\U0001f469"
    stored = env.ok("GET", f"/rooms/{rid}/chat", None)["messages"]
    assert [m["text"] for m in stored] == [sent["text"]]
    # a message of nothing but invisible characters is empty
    blank = env.call("POST", f"/rooms/{rid}/chat", {"text": "\u200b\u202e\x00 \u2066"}, token)
    assert _error(blank) == (400, "invalid_input", "text")
    assert len(env.ok("GET", f"/rooms/{rid}/chat", None)["messages"]) == 1


def test_skeleton_folds_case_width_and_look_alike_letters() -> None:
    assert skeleton("\u0410DM\u0406N") == skeleton("admin") == "admin"
    assert reads_as_bot("Bоt 3") and not reads_as_bot("Bottle") and not reads_as_bot("Robot 3")
    assert clean_chat("a\tb\x7fc") == "a bc"
