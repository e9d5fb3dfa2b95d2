"""Names that only *look* like a bot's are refused too (SPEC §10: no name impersonates a bot).

The bot rule compared a name's skeleton with "bot" and ASCII digits, so a zero for the o
("B0t 1"), small capitals ("ʙᴏᴛ 3"), a Cherokee letter for the B, punctuation around the
number ("Bot #3") or other digits ("Bot ٣") passed as a human's name beside the real bots.
"""

from __future__ import annotations

import pytest

from chalicelib.errors import ApiError
from chalicelib.text import check_display_name
from tests.api.conftest import Env

LOOKALIKES = [
    "B0t 1",  # digit zero for the o
    "B0T",
    "b0t_12",
    "\u0299\u1d0f\u1d1b 3",  # small capitals ʙᴏᴛ
    "\u13f4ot 3",  # Cherokee Ᏼ
    "Bot #3",
    "Bot (3)",
    "Bot: 3",
    "Bot 3!",
    "[Bot 2]",
    "Bot \u0663",  # Arabic-Indic three
]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_a_name_that_looks_like_a_bot_s_is_reserved(name: str) -> None:
    with pytest.raises(ApiError) as refused:
        check_display_name(name)
    assert (refused.value.status, refused.value.code) == (400, "name_reserved")


@pytest.mark.parametrize(
    "name", ["Botticelli", "Robot 3", "Bo 3", "B0b", "Abbot", "Bot Hunter", "Tobo", "0bt"]
)
def test_names_that_merely_contain_bot_or_a_zero_are_kept(name: str) -> None:
    assert check_display_name(name) == name


def test_a_username_that_looks_like_a_bot_s_is_not_registered(api_env: Env) -> None:
    answer = api_env.call(
        "POST", "/auth/register", {"username": "B0t_1", "password": "long enough"}
    )
    assert answer.status_code == 400
    assert answer.json["error"] == {
        "code": "name_reserved",
        "message": answer.json["error"]["message"],
        "field": "username",
    }
    assert api_env.store.get_user_by_username("B0t_1") is None
