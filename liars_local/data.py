"""The data folder's life: start-up checks, WAL checkpoints, backups and restores.

The data folder (docs/OPERATIONS.md) holds ``liars-lies.db`` (every account, room, game and
session; SQLite in WAL mode, so recent commits may sit in ``liars-lies.db-wal`` beside it),
``token-secret`` (signs every session token: guests can reach their account only through
one) and SQLite's own ``-shm`` and ``.writer-lock`` files.

- ``check_data_folder`` runs before the server opens the file: a database that is missing or
  empty where the folder shows it had data (the token secret or a ``-wal`` exists), or one
  that fails SQLite's ``quick_check``, stops start-up with ``DataProblem`` (one line naming
  the file and the two ways out). ``set_aside`` is the explicit way to start fresh.
- ``checkpoint`` copies the WAL into the database (``TRUNCATE`` at a clean stop, so the
  ``.db`` alone then holds everything; ``PASSIVE`` periodically while serving).
- ``backup`` copies a consistent snapshot with SQLite's online backup API while the server
  runs, and puts the token secret inside the copy (table ``liars_local_backup``), so one file
  restores accounts, rooms and sessions; ``restore`` checks a backup, sets the current files
  aside and puts the backup in their place (refused while a server uses the folder:
  ``ServerLock``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from types import TracebackType

DB_FILE_NAME = "liars-lies.db"
SECRET_FILE_NAME = "token-secret"
#: Held (shared) by every server on the folder for its lifetime; ``restore`` needs it alone.
SERVER_LOCK_NAME = "server.lock"
#: The table a backup file carries the token secret in (dropped again by ``restore``).
BACKUP_TABLE = "liars_local_backup"
#: How often a serving process copies the WAL into the database (``PASSIVE``: never waits).
CHECKPOINT_SECONDS = 60.0
_SIDE_FILES = ("-wal", "-shm")


class DataProblem(Exception):
    """The data folder cannot be served as it is; the message is the one line to print."""


def _fresh_hint(db: Path) -> str:
    folder = db.parent
    return (
        f'restore a backup ("liars-dice restore BACKUP --data {folder}") or start fresh '
        f'("liars-dice serve --data {folder} --start-fresh" sets the damaged files aside)'
    )


def check_data_folder(data_dir: Path) -> None:
    """Raise ``DataProblem`` when the folder's database must not be served as it is.

    A folder with no database and no trace of one is a first start (fine). A database that
    is missing or empty while the token secret or a ``-wal`` file exists had data that is
    gone; one SQLite cannot read, or whose ``quick_check`` fails, is damaged.
    """
    db = data_dir / DB_FILE_NAME
    wal = Path(f"{db}-wal")
    had_data = (data_dir / SECRET_FILE_NAME).exists() or wal.exists()
    size = db.stat().st_size if db.exists() else None
    if size is None or size == 0:
        if had_data:
            what = "is missing" if size is None else "is empty"
            raise DataProblem(
                f"{db} {what}, but the data folder shows it held data: {_fresh_hint(db)}"
            )
        return
    problem = _quick_check(db)
    if problem is not None:
        raise DataProblem(f"{db} is damaged ({problem}): {_fresh_hint(db)}")


def _quick_check(db: Path) -> str | None:
    """What is wrong with the database file, in a few words; None when it reads well."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as err:
        return str(err)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as err:
        return str(err)
    finally:
        conn.close()
    found = [str(row[0]) for row in rows]
    if found == ["ok"]:
        return None
    return "; ".join(found[:3]) or "quick_check said nothing"


def set_aside(data_dir: Path) -> list[Path]:
    """Rename the database and its side files to ``*.set-aside-<time>``; the new names."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved: list[Path] = []
    db = data_dir / DB_FILE_NAME
    for path in (db, *(Path(f"{db}{s}") for s in _SIDE_FILES)):
        if path.exists():
            target = path.with_name(f"{path.name}.set-aside-{stamp}")
            path.rename(target)
            moved.append(target)
    return moved


def checkpoint(db: Path, mode: str = "TRUNCATE") -> tuple[int, int, int] | None:
    """Copy the WAL's commits into the database file; SQLite's (busy, frames, copied).

    ``TRUNCATE`` also empties the ``-wal`` file once every commit is in the database (it
    waits for readers up to a few seconds, then gives up: ``busy`` 1); ``PASSIVE`` never
    waits. None when the file cannot be opened.
    """
    if mode not in ("PASSIVE", "FULL", "RESTART", "TRUNCATE") or not db.exists():
        return None
    try:
        conn = sqlite3.connect(str(db), timeout=5, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return (int(row[0]), int(row[1]), int(row[2])) if row else None


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every system can open a folder (Windows)
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomically(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``path`` whole or not at all: a temporary file, fsync, rename, fsync the folder."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


class ServerLock:
    """A lock file in the data folder: servers hold it shared, ``restore`` alone (POSIX).

    Where ``fcntl`` is missing (Windows) it locks nothing and ``restore`` trusts the user.
    """

    def __init__(self, data_dir: Path, *, exclusive: bool = False) -> None:
        self.path = data_dir / SERVER_LOCK_NAME
        self.exclusive = exclusive
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another holder excludes it."""
        try:
            import fcntl
        except ImportError:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        kind = fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file releases its flock

    def __enter__(self) -> ServerLock:
        if not self.acquire():
            raise DataProblem(
                f"a server is using {self.path.parent}: stop it first (Ctrl-C), then try again"
            )
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def backup(data_dir: Path, target: Path) -> Path:
    """Copy the folder's database (and token secret) into ``target``, consistent while serving.

    SQLite's online backup API copies one snapshot of every committed change (the WAL's
    too) while the server goes on writing; the copy is written beside ``target`` and renamed
    into place, so ``target`` is never half a backup. ``target`` may name a folder (the
    backup is then ``liars-lies-<time>.db`` in it). Raises ``DataProblem``.
    """
    db = data_dir / DB_FILE_NAME
    if not db.is_file() or db.stat().st_size == 0:
        raise DataProblem(f"{db} holds no database to back up")
    if target.is_dir():
        target = target / f"liars-lies-{time.strftime('%Y%m%d-%H%M%S')}.db"
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        tmp.unlink(missing_ok=True)
        source = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            copy = sqlite3.connect(str(tmp), isolation_level=None)
            try:
                source.backup(copy, pages=1024)
                copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
                secret_path = data_dir / SECRET_FILE_NAME
                if secret_path.is_file():
                    copy.execute(f"CREATE TABLE {BACKUP_TABLE} (name TEXT PRIMARY KEY, value TEXT)")
                    copy.execute(
                        f"INSERT INTO {BACKUP_TABLE} VALUES ('token_secret', ?)",
                        (secret_path.read_text().strip(),),
                    )
            finally:
                copy.close()
        finally:
            source.close()
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except (sqlite3.Error, OSError) as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise DataProblem(f"backup to {target} failed: {err}") from None
    return target


def restore(backup_path: Path, data_dir: Path) -> list[Path]:
    """Put ``backup_path`` in place of the folder's database (and its token secret).

    Refused while a server uses the folder. The backup is checked first (SQLite reads it and
    ``quick_check`` passes); the current files are set aside (``set_aside``), never deleted.
    Returns the paths set aside. Raises ``DataProblem``.
    """
    if not backup_path.is_file():
        raise DataProblem(f"{backup_path} is no file")
    problem = _quick_check(backup_path)
    if problem is not None:
        raise DataProblem(f"{backup_path} is no usable backup ({problem})")
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = data_dir / DB_FILE_NAME
    tmp = data_dir / f".{DB_FILE_NAME}.restore-{os.getpid()}"
    with ServerLock(data_dir, exclusive=True):
        try:
            tmp.unlink(missing_ok=True)
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            source = sqlite3.connect(f"file:{backup_path}?mode=ro", uri=True, isolation_level=None)
            copy = sqlite3.connect(str(tmp), isolation_level=None)
            try:
                source.backup(copy)
                secret = None
                if copy.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                    (BACKUP_TABLE,),
                ).fetchone():
                    row = copy.execute(
                        f"SELECT value FROM {BACKUP_TABLE} WHERE name = 'token_secret'"
                    ).fetchone()
                    secret = str(row[0]) if row else None
                    copy.execute(f"DROP TABLE {BACKUP_TABLE}")
            finally:
                copy.close()
                source.close()
            with open(tmp, "rb") as written:
                os.fsync(written.fileno())
        except (sqlite3.Error, OSError) as err:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise DataProblem(f"restore from {backup_path} failed: {err}") from None
        moved = set_aside(data_dir)
        secret_path = data_dir / SECRET_FILE_NAME
        if secret is not None:
            if secret_path.exists():
                aside = secret_path.with_name(
                    f"{SECRET_FILE_NAME}.set-aside-{time.strftime('%Y%m%d-%H%M%S')}"
                )
                secret_path.rename(aside)
                moved.append(aside)
            write_atomically(secret_path, (secret + "\n").encode())
        os.replace(tmp, db)
        _fsync_dir(data_dir)
    return moved
