"""bench/bots.py: how a row names its settings (a system's own count setting included)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bots


def row(system: str, settings: tuple[tuple[str, object], ...] = ()) -> bots.Row:
    return bots.Row(system, 2, settings, "strong", "naive", 1, None)


def test_a_row_names_its_count_setting_shared_or_the_systems_own() -> None:
    # Poker's lives are its own option, not a field of the shared settings (the default run
    # stopped on this after its last row)
    assert bots.describe(row("poker")) == "3 lives"
    assert bots.describe(row("poker", (("lives", 2),))) == "2 lives"
    assert bots.describe(row("wild-stars", (("starting_dice", 4),))) == "4 dice"
    assert bots.describe(row("perudo")) == "5 dice"
