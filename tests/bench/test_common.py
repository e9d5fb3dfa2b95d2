"""bench/_common.py: the helpers every bench shares (percentiles, DynamoDB's item size, the
rule systems from the engine's registry)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from chalicelib.engine.model import Settings
from chalicelib.engine.systems import DEFAULT_RULES, SYSTEMS, rule_system

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import _common


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert _common.percentile(values, 50) == 50.0
    assert _common.percentile(values, 99) == 99.0
    assert _common.percentile([3.0], 99) == 3.0
    assert math.isnan(_common.percentile([], 50))


def test_numbers_count_their_significant_digits_only() -> None:
    # DynamoDB: about 1 byte per two significant digits, plus 1; leading and trailing zeros
    # are trimmed, sign and decimal point are not digits.
    assert _common.item_size({"n": {"N": "12345"}}) == 1 + 4
    assert _common.item_size({"n": {"N": "1500"}}) == 1 + 2  # "15"
    assert _common.item_size({"n": {"N": "-0.0070"}}) == 1 + 2  # "7"
    assert _common.item_size({"n": {"N": "0"}}) == 1 + 2


def test_lists_and_maps_count_their_overhead_and_elements() -> None:
    listed = {"l": {"L": [{"S": "ab"}, {"BOOL": True}]}}
    assert _common.item_size(listed) == 1 + 3 + (1 + 2) + (1 + 1)
    mapped = {"m": {"M": {"k": {"S": "v"}}}}
    assert _common.item_size(mapped) == 1 + 3 + (1 + 1 + 1)
    assert _common.item_size(None) == 0


def test_every_system_starts_with_the_count_its_settings_ask_for() -> None:
    for name in SYSTEMS:
        settings = _common.count_settings(name, 2)
        assert settings["rules"] == name
        room_settings = Settings.of(**settings)
        assert rule_system(name).starting_count(room_settings) == 2


def test_a_count_a_system_does_not_offer_becomes_the_nearest_it_does() -> None:
    for name, system in SYSTEMS.items():
        setting = _common.count_setting(name)
        choices = system.setting_choices.get(setting)
        if choices:
            too_many = max(choices) + 10
            assert _common.count_settings(name, too_many)[setting] == max(choices)


def test_the_mix_gives_the_default_its_share_and_the_others_alike() -> None:
    mix = dict(_common.rules_mix(0.7))
    assert set(mix) == set(SYSTEMS) and mix[DEFAULT_RULES] == 0.7
    others = {share for name, share in mix.items() if name != DEFAULT_RULES}
    assert len(others) == 1 and math.isclose(sum(mix.values()), 1.0)
