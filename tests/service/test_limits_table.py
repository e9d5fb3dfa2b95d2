"""Every rate limit is a row of ``service.limits``: a name, a count, a window and a scope."""

from __future__ import annotations

from dataclasses import fields

import pytest

from chalicelib.service import limits
from chalicelib.settings import Settings


def test_every_limit_names_settings_that_exist_and_a_name_of_its_own() -> None:
    settings = {f.name for f in fields(Settings)}
    names = [limit.name for limit in limits.LIMITS]
    assert len(names) == len(set(names))
    for limit in limits.LIMITS:
        assert {limit.count, limit.window} <= settings, limit.name
        assert limit.allowed(Settings()) > 0 and limit.seconds(Settings()) > 0
        assert limit.scope and limit.message


def test_every_module_level_limit_is_in_the_table() -> None:
    declared = [v for v in vars(limits).values() if isinstance(v, limits.Limit)]
    assert set(declared) == set(limits.LIMITS)


def test_a_key_is_the_name_then_the_scope_in_order() -> None:
    assert limits.PASSCODE.key("r1", "u2") == "passcode:r1:u2"
    assert limits.LOGIN.key("ann", "10.0.0.1") == "login:ann:10.0.0.1"
    assert limits.CONNECT.key("10.0.0.1") == "connect-src:10.0.0.1"
    with pytest.raises(ValueError):
        limits.PASSCODE.key("r1")


def test_a_window_ends_on_the_epoch_grid_and_is_never_zero() -> None:
    assert limits.seconds_until_window_ends(10, 1_000) == 9
    assert limits.seconds_until_window_ends(10, 9_999) == 1
    assert limits.seconds_until_window_ends(10, 10_000) == 10
