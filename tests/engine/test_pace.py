"""Room pace: live turns of seconds, correspondence turns of hours (docs/API.md, "Settings")."""

from __future__ import annotations

import pytest

from chalicelib.engine.errors import InvalidSetting
from chalicelib.engine.model import Settings


def test_correspondence_takes_a_day_per_turn_unless_told() -> None:
    s = Settings.parse({"pace": "correspondence"})
    assert (s.pace, s.turn_seconds) == ("correspondence", 86400)
    assert Settings.parse({"pace": "correspondence", "turn_seconds": 3600}).turn_seconds == 3600
    assert Settings.parse({"pace": "live"}, s).turn_seconds == 30
    assert Settings.parse({}).pace == "live"


@pytest.mark.parametrize("seconds", [3600, 43200, 86400, 259200])
def test_every_correspondence_turn_time_is_accepted(seconds: int) -> None:
    s = Settings.parse({"pace": "correspondence", "turn_seconds": seconds})
    assert s.turn_seconds == seconds
    # the break after a reveal lasts one turn length at most
    assert s.break_ms == seconds * 1000


def test_a_live_room_keeps_its_break() -> None:
    assert Settings.parse({"break_seconds": 120}).break_ms == 120_000


@pytest.mark.parametrize(
    ("change", "base", "allowed"),
    [
        ({"pace": "correspondence", "turn_seconds": 30}, {}, "3600, 43200, 86400, 259200"),
        ({"turn_seconds": 3600}, {}, "15, 30, 60"),
        ({"turn_seconds": 60}, {"pace": "correspondence"}, "3600, 43200, 86400, 259200"),
    ],
)
def test_a_turn_time_of_the_other_pace_is_refused_naming_the_field_and_the_choices(
    change: dict[str, object], base: dict[str, object], allowed: str
) -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings.parse(change, Settings.parse(base))
    assert caught.value.field == "turn_seconds"
    assert allowed in str(caught.value)


def test_an_unknown_pace_is_refused_naming_the_choices() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings.parse({"pace": "slow"})
    assert caught.value.field == "pace"
    assert "live, correspondence" in str(caught.value)
