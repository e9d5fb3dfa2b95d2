"""Benchmark of the local server: N concurrent guest-vs-bots games driven over loopback HTTP.

Runs the same games on each storage in turn (``liars-dice serve`` on SQLite in a fresh
temporary data folder, then ``--storage moto``) and prints one table, side by side. Each game
is one guest (one aiohttp ``ClientSession``, keep-alive: one browser) who signs up, creates a
room, adds two bots, starts and plays, plus one WebSocket watcher subscribed to the room
(signed out). By default the loop is saturated: the guest moves as soon as it is its turn and
the server's bots move at once inside the guest's request (``BOT_THINK_MIN_MS=0``,
``BOT_THINK_MAX_MS=0``; ``--paced`` keeps the configured think time), so latency is about
games / throughput and the whole machine's CPU per action (server plus this client) decides it.

What each column is:

- ``actions``, ``actions/s``: the guest's ``POST /rooms/{id}/actions`` requests, over the wall
  time of the whole run (sign-ups and room set-up included).
- ``p50 ms``, ``p99 ms``: the HTTP round trip of every action (nearest-rank percentiles), as the
  client sees it (sending the request to having read the whole answer).
- ``steady p50``, ``steady p99``: the same over the actions made after the game's first round
  (the room's ``game.round`` >= 2 when the move was sent); ``round-1 p99``: over the first
  round's actions only. The first action of each game comes right after 20 simultaneous
  sign-ups, room creations and bot additions, so round 1 measures the start-up burst and
  ``steady`` what play costs once every game is running.
- ``server p50``, ``server p99``: the server's own time for each action, from its request log
  (arrival at the app to answer, so without HTTP parsing and the client's side).
- ``push p50 ms``, ``push p99 ms``: from when an action was sent to when the watcher received
  the push of the version it made; ``push-after-answer p50 ms``: the same from when its answer
  came back (negative when the push beats the answer).
- ``server CPU ms/action``: user + system CPU of the server's whole process tree (the server
  process, every living descendant, and what reaped descendants left in their parents'
  ``cutime``/``cstime``, from ``/proc``; Linux only) between its start and the end of the games
  (read before the server is stopped), per action. With ``--workers N`` that is the parent and
  its worker processes.
- ``bench client CPU ms/action``: ``time.process_time()`` of the client process(es), per action
  (the games, the watchers, and the thread reading the server's request log).
- ``GET polls/action``: room reads when it was not the guest's turn (breaks, the final reveal).

``--timeline`` also prints, for each run, 250 ms buckets from the start of play (actions by the
time they were sent): how many, their p50 and their max latency. ``--think-ms A-B`` is a
human-paced mode: before each move each guest waits a uniformly random A to B ms (seeded by
``--seed``, per game); its latencies exclude the wait, and the table's header says so.
``--workers N`` passes ``--workers N`` to ``liars-dice serve`` (only when given, and only to a
tree whose CLI has the flag: a ``--compare`` tree without it runs one process, as the header
says). ``--compare DIR`` adds the same rows for another source tree (e.g. ``git archive
<commit> | tar -x -C DIR``), run alternately with this one. With ``--rounds N`` the storages
alternate N times and each figure is the median. Only loopback traffic; every loop is bounded.

    .venv/bin/python bench/local.py --games 20
    .venv/bin/python bench/local.py --games 20 --storage sqlite --rounds 3
    .venv/bin/python bench/local.py --games 20 --storage sqlite --workers 2 --timeline
    .venv/bin/python bench/local.py --games 20 --storage sqlite --think-ms 300-1500
    .venv/bin/python bench/local.py --url http://127.0.0.1:8000   # an already running server
    .venv/bin/python bench/local.py --games 20 --storage sqlite --compare /tmp/local-before

One file of over 600 lines on purpose: a bench is one script, run and read on its own; what it
shares with the other benches is in ``bench/_common.py`` (the process-tree CPU reader too), and
its parts (the game client, the watcher, the table) serve only this run.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import random
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _common
import aiohttp
import websockets
from _common import percentile, tree_cpu_seconds
from yarl import URL

REPO = Path(__file__).resolve().parents[1]

#: Width of one ``--timeline`` bucket, in seconds.
BUCKET_SECONDS = 0.25

#: Headers aiohttp must not add on its own. On a POST without a body it would send
#: ``Content-Type: application/octet-stream``, which the app refuses (415): a browser's
#: ``fetch`` sends no content type there, nor does this client.
NO_AUTO_CONTENT_TYPE = frozenset({"Content-Type"})


@dataclass
class Figures:
    """Raw measurements of one run.

    ``action_latency_ms[i]`` was sent at wall-clock ``action_sent_at[i]`` (``time.time()``)
    while the room was in round ``action_round[i]``; ``started_at`` is when play began.
    """

    action_latency_ms: list[float] = field(default_factory=list)
    action_sent_at: list[float] = field(default_factory=list)
    action_round: list[int] = field(default_factory=list)
    push_delay_ms: list[float] = field(default_factory=list)
    push_after_request_ms: list[float] = field(default_factory=list)
    actions: int = 0
    polls: int = 0
    games_finished: int = 0
    started_at: float = 0.0

    def merge(self, other: Figures) -> None:
        """Add ``other``'s measurements (another client process's) to these."""
        self.action_latency_ms += other.action_latency_ms
        self.action_sent_at += other.action_sent_at
        self.action_round += other.action_round
        self.push_delay_ms += other.push_delay_ms
        self.push_after_request_ms += other.push_after_request_ms
        self.actions += other.actions
        self.polls += other.polls
        self.games_finished += other.games_finished
        starts = [t for t in (self.started_at, other.started_at) if t]
        self.started_at = min(starts) if starts else 0.0


@dataclass(frozen=True)
class Phases:
    """Action latency percentiles of the whole run and of its two phases."""

    p50: float
    p99: float
    steady_p50: float
    steady_p99: float
    first_round_p99: float
    steady_actions: int


def phases(figures: Figures) -> Phases:
    """Whole-run p50/p99, p50/p99 after each game's first round, and the first round's p99."""
    lat = figures.action_latency_ms
    steady = [ms for ms, rnd in zip(lat, figures.action_round, strict=True) if rnd >= 2]
    first = [ms for ms, rnd in zip(lat, figures.action_round, strict=True) if rnd < 2]
    return Phases(
        p50=percentile(lat, 50),
        p99=percentile(lat, 99),
        steady_p50=percentile(steady, 50),
        steady_p99=percentile(steady, 99),
        first_round_p99=percentile(first, 99),
        steady_actions=len(steady),
    )


@dataclass(frozen=True)
class Bucket:
    """One ``--timeline`` bucket: actions sent in ``[start_s, start_s + BUCKET_SECONDS)``."""

    start_s: float
    count: int
    p50: float
    max: float


def timeline(figures: Figures, width: float = BUCKET_SECONDS) -> list[Bucket]:
    """Actions bucketed by when they were sent (seconds from the start of play), every bucket
    from the first to the last (empty ones included, with NaN latencies)."""
    if not figures.action_sent_at:
        return []
    origin = figures.started_at or min(figures.action_sent_at)
    slots: dict[int, list[float]] = {}
    for at, ms in zip(figures.action_sent_at, figures.action_latency_ms, strict=True):
        slots.setdefault(max(0, int((at - origin) // width)), []).append(ms)
    return [
        Bucket(
            start_s=i * width,
            count=len(slots.get(i, [])),
            p50=percentile(slots.get(i, []), 50),
            max=max(slots[i]) if i in slots else float("nan"),
        )
        for i in range(max(slots) + 1)
    ]


def parse_think_ms(text: str) -> tuple[int, int]:
    """``"A-B"`` (or ``"A"``) as a think-time range in ms, 0 <= A <= B (argparse type)."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected A-B in ms (e.g. 300-1500), not {text!r}")
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) is not None else low
    if high < low:
        raise argparse.ArgumentTypeError(f"the range's end is below its start: {text!r}")
    return low, high


def think_delays(seed: int, game: int, think_ms: tuple[int, int]) -> random.Random:
    """Game ``game``'s own random source for its think times (the same for the same seed)."""
    return random.Random(f"bench-think:{seed}:{game}:{think_ms[0]}-{think_ms[1]}")


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
    pushed: asyncio.Event,
    subscribed: asyncio.Event,
    tls: ssl.SSLContext | None = None,
) -> None:
    """Subscribe to ``room_id``, note when each version's push arrives and wake the player.

    Runs until cancelled (the game's end). ``subscribed`` is set by the subscribe answer.
    Each push is decoded whole: ``json.loads`` of a room is a few tens of microseconds, a
    small share of the client's CPU per action, and a partial parse could mistake another
    ``version`` for the room's. ``tls`` (the shared context) is for a ``wss://`` URL only.
    """
    options: dict[str, Any] = {"ssl": tls} if tls is not None else {}
    try:
        async with websockets.connect(ws_url, max_size=2**20, compression=None, **options) as ws:
            await ws.send(json.dumps({"action": "subscribe", "room_id": room_id}))
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "room":
                    arrivals.setdefault(message["room"]["version"], time.perf_counter())
                    subscribed.set()
                    pushed.set()
    except websockets.ConnectionClosed as closed:
        print(f"watcher for {room_id} closed: {closed}", file=sys.stderr)
    finally:
        subscribed.set()  # never leave the player waiting on a watcher that is gone


class BenchError(RuntimeError):
    """A set-up request of the bench was refused (a broken server or client, not a figure)."""


async def call(
    http: aiohttp.ClientSession,
    method: str,
    url: URL,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
) -> tuple[int, Any]:
    """One request: its status and decoded JSON answer (None when empty).

    A body is sent as JSON bytes with its content type in ``headers``' copy; without a body no
    content type is sent at all (see ``NO_AUTO_CONTENT_TYPE``).
    """
    if body is None:
        request = http.request(method, url, headers=headers, skip_auto_headers=NO_AUTO_CONTENT_TYPE)
    else:
        data = json.dumps(body, separators=(",", ":")).encode()
        request = http.request(
            method, url, data=data, headers={**headers, "Content-Type": "application/json"}
        )
    async with request as answer:
        raw = await answer.read()
        return answer.status, (json.loads(raw) if raw else None)


async def expect(
    http: aiohttp.ClientSession,
    method: str,
    url: URL,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
) -> Any:
    """A set-up request that must succeed: its JSON answer (a ``BenchError`` otherwise)."""
    status, answer = await call(http, method, url, headers, body)
    if not 200 <= status < 300:
        raise BenchError(f"{method} {url.path} answered {status}: {answer}")
    return answer


def new_session(tls: ssl.SSLContext | None) -> aiohttp.ClientSession:
    """One game's HTTP client: its own keep-alive connection (one browser), no cookies."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(ssl=tls if tls is not None else True, limit=4),
        timeout=aiohttp.ClientTimeout(total=30),
        cookie_jar=aiohttp.DummyCookieJar(),
    )


async def play_one(
    base_url: str,
    ws_url: str,
    figures: Figures,
    starting_dice: int,
    max_actions: int,
    tls: ssl.SSLContext | None = None,
    think: tuple[random.Random, tuple[int, int]] | None = None,
) -> None:
    """One guest creates a room with two bots and plays until the game ends (bounded).

    With ``think`` (a random source and a range in ms) the guest waits before each move.
    """
    base = base_url.rstrip("/")
    async with new_session(tls) as http:
        token = (await expect(http, "POST", URL(base + "/auth/guest"), {}, {"name": "Bench"}))[
            "token"
        ]
        auth = {"Authorization": f"Bearer {token}"}
        created = await expect(
            http, "POST", URL(base + "/rooms"), auth, {"settings": {"starting_dice": starting_dice}}
        )
        room_id = created["id"]
        room_url = URL(f"{base}/rooms/{room_id}")
        actions_url = URL(f"{base}/rooms/{room_id}/actions")
        arrivals: dict[int, float] = {}
        answered: dict[int, float] = {}
        requested: dict[int, float] = {}
        pushed, subscribed = asyncio.Event(), asyncio.Event()
        watcher = asyncio.create_task(watch(ws_url, room_id, arrivals, pushed, subscribed, tls))
        # let the subscription land before play starts (its answer is the room)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(subscribed.wait(), 5.0)
        try:
            for _ in range(2):
                await expect(http, "POST", URL(f"{base}/rooms/{room_id}/bots"), auth, {})
            room = await expect(http, "POST", URL(f"{base}/rooms/{room_id}/start"), auth)
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
                    room = await expect(http, "GET", room_url, auth)
                    figures.polls += 1
                    continue
                if think is not None:
                    rng, (low, high) = think
                    await asyncio.sleep(rng.uniform(low, high) / 1000)
                round_no = int((room.get("game") or {}).get("round") or 0)
                sent_at = time.time()
                started = time.perf_counter()
                status, answer = await call(http, "POST", actions_url, auth, move)
                now = time.perf_counter()
                figures.action_latency_ms.append((now - started) * 1000)
                figures.action_sent_at.append(sent_at)
                figures.action_round.append(round_no)
                figures.actions += 1
                if status == 200:
                    room = answer
                    answered.setdefault(room["version"], now)
                    requested.setdefault(room["version"], started)
                else:
                    room = await expect(http, "GET", room_url, auth)
                mine += 1
                if mine >= max_actions:
                    break
            await asyncio.sleep(0.5)  # late pushes
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        for version, at in answered.items():
            if version in arrivals:
                figures.push_delay_ms.append((arrivals[version] - at) * 1000)
                figures.push_after_request_ms.append(
                    (arrivals[version] - requested[version]) * 1000
                )


@dataclass(frozen=True)
class Load:
    """What the clients play: how many games, their size and cap, and the guests' pace."""

    games: int
    starting_dice: int = 5
    max_actions: int = 200
    think_ms: tuple[int, int] | None = None
    seed: int = 1


async def run(base_url: str, load: Load, first_game: int = 0) -> Figures:
    """Play ``load.games`` games at once and collect the figures (games numbered from
    ``first_game``, which seeds each one's think times)."""
    figures = Figures(started_at=time.time())
    ws_url = re.sub(r"^http", "ws", base_url.rstrip("/")) + "/ws"
    # One TLS context for every game's client (loading the CA bundle costs ~40 ms of the one
    # event loop each time); used only for a https --url.
    tls = ssl.create_default_context() if base_url.startswith("https:") else None
    await asyncio.gather(
        *(
            play_one(
                base_url,
                ws_url,
                figures,
                load.starting_dice,
                load.max_actions,
                tls,
                None
                if load.think_ms is None
                else (think_delays(load.seed, first_game + i, load.think_ms), load.think_ms),
            )
            for i in range(load.games)
        )
    )
    return figures


def _play_here(
    base_url: str, load: Load, first_game: int, start_at: float
) -> tuple[Figures, float]:
    """Wait for the wall-clock ``start_at``, play ``load`` here; the figures and the CPU used."""
    time.sleep(max(0.0, start_at - time.time()))
    cpu = time.process_time()
    figures = asyncio.run(run(base_url, load, first_game))
    return figures, time.process_time() - cpu


def play(base_url: str, load: Load, processes: int = 1) -> tuple[Figures, float, float]:
    """Play the games in ``processes`` client processes (all starting together).

    Returns the merged figures, the wall time and the clients' CPU seconds. One process runs
    every game on one event loop, so a burst of answers waits for the client's own turn; with
    several, each real player's side (one browser each) is closer to what it is.
    """
    games = load.games
    if processes <= 1:
        started = time.perf_counter()
        figures, cpu = _play_here(base_url, load, 0, 0.0)
        return figures, time.perf_counter() - started, cpu
    shares = [games // processes + (1 if i < games % processes else 0) for i in range(processes)]
    shares = [n for n in shares if n]
    firsts = [sum(shares[:i]) for i in range(len(shares))]
    merged, cpu = Figures(), 0.0
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with concurrent.futures.ProcessPoolExecutor(len(shares), mp_context=context) as pool:
        start_at = time.time() + 1.0  # every process has started by then
        jobs = [
            pool.submit(
                _play_here,
                base_url,
                Load(n, load.starting_dice, load.max_actions, load.think_ms, load.seed),
                first,
                start_at,
            )
            for n, first in zip(shares, firsts, strict=True)
        ]
        for job in jobs:
            figures, used = job.result()
            cpu += used
            merged.merge(figures)
        elapsed = time.time() - start_at
    return merged, elapsed, cpu


def server_module(tree: Path) -> str:
    """The local server's CLI module in the source tree ``tree`` (it moved out of chalicelib)."""
    return (
        "liars_local.cli" if (tree / "liars_local" / "cli.py").is_file() else "chalicelib.local.cli"
    )


def supports_workers(tree: Path) -> bool:
    """Whether ``liars-dice serve`` in ``tree`` has a ``--workers`` option (its CLI's source)."""
    cli = tree / Path(*server_module(tree).split(".")).with_suffix(".py")
    try:
        return '"--workers"' in cli.read_text()
    except OSError:
        return False


def server_command(
    python: str, tree: Path, storage: str, data_dir: str | None, workers: int | None = None
) -> list[str]:
    """The command line of ``liars-dice serve --port 0`` on ``storage`` from ``tree``;
    ``--workers`` only when ``workers`` is given (older trees have no such option)."""
    command = [python, "-m", server_module(tree), "serve", "--port", "0"]
    command += ["--storage", storage] + (["--data", data_dir] if data_dir else [])
    if workers is not None:
        command += ["--workers", str(workers)]
    return command


def start_server(
    storage: str,
    data_dir: str | None,
    paced: bool = False,
    tree: Path = REPO,
    server_ms: list[float] | None = None,
    workers: int | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``liars-dice serve --port 0`` on ``storage`` from ``tree`` in a child process.

    The child runs with ``tree`` as its working directory, so ``python -m`` imports that
    tree's code (an older checkout too) before the installed one, with the Python of
    ``tree/.venv`` when that exists (its own dependencies). Returns it and its URL; the
    server's own time for each ``POST .../actions`` (its request log) goes to ``server_ms``.
    """
    own = tree / ".venv" / "bin" / "python"  # a compared tree runs with its own packages
    python = str(own) if tree != REPO and own.is_file() else sys.executable
    command = server_command(python, tree, storage, data_dir, workers)
    # every game's guest signs in from this one loopback address
    # (and connects to the WebSocket from it)
    env = {**os.environ, "GUEST_PER_SOURCE": "100000", "CONNECTS_PER_SOURCE": "100000"}
    if not paced:
        env.update({"BOT_THINK_MIN_MS": "0", "BOT_THINK_MAX_MS": "0"})
    return _common.start_server(command, cwd=tree, env=env, server_ms=server_ms)


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
    steady_p50: float
    steady_p99: float
    first_round_p99: float
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


def bench_load(args: argparse.Namespace) -> Load:
    """The clients' load from the command line."""
    return Load(args.games, args.starting_dice, args.max_actions, args.think_ms, args.seed)


def workers_for(tree: Path, workers: int | None) -> int | None:
    """What ``--workers`` to pass to ``tree``'s server: the asked number where it has the
    option; none where it does not (a compared older tree); refused for this tree."""
    if workers is None or supports_workers(tree):
        return workers
    if tree == REPO:
        raise SystemExit(f"--workers: liars-dice serve in {tree} has no --workers option")
    return None


def measure(
    storage: str, args: argparse.Namespace, tree: Path = REPO, label: str = "", round_no: int = 0
) -> Row:
    """Start a server on ``storage`` from ``tree``, play the games, stop it; the figures
    (and with ``--timeline``, this run's buckets, printed at once)."""
    server_ms: list[float] = []
    with tempfile.TemporaryDirectory(prefix="liars-bench-") as data:
        proc, base_url = start_server(
            storage,
            data if storage == "sqlite" else None,
            paced=args.paced,
            tree=tree,
            server_ms=server_ms,
            workers=workers_for(tree, args.workers),
        )
        try:
            cpu_before = tree_cpu_seconds(proc.pid)
            figures, elapsed, client_cpu = play(base_url, bench_load(args), args.clients)
            # the whole tree, read while every worker still runs (before it is stopped)
            cpu = tree_cpu_seconds(proc.pid) - cpu_before
        finally:
            proc.send_signal(2)
            proc.wait(20)
    if args.timeline:
        print_timeline(f"{storage}{label}, run {round_no + 1}", figures)
    lat = phases(figures)
    push, sent = figures.push_delay_ms, figures.push_after_request_ms
    per_action = 1000 / figures.actions if figures.actions else float("nan")
    return Row(
        storage=storage + label,
        games=args.games,
        finished=figures.games_finished,
        actions=figures.actions,
        seconds=elapsed,
        p50=lat.p50,
        p99=lat.p99,
        steady_p50=lat.steady_p50,
        steady_p99=lat.steady_p99,
        first_round_p99=lat.first_round_p99,
        server_p50=percentile(server_ms, 50),
        server_p99=percentile(server_ms, 99),
        push_p50=percentile(sent, 50),
        push_p99=percentile(sent, 99),
        answer_push_p50=percentile(push, 50),
        cpu_ms_per_action=cpu * per_action,
        client_cpu_ms_per_action=client_cpu * per_action,
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
        steady_p50=med(r.steady_p50 for r in rows),
        steady_p99=med(r.steady_p99 for r in rows),
        first_round_p99=med(r.first_round_p99 for r in rows),
        server_p50=med(r.server_p50 for r in rows),
        server_p99=med(r.server_p99 for r in rows),
        push_p50=med(r.push_p50 for r in rows),
        push_p99=med(r.push_p99 for r in rows),
        answer_push_p50=med(r.answer_push_p50 for r in rows),
        cpu_ms_per_action=med(r.cpu_ms_per_action for r in rows),
        client_cpu_ms_per_action=med(r.client_cpu_ms_per_action for r in rows),
        polls_per_action=med(r.polls_per_action for r in rows),
    )


def print_timeline(name: str, figures: Figures) -> None:
    """One run's 250 ms buckets: actions sent in each, their p50 and max latency."""
    print(f"timeline of {name} ({BUCKET_SECONDS * 1000:.0f} ms buckets by sending time)")
    print("  from s  actions  p50 ms  max ms")
    for b in timeline(figures):
        print(f"  {b.start_s:>6.2f} {b.count:>8} {b.p50:>7.1f} {b.max:>7.1f}")


def table_header(games: int, rounds: int, clients: int, args: argparse.Namespace | None) -> str:
    """The line above the table: the load, the clients, the server's workers, the pace."""
    text = f"{games} concurrent games per run, {clients} client process(es)"
    if args is not None and args.workers is not None:
        text += f", server --workers {args.workers}"
        if args.compare and not supports_workers(args.compare.resolve()):
            text += " (the @before tree has no --workers: one process)"
    if args is not None and args.think_ms is not None:
        low, high = args.think_ms
        text += f", guests think {low}-{high} ms before each move (seed {args.seed})"
    else:
        text += ", saturated (no think time)"
    return text + (f", median of {rounds} alternating rounds" if rounds > 1 else "")


def print_table(
    rows: list[Row], rounds: int, clients: int = 1, args: argparse.Namespace | None = None
) -> None:
    """The figures of every storage side by side, then moto's ratio to SQLite."""
    print(table_header(rows[0].games, rounds, clients, args))
    head = (
        "storage         finished  actions  actions/s  p50 ms  p99 ms  steady p50  steady p99"
        "  round-1 p99  server p50  server p99  push p50 ms  push p99 ms"
        "  push-after-answer p50 ms  server CPU ms/action  bench client CPU ms/action"
        "  GET polls/action"
    )
    print(head)
    for r in rows:
        print(
            f"{r.storage:<15} {r.finished:>4}/{r.games:<4} {r.actions:>7} {r.rate:>10.1f}"
            f" {r.p50:>7.1f} {r.p99:>7.1f} {r.steady_p50:>11.1f} {r.steady_p99:>11.1f}"
            f" {r.first_round_p99:>12.1f} {r.server_p50:>11.1f} {r.server_p99:>11.1f}"
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
                f" steady p99 x{r.steady_p99 / old.steady_p99:.2f},"
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


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
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
        "--workers",
        type=int,
        metavar="N",
        help="pass --workers N to liars-dice serve (default: not passed)",
    )
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="also print each run's actions in 250 ms buckets (count, p50, max)",
    )
    parser.add_argument(
        "--think-ms",
        type=parse_think_ms,
        metavar="A-B",
        help="human-paced: each guest waits a uniformly random A-B ms before each move"
        " (default: none, saturated)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the --think-ms waits (default 1)"
    )
    parser.add_argument(
        "--compare",
        metavar="DIR",
        type=Path,
        help="also run each storage from this source tree (e.g. an older commit's"
        " `git archive` unpacked, with its own .venv if it has one), side by side;"
        " its rows are labelled @before",
    )
    return parser


def main() -> None:
    """Parse arguments, run the games on each storage, print the figures."""
    args = parser().parse_args()

    if args.url:
        base_url = args.url.rstrip("/")
        figures, elapsed, client_cpu = play(base_url, bench_load(args), args.clients)
        lat, sent = phases(figures), figures.push_after_request_ms
        print(
            f"games: {args.games} concurrent, {figures.games_finished} finished in {elapsed:.1f} s"
        )
        print(f"actions: {figures.actions} ({figures.actions / elapsed:.1f} actions/s overall)")
        print(f"action latency: p50 {lat.p50:.1f} ms, p99 {lat.p99:.1f} ms")
        print(
            f"after each game's first round: p50 {lat.steady_p50:.1f} ms,"
            f" p99 {lat.steady_p99:.1f} ms; round 1 p99 {lat.first_round_p99:.1f} ms"
        )
        print(f"push delay: p50 {percentile(sent, 50):.1f} ms, p99 {percentile(sent, 99):.1f} ms")
        if figures.actions:
            print(f"bench client CPU: {client_cpu * 1000 / figures.actions:.1f} ms/action")
        if args.timeline:
            print_timeline(base_url, figures)
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
            results[name + label].append(measure(name, args, tree, label, round_no))
    print_table([median_row(rows) for rows in results.values()], args.rounds, args.clients, args)


if __name__ == "__main__":
    main()
