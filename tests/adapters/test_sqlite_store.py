"""What only the SQLite store has: a file that persists, concurrency without a lock in
Python, expiry on read and by a sweep, and a schema version with start-up migrations."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from chalicelib.adapters import sqlite as sqlite_adapter
from chalicelib.adapters.fakes import FakeClock
from chalicelib.adapters.sqlite import SchemaTooNew, SqliteStore, migrate
from chalicelib.ports import RoundsWrite, Unavailable, UsernameTaken, VersionConflict

SUMMARY = {"status": "waiting", "host_name": "Alice", "created_at": 1_000}
NOW = 1_700_000_000_000


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "liars-lies.db"


def test_a_file_store_uses_wal_and_keeps_its_data_after_closing(db_path: Path) -> None:
    first = SqliteStore(db_path)
    first.create_user("u1", "Alice", "hash", False, "Alice", now_ms=5)
    first.create_room("r1", {"n": 1}, SUMMARY, owner_id="u1", max_open=3)
    first.close()

    again = SqliteStore(db_path)
    user = again.get_user_by_username("alice")
    room = again.get_room("r1")
    assert user is not None and user.id == "u1" and user.password_hash == "hash"
    assert room is not None and (room.state, room.version) == ({"n": 1}, 1)
    assert again.open_rooms("u1") == ["r1"]
    mode = sqlite3.connect(db_path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    again.close()


# --- concurrency without any lock in Python -----------------------------------------------


def test_racing_writers_on_a_file_have_exactly_one_winner_per_turn(db_path: Path) -> None:
    # Two store objects on one file (as two processes would be), many threads, no lock in
    # Python (not even the writer mutex): SQLite's write lock and the version check are the
    # only guards.
    stores = [SqliteStore(db_path, serialize_writers=False) for _ in range(2)]
    stores[0].create_room("r1", {"turn": 0}, SUMMARY)
    barrier = threading.Barrier(12)

    def write(args: tuple[int, int]) -> bool:
        turn, i = args
        barrier.wait()
        try:
            stores[i % 2].save_room("r1", {"turn": turn, "by": i}, SUMMARY, expected_version=turn)
        except VersionConflict as conflict:
            assert conflict.current is not None and conflict.current.version == turn + 1
            return False
        return True

    with ThreadPoolExecutor(max_workers=12) as pool:
        for turn in range(1, 21):
            wins = list(pool.map(write, [(turn, i) for i in range(12)]))
            assert wins.count(True) == 1, (turn, wins)
            room = stores[1].get_room("r1")
            assert room is not None and room.version == turn + 1
            assert room.state == {"turn": turn, "by": wins.index(True)}
    for s in stores:
        s.close()


def test_racing_counters_and_usernames_on_a_file_stay_exact(db_path: Path) -> None:
    store = SqliteStore(db_path, serialize_writers=False)

    def hit(_: int) -> bool:
        return store.hit("login:1.2.3.4", 10, 60, NOW)

    def register(i: int) -> bool:
        try:
            store.create_user(f"u{i}", "Same", "h", False, f"N{i}")
        except UsernameTaken:
            return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        hits = list(pool.map(hit, range(40)))
        registered = list(pool.map(register, range(16)))
    assert hits.count(True) == 10
    assert registered.count(True) == 1
    store.close()


def test_connections_of_finished_threads_are_closed(db_path: Path) -> None:
    import gc

    store = SqliteStore(db_path)
    store.create_room("r1", {}, SUMMARY)  # this thread's connection
    threads = [threading.Thread(target=store.get_room, args=("r1",)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()

    assert store.open_connections == 1
    store.close()
    assert store.open_connections == 0


def test_a_file_locked_past_the_busy_timeout_is_unavailable_and_nothing_is_written(
    db_path: Path,
) -> None:
    store = SqliteStore(db_path, busy_timeout_seconds=0.05)
    store.create_room("r1", {"n": 1}, SUMMARY)
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock

    with pytest.raises(Unavailable) as err:
        store.save_room("r1", {"n": 2}, SUMMARY, expected_version=1)
    assert err.value.reason == "timeout"
    room = store.get_room("r1")  # WAL: reads go on while the writer holds the lock
    assert room is not None and room.version == 1

    other.execute("ROLLBACK")
    other.close()
    assert store.save_room("r1", {"n": 2}, SUMMARY, expected_version=1) == 2
    store.close()


# --- expiry -------------------------------------------------------------------------------


def test_expired_items_are_invisible_at_once_and_swept_later(db_path: Path) -> None:
    clock = FakeClock(NOW)
    store = SqliteStore(db_path, clock=clock, connection_ttl_seconds=60)
    store.create_room("done", {}, SUMMARY)
    store.save_room("done", {}, {**SUMMARY, "status": "finished"}, 1, expires_at_s=NOW // 1000 + 10)
    store.append_chat("done", "u1", "Alice", "gg", NOW)
    store.create_room("live", {}, {**SUMMARY, "status": "finished"})
    store.put_connection("c1", "u1", NOW)
    assert store.subscribe("c1", "live")
    store.add_invitation("u2", "live", "Alice", now_ms=NOW)
    store.hit("chat:u1", 5, 10, NOW)
    store.put_ticket("t", "u1", NOW + 1_000)
    store.create_user("g1", None, None, True, "Visitor", expires_at_s=NOW // 1000 + 10)

    clock.advance(11_000)  # the finished room's and the guest's time has come
    assert store.get_user("g1") is None
    assert store.get_room("done") is None
    assert [r["id"] for r in store.list_rooms("finished")] == ["live"]
    with pytest.raises(VersionConflict):
        store.save_room("done", {}, SUMMARY, 2)
    assert store.get_connection("c1") is not None

    clock.advance(60_000)  # the connection's too
    assert store.get_connection("c1") is None
    assert store.subscribers("live") == []
    assert not store.subscribe("c1", "live")
    assert store.list_invitations("u2") == [{"room_id": "live", "host_name": "Alice"}]

    # The sweep deletes what expired: guest, room, connection, subscription, window, ticket.
    assert store.sweep() == 6
    assert store.list_chat("done") == []
    assert store.get_room("live") is not None
    assert store.sweep() == 0

    clock.advance(7 * 24 * 3600 * 1000)
    assert store.list_invitations("u2") == []
    assert store.sweep() == 1
    store.close()


# --- schema version and migrations ----------------------------------------------------------


def test_a_newer_server_migrates_a_file_made_by_an_older_schema(db_path: Path) -> None:
    # A file as the first release (schema 1) left it, with data written in that schema.
    db_path.parent.mkdir(parents=True)
    old = sqlite_adapter.connect(str(db_path))
    assert migrate(old, target=1) == 1
    old.execute(
        "INSERT INTO users (user_id, name, guest, username, username_key, password_hash,"
        " continue_mode, rating, created_at) VALUES ('u1', 'Alice', 0, 'Alice', 'alice',"
        " 'h', 'manual', '1520.5', 7)"
    )
    old.execute(
        "INSERT INTO rooms (room_id, state, version, summary, status, sort_key) VALUES"
        ' (\'r1\', \'{"n":3}\', 3, \'{"status":"waiting","host_name":"Alice"}\','
        " 'waiting', '000000000001000#r1')"
    )
    old.close()

    store = SqliteStore(db_path)

    assert store.schema_version == sqlite_adapter.SCHEMA_VERSION >= 2
    indexes = {
        row[0]
        for row in sqlite3.connect(db_path).execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'"
        )
    }
    assert {"rooms_by_status", "subscriptions_by_connection"} <= indexes
    user = store.get_user_by_username("ALICE")
    assert user is not None and (user.id, user.continue_mode, user.created_at_ms) == (
        "u1",
        "manual",
        7,
    )
    assert store.get_ratings(["u1"]) == {"u1": 1520.5}
    assert [r["id"] for r in store.list_rooms("waiting")] == ["r1"]
    assert store.save_room("r1", {"n": 4}, SUMMARY, expected_version=3) == 4
    store.close()


def test_opening_a_current_file_again_changes_nothing(db_path: Path) -> None:
    SqliteStore(db_path).close()
    conn = sqlite_adapter.connect(str(db_path))
    assert migrate(conn) == sqlite_adapter.SCHEMA_VERSION
    conn.close()


def test_a_file_from_a_newer_program_is_refused_untouched(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    newer = sqlite3.connect(db_path)
    newer.execute("CREATE TABLE future (x)")
    newer.execute(f"PRAGMA user_version = {sqlite_adapter.SCHEMA_VERSION + 1}")
    newer.commit()
    newer.close()

    with pytest.raises(SchemaTooNew, match="newer"):
        SqliteStore(db_path)

    tables = {r[0] for r in sqlite3.connect(db_path).execute("SELECT name FROM sqlite_master")}
    assert tables == {"future"}


def test_a_schema_3_file_gains_round_records_and_profiles_keeping_its_users(
    db_path: Path,
) -> None:
    # Step 4 (issue 18) runs on a file as issue 14 left it: its users stay, unrated so far.
    db_path.parent.mkdir(parents=True)
    old = sqlite_adapter.connect(str(db_path))
    assert migrate(old, target=3) == 3
    old.execute(
        "INSERT INTO users (user_id, name, guest, username, username_key, password_hash,"
        " rating, created_at) VALUES ('u1', 'Alice', 0, 'Alice', 'alice', 'h', '1520.5', 7)"
    )
    old.close()

    store = SqliteStore(db_path)

    assert store.schema_version == sqlite_adapter.SCHEMA_VERSION >= 4
    stats = store.get_player_stats("u1")
    assert (stats.rating, stats.games, stats.finishes) == (1520.5, 0, {})
    assert store.leaderboard(10) == [] and store.list_rated_games("u1", 5) == []
    store.create_room("r1", {"n": 0}, SUMMARY)
    store.save_room("r1", {"n": 1}, SUMMARY, 1, rounds=RoundsWrite([{"round": 1, "bids": []}]))
    assert store.list_rounds("r1") == [{"round": 1, "bids": []}]


def test_a_schema_5_file_keeps_its_round_records_and_gains_attempts_and_language(
    db_path: Path,
) -> None:
    # Step 6 (issue 28) rebuilds the rounds table keyed by round and attempt: the records
    # written before it stay (as attempt 0), a re-dealt round gets its own, users a language.
    db_path.parent.mkdir(parents=True)
    old = sqlite_adapter.connect(str(db_path))
    assert migrate(old, target=5) == 5
    old.execute(
        "INSERT INTO users (user_id, name, guest, username, username_key, password_hash,"
        " created_at) VALUES ('u1', 'Alice', 0, 'Alice', 'alice', 'h', 7)"
    )
    old.execute(
        "INSERT INTO rounds (room_id, round, record, expires_at)"
        " VALUES ('r1', 1, '{\"round\":1,\"bids\":[]}', NULL)"
    )
    old.close()

    store = SqliteStore(db_path)

    assert store.schema_version == sqlite_adapter.SCHEMA_VERSION >= 6
    user = store.get_user("u1")
    assert user is not None and user.language is None
    store.set_language("u1", "es")
    assert (store.get_user("u1") or user).language == "es"
    store.create_room("r1", {"n": 0}, SUMMARY)
    again = {"round": 1, "attempt": 1, "bids": []}
    store.save_room("r1", {"n": 1}, SUMMARY, 1, rounds=RoundsWrite([again]))
    assert store.list_rounds("r1") == [{"round": 1, "bids": []}, again]
