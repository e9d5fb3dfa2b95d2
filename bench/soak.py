"""Soak benchmark: WebSocket connections opened and closed in rounds; the server's RSS per round.

Phones reconnect all the time, so memory a connection leaves behind adds up. The bench starts
``liars-dice serve --workers 1`` (one process, so its RSS is the server's) on loopback with a
fresh data folder, then runs ``--rounds`` rounds of ``--connections`` WebSockets (``--at-once``
open at a time): each connects, sends a ping, reads the pong and closes. After each round it
prints the server's resident memory (``VmRSS``); the last line is the growth from the end of
the first round to the end of the last (issue 30's target: at most 20 MB over ten rounds of
2,000). ``--tree DIR`` runs the server of another source tree (e.g. ``/work/base-...``, with
its own ``.venv``) for a before/after figure. Linux only (``/proc``).

    python bench/soak.py --rounds 10 --connections 2000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import start_server

REPO = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    """The process's resident memory in MB (``VmRSS`` of ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one_connection(url: str, failures: list[str]) -> None:
    from websockets.asyncio.client import connect

    try:
        async with connect(url, open_timeout=30, close_timeout=10) as ws:
            await ws.send('{"action": "ping"}')
            await asyncio.wait_for(ws.recv(), 30)
    except Exception as exc:  # counted and shown, never hidden
        failures.append(type(exc).__name__)


async def one_round(url: str, connections: int, at_once: int) -> list[str]:
    failures: list[str] = []
    gate = asyncio.Semaphore(at_once)

    async def gated() -> None:
        async with gate:
            await one_connection(url, failures)

    await asyncio.gather(*(gated() for _ in range(connections)))
    return failures


def python_of(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds (default 10)")
    parser.add_argument(
        "--connections", type=int, default=2000, help="connections per round (default 2000)"
    )
    parser.add_argument(
        "--at-once", type=int, default=200, help="connections open at a time (default 200)"
    )
    parser.add_argument("--tree", type=Path, default=REPO, help="source tree of the server")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds to wait after a round")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory("-soak") as data:
        # every connection comes from 127.0.0.1 here, as if from many phones: lift the
        # app's limit of new connections per source address
        env = {**os.environ, "PYTHONPATH": str(args.tree), "CONNECTS_PER_SOURCE": "100000000"}
        command = [
            python_of(args.tree),
            "-m",
            "liars_local.cli",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--data",
            data,
        ]
        proc, url = start_server(command, cwd=args.tree, env=env)
        ws_url = url.replace("http://", "ws://") + "/ws"
        try:
            print(f"server {args.tree} pid {proc.pid}: start RSS {rss_mb(proc.pid):.1f} MB")
            print("round  connections  failures  seconds  RSS MB")
            after_round: list[float] = []
            for n in range(1, args.rounds + 1):
                started = time.perf_counter()
                failures = asyncio.run(one_round(ws_url, args.connections, args.at_once))
                elapsed = time.perf_counter() - started
                time.sleep(args.settle)
                after_round.append(rss_mb(proc.pid))
                print(
                    f"{n:5d}  {args.connections:11d}  {len(failures):8d}  {elapsed:7.1f}  "
                    f"{after_round[-1]:6.1f}",
                    flush=True,
                )
                if failures:
                    print(f"       failures: {sorted(set(failures))}", flush=True)
            growth = after_round[-1] - after_round[0]
            per_round = growth / max(1, len(after_round) - 1)
            print(
                f"growth from round 1 to round {len(after_round)}: {growth:+.1f} MB "
                f"({per_round:+.1f} MB a round)"
            )
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except Exception:
                proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
