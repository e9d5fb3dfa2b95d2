"""The data folder an operator keeps: a clean stop leaves a whole database file, a backup taken
while serving restores every account, room and session, damaged or missing files stop the
start with one line (never an empty server), and the token secret is written whole."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from liars_local import data as data_module
from liars_local.cli import main
from liars_local.data import DB_FILE_NAME, SECRET_FILE_NAME, DataProblem, restore
from liars_local.environment import load_or_create_secret
from liars_local.server import LocalServer
from liars_local.workers import WorkerPool
from tests.local.support import PASSWORD, REPO, auth, ok


def _users(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM users").fetchone()[0])
    finally:
        conn.close()


def _fill(server: LocalServer | WorkerPool) -> tuple[str, str]:
    """Alice (registered) with a room, and a guest; the guest's token and the room's id."""
    alice = ok(
        httpx.post(f"{server.url}/auth/register", json={"username": "Alice", "password": PASSWORD}),
        201,
    )
    room_id = ok(
        httpx.post(f"{server.url}/rooms", json={"settings": {}}, headers=auth(alice["token"])), 201
    )["id"]
    guest = ok(httpx.post(f"{server.url}/auth/guest", json={"name": "Gus"}), 201)
    return str(guest["token"]), str(room_id)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_clean_stop_leaves_every_commit_in_the_database_file(
    tmp_path: Path, workers: int
) -> None:
    folder = tmp_path / "data"
    with WorkerPool(workers=workers, data_dir=folder, stdout=subprocess.DEVNULL) as pool:
        _fill(pool)
        assert _users(folder / DB_FILE_NAME) == 2

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(folder / DB_FILE_NAME, copy / DB_FILE_NAME)  # the .db alone, no -wal
    assert _users(copy / DB_FILE_NAME) == 2
    wal = Path(f"{folder / DB_FILE_NAME}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_while_serving_the_wal_is_copied_into_the_database_file_periodically(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    # the sweeper's thread checkpoints every min(CHECKPOINT_SECONDS, sweep_seconds)
    with LocalServer(data_dir=folder, access_log=lambda _: None, sweep_seconds=0.2) as server:
        _fill(server)
        copy = tmp_path / "copy"
        copy.mkdir()
        end = time.monotonic() + 20
        while True:
            shutil.copy(folder / DB_FILE_NAME, copy / DB_FILE_NAME)  # the .db alone
            try:
                if _users(copy / DB_FILE_NAME) == 2:
                    break
            except sqlite3.OperationalError:  # not even the schema is in the .db yet
                pass
            assert time.monotonic() < end, "the running server never checkpointed"
            time.sleep(0.2)


def test_a_backup_taken_while_serving_restores_every_account_room_and_session(
    tmp_path: Path,
) -> None:
    folder, backup = tmp_path / "data", tmp_path / "backup.db"
    with LocalServer(data_dir=folder, access_log=lambda _: None) as server:
        guest_token, room_id = _fill(server)
        assert main(["backup", str(backup), "--data", str(folder)]) == 0
        # written after the backup: not in it
        ok(httpx.post(f"{server.url}/auth/guest", json={"name": "Late"}), 201)

    elsewhere = tmp_path / "elsewhere"
    assert main(["restore", str(backup), "--data", str(elsewhere)]) == 0
    with LocalServer(data_dir=elsewhere, access_log=lambda _: None) as restored:
        login = ok(
            httpx.post(
                f"{restored.url}/auth/login", json={"username": "alice", "password": PASSWORD}
            )
        )
        room = ok(httpx.get(f"{restored.url}/rooms/{room_id}", headers=auth(login["token"])))
        me = ok(httpx.get(f"{restored.url}/me", headers=auth(guest_token)))  # the secret came too

    assert room["id"] == room_id
    assert me["user"]["name"] == "Gus"
    assert _users(elsewhere / DB_FILE_NAME) == 2


def test_restore_over_a_folder_sets_its_files_aside_and_is_refused_while_serving(
    tmp_path: Path,
) -> None:
    folder, backup = tmp_path / "data", tmp_path / "backup.db"
    with LocalServer(data_dir=folder, access_log=lambda _: None) as server:
        _fill(server)
        assert main(["backup", str(backup), "--data", str(folder)]) == 0
        with pytest.raises(DataProblem, match="a server is using"):
            restore(backup, folder)
    moved = restore(backup, folder)

    assert sorted(p.name.split(".set-aside-")[0] for p in moved) == [DB_FILE_NAME, SECRET_FILE_NAME]
    assert all(p.exists() for p in moved)
    assert _users(folder / DB_FILE_NAME) == 2


def test_a_damaged_backup_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    folder, bad = tmp_path / "data", tmp_path / "bad.db"
    with LocalServer(data_dir=folder, access_log=lambda _: None) as server:
        _fill(server)
    bad.write_bytes(b"not a database at all" * 100)
    before = (folder / DB_FILE_NAME).read_bytes()

    assert main(["restore", str(bad), "--data", str(folder)]) == 2
    assert (folder / DB_FILE_NAME).read_bytes() == before


def _serve(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "liars_local.cli",
            "serve",
            "--port",
            "0",
            "--data",
            str(folder),
            *list(extra),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _damage(folder: Path, how: str) -> None:
    db = folder / DB_FILE_NAME
    if how == "empty":
        db.write_bytes(b"")
    elif how == "deleted, -wal left":
        Path(f"{db}-wal").write_bytes(b"\0" * 64)
        db.unlink()
    elif how == "malformed":
        db.write_bytes(b"SQLite format 3\0" + os.urandom(8192))
    elif how == "deleted":
        db.unlink()


@pytest.mark.parametrize("how", ["empty", "deleted, -wal left", "malformed", "deleted"])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_damaged_or_missing_database_stops_the_start_with_one_line(
    tmp_path: Path, how: str, workers: str
) -> None:
    folder = tmp_path / "data"
    with LocalServer(data_dir=folder, access_log=lambda _: None) as server:
        _fill(server)
    _damage(folder, how)

    done = _serve(folder, "--workers", workers)

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert str(folder / DB_FILE_NAME) in done.stderr
    assert "liars-dice restore" in done.stderr and "--start-fresh" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (folder / DB_FILE_NAME).exists() or how != "deleted"  # nothing was made


def test_start_fresh_sets_a_damaged_database_aside_and_serves_an_empty_one(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    with LocalServer(data_dir=folder, access_log=lambda _: None) as server:
        _fill(server)
    _damage(folder, "malformed")

    with LocalServer(data_dir=folder, access_log=lambda _: None, start_fresh=True) as fresh:
        ok(httpx.post(f"{fresh.url}/auth/guest", json={"name": "New"}), 201)

    aside = [p.name for p in folder.iterdir() if ".set-aside-" in p.name]
    assert any(name.startswith(f"{DB_FILE_NAME}.set-aside-") for name in aside), aside
    assert _users(folder / DB_FILE_NAME) == 1


def test_a_first_start_in_an_empty_folder_is_no_damage(tmp_path: Path) -> None:
    with LocalServer(data_dir=tmp_path / "new", access_log=lambda _: None) as server:
        ok(httpx.get(f"{server.url}/health"))


def test_a_full_disk_at_the_first_start_leaves_no_empty_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(data_module.os, "write", full)
    with pytest.raises(OSError, match="No space left"):
        load_or_create_secret(tmp_path)
    assert not (tmp_path / SECRET_FILE_NAME).exists()
    assert [p.name for p in tmp_path.iterdir()] == []
    monkeypatch.undo()

    assert len(load_or_create_secret(tmp_path)) >= 32  # once space is back, it starts


def test_an_empty_secret_beside_no_database_is_replaced(tmp_path: Path) -> None:
    (tmp_path / SECRET_FILE_NAME).write_text("")  # what an older version left on a full disk

    assert len(load_or_create_secret(tmp_path)) >= 32
