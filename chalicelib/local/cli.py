"""``liars-dice serve``: run the whole game on one loopback port with one command."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Sequence


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="liars-dice", description="Liar's Lies: an online multiplayer Liar's Dice server."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve the REST API, WebSockets and web client locally",
        description="Serve the same Chalice app locally: REST at /, WebSockets at /ws, "
        "the web client at /, timers in-process and an embedded DynamoDB (moto).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8000, help="port to bind; 0 picks a free one (default 8000)"
    )
    serve.add_argument(
        "--dynamodb-endpoint",
        metavar="URL",
        default=None,
        help="use this DynamoDB endpoint (e.g. DynamoDB Local) instead of the embedded moto backend",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``liars-dice`` console script."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from chalicelib.local.server import LocalServer

    server = LocalServer(args.host, args.port, dynamodb_endpoint=args.dynamodb_endpoint)
    server.prepare()
    host = f"[{server.host}]" if ":" in server.host else server.host
    storage = args.dynamodb_endpoint or "embedded moto (in memory, lost on exit)"
    print(f"Liar's Lies is running: open http://{host}:{server.port}/", flush=True)
    print(f"Storage: {storage}. Press Ctrl-C to stop.", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.run_prepared()
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
