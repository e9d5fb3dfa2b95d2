"""A room's write on SQLite touches the lobby and expiry indexes only when their columns change,
and they stay right either way."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chalicelib.adapters.fakes import FakeClock
from chalicelib.adapters.sqlite import SqliteStore

NOW = 1_700_000_000_000


def _summary(status: str, players: int = 1) -> dict[str, object]:
    return {"status": status, "host_name": "Alice", "players": players, "created_at": 1_000}


def _row(path: Path) -> tuple[object, ...]:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT status, expires_at, version, summary FROM rooms").fetchone()
    finally:
        db.close()
    return tuple(row)


def test_a_write_that_keeps_the_status_updates_the_room_and_its_lobby_entry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.db"
    store = SqliteStore(path, clock=FakeClock(NOW))
    store.create_room("r1", {"n": 1}, _summary("waiting"))
    assert store.save_room("r1", {"n": 2}, _summary("waiting", players=2), 1) == 2
    stored = store.get_room("r1")
    assert stored is not None and (stored.state, stored.version) == ({"n": 2}, 2)
    assert [r["players"] for r in store.list_rooms("waiting")] == [2]
    status, expires_at, version, _ = _row(path)
    assert (status, expires_at, version) == ("waiting", None, 2)


def test_a_write_that_changes_the_status_moves_the_room_in_the_lobby(tmp_path: Path) -> None:
    path = tmp_path / "d.db"
    store = SqliteStore(path, clock=FakeClock(NOW))
    store.create_room("r1", {"n": 1}, _summary("waiting"))
    store.save_room("r1", {"n": 2}, _summary("playing"), 1)
    assert store.list_rooms("waiting") == []
    assert [r["id"] for r in store.list_rooms("playing")] == ["r1"]
    assert _row(path)[0] == "playing"


def test_an_expiry_set_once_stays_through_later_writes_that_keep_the_status(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.db"
    clock = FakeClock(NOW)
    store = SqliteStore(path, clock=clock)
    store.create_room("r1", {"n": 1}, _summary("playing"))
    expires = NOW // 1000 + 60
    store.save_room("r1", {"n": 2}, _summary("finished"), 1, expires_at_s=expires)
    store.save_room("r1", {"n": 3}, _summary("finished"), 2)  # no new expiry: it stays
    assert _row(path)[:3] == ("finished", expires, 3)
    # An expiry given again with the same status is written (the short form is not used).
    store.save_room("r1", {"n": 4}, _summary("finished"), 3, expires_at_s=expires + 5)
    assert _row(path)[:3] == ("finished", expires + 5, 4)
    clock.advance(66_000)
    assert store.get_room("r1") is None
