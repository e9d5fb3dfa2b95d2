"""Benchmark of the local server: N concurrent guest-vs-bots games driven over loopback HTTP.

Runs the same games on each storage in turn (``liars-dice serve`` on SQLite in a fresh
temporary data folder, then ``--storage moto``) and prints one table, side by side:
actions/s, p50/p99 action latency (HTTP round trip of ``POST /rooms/{id}/actions``), p50/p99
push delay (from when an action was sent to when a second client, subscribed to the room
over ``/ws``, receives the push for the version it made; also from when its answer came back,
negative when the push beats the answer), the server's own p50/p99 time per action (from its
request log: arrival at the app to answer, so without HTTP parsing and the client's side) and
the server's CPU time per action (Linux). ``--compare DIR`` adds the same rows for another
source tree (e.g. ``git archive <commit> | tar -x -C DIR``), run alternately with this one.
With ``--rounds N`` the storages alternate N times and each figure is the median.
The server's bots move at once (``BOT_THINK_MIN_MS=0``, ``BOT_THINK_MAX_MS=0``), so the
figures are the server's, not the bots' pacing; ``--paced`` keeps the configured think time.
Only loopback traffic; every loop is bounded.

    .venv/bin/python bench/local.py --games 20
    .venv/bin/python bench/local.py --games 20 --storage sqlite --rounds 3
    .venv/bin/python bench/local.py --url http://127.0.0.1:8000   # an already running server
    .venv/bin/python bench/local.py --games 20 --storage sqlite --compare /tmp/local-before
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import websockets

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Figures:
    """Raw measurements of one run."""

    action_latency_ms: list[float] = field(default_factory=list)
    push_delay_ms: list[float] = field(default_factory=list)
    push_after_request_ms: list[float] = field(default_factory=list)
    actions: int = 0
    polls: int = 0
    games_finished: int = 0


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered)) - 1))
    return ordered[rank]


def next_action(room: dict[str, Any]) -> dict[str, Any] | None:
    """The guest's move: raise modestly while the bid is low, otherwise call Liar!."""
    game = room.get("game") or {}
    turn = game.get("turn")
    if room["status"] != "playing" or game.get("phase") != "bidding" or not turn:
        return None
    if turn["player_id"] != room["me"]["player_id"]:
        return None
    bid = game.get("current_bid")
    faces = [d for d in room["me"]["dice"] or [] if isinstance(d, int)] or [6]
    if bid is None:
        return {"type": "bid", "quantity": 1, "face": faces[0], "turn": turn["number"]}
    if bid["quantity"] * 3 < game["total_dice"]:
        return {
            "type": "bid",
            "quantity": bid["quantity"] + 1,
            "face": bid["face"],
            "turn": turn["number"],
        }
    return {"type": "liar", "turn": turn["number"]}


async def watch(
    ws_url: str,
    room_id: str,
    arrivals: dict[int, float],
    done: asyncio.Event,
    pushed: asyncio.Event,
) -> None:
    """Subscribe to ``room_id``, note when each version's push arrives and wake the player."""
    try:
        async with websockets.connect(ws_url, max_size=2**20) as ws:
            await ws.send(json.dumps({"action": "subscribe", "room_id": room_id}))
            while not done.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    continue
                message = json.loads(raw)
                if message.get("type") == "room":
                    arrivals.setdefault(message["room"]["version"], time.perf_counter())
                    pushed.set()
    except websockets.ConnectionClosed as closed:
        print(f"watcher for {room_id} closed: {closed}", file=sys.stderr)


async def play_one(
    base_url: str,
    ws_url: str,
    figures: Figures,
    starting_dice: int,
    max_actions: int,
    tls: ssl.SSLContext | None = None,
) -> None:
    """One guest creates a room with two bots and plays until the game ends (bounded)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30, verify=tls or True) as http:
        token = (await http.post("/auth/guest", json={"name": "Bench"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        created = await http.post(
            "/rooms", json={"settings": {"starting_dice": starting_dice}}, headers=auth
        )
        created.raise_for_status()
        room_id = created.json()["id"]
        arrivals: dict[int, float] = {}
        answered: dict[int, float] = {}
        requested: dict[int, float] = {}
        done = asyncio.Event()
        pushed = asyncio.Event()
        watcher = asyncio.create_task(watch(ws_url, room_id, arrivals, done, pushed))
        await asyncio.sleep(0.05)  # let the subscription land before play starts
        try:
            for _ in range(2):
                (
                    await http.post(f"/rooms/{room_id}/bots", json={}, headers=auth)
                ).raise_for_status()
            room = (await http.post(f"/rooms/{room_id}/start", headers=auth)).json()
            mine = 0
            for _ in range(max_actions * 20):
                if room["status"] == "finished":
                    figures.games_finished += 1
                    break
                move = next_action(room)
                if move is None:
                    # Breaks and the final reveal end by timers: like the web client, wait for
                    # the room's push (a read each second at most otherwise), then read it once.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(pushed.wait(), 1.0)
                    pushed.clear()
                    room = (await http.get(f"/rooms/{room_id}", headers=auth)).json()
                    figures.polls += 1
                    continue
                started = time.perf_counter()
                answer = await http.post(f"/rooms/{room_id}/actions", json=move, headers=auth)
                now = time.perf_counter()
                figures.action_latency_ms.append((now - started) * 1000)
                figures.actions += 1
                if answer.status_code == 200:
                    room = answer.json()
                    answered.setdefault(room["version"], now)
                    requested.setdefault(room["version"], started)
                else:
                    room = (await http.get(f"/rooms/{room_id}", headers=auth)).json()
                mine += 1
                if mine >= max_actions:
                    break
            await asyncio.sleep(0.5)  # late pushes
        finally:
            done.set()
            await watcher
        for version, at in answered.items():
            if version in arrivals:
                figures.push_delay_ms.append((arrivals[version] - at) * 1000)
                figures.push_after_request_ms.append(
                    (arrivals[version] - requested[version]) * 1000
                )


async def run(base_url: str, games: int, starting_dice: int, max_actions: int) -> Figures:
    """Play ``games`` games at once and collect the figures."""
    figures = Figures()
    ws_url = re.sub(r"^http", "ws", base_url) + "/ws"
    # One TLS context for every game's client: each new httpx client would load the CA
    # bundle (~40 ms of the one event loop), which 20 games starting together all wait for.
    # (One shared client instead is far worse: httpcore's pool serializes its requests.)
    tls = ssl.create_default_context()
    await asyncio.gather(
        *(
            play_one(base_url, ws_url, figures, starting_dice, max_actions, tls)
            for _ in range(games)
        )
    )
    return figures


def _play_here(
    base_url: str, games: int, starting_dice: int, max_actions: int, start_at: float
) -> tuple[Figures, float]:
    """Wait for the wall-clock ``start_at``, play ``games`` here; the figures and the CPU used."""
    time.sleep(max(0.0, start_at - time.time()))
    cpu = time.process_time()
    figures = asyncio.run(run(base_url, games, starting_dice, max_actions))
    return figures, time.process_time() - cpu


def play(
    base_url: str, games: int, starting_dice: int, max_actions: int, processes: int = 1
) -> tuple[Figures, float, float]:
    """Play the games in ``processes`` client processes (all starting together).

    Returns the merged figures, the wall time and the clients' CPU seconds. One process runs
    every game on one event loop, so a burst of answers waits for the client's own turn; with
    several, each real player's side (one browser each) is closer to what it is.
    """
    if processes <= 1:
        started = time.perf_counter()
        figures, cpu = _play_here(base_url, games, starting_dice, max_actions, 0.0)
        return figures, time.perf_counter() - started, cpu
    shares = [games // processes + (1 if i < games % processes else 0) for i in range(processes)]
    shares = [n for n in shares if n]
    merged, cpu = Figures(), 0.0
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with concurrent.futures.ProcessPoolExecutor(len(shares), mp_context=context) as pool:
        start_at = time.time() + 1.0  # every process has started by then
        jobs = [
            pool.submit(_play_here, base_url, n, starting_dice, max_actions, start_at)
            for n in shares
        ]
        for job in jobs:
            figures, used = job.result()
            cpu += used
            merged.action_latency_ms += figures.action_latency_ms
            merged.push_delay_ms += figures.push_delay_ms
            merged.push_after_request_ms += figures.push_after_request_ms
            merged.actions += figures.actions
            merged.polls += figures.polls
            merged.games_finished += figures.games_finished
        elapsed = time.time() - start_at
    return merged, elapsed, cpu


def server_module(tree: Path) -> str:
    """The local server's CLI module in the source tree ``tree`` (it moved out of chalicelib)."""
    return (
        "liars_local.cli" if (tree / "liars_local" / "cli.py").is_file() else "chalicelib.local.cli"
    )


def start_server(
    storage: str,
    data_dir: str | None,
    paced: bool = False,
    tree: Path = REPO,
    server_ms: list[float] | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``liars-dice serve --port 0`` on ``storage`` from ``tree`` in a child process.

    The child runs with ``tree`` as its working directory, so ``python -m`` imports that
    tree's code (an older checkout too) before the installed one, with the Python of
    ``tree/.venv`` when that exists (its own dependencies). Returns it and its URL; the
    server's own time for each ``POST .../actions`` (its request log) goes to ``server_ms``.
    """
    own = tree / ".venv" / "bin" / "python"  # a compared tree runs with its own packages
    python = str(own) if tree != REPO and own.is_file() else sys.executable
    command = [python, "-m", server_module(tree), "serve", "--port", "0"]
    command += ["--storage", storage] + (["--data", data_dir] if data_dir else [])
    # every game's guest signs in from this one loopback address
    env = {**os.environ, "GUEST_PER_SOURCE": "100000"}
    if not paced:
        env.update({"BOT_THINK_MIN_MS": "0", "BOT_THINK_MAX_MS": "0"})
    proc = subprocess.Popen(
        command,
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"open (http://[^/\s]+)/", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    threading.Thread(target=drain, args=(proc.stdout, server_ms), daemon=True).start()
    return proc, match.group(1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Row:
    """One storage's figures."""

    storage: str
    games: int
    finished: int
    actions: int
    seconds: float
    p50: float
    p99: float
    server_p50: float
    server_p99: float
    push_p50: float
    push_p99: float
    answer_push_p50: float
    cpu_ms_per_action: float
    client_cpu_ms_per_action: float
    polls_per_action: float

    @property
    def rate(self) -> float:
        """Actions per second over the whole run."""
        return self.actions / self.seconds if self.seconds else float("nan")


def measure(storage: str, args: argparse.Namespace, tree: Path = REPO, label: str = "") -> Row:
    """Start a server on ``storage`` from ``tree``, play the games, stop it; the figures."""
    server_ms: list[float] = []
    with tempfile.TemporaryDirectory(prefix="liars-bench-") as data:
        proc, base_url = start_server(
            storage,
            data if storage == "sqlite" else None,
            paced=args.paced,
            tree=tree,
            server_ms=server_ms,
        )
        try:
            cpu_before = cpu_seconds(proc.pid)
            figures, elapsed, client_cpu = play(
                base_url, args.games, args.starting_dice, args.max_actions, args.clients
            )
            cpu = cpu_seconds(proc.pid) - cpu_before
        finally:
            proc.send_signal(2)
            proc.wait(20)
    lat, push = figures.action_latency_ms, figures.push_delay_ms
    sent = figures.push_after_request_ms
    return Row(
        storage=storage + label,
        games=args.games,
        finished=figures.games_finished,
        actions=figures.actions,
        seconds=elapsed,
        p50=percentile(lat, 50),
        p99=percentile(lat, 99),
        server_p50=percentile(server_ms, 50),
        server_p99=percentile(server_ms, 99),
        push_p50=percentile(sent, 50),
        push_p99=percentile(sent, 99),
        answer_push_p50=percentile(push, 50),
        cpu_ms_per_action=cpu * 1000 / figures.actions if figures.actions else float("nan"),
        client_cpu_ms_per_action=(
            client_cpu * 1000 / figures.actions if figures.actions else float("nan")
        ),
        polls_per_action=figures.polls / figures.actions if figures.actions else float("nan"),
    )


def median_row(rows: list[Row]) -> Row:
    """Each figure's median over rounds of one storage."""
    med = statistics.median
    return Row(
        storage=rows[0].storage,
        games=rows[0].games,
        finished=int(med(r.finished for r in rows)),
        actions=int(med(r.actions for r in rows)),
        seconds=med(r.seconds for r in rows),
        p50=med(r.p50 for r in rows),
        p99=med(r.p99 for r in rows),
        server_p50=med(r.server_p50 for r in rows),
        server_p99=med(r.server_p99 for r in rows),
        push_p50=med(r.push_p50 for r in rows),
        push_p99=med(r.push_p99 for r in rows),
        answer_push_p50=med(r.answer_push_p50 for r in rows),
        cpu_ms_per_action=med(r.cpu_ms_per_action for r in rows),
        client_cpu_ms_per_action=med(r.client_cpu_ms_per_action for r in rows),
        polls_per_action=med(r.polls_per_action for r in rows),
    )


def print_table(rows: list[Row], rounds: int, clients: int = 1) -> None:
    """The figures of every storage side by side, then moto's ratio to SQLite."""
    print(
        f"{rows[0].games} concurrent games per run, {clients} client process(es)"
        + (f", median of {rounds} alternating rounds" if rounds > 1 else "")
    )
    head = (
        "storage         finished  actions  actions/s  p50 ms  p99 ms  server p50  server p99"
        "  push p50 ms  push p99 ms"
        "  push-after-answer p50 ms  server CPU ms/action  bench client CPU ms/action"
        "  GET polls/action"
    )
    print(head)
    for r in rows:
        print(
            f"{r.storage:<15} {r.finished:>4}/{r.games:<4} {r.actions:>7} {r.rate:>10.1f}"
            f" {r.p50:>7.1f} {r.p99:>7.1f} {r.server_p50:>11.1f} {r.server_p99:>11.1f}"
            f" {r.push_p50:>12.1f} {r.push_p99:>12.1f}"
            f" {r.answer_push_p50:>25.1f} {r.cpu_ms_per_action:>21.1f}"
            f" {r.client_cpu_ms_per_action:>28.1f} {r.polls_per_action:>17.1f}"
        )
    by = {r.storage: r for r in rows}
    for r in rows:
        old = by.get(r.storage + "@before")
        if old is not None:
            print(
                f"{r.storage} now / before: p50 x{r.p50 / old.p50:.2f}, p99 x{r.p99 / old.p99:.2f},"
                f" actions/s x{r.rate / old.rate:.2f},"
                f" CPU/action x{r.cpu_ms_per_action / old.cpu_ms_per_action:.2f}"
            )
    if "sqlite" in by and "moto" in by:
        fast, slow = by["sqlite"], by["moto"]
        print(
            f"moto / sqlite: actions/s x{slow.rate / fast.rate:.2f}, p50 x{slow.p50 / fast.p50:.1f},"
            f" p99 x{slow.p99 / fast.p99:.1f}, CPU/action"
            f" x{slow.cpu_ms_per_action / fast.cpu_ms_per_action:.1f}"
        )


#: A request-log line of an action: ``POST /rooms/<id>/actions 200 3.1ms``.
ACTION_LOG = re.compile(r"^POST /rooms/[^/ ]+/actions \d+ ([0-9.]+)ms")


def drain(stream: IO[str], server_ms: list[float] | None = None) -> None:
    """Read the child's request log (so it never blocks on a full pipe), noting action times.

    The server logs each request's time from its arrival at the app to its answer
    (waiting for a worker thread included; HTTP parsing and the client's side not).
    """
    for line in stream:
        found = ACTION_LOG.match(line) if server_ms is not None else None
        if found and server_ms is not None:
            server_ms.append(float(found.group(1)))


def main() -> None:
    """Parse arguments, run the games on each storage, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="concurrent games (default 4)")
    parser.add_argument("--starting-dice", type=int, default=5, help="dice per player (default 5)")
    parser.add_argument("--max-actions", type=int, default=200, help="cap per game (default 200)")
    parser.add_argument(
        "--storage",
        default="sqlite,moto",
        help="comma-separated storages to compare (default sqlite,moto)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds (default 1)")
    parser.add_argument("--paced", action="store_true", help="keep the bots' configured think time")
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument(
        "--clients",
        type=int,
        default=1,
        help="client processes the games are spread over (default 1: every game on one"
        " event loop, whose own turn then adds to each latency)",
    )
    parser.add_argument(
        "--compare",
        metavar="DIR",
        type=Path,
        help="also run each storage from this source tree (e.g. an older commit's"
        " `git archive` unpacked, with its own .venv if it has one), side by side;"
        " its rows are labelled @before",
    )
    args = parser.parse_args()

    if args.url:
        base_url = args.url.rstrip("/")
        figures, elapsed, _ = play(
            base_url, args.games, args.starting_dice, args.max_actions, args.clients
        )
        lat, sent = figures.action_latency_ms, figures.push_after_request_ms
        print(
            f"games: {args.games} concurrent, {figures.games_finished} finished in {elapsed:.1f} s"
        )
        print(f"actions: {figures.actions} ({figures.actions / elapsed:.1f} actions/s overall)")
        print(f"action latency: p50 {percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms")
        print(f"push delay: p50 {percentile(sent, 50):.1f} ms, p99 {percentile(sent, 99):.1f} ms")
        return

    storages = [name.strip() for name in args.storage.split(",") if name.strip()]
    runs: list[tuple[str, Path, str]] = [(name, REPO, "") for name in storages]
    if args.compare:
        tree = args.compare.resolve()
        runs = [run for name in storages for run in ((name, tree, "@before"), (name, REPO, ""))]
    results: dict[str, list[Row]] = {name + label: [] for name, _, label in runs}
    for round_no in range(args.rounds):
        order = runs if round_no % 2 == 0 else list(reversed(runs))
        for name, tree, label in order:
            results[name + label].append(measure(name, args, tree, label))
    print_table([median_row(rows) for rows in results.values()], args.rounds, args.clients)


if __name__ == "__main__":
    main()
