"""Benchmark of quick play: N registered users arrive over a span and press Play now.

Two paths, each at every size of ``--arrivals`` (default 50, 200 and 500):

- ``local``: ``liars-dice serve --workers 2`` (SQLite) as a child process on loopback. The
  users are registered first (not timed), then each presses Play now at its arrival time
  (uniform over ``--span`` seconds, seeded) and polls ``GET /quickplay`` every
  ``--poll`` seconds until its ticket is matched: time to table is from its Play now to the
  answer that says matched (so it includes up to one poll interval). The wake-ups are the
  server's own timers.
- ``moto``: the same use cases in this process on ``DynamoStore`` over moto, every call into
  moto under one lock (moto is not thread-safe), on a simulated clock (nothing sleeps): the
  arrivals of each ``--bucket`` of simulated time press Play now at once on threads, then
  the wake-ups that are due run (as EventBridge Scheduler would invoke the timer). Time to
  table is the room's creation minus the arrival, in simulated time.

Each user asks for a rule system drawn from a fixed mix (classic 40%, any 20%, poker 20%,
perudo and Wild Stars 10% each). Printed per run: tables made, humans per table (mean, min,
max), p50 and p99 time to table, users left unmatched, and **double-seated users** (a user
seated in two rooms, or whose ticket names a room without them): must be 0.

    .venv/bin/python bench/quickplay.py                       # both paths, 50/200/500, 60 s
    .venv/bin/python bench/quickplay.py --path moto --arrivals 200 --span 30
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import _common  # noqa: E402

MIX = [("classic", 4), ("any", 2), ("poker", 2), ("perudo", 1), ("wild-stars", 1)]
PASSWORD = "correct horse battery"


@dataclass
class Result:
    """One run's figures."""

    path: str
    arrivals: int
    span: float
    ttt_ms: list[float] = field(default_factory=list)
    rooms: dict[str, list[str]] = field(default_factory=dict)
    """Room id → user ids of its human seats."""
    tickets: dict[str, str | None] = field(default_factory=dict)
    """User id → the room its ticket names (None: never matched)."""
    wall_s: float = 0.0

    def double_seated(self) -> int:
        seats: Counter[str] = Counter(u for users in self.rooms.values() for u in users)
        bad = {u for u, n in seats.items() if n > 1}
        for user, room in self.tickets.items():
            if room is not None and user not in self.rooms.get(room, []):
                bad.add(user)
        return len(bad)

    def row(self) -> list[str]:
        humans = [len(u) for u in self.rooms.values()]
        unmatched = sum(1 for r in self.tickets.values() if r is None)
        p50 = _common.percentile(self.ttt_ms, 50) / 1000
        p99 = _common.percentile(self.ttt_ms, 99) / 1000
        return [
            self.path,
            str(self.arrivals),
            f"{self.span:g}",
            str(len(self.rooms)),
            f"{statistics.mean(humans):.2f} ({min(humans)}–{max(humans)})" if humans else "-",
            f"{p50:.1f}",
            f"{p99:.1f}",
            str(unmatched),
            str(self.double_seated()),
            f"{self.wall_s:.0f}",
        ]


HEADER = [
    "path",
    "arrivals",
    "span s",
    "tables",
    "humans/table (min–max)",
    "p50 to table s",
    "p99 to table s",
    "unmatched",
    "double-seated",
    "wall s",
]


def arrivals(n: int, span: float, seed: int) -> list[tuple[float, str]]:
    """(arrival second, rules) of each user, in arrival order."""
    rng = random.Random(seed)
    names = [r for r, _ in MIX]
    weights = [w for _, w in MIX]
    return sorted((rng.uniform(0, span), rng.choices(names, weights)[0]) for _ in range(n))


# --- the local server -------------------------------------------------------------------------


async def _local(
    url: str, plan: list[tuple[float, str]], span: float, poll: float, wait_s: int
) -> Result:
    import aiohttp

    result = Result("local", len(plan), span)
    tag = secrets.token_hex(3)
    limit = asyncio.Semaphore(16)
    async with aiohttp.ClientSession() as session:

        async def register(i: int) -> tuple[str, str]:
            async with limit:
                body = {"username": f"qb{tag}{i}", "password": PASSWORD}
                async with session.post(f"{url}/auth/register", json=body) as resp:
                    data = await resp.json()
                    assert resp.status == 201, data
                    return str(data["token"]), str(data["user"]["id"])

        users = await asyncio.gather(*(register(i) for i in range(len(plan))))
        loop = asyncio.get_running_loop()
        start = loop.time()

        async def play(i: int) -> None:
            at, rules = plan[i]
            token, user_id = users[i]
            headers = {"Authorization": f"Bearer {token}"}
            await asyncio.sleep(max(0.0, start + at - loop.time()))
            t0 = loop.time()
            async with session.post(
                f"{url}/quickplay", json={"rules": rules}, headers=headers
            ) as resp:
                ticket = (await resp.json())["ticket"]
            deadline = t0 + wait_s + 90
            while ticket["status"] != "matched" and loop.time() < deadline:
                await asyncio.sleep(poll)
                async with session.get(f"{url}/quickplay", headers=headers) as resp:
                    ticket = (await resp.json())["ticket"] or ticket
            matched = ticket["status"] == "matched"
            result.tickets[user_id] = ticket["room_id"] if matched else None
            if matched:
                result.ttt_ms.append((loop.time() - t0) * 1000)

        began = time.monotonic()
        await asyncio.gather(*(play(i) for i in range(len(plan))))
        result.wall_s = time.monotonic() - began
        for room_id in {r for r in result.tickets.values() if r}:
            async with session.get(f"{url}/rooms/{room_id}") as resp:
                view = await resp.json()
            result.rooms[room_id] = [
                p["user_id"] for p in view["players"] if p["kind"] == "human" and p["user_id"]
            ]
    return result


def run_local(n: int, span: float, seed: int, poll: float, workers: int, wait_s: int) -> Result:
    """One run on a fresh local server (SQLite in a temporary folder)."""
    with tempfile.TemporaryDirectory() as data:
        command = [sys.executable, "-m", "liars_local.cli", "serve", "--port", "0"]
        command += ["--storage", "sqlite", "--data", data, "--workers", str(workers)]
        env = {
            **os.environ,
            "REGISTER_PER_SOURCE": "100000",
            "QUICKPLAY_ACTIONS_PER_SOURCE": "1000000",
            "QUICKPLAY_WAIT_SECONDS": str(wait_s),
        }
        proc, url = _common.start_server(command, cwd=REPO, env=env)
        try:
            return asyncio.run(_local(url, arrivals(n, span, seed), span, poll, wait_s))
        finally:
            proc.terminate()
            proc.wait(timeout=20)


# --- moto in-process --------------------------------------------------------------------------


class _Locked:
    """A boto3 client whose every call holds one lock (moto is not thread-safe)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()
        self.meta = client.meta
        self.exceptions = client.exceptions

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if not callable(target):
            return target

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return target(*args, **kwargs)

        return locked


def _buckets(plan: list[tuple[float, str]], bucket: float) -> Iterator[list[int]]:
    current: list[int] = []
    edge = bucket
    for i, (at, _) in enumerate(plan):
        while at >= edge:
            yield current
            current, edge = [], edge + bucket
        current.append(i)
    yield current


def run_moto(n: int, span: float, seed: int, bucket: float, wait_s: int) -> Result:
    """One run of the use cases over moto, on a simulated clock."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "QUICKPLAY_WAIT_SECONDS": str(wait_s),
        "QUICKPLAY_ACTIONS_PER_SOURCE": "1000000",
    }.items():
        os.environ[name] = value
    import boto3
    from moto import mock_aws

    from chalicelib import realtime, wiring
    from chalicelib.adapters.dynamo import DynamoStore
    from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
    from chalicelib.engine.dice import SeededRoller
    from chalicelib.engine.model import Room
    from chalicelib.service import Caller, Service
    from chalicelib.service.quickplay import TIMER_ID, Quickplay
    from chalicelib.settings import reset_settings

    reset_settings()
    plan = arrivals(n, span, seed)
    result = Result("moto", n, span)
    with mock_aws():
        raw = boto3.client("dynamodb", region_name="us-east-1")
        store = DynamoStore("bench-quickplay", "us-east-1", client=_Locked(raw))
        store.ensure_table()
        clock, timers = FakeClock(), FakeTimers()
        deps = wiring.Deps(
            store=store,
            notifier=FakeNotifier(),
            timers=timers,
            clock=clock,
            roller=SeededRoller(seed),
        )
        service = Service(deps)
        origin = clock.now
        callers = []
        for i in range(n):
            record = store.create_user(f"u{i}", f"qb{i}", "x", False, f"qb{i}", now_ms=origin)
            callers.append(Caller(record.id, record.name, False, record))
        fired: set[tuple[str, int]] = set()
        arrived: dict[str, int] = {}

        def press(i: int) -> None:
            Quickplay(Service(deps)).enqueue(callers[i], plan[i][1], None, "10.0.0.1")

        def wake(until: int) -> None:
            for key in timers.due(until):
                if key in fired or key[0] != TIMER_ID:
                    continue
                fired.add(key)
                realtime.on_timer(TIMER_ID, key[1], deps=deps)

        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            for k, group in enumerate(_buckets(plan, bucket)):
                clock.now = origin + int(k * bucket * 1000)
                wake(clock.now)
                for i in group:
                    arrived[callers[i].user_id] = origin + int(plan[i][0] * 1000)
                list(pool.map(press, group))
        # After the last arrival: the wake-ups until everyone waited their wait.
        end = origin + int((span + wait_s + 5) * 1000)
        while clock.now < end:
            clock.now += int(bucket * 1000)
            wake(clock.now)
        result.wall_s = time.monotonic() - began
        for caller in callers:
            ticket = store.user_ticket(caller.user_id, clock.now)
            matched = ticket is not None and ticket.status == "matched"
            result.tickets[caller.user_id] = ticket.room_id if matched and ticket else None
        for room_id in {r for r in result.tickets.values() if r}:
            stored = store.get_room(room_id)
            assert stored is not None
            room = Room.from_dict(stored.state)
            humans = [p.user_id for p in room.players if not p.is_bot and p.user_id]
            result.rooms[room_id] = humans
            for user in humans:
                result.ttt_ms.append(room.created_at - arrived[user])
        del service
    return result


# --- main -------------------------------------------------------------------------------------


def table(rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", choices=["local", "moto", "both"], default="both")
    parser.add_argument("--arrivals", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--span", type=float, default=60.0, help="seconds the arrivals spread")
    parser.add_argument("--wait", type=int, default=20, help="QUICKPLAY_WAIT_SECONDS")
    parser.add_argument("--poll", type=float, default=0.5, help="local: status poll interval")
    parser.add_argument("--bucket", type=float, default=0.25, help="moto: simultaneous window")
    parser.add_argument("--workers", type=int, default=2, help="local: server processes")
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    rows = []
    failed = False
    for n in args.arrivals:
        for path in ("local", "moto") if args.path == "both" else (args.path,):
            if path == "local":
                result = run_local(n, args.span, args.seed, args.poll, args.workers, args.wait)
            else:
                result = run_moto(n, args.span, args.seed, args.bucket, args.wait)
            rows.append(result.row())
            failed = failed or result.double_seated() > 0
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
