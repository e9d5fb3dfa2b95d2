"""CPU per request of the local server's request path alone: ASGI dispatch, worker handoff, bridge.

Calls the local server's ASGI app directly (no sockets, no uvicorn) with one
``POST /rooms/{id}/actions`` over and over, on a Chalice app with the project's routes whose
views answer at once, and prints the CPU time per request (``time.process_time``, every
thread of this process). Run it from a source tree to measure that tree's server:

    .venv/bin/python bench/request_path.py
    cd /tmp/older-tree && /path/to/.venv/bin/python /path/to/bench/request_path.py

Prints figures only; the machine's load moves them, so compare trees alternately.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))  # the tree run from, before the installed one

from chalice.app import Chalice

import app as project
from liars_local.asgi import build_app
from liars_local.chalice_bridge import AppRunner

HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"accept", b"*/*"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"connection", b"keep-alive"),
    (b"user-agent", b"python-httpx/0.28.1"),
    (b"authorization", b"Bearer " + b"x" * 180),
    (b"content-type", b"application/json"),
    (b"content-length", b"46"),
]
BODY = b'{"type":"bid","quantity":3,"face":4,"turn":7}'
PATH = "/rooms/0123456789abcdef/actions"


def toy_app() -> Chalice:
    """The project's routes, each answering a small dict at once."""
    toy = Chalice(app_name="request-path-bench")
    for number, (path, methods) in enumerate(sorted(project.app.routes.items())):

        def view(**_: Any) -> dict[str, Any]:
            return {"ok": True}

        view.__name__ = f"view_{number}"
        toy.route(path, methods=sorted(methods))(view)
    return toy


async def measure(asgi: Any, requests: int, repeats: int) -> list[float]:
    """CPU microseconds per request, once per repeat."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": "POST",
        "root_path": "",
        "path": PATH,
        "raw_path": PATH.encode(),
        "query_string": b"",
        "headers": HEADERS,
    }
    statuses: set[int] = set()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.add(message["status"])

    for _ in range(200):  # warm up: threads started, caches filled
        await asgi(dict(scope), receive, send)
    results = []
    for _ in range(repeats):
        started = time.process_time()
        for _ in range(requests):
            await asgi(dict(scope), receive, send)
        results.append((time.process_time() - started) / requests * 1e6)
    if statuses != {200}:
        raise SystemExit(f"unexpected answers: {sorted(statuses)}")
    return results


def main() -> None:
    """Parse arguments, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is printed)")
    args = parser.parse_args()
    runner = AppRunner(toy_app(), lock=None)
    asgi = build_app(runner=runner, access_log=lambda _line: None)
    try:
        import uvloop

        results = uvloop.run(measure(asgi, args.requests, args.repeats))
    except ImportError:
        results = asyncio.run(measure(asgi, args.requests, args.repeats))
    finally:
        runner.close()
    print(
        f"request path: {statistics.median(results):.0f} µs CPU per request (median of"
        f" {args.repeats} x {args.requests}; all: {', '.join(f'{r:.0f}' for r in results)})"
    )


if __name__ == "__main__":
    main()
