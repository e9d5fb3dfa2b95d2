"""BOT_THINK_MIN_MS / BOT_THINK_MAX_MS: the bots' think time range, read from the environment."""

from __future__ import annotations

import pytest

from chalicelib.settings import ConfigError, Settings


def test_the_default_think_time_is_one_to_two_and_a_half_seconds() -> None:
    assert Settings.from_env({}).bot_think_ms == (1000, 2500)


def test_the_range_is_read_and_zero_is_allowed() -> None:
    env = {"BOT_THINK_MIN_MS": "0", "BOT_THINK_MAX_MS": "40"}
    assert Settings.from_env(env).bot_think_ms == (0, 40)


def test_a_minimum_above_the_default_maximum_raises_the_maximum_with_it() -> None:
    assert Settings.from_env({"BOT_THINK_MIN_MS": "3000"}).bot_think_ms == (3000, 3000)


@pytest.mark.parametrize(
    "env",
    [
        {"BOT_THINK_MIN_MS": "-1"},
        {"BOT_THINK_MAX_MS": "fast"},
        {"BOT_THINK_MIN_MS": "500", "BOT_THINK_MAX_MS": "100"},
    ],
)
def test_a_bad_range_is_a_config_error(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="BOT_THINK"):
        Settings.from_env(env)
