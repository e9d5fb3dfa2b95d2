"""bench/quickplay.py's own arithmetic: arrivals, buckets, and the double-seated count."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import quickplay as bench


def test_arrivals_are_seeded_sorted_and_within_the_span() -> None:
    plan = bench.arrivals(200, 60.0, 7)
    assert plan == bench.arrivals(200, 60.0, 7)
    assert [a for a, _ in plan] == sorted(a for a, _ in plan)
    assert all(0 <= a <= 60 for a, _ in plan)
    assert {r for _, r in plan} <= {r for r, _ in bench.MIX}


def test_buckets_keep_every_arrival_once_in_order() -> None:
    plan = [(0.1, "classic"), (0.2, "poker"), (0.9, "any"), (2.6, "classic")]
    assert list(bench._buckets(plan, 0.5)) == [[0, 1], [2], [], [], [], [3]]


def test_double_seated_counts_two_rooms_and_a_ticket_naming_a_room_without_its_user() -> None:
    result = bench.Result("x", 4, 1.0)
    result.rooms = {"r1": ["a", "b"], "r2": ["b", "c"]}
    result.tickets = {"a": "r1", "b": "r1", "c": "r1", "d": None}
    assert result.double_seated() == 2  # b in two rooms; c's ticket names r1
    result.rooms = {"r1": ["a", "b"], "r2": ["c"]}
    result.tickets = {"a": "r1", "b": "r1", "c": "r2", "d": None}
    assert result.double_seated() == 0
    row = result.row()
    assert row[3] == "2" and row[7] == "1" and row[8] == "0"
