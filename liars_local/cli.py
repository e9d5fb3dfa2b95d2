"""``liars-dice serve``: run the whole game on one loopback port with one command."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _parser() -> argparse.ArgumentParser:
    from liars_local.environment import default_data_dir

    parser = argparse.ArgumentParser(
        prog="liars-dice", description="Liar's Lies: an online multiplayer Liar's Dice server."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve the REST API, WebSockets and web client locally",
        description="Serve the same Chalice app locally: REST at /, WebSockets at /ws, "
        "the web client at /, timers in-process, and everything kept in a SQLite file "
        "in a data folder (or in moto, or in a DynamoDB you name).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8000, help="port to bind; 0 picks a free one (default 8000)"
    )
    serve.add_argument(
        "--data",
        metavar="DIR",
        type=Path,
        default=None,
        help=f"data folder: the SQLite database and the token secret (default {default_data_dir()})",
    )
    serve.add_argument(
        "--storage",
        choices=["sqlite", "moto"],
        default=None,
        help="sqlite (default): a file in the data folder, kept across restarts; "
        "moto: moto's in-memory DynamoDB, lost on exit, one request at a time",
    )
    serve.add_argument(
        "--dynamodb-endpoint",
        metavar="URL",
        default=None,
        help="keep everything in the DynamoDB at this endpoint (real AWS, DynamoDB Local or "
        "another compatible server) instead",
    )
    serve.add_argument(
        "--workers",
        metavar="N",
        type=int,
        default=None,
        help="worker processes serving the one port (default: one per CPU, at most 4, on "
        "SQLite and DynamoDB; 1 on moto and on Windows)",
    )
    serve.add_argument(
        "--cors-origin",
        metavar="ORIGIN",
        action="append",
        default=None,
        help="let web pages of ORIGIN (e.g. http://localhost:5173, or * for any) call the "
        "API from a browser; repeatable; replaces CORS_ALLOW_ORIGINS (default: that "
        "variable, else only the server's own origin)",
    )
    serve.add_argument(
        "--push-allow",
        metavar="ORIGIN",
        action="append",
        default=None,
        help="let the server send Web Push to endpoints of ORIGIN (https://host, "
        "https://*.domain, or http://127.0.0.1:PORT for a test push service); repeatable; "
        "replaces PUSH_ENDPOINT_ALLOW (default: that variable, else the major browsers' "
        "push services)",
    )
    serve.add_argument(
        "--start-fresh",
        action="store_true",
        help="when the data folder's database is missing, empty or damaged, set its files "
        "aside (renamed, not deleted) and start with an empty one instead of refusing to start",
    )
    for name, text in (
        (
            "backup",
            "copy every account, room and session into the file PATH (or a new file "
            "in the folder PATH), consistent while the server runs",
        ),
        (
            "restore",
            "put the backup PATH in place of the data folder's database (the server "
            "must be stopped; the current files are set aside, not deleted)",
        ),
    ):
        command = commands.add_parser(
            name, help=text, description=text[:1].upper() + text[1:] + "."
        )
        command.add_argument("path", metavar="PATH", type=Path)
        command.add_argument(
            "--data",
            metavar="DIR",
            type=Path,
            default=None,
            help=f"data folder (default {default_data_dir()})",
        )
    return parser


def _data_command(args: argparse.Namespace) -> int:
    """``backup`` and ``restore``: one line on stdout when done, one on stderr (status 2) if not."""
    from liars_local.data import DataProblem, backup, restore
    from liars_local.environment import default_data_dir

    data_dir = (args.data or default_data_dir()).expanduser().resolve()
    path = Path(args.path).expanduser().resolve()
    try:
        if args.command == "backup":
            written = backup(data_dir, path)
            print(f"Backed up {data_dir} to {written}.", flush=True)
        else:
            moved = restore(path, data_dir)
            aside = f" (the files before it were set aside: {', '.join(p.name for p in moved)})"
            print(f"Restored {path} into {data_dir}{aside if moved else ''}.", flush=True)
    except DataProblem as err:
        print(f"liars-dice: {err}", file=sys.stderr, flush=True)
        return 2
    return 0


def _configuration_problem() -> str | None:
    """The environment's configuration error in one line (None: it is valid).

    Read once up front, so that a bad value stops the server with the variable's name and
    the problem instead of a traceback from a worker.
    """
    from chalicelib.settings import ConfigError, Settings

    try:
        Settings.from_env()
    except ConfigError as err:
        return f"liars-dice: configuration error: {err}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``liars-dice`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in ("backup", "restore"):
        return _data_command(args)
    try:
        return _serve(parser, args)
    except KeyboardInterrupt:
        print("Stopped.", flush=True)
        return 0
    except Exception as err:  # start-up failed: one line, no traceback (status 2)
        print(f"liars-dice: {_one_line(err)}", file=sys.stderr, flush=True)
        return 2


def _one_line(err: BaseException) -> str:
    """What went wrong, on one line: the message, or the exception's name when it has none."""
    text = " ".join(str(err).split())
    if isinstance(err, OSError) and err.filename and str(err.filename) not in text:
        text = f"{text} ({err.filename})"
    return text or type(err).__name__


def _serve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``liars-dice serve``."""
    if args.dynamodb_endpoint and args.storage:
        parser.error("--storage and --dynamodb-endpoint exclude each other")
    if args.cors_origin is not None:
        os.environ["CORS_ALLOW_ORIGINS"] = ",".join(args.cors_origin)
    if args.push_allow is not None:
        os.environ["PUSH_ENDPOINT_ALLOW"] = ",".join(args.push_allow)
    problem = _configuration_problem()
    if problem is not None:
        print(problem, file=sys.stderr, flush=True)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from liars_local.environment import default_data_dir, tune_gc_for_serving
    from liars_local.server import LocalServer
    from liars_local.workers import default_workers, refuse_workers

    storage = "dynamodb" if args.dynamodb_endpoint else (args.storage or "sqlite")
    workers = default_workers(storage) if args.workers is None else args.workers
    refused = refuse_workers(storage, workers)
    if refused:
        parser.error(refused)
    data_dir = None
    if storage != "moto":
        data_dir = (args.data or default_data_dir()).expanduser().resolve()
    if workers > 1:
        return _serve_workers(args, storage, data_dir, workers)
    server = LocalServer(args.host, args.port, **_storage_options(args, storage, data_dir))
    if _start_failed(server.prepare):
        return 2
    _print_banner(server.url, storage, server.db_path, data_dir, args.dynamodb_endpoint)
    tune_gc_for_serving()
    with contextlib.suppress(KeyboardInterrupt):
        server.run_prepared()
    print("Stopped.", flush=True)
    return 0


def _storage_options(
    args: argparse.Namespace, storage: str, data_dir: Path | None
) -> dict[str, Any]:
    """The storage arguments of ``LocalServer`` and ``WorkerPool``."""
    return {
        "storage": storage,
        "data_dir": data_dir,
        "dynamodb_endpoint": args.dynamodb_endpoint,
        "start_fresh": args.start_fresh,
    }


def _start_failed(start: Callable[[], object]) -> bool:
    """Call ``start`` (which binds the port and checks the data folder); True, said in one
    line on stderr, when the port is taken or the data folder cannot be served."""
    from liars_local.data import DataProblem
    from liars_local.server import PortInUse

    try:
        start()
    except PortInUse as err:
        print(f"liars-dice: {err.strerror}", file=sys.stderr, flush=True)
        return True
    except DataProblem as err:
        print(f"liars-dice: {err}", file=sys.stderr, flush=True)
        return True
    return False


def _print_banner(
    url: str,
    storage: str,
    db_path: Path | None,
    data_dir: Path | None,
    endpoint: str | None,
    workers: str | None = None,
) -> None:
    if storage == "sqlite":
        where = f"SQLite at {db_path}"
    elif storage == "moto":
        where = "embedded moto (in memory, lost on exit)"
    else:
        where = f"DynamoDB at {endpoint}"
    print(f"Liar's Lies is running: open {url}/", flush=True)
    print(f"Storage: {where}. Press Ctrl-C to stop.", flush=True)
    if data_dir is not None:
        print(f"Data folder: {data_dir}", flush=True)
    if workers is not None:
        print(workers, flush=True)


def _serve_workers(
    args: argparse.Namespace, storage: str, data_dir: Path | None, workers: int
) -> int:
    """Serve with ``workers`` processes on one port (liars_local.workers)."""
    from liars_local.workers import WorkerFailed, WorkerPool

    pool = WorkerPool(
        args.host, args.port, workers=workers, **_storage_options(args, storage, data_dir)
    )
    try:
        if _start_failed(pool.start):
            return 2
    except WorkerFailed as err:
        print(f"liars-dice: {err}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        print("Stopped.", flush=True)
        return 0
    pids = " ".join(str(pid) for _, pid in sorted(pool.pids().items()))
    _print_banner(
        pool.url,
        storage,
        pool.db_path,
        data_dir,
        args.dynamodb_endpoint,
        workers=f"Workers: {workers} processes (pids {pids}).",
    )
    try:
        pool.run()
    except WorkerFailed as err:
        print(f"liars-dice: {err}", file=sys.stderr, flush=True)
        return 1
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
