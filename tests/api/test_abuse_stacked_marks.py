"""Stacks of combining marks ("Zalgo" text) cannot spill over the names and lines around them.

A letter followed by dozens of combining marks draws far above and below its line, over the
players and messages next to it. "Á" with 22 accents was accepted as a guest name, and chat
kept any number. Names refuse more than ``MAX_MARKS`` marks on one character; chat drops the
marks past that. Real writing stacks far fewer (Vietnamese two, Tibetan stacks three or four).
"""

from __future__ import annotations

import pytest

from chalicelib.errors import ApiError
from chalicelib.text import MAX_MARKS, check_display_name, clean_chat
from tests.api.conftest import Env

ZALGO = "Z\u0351\u0364\u0300\u036b\u0346\u0308a\u0489\u0334\u0353l\u0338\u0316\u0317\u0318\u0319\u031c\u031dgo"


def test_a_name_stacking_more_marks_than_allowed_on_a_letter_is_refused(api_env: Env) -> None:
    answer = api_env.call("POST", "/auth/guest", {"name": "A" + "\u0301" * 22})
    assert answer.status_code == 400
    assert (answer.json["error"]["code"], answer.json["error"]["field"]) == ("invalid_name", "name")
    with pytest.raises(ApiError) as refused:
        check_display_name(ZALGO)
    assert refused.value.code == "invalid_name"


@pytest.mark.parametrize(
    "name",
    [
        "Nguy\u1ec5n",  # Vietnamese ễ, precomposed
        "Nguye\u0302\u0303n",  # the same decomposed: two marks
        "\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56",  # Tibetan བསྒྲུབ: three marks in a stack
        "a" + "\u0301" * MAX_MARKS,
    ],
)
def test_names_with_the_marks_real_writing_stacks_are_kept(name: str) -> None:
    assert check_display_name(name)


def test_chat_keeps_at_most_the_allowed_marks_on_each_character() -> None:
    cleaned = clean_chat("hi " + "o" + "\u0336" * 300 + " there \u1ec5")
    assert cleaned == "hi o" + "\u0336" * MAX_MARKS + " there \u1ec5"
    assert clean_chat("Nguye\u0302\u0303n") == "Nguye\u0302\u0303n"
