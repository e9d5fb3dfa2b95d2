"""A SQLite file damaged while the server runs (a failing disk, a file overwritten): every
read and write is ``Unavailable`` (a 503 with ``Retry-After``, one error in the log), never an
unexpected error that the API would answer with a 500."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import Unavailable

SUMMARY = {"status": "waiting", "created_at": 1}


def test_reads_and_writes_on_a_damaged_file_are_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    store = SqliteStore(path)
    for i in range(40):
        store.create_room(f"r{i}", {"pad": "x" * 3000}, {**SUMMARY, "created_at": i})
    checkpoint = sqlite3.connect(path)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpoint.close()
    size = path.stat().st_size
    with path.open("r+b") as f:  # the second half of the file: the rooms, not the schema
        f.seek(size // 2)
        f.write(os.urandom(size - size // 2))

    calls = [
        lambda: store.get_room("r35"),
        lambda: store.list_rooms("waiting"),
        lambda: store.save_room("r35", {"n": 2}, SUMMARY, expected_version=1),
    ]
    for call in calls:
        with pytest.raises(Unavailable) as err:
            call()
        assert err.value.retry_after >= 1 and "malformed" in str(err.value)
    store.close()
