"""``overdue_rooms``: the rooms whose pending deadline passed, for the sweeper (both stores).

A room carries its next deadline in the write that saves it (``save_room(deadline_ms=...)``);
a write without one takes the room out of the answer.
"""

from __future__ import annotations

from chalicelib.adapters.policy import OVERDUE_WINDOW_MS
from chalicelib.ports import QueueTicket, Store

NOW = 1_700_000_000_000
SUMMARY = {"status": "playing", "created_at": NOW}


def _room(store: Store, room_id: str, deadline_ms: int | None) -> int:
    store.create_room(room_id, {"id": room_id}, SUMMARY)
    return store.save_room(room_id, {"id": room_id, "v": 2}, SUMMARY, 1, deadline_ms=deadline_ms)


def test_rooms_whose_deadline_passed_are_listed_earliest_first(store: Store) -> None:
    _room(store, "late", NOW - 5 * 60_000)
    _room(store, "later", NOW - 90_000)
    _room(store, "edge", NOW)
    _room(store, "due-soon", NOW + 1)
    _room(store, "no-deadline", None)
    _room(store, "long-ago", NOW - OVERDUE_WINDOW_MS - 1)

    assert store.overdue_rooms(NOW) == ["late", "later", "edge"]
    assert store.overdue_rooms(NOW, 2) == ["late", "later"]
    assert store.overdue_rooms(NOW, after_ms=NOW - 2 * OVERDUE_WINDOW_MS)[0] == "long-ago"
    assert store.overdue_rooms(NOW - OVERDUE_WINDOW_MS - 2) == []


def test_a_save_without_a_deadline_takes_the_room_out_and_a_new_one_moves_it(
    store: Store,
) -> None:
    version = _room(store, "r1", NOW - 120_000)
    assert store.overdue_rooms(NOW) == ["r1"]

    version = store.save_room("r1", {"id": "r1", "v": 3}, SUMMARY, version, deadline_ms=None)
    assert store.overdue_rooms(NOW) == []

    store.save_room("r1", {"id": "r1", "v": 4}, SUMMARY, version, deadline_ms=NOW + 60_000)
    assert store.overdue_rooms(NOW) == []
    assert store.overdue_rooms(NOW + 60_000) == ["r1"]


def test_a_room_made_by_a_quick_play_claim_carries_its_first_deadline(store: Store) -> None:
    ticket = QueueTicket(
        id="t-a",
        user_id="a",
        name="A",
        rules="classic",
        since_ms=NOW,
        rating=1500.0,
        expires_at_s=NOW // 1000 + 600,
    )
    store.queue_ticket(ticket, NOW)
    store.claim_match(
        [ticket], "qp1", {"id": "qp1"}, SUMMARY, NOW // 1000 + 3600, deadline_ms=NOW - 90_000
    )
    assert store.overdue_rooms(NOW) == ["qp1"]
