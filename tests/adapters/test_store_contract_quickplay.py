"""Quick play's queue: one contract for SqliteStore and DynamoStore on moto.

The claim races run on threads: unserialized on SQLite (its one-writer transaction is the
guard), serialized into moto (moto is not thread-safe; the conditional transaction is then
the only guard, as it is on DynamoDB).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

import pytest

from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import MatchLost, QueueTicket, RoomExists, Store, TicketHeld

T = TypeVar("T")
NOW = 1_700_000_000_000
SUMMARY = {
    "status": "playing",
    "host_name": "",
    "players": 4,
    "humans": 2,
    "bots": 2,
    "created_at": NOW,
    "created_by_guest": False,
    "settings": {"rules": "classic"},
}


def _ticket(user: str, rules: str = "classic", since: int = NOW, **kw: object) -> QueueTicket:
    return QueueTicket(
        id=f"t-{user}-{since}",
        user_id=user,
        name=user.upper(),
        rules=rules,
        since_ms=since,
        rating=1500.0,
        expires_at_s=since // 1000 + 600,
        **kw,  # type: ignore[arg-type]
    )


class Runner(Protocol):
    def __call__(self, call: Callable[[], T]) -> T: ...


def _runner(store: Store) -> Runner:
    """Run a call under one lock on moto (not thread-safe), unserialized on SQLite."""
    lock = threading.Lock() if not isinstance(store, SqliteStore) else None

    def run(call: Callable[[], T]) -> T:
        if lock is None:
            return call()
        with lock:
            return call()

    return run


def test_a_queued_ticket_reads_back_and_is_listed(store: Store) -> None:
    t = _ticket("u1", group="r9", group_size=3)
    store.queue_ticket(t, NOW)
    assert store.user_ticket("u1", NOW) == t
    assert store.waiting_tickets("classic", NOW) == [t]
    assert store.waiting_tickets("poker", NOW) == []
    assert store.waiting_counts(["classic", "poker"], NOW) == {"classic": 1, "poker": 0}


def test_waiting_tickets_come_oldest_first(store: Store) -> None:
    for i, user in enumerate(["c", "a", "b"]):
        store.queue_ticket(_ticket(user, since=NOW + 10 * (3 - i)), NOW)
    assert [t.user_id for t in store.waiting_tickets("classic", NOW)] == ["b", "a", "c"]


def test_a_user_holds_one_waiting_ticket(store: Store) -> None:
    first = _ticket("u1")
    store.queue_ticket(first, NOW)
    with pytest.raises(TicketHeld) as held:
        store.queue_ticket(_ticket("u1", rules="poker", since=NOW + 5), NOW + 5)
    assert held.value.current == first
    assert store.waiting_counts(["classic", "poker"], NOW) == {"classic": 1, "poker": 0}


def test_an_expired_ticket_is_invisible_and_holds_nothing(store: Store) -> None:
    old = _ticket("u1")
    store.queue_ticket(old, NOW)
    later = (old.expires_at_s + 1) * 1000
    assert store.user_ticket("u1", later) is None
    assert store.waiting_tickets("classic", later) == []
    assert store.waiting_counts(["classic"], later) == {"classic": 0}
    fresh = _ticket("u1", since=later)
    store.queue_ticket(fresh, later)
    assert store.user_ticket("u1", later) == fresh
    assert [t.id for t in store.waiting_tickets("classic", later)] == [fresh.id]


def test_a_claim_matches_every_ticket_and_makes_the_room(store: Store) -> None:
    tickets = [_ticket(u) for u in ("a", "b", "c")]
    for t in tickets:
        store.queue_ticket(t, NOW)
    store.claim_match(tickets, "room1", {"id": "room1"}, SUMMARY, NOW // 1000 + 3600)
    for t in tickets:
        got = store.user_ticket(t.user_id, NOW)
        assert got is not None and (got.status, got.room_id) == ("matched", "room1")
    assert store.waiting_tickets("classic", NOW) == []
    room = store.get_room("room1")
    assert room is not None and room.version == 1
    # A matched ticket does not hold the user: a new one may be queued.
    store.queue_ticket(_ticket("a", since=NOW + 1), NOW + 1)


def test_a_claim_with_one_ticket_gone_writes_nothing(store: Store) -> None:
    tickets = [_ticket(u) for u in ("a", "b", "c")]
    for t in tickets:
        store.queue_ticket(t, NOW)
    store.cancel_ticket("b", NOW)
    with pytest.raises(MatchLost):
        store.claim_match(tickets, "room1", {"id": "room1"}, SUMMARY, NOW // 1000 + 3600)
    assert store.get_room("room1") is None
    assert [t.user_id for t in store.waiting_tickets("classic", NOW)] == ["a", "c"]
    assert all(t.status == "waiting" for t in store.waiting_tickets("classic", NOW))


def test_a_claim_of_a_replaced_ticket_is_lost(store: Store) -> None:
    old = _ticket("a")
    store.queue_ticket(old, NOW)
    store.cancel_ticket("a", NOW)
    store.queue_ticket(_ticket("a", since=NOW + 1), NOW + 1)
    with pytest.raises(MatchLost):
        store.claim_match([old], "room1", {"id": "room1"}, SUMMARY, NOW // 1000 + 3600)
    assert store.get_room("room1") is None


def test_a_claim_onto_a_taken_room_id_writes_nothing(store: Store) -> None:
    store.create_room("room1", {"id": "room1"}, SUMMARY)
    t = _ticket("a")
    store.queue_ticket(t, NOW)
    with pytest.raises(RoomExists):
        store.claim_match([t], "room1", {"id": "other"}, SUMMARY, NOW // 1000 + 3600)
    got = store.user_ticket("a", NOW)
    assert got is not None and got.status == "waiting"


def test_cancel_returns_the_ticket_and_a_matched_one_stays(store: Store) -> None:
    assert store.cancel_ticket("nobody", NOW) is None
    a, b = _ticket("a"), _ticket("b")
    store.queue_ticket(a, NOW)
    store.queue_ticket(b, NOW)
    assert store.cancel_ticket("a", NOW) == a
    assert store.user_ticket("a", NOW) is None
    store.claim_match([b], "room1", {"id": "room1"}, SUMMARY, NOW // 1000 + 3600)
    kept = store.cancel_ticket("b", NOW)
    assert kept is not None and kept.status == "matched"
    assert store.user_ticket("b", NOW) == kept


def test_racing_claims_match_each_ticket_once(store: Store) -> None:
    """Twelve claimants each try a table of four over one pool of eight: every ticket ends
    in exactly one room, and only rooms whose claim won exist."""
    run = _runner(store)
    users = [f"u{i}" for i in range(8)]
    tickets = {u: _ticket(u) for u in users}
    for t in tickets.values():
        store.queue_ticket(t, NOW)
    tables = [[users[(k + j * 3) % 8] for j in range(4)] for k in range(12)]
    tables = [list(dict.fromkeys(t)) for t in tables]
    barrier = threading.Barrier(len(tables))

    def claim(k: int) -> bool:
        barrier.wait()
        try:
            run(
                lambda: store.claim_match(
                    [tickets[u] for u in tables[k]],
                    f"room{k}",
                    {"id": f"room{k}"},
                    SUMMARY,
                    NOW // 1000 + 3600,
                )
            )
        except MatchLost:
            return False
        return True

    with ThreadPoolExecutor(max_workers=len(tables)) as pool:
        won = list(pool.map(claim, range(len(tables))))
    rooms = {f"room{k}" for k, w in enumerate(won) if w}
    assert rooms, "some claim must win"
    for k in range(len(tables)):
        assert (store.get_room(f"room{k}") is not None) == won[k]
    seated: dict[str, str] = {}
    for k, w in enumerate(won):
        for u in tables[k] if w else []:
            assert u not in seated, f"{u} seated in {seated.get(u)} and room{k}"
            seated[u] = f"room{k}"
    for u in users:
        got = store.user_ticket(u, NOW)
        assert got is not None
        if u in seated:
            assert (got.status, got.room_id) == ("matched", seated[u])
        else:
            assert got.status == "waiting"


def _race_cancel_and_claim(store: Store, run: Runner, n: int) -> None:
    users = [f"a{n}", f"b{n}"]
    tickets = [_ticket(u) for u in users]
    for t in tickets:
        store.queue_ticket(t, NOW)
    barrier = threading.Barrier(2)
    room_id = f"room{n}"

    def claim() -> bool:
        barrier.wait()
        try:
            run(lambda: store.claim_match(tickets, room_id, {"id": room_id}, SUMMARY, 10**10))
        except MatchLost:
            return False
        return True

    def cancel() -> QueueTicket | None:
        barrier.wait()
        return run(lambda: store.cancel_ticket(users[0], NOW))

    with ThreadPoolExecutor(max_workers=2) as pool:
        claimed, cancelled = pool.submit(claim), pool.submit(cancel)
        won, before = claimed.result(), cancelled.result()
    assert before is not None
    now = store.user_ticket(users[0], NOW)
    if won:
        assert before.status == "matched" and now is not None and now.room_id == room_id
        assert store.get_room(room_id) is not None
    else:
        assert before.status == "waiting" and now is None
        assert store.get_room(room_id) is None
        other = store.user_ticket(users[1], NOW)
        assert other is not None and other.status == "waiting"


def test_cancel_racing_a_claim_either_cancels_or_is_seated(store: Store) -> None:
    run = _runner(store)
    for attempt in range(6):
        _race_cancel_and_claim(store, run, attempt)


def test_racing_enqueues_of_one_user_keep_one_ticket(store: Store) -> None:
    run = _runner(store)
    barrier = threading.Barrier(6)

    def enqueue(i: int) -> bool:
        barrier.wait()
        try:
            run(lambda: store.queue_ticket(_ticket("u1", since=NOW + i), NOW))
        except TicketHeld:
            return False
        return True

    with ThreadPoolExecutor(max_workers=6) as pool:
        won = list(pool.map(enqueue, range(6)))
    assert won.count(True) == 1
    assert len(store.waiting_tickets("classic", NOW)) == 1


def test_a_claim_stores_the_ticket_that_completed_the_table_matched(store: Store) -> None:
    waiting = _ticket("a")
    store.queue_ticket(waiting, NOW)
    newcomer = _ticket("b", since=NOW + 5)
    store.claim_match(
        [waiting], "room1", {"id": "room1"}, SUMMARY, NOW // 1000 + 3600, new=newcomer, now_ms=NOW
    )
    got = store.user_ticket("b", NOW)
    assert got is not None and (got.id, got.status, got.room_id) == (
        newcomer.id,
        "matched",
        "room1",
    )
    assert store.waiting_tickets("classic", NOW) == []
    assert store.get_room("room1") is not None


def test_a_claim_whose_newcomer_already_waits_writes_nothing(store: Store) -> None:
    other, held = _ticket("a"), _ticket("b")
    store.queue_ticket(other, NOW)
    store.queue_ticket(held, NOW)
    with pytest.raises(TicketHeld) as err:
        store.claim_match(
            [other],
            "room1",
            {"id": "room1"},
            SUMMARY,
            NOW // 1000 + 3600,
            new=_ticket("b", since=NOW + 5),
            now_ms=NOW,
        )
    assert err.value.current == held
    assert store.get_room("room1") is None
    assert [t.user_id for t in store.waiting_tickets("classic", NOW)] == ["a", "b"]
