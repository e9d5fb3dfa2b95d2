"""The environment and the store: data folder, token secret, AWS variables, store choice.

``local_environment`` sets what the Chalice app reads from its environment (fake AWS
credentials, the table name, the token secret) and starts moto when the store is moto;
``local_store`` picks the store (SQLite in the data folder, or DynamoDB: moto or an
endpoint) and ``install_wiring_deps`` points the app's deps at it, the local notifier and
the local timers. The data folder (``default_data_dir``) holds the SQLite file and the
token-signing secret (``load_or_create_secret``). ``preload_app_modules`` and
``tune_gc_for_serving`` prepare a process that only serves.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import logging
import os
import pkgutil
import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from chalicelib import wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.ports import Store
from chalicelib.settings import get_settings, reset_settings
from liars_local.data import DB_FILE_NAME, SECRET_FILE_NAME, write_atomically
from liars_local.notifier import LocalNotifier
from liars_local.push import local_push
from liars_local.timers import LocalTimers

log = logging.getLogger(__name__)

STORAGES = ("sqlite", "moto", "dynamodb")
APP_DIR_NAME = "liars-lies"
LOCAL_TABLE_NAME = "liars-lies-local"
LOCAL_REGION = "us-east-1"
#: The WebSocket API id the app reads (``WEBSOCKET_API_ID``) and its events carry.
WS_API_ID = "local"


def default_data_dir(
    platform: str | None = None, env: dict[str, str] | os._Environ[str] | None = None
) -> Path:
    """The per-user data folder: the platform's data directory plus ``liars-lies``.

    Linux and others: ``$XDG_DATA_HOME/liars-lies`` (default ``~/.local/share/liars-lies``);
    macOS: ``~/Library/Application Support/liars-lies``; Windows: ``%APPDATA%/liars-lies``.
    """
    platform = sys.platform if platform is None else platform
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if platform.startswith("win"):
        base = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = env.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / APP_DIR_NAME


def load_or_create_secret(data_dir: Path) -> str:
    """The token-signing secret kept in ``data_dir``, made once (owner-only file, mode 0600).

    Made whole or not at all (a temporary file, fsync, then linked into place, so two
    processes making it at once agree on one): a full disk leaves no empty secret behind. An
    empty file an older version left that way, beside no database, is replaced.
    """
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = data_dir / SECRET_FILE_NAME
    if path.exists():
        if os.name == "posix" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # a copied or restored file: owner-only again
        text = path.read_text().strip()
        if len(text.encode()) >= 32:
            return text
        db = data_dir / DB_FILE_NAME
        if text or (db.exists() and db.stat().st_size > 0):
            raise ValueError(f"{path} holds no usable secret: delete it to make a new one")
        # empty, and no database was ever written with it: nothing was signed with it
        write_atomically(path, (secrets.token_urlsafe(48) + "\n").encode())
        return path.read_text().strip()
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        write_atomically(tmp, (secrets.token_urlsafe(48) + "\n").encode())
        with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
            os.link(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return path.read_text().strip()


def preload_app_modules(package: str = "chalicelib") -> None:
    """Import every module of the app's package now, before the first request.

    ``app.py`` imports the service and its dependencies lazily (a Lambda cold start pays
    only for what it uses); a long-running server would otherwise pay those imports inside
    its first requests, which then wait hundreds of milliseconds (and every request queued
    behind them too).
    """
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        importlib.import_module(info.name)


def tune_gc_for_serving() -> None:
    """Garbage-collect less often in a process that only serves (call once, after start-up).

    Everything imported and built at start-up is moved out of the collector's sight
    (``gc.freeze``), and the youngest generation is collected after 20,000 allocations
    instead of 700: a request makes thousands of short-lived objects (JSON, views, the
    room), nearly all freed by reference counting, so the default thresholds ran a
    collection every few requests and a full one, over every module's objects, every few
    hundred. Measured under ``bench/local.py --games 20``: CPU per action x0.90, p99
    x0.92. Process-wide, so only the ``liars-dice serve`` processes call it, never a test
    that starts a server in its own process.

    The older generations still run every 10 collections of the one below (a full one
    every 2,000,000 allocations): each WebSocket connection leaves reference cycles
    (tasks, exceptions with their frames) that only a full collection frees, and with
    (50, 100) one came so seldom that ``bench/soak.py`` grew the server by 17 MB each round
    of 2,000 connections (issue 30; docs/OPERATIONS.md has the figures).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


@contextlib.contextmanager
def local_environment(
    dynamodb_endpoint: str | None = None,
    *,
    embedded_moto: bool | None = None,
    token_secret: str | None = None,
    vapid_secret: str | None = None,
) -> Iterator[None]:
    """Environment for the app: fake AWS credentials, table name, token secret, moto.

    moto runs when ``embedded_moto`` (default: when no endpoint is given); the token secret
    is ``token_secret`` (the data folder's) or a fresh random one, unless TOKEN_SECRET is set.
    """
    use_moto = dynamodb_endpoint is None if embedded_moto is None else embedded_moto
    defaults = {
        "AWS_DEFAULT_REGION": LOCAL_REGION,
        "AWS_REGION": os.environ.get("AWS_DEFAULT_REGION", LOCAL_REGION),
        "TABLE_NAME": LOCAL_TABLE_NAME,
        "TOKEN_SECRET": token_secret or secrets.token_urlsafe(32),
        "VAPID_SECRET": vapid_secret or secrets.token_urlsafe(48),
        "WEBSOCKET_API_ID": WS_API_ID,
    }
    forced: dict[str, str] = {}
    if dynamodb_endpoint is None:
        # never let the embedded backend see real credentials
        forced = {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_SESSION_TOKEN": "testing",
        }
    else:
        defaults.update({"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"})
        forced = {
            "DYNAMODB_ENDPOINT": dynamodb_endpoint,
            "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_endpoint,
        }
    saved = {k: os.environ.get(k) for k in [*defaults, *forced]}
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    os.environ.update(forced)
    mock: Any = None
    reset_settings()
    try:
        if use_moto:
            from moto import mock_aws

            mock = mock_aws()
            mock.start()
        yield
    finally:
        if mock is not None:
            mock.stop()
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        reset_settings()


InstallDeps = Callable[[LocalNotifier, LocalTimers, Store], Callable[[], None] | None]


def local_store(db_path: Path | None = None) -> Store:
    """The store: SQLite at ``db_path``, else DynamoDB on this process's table (moto or endpoint)."""
    settings = get_settings()
    if db_path is not None:
        return SqliteStore(db_path, connection_ttl_seconds=settings.connection_ttl_seconds)
    return DynamoStore(
        settings.table_name,
        settings.region,
        connection_ttl_seconds=settings.connection_ttl_seconds,
    )


def install_wiring_deps(
    notifier: LocalNotifier, timers: LocalTimers, store: Store
) -> Callable[[], None] | None:
    """Point the app's deps at the store, notifier and timers; return the undo."""
    wiring.set_deps(
        wiring.Deps(
            store=store,
            notifier=notifier,
            timers=timers,
            clock=wiring.SystemClock(),
            roller=wiring.default_roller(),
            push=local_push(store),
        )
    )
    return wiring.reset_deps
