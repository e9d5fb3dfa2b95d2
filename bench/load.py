"""Load run: N concurrent rooms over HTTP and WebSocket, then a room-by-room check that nothing was lost.

Each room (default 200 at once) has one or two simulated humans plus bots; a few rooms have a
signed-out spectator. Every human signs in (guest, or registered for the second seat), opens
a WebSocket with a ticket, subscribes, and plays at a human pace (``--pace``, seconds): it
decides with the engine's own bot policy applied to the view it received, so every rule system
(every system of the engine's registry, in the mix of ``RULES_MIX``) is played legally. Some humans tick while they wait (WebSocket
``tick``), some reconnect once mid-game (new ticket, new connection, subscribe again), and in
a few rooms a human lets one turn run out so the server's deadline plays for it.

At the end every room is checked (``check_room``):

- every accepted write (HTTP 200/201 of a room change) has its own version: two accepted
  writes answered with the same version would be a lost update;
- the push of an accepted action's version announces that action (an event ``by: "player"``
  of the acting seat), and a bid appears in its round's reveal (Liar! as its challenger) when
  that reveal was seen; no push announces a human move nobody made;
- every connection received each version once: no gap between the first and the last version
  it saw, no version pushed twice (answers to ``subscribe``/``tick`` may repeat one); the
  room's steady connection (one that never reconnects) saw every version up to the final one,
  and the final version is the last one pushed, so versions count the applied changes;
- every game finished, no answer was a 5xx, no spectator ever saw a hand.

It prints actions/s, p50/p99 action latency and push delay, and the lost updates (must be 0);
the exit status is 1 when any room has a problem. Every loop is bounded in count and time.

On a server it starts itself it also reads the server's side (``ServerWatch``), separately
from the bench client's own CPU (``time.process_time`` of this process):

- the CPU time (user + system, ``/proc``) of the server's whole process tree, the supervisor
  and every worker, from the start of the run to its end, per accepted action and per room
  message delivered (both divide the same total: the fan-out is in the per-action figure);
- the server's own time of each action request, from its request log (``POST
  /rooms/<id>/actions 200 3.1ms``: arrival at the app to the answer), p50/p99 beside the
  client's round trip;
- resident memory of the tree when idle (after ``WARM_UP_ROOMS`` tiny games, not counted) and
  at its peak (sampled every 0.5 s), the growth divided by the most WebSockets open at once:
  KB per connection, an upper bound (the rooms' and threads' growth is in it too);
- the machine's 1-minute load average during the run (the server and this client share it).

``--rooms 200,500,1000`` runs each size in turn (a fresh server each) and ends with one table
(rooms × pace × p50/p99 × actions/s × server CPU/action × RSS/connection) and the largest
run that kept action p99 ≤ 100 ms with nothing lost and no 5xx; ``--find-max-rooms`` then
looks further (doubling until a run fails, then halving the gap). ``--compare DIR`` runs each
size on the server of another source tree too (a checkout with its own ``.venv``, e.g. the
commit before a change), alternating which goes first, and prints both rows and the ratios.

    .venv/bin/python bench/load.py                   # 200 rooms on a local server it starts
    .venv/bin/python bench/load.py --rooms 20 --pace 1:3
    .venv/bin/python bench/load.py --rooms 200,500,1000 --pace 2:8 --compare ../before
    .venv/bin/python bench/load.py --rooms 200 --pace 2:8 --find-max-rooms
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000    # a running server
    .venv/bin/python bench/load.py --url https://abc.execute-api.eu-west-1.amazonaws.com/api \\
        --ws-url wss://def.execute-api.eu-west-1.amazonaws.com/api  # a deployed stack

Without ``--url`` the server is started on loopback (``liars-dice serve --port 0``) with the
options given in ``--server-arg`` (e.g. ``--server-arg=--storage=sqlite``; an option that this
server's ``serve --help`` does not list is dropped with a warning) and ``--server-env``.

One file of over 600 lines on purpose: a bench is one script, run and read on its own; what it
shares with the other benches is in ``bench/_common.py``, and its parts (the plan of each room,
the simulated people, the checker, the report) serve only this run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import websockets

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from _common import (  # noqa: E402
    ServerLog,
    count_settings,
    percentile,
    rules_mix,
    start_server,
    tree_cpu_seconds,
    tree_rss_bytes,
)

from chalicelib.engine.dice import SeededRoller  # noqa: E402
from chalicelib.engine.systems import rule_system  # noqa: E402

MAX_STEPS_PER_HUMAN = 2_000
"""A human's play loop ends after this many iterations whatever happens."""
MAX_MESSAGES_PER_CONNECTION = 20_000
"""A connection's reader stops after this many messages."""
RULES_MIX = rules_mix(0.7)
"""Each registered rule system's share of rooms: the default system 70 %, the others alike."""
LOST_KINDS = ("lost_action", "shared_version", "push_gap", "version_mismatch")
"""Problems that mean an update was lost; the rest are failures of other kinds."""


# --- what one room did --------------------------------------------------------------------------


@dataclass
class Plan:
    """What one room does: seats, rules and the behaviours it exercises."""

    index: int
    humans: int
    bots: int
    rules: str
    dice: int
    turn_seconds: int
    spectator: bool
    reconnector: int | None  # which human (0 = host) reconnects once mid-game
    ticker: bool  # humans send WebSocket ticks while they wait
    timeout_turn: bool  # the host lets one turn run out


@dataclass
class Write:
    """One accepted room change made by a client (HTTP 200/201)."""

    kind: str  # create, join, ready, bot, start, action
    version: int
    player_id: str | None = None
    action: dict[str, Any] | None = None
    round: int | None = None
    sent: float = 0.0
    answered: float = 0.0


@dataclass
class ConnLog:
    """Everything one WebSocket connection received for its room."""

    name: str
    steady: bool  # never closed before the game ended
    spectator: bool = False
    answers_requested: int = 0  # subscribe and tick: each is answered with the current view
    received: list[tuple[float, int, bool]] = field(default_factory=list)  # (at, version, events?)
    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    dropped_events: set[int] = field(default_factory=set)
    saw_dice: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class RoomRecord:
    """The evidence of one room, checked by ``check_room``."""

    plan: Plan
    room_id: str = ""
    writes: list[Write] = field(default_factory=list)
    conns: list[ConnLog] = field(default_factory=list)
    reveals: dict[int, dict[str, Any]] = field(default_factory=dict)
    final: dict[str, Any] | None = None
    server_errors: list[str] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)  # 4xx answers by code
    latencies: list[float] = field(default_factory=list)  # action round trips, seconds
    other_latencies: list[float] = field(default_factory=list)  # every other request
    ticks: int = 0
    timeouts_waited: int = 0
    reconnects: int = 0
    aborted: str | None = None


@dataclass(frozen=True)
class Problem:
    """One thing the check found wrong in a room."""

    kind: str
    detail: str

    @property
    def lost(self) -> bool:
        """Whether this problem is a lost update."""
        return self.kind in LOST_KINDS


# --- the check ----------------------------------------------------------------------------------


def _norm_face(face: Any) -> str:
    return str(face)


def check_room(rec: RoomRecord) -> list[Problem]:
    """Everything wrong with one room's evidence; empty when nothing was lost."""
    problems: list[Problem] = []

    def bad(kind: str, detail: str) -> None:
        problems.append(Problem(kind, f"room {rec.plan.index} ({rec.room_id}): {detail}"))

    if rec.aborted:
        bad("aborted", rec.aborted)
    for err in rec.server_errors:
        bad("server_error", err)

    # 1. every accepted write has its own version
    by_version: dict[int, list[Write]] = {}
    for w in rec.writes:
        by_version.setdefault(w.version, []).append(w)
    for v, ws in sorted(by_version.items()):
        if len(ws) > 1:
            bad(
                "shared_version",
                f"{len(ws)} accepted writes answered version {v}: " + ", ".join(w.kind for w in ws),
            )

    # 2. per connection: each version once, no gap, in order
    events: dict[int, list[dict[str, Any]]] = {}
    dropped: set[int] = set()
    seen_versions: set[int] = set()
    for conn in rec.conns:
        versions = [v for _, v, _ in conn.received]
        if not versions:
            continue
        with_events = Counter(v for _, v, has in conn.received if has)
        for v, n in with_events.items():
            if n > 1:
                bad("duplicate_push", f"{conn.name} got version {v} pushed {n} times")
        extra = len(versions) - len(set(versions))
        if extra > conn.answers_requested:
            bad(
                "duplicate_push",
                f"{conn.name} got {extra} repeated versions for {conn.answers_requested} subscribe/tick answers",
            )
        lo, hi = min(versions), max(versions)
        missing = sorted(set(range(lo, hi + 1)) - set(versions))
        if missing:
            bad(
                "push_gap", f"{conn.name} never got version(s) {missing[:10]} between {lo} and {hi}"
            )
        if any(b < a for a, b in itertools.pairwise(versions)):
            bad("reordered", f"{conn.name} got versions out of order")
        if conn.saw_dice:
            bad("hidden_dice", f"{conn.name} (spectator) saw a hand {conn.saw_dice} times")
        for err in conn.errors:
            if err.get("code") == "internal_error":
                bad("server_error", f"{conn.name}: {err}")
        seen_versions.update(versions)
        dropped |= conn.dropped_events
        for v, evs in conn.events.items():
            if v in events and events[v] != evs:
                bad("inconsistent_push", f"version {v} carried different events on {conn.name}")
            events.setdefault(v, evs)

    # 3. the steady connection saw everything up to the final version
    final_version = rec.final["version"] if rec.final else None
    steady = [c for c in rec.conns if c.steady and c.received]
    if rec.final is None:
        bad("unfinished", "no final state was read")
    else:
        if rec.final.get("status") != "finished":
            bad("unfinished", f"the game ended {rec.final.get('status')!r}, not finished")
        if not steady:
            bad("version_mismatch", "no connection watched the whole game")
        for conn in steady:
            last = max(v for _, v, _ in conn.received)
            if last != final_version:
                bad(
                    "version_mismatch",
                    f"{conn.name} last got version {last}, the room is at {final_version}",
                )
        if final_version is not None:
            unseen = sorted(set(range(1, final_version + 1)) - seen_versions)
            if unseen:
                bad("push_gap", f"no connection got version(s) {unseen[:10]} of 1..{final_version}")
        last_write = max((w.version for w in rec.writes), default=0)
        if final_version is not None and final_version < last_write:
            bad(
                "version_mismatch",
                f"final version {final_version} is below accepted version {last_write}",
            )

    # 4. every accepted action is announced at its version (and in its reveal); none invented
    claimed: dict[int, str] = {}
    for w in rec.writes:
        if w.kind != "action" or w.action is None:
            continue
        claimed[w.version] = w.player_id or ""
        if w.version in dropped:
            continue
        evs = events.get(w.version)
        if evs is None:
            if w.version not in seen_versions:
                bad("lost_action", f"accepted {w.action} (version {w.version}) was never pushed")
            continue
        if not any(e.get("by") == "player" and e.get("player_id") == w.player_id for e in evs):
            bad(
                "lost_action",
                f"accepted {w.action} (version {w.version}) is not among that push's events",
            )
            continue
        reveal = rec.reveals.get(w.round) if w.round is not None else None
        if reveal is None or "bid" not in rule_system(rec.plan.rules).turn_actions:
            continue  # a system without bids (Poker's claims) lists no bids in its reveal
        row = next((r for r in reveal.get("rows", []) if r.get("player_id") == w.player_id), None)
        kind = w.action.get("type")
        if kind == "bid":
            bids = {
                (b.get("quantity"), _norm_face(b.get("face"))) for b in (row or {}).get("bids", [])
            }
            if (w.action.get("quantity"), _norm_face(w.action.get("face"))) not in bids:
                bad("lost_action", f"accepted {w.action} is missing from round {w.round}'s reveal")
        elif kind == "liar" and reveal.get("challenger_id") != w.player_id:
            bad(
                "lost_action",
                f"accepted {w.action} but round {w.round}'s challenger is {reveal.get('challenger_id')}",
            )
    humans = {w.player_id for w in rec.writes if w.kind == "action"}
    for v, evs in events.items():
        for e in evs:
            if (
                e.get("by") == "player"
                and e.get("player_id") in humans
                and claimed.get(v) != e.get("player_id")
            ):
                bad(
                    "phantom_action",
                    f"version {v} announces a move by {e.get('player_id')} nobody made",
                )
    return problems


# --- the client -------------------------------------------------------------------------------


@dataclass
class Config:
    """Knobs of one load run."""

    base_url: str
    ws_url: str
    rooms: int = 200
    pace: tuple[float, float] = (0.2, 0.6)
    dice: int = 2
    seed: int = 1
    ramp_seconds: float = 20.0
    room_timeout: float = 900.0
    two_human_share: float = 0.3
    spectator_share: float = 0.1
    reconnect_share: float = 0.15
    ticker_share: float = 0.2
    timeout_share: float = 0.05
    reconnect_after: tuple[int, int] = (1, 4)
    """A reconnecting human reconnects after this many of its moves (uniform range)."""
    wait_seconds: float = 15.0
    """A waiting human reads the room over HTTP when no push came for this long."""
    request_timeout: float = 180.0
    rules: tuple[str, ...] = ()
    """Only these rule systems, in turn (default: the mix of ``RULES_MIX``)."""


def make_plan(index: int, cfg: Config) -> Plan:
    """The room's seats and behaviours, drawn from the run's seed."""
    rng = random.Random(cfg.seed * 100_003 + index)
    humans = 2 if rng.random() < cfg.two_human_share else 1
    bots = rng.randint(1, 3)
    pick, rules = rng.random(), RULES_MIX[0][0]
    for name, share in RULES_MIX:
        if pick < share:
            rules = name
            break
        pick -= share
    if cfg.rules:
        rules = cfg.rules[index % len(cfg.rules)]
    reconnector = rng.randrange(humans) if rng.random() < cfg.reconnect_share else None
    spectator = rng.random() < cfg.spectator_share or reconnector == 0
    timeout_turn = rng.random() < cfg.timeout_share
    return Plan(
        index=index,
        humans=humans,
        bots=bots,
        rules=rules,
        dice=cfg.dice,
        turn_seconds=15 if timeout_turn else 60,
        spectator=spectator,
        reconnector=reconnector,
        ticker=rng.random() < cfg.ticker_share,
        timeout_turn=timeout_turn,
    )


class Gauge:
    """How many WebSocket connections are open now, and the most that were open at once."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0

    def opened(self) -> None:
        """One more connection is open."""
        self.now += 1
        self.peak = max(self.peak, self.now)

    def closed(self) -> None:
        """One connection is closed."""
        self.now -= 1


class RoomRun:
    """Drives one room and collects its ``RoomRecord``."""

    def __init__(
        self, cfg: Config, http: aiohttp.ClientSession, plan: Plan, gauge: Gauge | None = None
    ) -> None:
        self.cfg = cfg
        self.http = http
        self.plan = plan
        self.gauge = gauge or Gauge()
        self.rec = RoomRecord(plan)
        self.rng = random.Random(cfg.seed * 7919 + plan.index)
        self.tasks: list[asyncio.Task[None]] = []
        self.sockets: list[Any] = []
        self.step = "start"

    # HTTP ---------------------------------------------------------------------------------

    async def request(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any, float, float]:
        """One request; 5xx answers are recorded. Returns status, JSON, sent and answered times."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
            data: bytes | None = json.dumps(body).encode()
        else:
            data = None  # and no content type (a browser's ``fetch`` sends none either)
        self.step = f"{method} {path}"
        sent = time.perf_counter()
        try:
            async with self.http.request(
                method,
                self.cfg.base_url + path,
                data=data,
                headers=headers,
                skip_auto_headers=NO_AUTO_CONTENT_TYPE,
            ) as answer:
                raw = await answer.read()
                status = answer.status
        except (aiohttp.ClientError, TimeoutError) as err:
            self.rec.server_errors.append(f"{method} {path}: {type(err).__name__} {err}")
            return 599, None, sent, time.perf_counter()
        answered = time.perf_counter()
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if status >= 500:
            self.rec.server_errors.append(
                f"{method} {path}: {status} {raw[:200].decode(errors='replace')}"
            )
        elif status >= 400:
            code = (data or {}).get("error", {}).get("code", "?") if isinstance(data, dict) else "?"
            self.rec.refused[f"{status} {code}"] += 1
        if "/actions" in path:
            self.rec.latencies.append(answered - sent)
        else:
            self.rec.other_latencies.append(answered - sent)
        return status, data, sent, answered

    async def write(self, kind: str, method: str, path: str, token: str, body: Any = None) -> Any:
        """A lobby change that must succeed; recorded as an accepted write."""
        status, data, sent, answered = await self.request(method, path, token, body)
        if status not in (200, 201):
            raise RuntimeError(f"{kind}: {method} {path} answered {status} {data}")
        self.rec.writes.append(Write(kind, data["version"], sent=sent, answered=answered))
        return data

    # WebSocket ---------------------------------------------------------------------------

    async def open_socket(self, conn: ConnLog, token: str | None, on_view: Any) -> Any:
        """Connect (with a ticket when signed in), subscribe, and read in the background."""
        url = self.cfg.ws_url
        if token is not None:
            status, data, _, _ = await self.request("POST", "/realtime/tickets", token)
            if status != 201:
                raise RuntimeError(f"ticket refused: {status} {data}")
            url = f"{url}?ticket={data['ticket']}"
        ws = await websockets.connect(url, max_size=2**20, open_timeout=30)
        self.sockets.append(ws)
        subscribed = asyncio.Event()
        self.tasks.append(asyncio.create_task(self.read(ws, conn, on_view, subscribed)))
        conn.answers_requested += 1
        await ws.send(json.dumps({"action": "subscribe", "room_id": self.rec.room_id}))
        # messages on one connection are handled in order: the pong means we are subscribed
        await ws.send(json.dumps({"action": "ping"}))
        self.step = f"subscribe on {conn.name}"
        await asyncio.wait_for(subscribed.wait(), self.cfg.request_timeout)
        return ws

    async def read(self, ws: Any, conn: ConnLog, on_view: Any, subscribed: asyncio.Event) -> None:
        """Log every message this connection receives (bounded in count)."""
        self.gauge.opened()
        try:
            await self._read(ws, conn, on_view, subscribed)
        finally:
            self.gauge.closed()

    async def _read(self, ws: Any, conn: ConnLog, on_view: Any, subscribed: asyncio.Event) -> None:
        with contextlib.suppress(websockets.ConnectionClosed, asyncio.CancelledError):
            for _ in range(MAX_MESSAGES_PER_CONNECTION):
                message = json.loads(await ws.recv())
                at = time.perf_counter()
                kind = message.get("type")
                if kind == "pong":
                    subscribed.set()
                elif kind == "room":
                    room = message["room"]
                    v = int(room["version"])
                    evs = message.get("events") or []
                    conn.received.append((at, v, bool(evs)))
                    if evs:
                        conn.events[v] = evs
                    if message.get("events_dropped"):
                        conn.dropped_events.add(v)
                    if conn.spectator and (room.get("me") or {}).get("dice"):
                        conn.saw_dice += 1
                    self.note_reveal(room)
                    if on_view is not None:
                        on_view(room)
                elif kind == "room_changed":
                    conn.received.append((at, int(message["version"]), False))
                    conn.dropped_events.add(int(message["version"]))
                elif kind == "error":
                    conn.errors.append(message.get("error") or {})

    def note_reveal(self, room: dict[str, Any]) -> None:
        """Keep every round's reveal seen in any view."""
        reveal = (room.get("game") or {}).get("last_reveal")
        if reveal and isinstance(reveal.get("round"), int):
            self.rec.reveals.setdefault(reveal["round"], reveal)

    # the room ----------------------------------------------------------------------------

    async def run(self) -> RoomRecord:
        """Set the room up, play it to the end, read the final state; never raises."""
        try:
            await asyncio.wait_for(self._run(), self.cfg.room_timeout)
        except TimeoutError:
            self.rec.aborted = (
                f"not finished within {self.cfg.room_timeout:.0f} s, or a step timed out: "
                f"{self.step}"
            )
        except Exception as err:
            self.rec.aborted = f"{type(err).__name__}: {err} (during {self.step})"
        finally:
            for ws in self.sockets:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
        return self.rec

    async def _run(self) -> None:
        plan = self.plan
        settings: dict[str, Any] = {
            **count_settings(plan.rules, plan.dice),
            "turn_seconds": plan.turn_seconds,
            "break_seconds": 30,
        }
        # rooms created by guests cannot be joined: a room with two humans has a registered host
        data = await self.sign_in("host", registered=plan.humans == 2)
        host = Human(self, 0, data["token"], steady=plan.reconnector != 0)
        room = await self.write("create", "POST", "/rooms", host.token, {"settings": settings})
        self.rec.room_id = room["id"]
        host.take(room)
        await host.connect()
        humans = [host]
        if plan.humans == 2:
            data = await self.sign_in("guest", registered=True)
            guest = Human(self, 1, data["token"], steady=plan.reconnector != 1)
            await guest.connect()
            guest.take(
                await self.write("join", "POST", f"/rooms/{self.rec.room_id}/join", guest.token, {})
            )
            guest.take(
                await self.write(
                    "ready", "PUT", f"/rooms/{self.rec.room_id}/ready", guest.token, {"ready": True}
                )
            )
            humans.append(guest)
        if plan.spectator:
            conn = ConnLog("spectator", steady=True, spectator=True)
            self.rec.conns.append(conn)
            await self.open_socket(conn, None, None)
        for _ in range(plan.bots):
            host.take(
                await self.write("bot", "POST", f"/rooms/{self.rec.room_id}/bots", host.token, {})
            )
        host.take(await self.write("start", "POST", f"/rooms/{self.rec.room_id}/start", host.token))
        await asyncio.gather(*(h.play() for h in humans))
        await self.settle(host)

    async def sign_in(self, who: str, *, registered: bool) -> Any:
        """A guest session, or a newly registered account."""
        if registered:
            name = f"load{self.plan.index}{who}{self.rng.randrange(10**9)}"
            path, body = "/auth/register", {"username": name, "password": "load-bench-pw-1"}
        else:
            path, body = "/auth/guest", {"name": f"Load {self.plan.index} {who}"}
        status, data, _, _ = await self.request("POST", path, None, body)
        if status != 201:
            raise RuntimeError(f"{path} answered {status} {data}")
        return data

    async def settle(self, host: Human) -> None:
        """Read the final state; wait (bounded) until every steady connection caught up."""
        status, final, _, _ = await self.request("GET", f"/rooms/{self.rec.room_id}", host.token)
        if status != 200:
            raise RuntimeError(f"final read answered {status}")
        self.rec.final = final
        for _ in range(100):
            if all(
                any(v >= final["version"] for _, v, _ in c.received)
                for c in self.rec.conns
                if c.steady
            ):
                return
            await asyncio.sleep(0.1)


class Human:
    """One simulated player: a seat, a WebSocket, and a play loop at a human pace."""

    def __init__(self, room: RoomRun, number: int, token: str, *, steady: bool) -> None:
        self.room = room
        self.number = number
        self.token = token
        self.steady = steady
        self.view: dict[str, Any] = {}
        self.changed = asyncio.Event()
        self.conn: ConnLog | None = None
        self.ws: Any = None
        self.connections = 0
        self.memory: dict[str, Any] = {}
        self.roller = SeededRoller(room.cfg.seed * 31 + room.plan.index * 2 + number)

    def take(self, view: Any) -> None:
        """Keep the newest view seen (from an answer or a push); wake the play loop only for a
        newer version (the push of an action this human just made may come after its answer,
        and must not make the loop read the room again)."""
        if isinstance(view, dict) and "version" in view and "me" in view:
            newer = not self.view or view["version"] > self.view["version"]
            if newer or view["version"] == self.view["version"]:
                self.view = view
            if newer:
                self.changed.set()
            self.room.note_reveal(view)

    async def connect(self) -> None:
        """A new connection with a fresh ticket, subscribed to the room."""
        self.connections += 1
        steady = self.steady or self.connections > 1
        self.conn = ConnLog(f"human{self.number}#{self.connections}", steady=steady)
        self.room.rec.conns.append(self.conn)
        self.ws = await self.room.open_socket(self.conn, self.token, self.take)

    async def reconnect(self) -> None:
        """Close this connection and open another (the first one is not steady)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)
        self.room.rec.reconnects += 1
        await asyncio.sleep(0.1)
        await self.connect()

    async def tick(self) -> None:
        """Ask over the WebSocket for passed deadlines to be applied."""
        assert self.conn is not None
        self.conn.answers_requested += 1
        self.room.rec.ticks += 1
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.ws.send(json.dumps({"action": "tick", "room_id": self.room.rec.room_id}))

    async def play(self) -> None:
        """Act whenever it is this seat's turn until the game ends (bounded)."""
        run, plan, cfg = self.room, self.room.plan, self.room.cfg
        rid = run.rec.room_id
        rules = rule_system(plan.rules)
        acted = 0
        reconnect_at = (
            run.rng.randint(*cfg.reconnect_after) if plan.reconnector == self.number else None
        )
        skip_turn = plan.timeout_turn and self.number == 0
        for _ in range(MAX_STEPS_PER_HUMAN):
            view = self.view
            if view.get("status") in ("finished", "closed"):
                return
            game = view.get("game") or {}
            turn = game.get("turn")
            me = (view.get("me") or {}).get("player_id")
            if game.get("phase") == "bidding" and turn and turn.get("player_id") == me:
                if skip_turn:
                    skip_turn = False
                    run.rec.timeouts_waited += 1
                    await asyncio.sleep(plan.turn_seconds + 0.5)
                    if self.view["version"] == view["version"]:
                        await self.tick()
                    await self.wait_change(view["version"])
                    continue
                await asyncio.sleep(run.rng.uniform(*cfg.pace))
                if self.view["version"] != view["version"]:
                    continue  # something changed while thinking: decide again
                action = rules.bot_action(view, "strong", self.memory, self.roller)
                status, data, sent, answered = await run.request(
                    "POST", f"/rooms/{rid}/actions", self.token, action
                )
                if status == 200:
                    run.rec.writes.append(
                        Write(
                            "action", data["version"], me, action, game.get("round"), sent, answered
                        )
                    )
                    self.take(data)
                    acted += 1
                    if reconnect_at is not None and acted >= reconnect_at:
                        reconnect_at = None
                        await self.reconnect()
                else:
                    await self.refresh()
                continue
            # a ticker's first wait always ticks (so a run with tickers sends some); later
            # waits tick half the time
            if plan.ticker and (run.rec.ticks == 0 or run.rng.random() < 0.5):
                await self.tick()
            if not await self.wait_change(view["version"]):
                await self.refresh()

    async def wait_change(self, version: int) -> bool:
        """Wait (bounded) for a view newer than ``version``; False on timeout."""
        self.changed.clear()
        if self.view["version"] > version:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), self.room.cfg.wait_seconds)
        return self.view["version"] > version

    async def refresh(self) -> None:
        """Read the room over HTTP (this also applies passed deadlines)."""
        status, data, _, _ = await self.room.request(
            "GET", f"/rooms/{self.room.rec.room_id}", self.token
        )
        if status == 200:
            self.take(data)


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Report:
    """The records of every room, their problems and the run's duration."""

    records: list[RoomRecord]
    problems: list[Problem]
    elapsed: float
    loop_lag_ms: list[float] = field(default_factory=list)
    """How late the client's event loop woke a ``LAG_PROBE_SECONDS`` sleep, each time: when
    it is large, the client's own turn is in its latencies, not only the server's."""
    started: float = 0.0
    """When the run began (``time.perf_counter``): the ramp is measured from here."""
    ramp_seconds: float = 0.0
    """How long the room starts were spread over."""

    @property
    def lost_updates(self) -> int:
        """How many problems are lost updates."""
        return sum(1 for p in self.problems if p.lost)


LAG_PROBE_SECONDS = 0.1
"""How often the client's event loop is checked for lateness during a run."""


async def probe_loop_lag(lags: list[float]) -> None:
    """Until cancelled: sleep ``LAG_PROBE_SECONDS`` and note how late (ms) the loop woke."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(LAG_PROBE_SECONDS)
        lags.append(max(0.0, (time.perf_counter() - asked - LAG_PROBE_SECONDS) * 1000))


async def run_load(cfg: Config, gauge: Gauge | None = None) -> Report:
    """Run every room at once (their starts spread over the ramp) and check them all; ``gauge``
    counts the open WebSocket connections meanwhile."""
    # idle connections are dropped well before the server's keep-alive timeout (uvicorn: 5 s),
    # so a request never races the server closing the connection it was sent on
    # aiohttp rather than httpx: with a thousand rooms, httpx's pool kept requests waiting
    # seconds before they were sent while neither the server nor this loop was busy
    # (docs/DECISIONS.md, issue 32). Idle connections are dropped well before the server's
    # keep-alive timeout (uvicorn: 5 s), so a request never races the server closing the
    # connection it was sent on.
    connector = aiohttp.TCPConnector(limit=cfg.rooms * 2 + 10, keepalive_timeout=2.0)
    timeout = aiohttp.ClientTimeout(total=cfg.request_timeout)
    started = time.perf_counter()
    lags: list[float] = []
    lag_probe = asyncio.create_task(probe_loop_lag(lags))
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()
    ) as http:

        async def one(index: int) -> RoomRecord:
            await asyncio.sleep(cfg.ramp_seconds * index / max(1, cfg.rooms))
            return await RoomRun(cfg, http, make_plan(index, cfg), gauge).run()

        try:
            records = await asyncio.gather(*(one(i) for i in range(cfg.rooms)))
        finally:
            lag_probe.cancel()
    elapsed = time.perf_counter() - started
    problems = [p for rec in records for p in check_room(rec)]
    return Report(list(records), problems, elapsed, lags, started, cfg.ramp_seconds)


def push_delays(rec: RoomRecord) -> tuple[list[float], list[float]]:
    """Per accepted action: first arrival of its version on any connection minus answer / send."""
    first: dict[int, float] = {}
    for conn in rec.conns:
        for at, v, _ in conn.received:
            if v not in first or at < first[v]:
                first[v] = at
    after_answer, after_send = [], []
    for w in rec.writes:
        if w.kind == "action" and w.version in first:
            after_answer.append(first[w.version] - w.answered)
            after_send.append(first[w.version] - w.sent)
    return after_answer, after_send


def summary_lines(report: Report, cfg: Config) -> list[str]:
    """The figures of a run, as printed."""
    recs = report.records
    actions = [w for r in recs for w in r.writes if w.kind == "action"]
    lat = [x * 1000 for r in recs for x in r.latencies]
    other = [x * 1000 for r in recs for x in r.other_latencies]
    answer_d, send_d = [], []
    for r in recs:
        a, s = push_delays(r)
        answer_d += [x * 1000 for x in a]
        send_d += [x * 1000 for x in s]
    refused: Counter[str] = Counter()
    for r in recs:
        refused.update(r.refused)
    kinds = Counter(p.kind for p in report.problems)
    finished = sum(1 for r in recs if r.final and r.final.get("status") == "finished")
    conns = sum(len(r.conns) for r in recs)
    pushes = sum(len(c.received) for r in recs for c in r.conns)
    rules = Counter(r.plan.rules for r in recs)
    lines = [
        f"rooms: {len(recs)} concurrent ({', '.join(f'{k} {v}' for k, v in sorted(rules.items()))}); "
        f"{finished} finished in {report.elapsed:.1f} s; pace {cfg.pace[0]}–{cfg.pace[1]} s, "
        f"{cfg.dice} dice (or lives, as each system counts)",
        f"humans: {sum(r.plan.humans for r in recs)}, spectators: {sum(r.plan.spectator for r in recs)}, "
        f"WebSocket connections: {conns}, reconnects: {sum(r.reconnects for r in recs)}, "
        f"ticks: {sum(r.ticks for r in recs)}, turns left to time out: {sum(r.timeouts_waited for r in recs)}",
        f"accepted actions: {len(actions)} ({len(actions) / report.elapsed:.1f} actions/s); "
        f"room messages received: {pushes}; refused (4xx): "
        + (", ".join(f"{k} ×{v}" for k, v in sorted(refused.items())) or "none"),
        f"action latency: p50 {percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms "
        f"(other requests: p50 {percentile(other, 50):.1f} ms, p99 {percentile(other, 99):.1f} ms)",
        f"push delay after the answer: p50 {percentile(answer_d, 50):.1f} ms, "
        f"p99 {percentile(answer_d, 99):.1f} ms; after the request: p50 "
        f"{percentile(send_d, 50):.1f} ms, p99 {percentile(send_d, 99):.1f} ms",
        f"5xx / transport errors: {sum(len(r.server_errors) for r in recs)}",
        f"bench client event-loop lag: p50 {percentile(report.loop_lag_ms, 50):.1f} ms, p99 "
        f"{percentile(report.loop_lag_ms, 99):.1f} ms (its own turn, in every client figure)",
        f"problems: {len(report.problems)}"
        + (f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})" if kinds else ""),
        f"lost updates: {report.lost_updates}",
    ]
    if send_d:
        lines[4] += f" (n={len(send_d)}, mean after request {statistics.fmean(send_d):.1f} ms)"
    lines.insert(4, ramp_line(report, actions))
    return lines


BUSIEST_WINDOW_SECONDS = 10.0
"""The window of the busiest-rate figure."""


def ramp_line(report: Report, actions: list[Write]) -> str:
    """Accepted actions' latency while rooms were still starting (sign-ups, room set-ups) and
    after, and the busiest ``BUSIEST_WINDOW_SECONDS`` of accepted actions (by when they were
    sent): what the server carried while every room played, not diluted by the ramp and the
    last games' tail."""
    ramp_end = report.started + report.ramp_seconds
    during = [(w.answered - w.sent) * 1000 for w in actions if w.sent < ramp_end]
    after = [(w.answered - w.sent) * 1000 for w in actions if w.sent >= ramp_end]
    sent = sorted(w.sent for w in actions)
    busiest, lo = 0, 0
    for hi, at in enumerate(sent):
        while at - sent[lo] > BUSIEST_WINDOW_SECONDS:
            lo += 1
        busiest = max(busiest, hi - lo + 1)

    def figures(values: list[float]) -> str:
        if not values:
            return "none"
        return f"p50 {percentile(values, 50):.1f} ms, p99 {percentile(values, 99):.1f} ms (n={len(values)})"

    return (
        f"accepted actions sent during the {report.ramp_seconds:.0f} s ramp: {figures(during)}; "
        f"after it: {figures(after)}; busiest {BUSIEST_WINDOW_SECONDS:.0f} s: "
        f"{busiest / BUSIEST_WINDOW_SECONDS:.1f} actions/s"
    )


# --- the server ---------------------------------------------------------------------------------

NO_AUTO_CONTENT_TYPE = frozenset({"Content-Type"})
"""Headers aiohttp must not add on its own: on a POST without a body it would send
``Content-Type: application/octet-stream``, which the app refuses (415)."""
LATENCY_TARGET_MS = 100.0
"""The action p99 a run must stay within (with nothing lost, no 5xx) to count as carried."""
SAMPLE_SECONDS = 0.5
"""How often the server's resident memory and the machine's load average are read."""
WARM_UP_REQUESTS = 8
"""Requests on fresh connections before the idle reading, so every worker has loaded the app."""
WARM_UP_ROOMS = 4
"""Tiny games played before the idle reading (not counted in the run's figures)."""


def tree_python(tree: Path) -> str:
    """The Python that runs ``tree``'s server: its own ``.venv``'s (a compared tree has its own
    packages), this one's for this tree."""
    own = tree / ".venv" / "bin" / "python"
    return str(own) if tree != REPO and own.is_file() else sys.executable


def serve_options(requested: list[str], data_dir: str, tree: Path = REPO) -> list[str]:
    """The requested ``serve`` options ``tree``'s server knows (per ``serve --help``); others are
    dropped. A server with a data folder (``--data``) gets a fresh temporary one, so a load run
    never writes into the user's own data.
    """
    helptext = subprocess.run(
        [tree_python(tree), "-m", "liars_local.cli", "serve", "--help"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout

    def known(name: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", helptext) is not None

    kept = []
    for option in requested:
        name = option.split("=", 1)[0]
        if known(name):
            kept.append(option)
        else:
            print(f"note: the server of {tree} has no serve {name}; dropped", file=sys.stderr)
    if known("--data") and not any(o.split("=", 1)[0] == "--data" for o in kept):
        kept.append(f"--data={data_dir}")
    return kept


def start_local_server(
    options: list[str],
    env: dict[str, str],
    tree: Path = REPO,
    server_log: ServerLog | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``tree``'s ``liars-dice serve --port 0`` on loopback in a child process; return it
    and its URL. Its request log goes to ``server_log``."""
    command = [tree_python(tree), "-m", "liars_local.cli", "serve", "--host", "127.0.0.1"]
    return start_server(
        [*command, "--port", "0", *options],
        cwd=tree,
        env={**os.environ, **env},
        server_log=server_log,
    )


def server_env(rooms: int, bot_think: str, extra: list[str]) -> dict[str, str]:
    """The started server's environment: bots' think time, per-source limits for a run where
    every simulated person comes from one loopback address, and ``--server-env``."""
    low, _, high = bot_think.partition(":")
    env = {"BOT_THINK_MIN_MS": low, "BOT_THINK_MAX_MS": high or low}
    rooms += WARM_UP_ROOMS
    env["GUEST_PER_SOURCE"] = env["REGISTER_PER_SOURCE"] = str(rooms * 3 + 100)
    # ... and opens its WebSockets from it (a reconnect is a connection more)
    env["CONNECTS_PER_SOURCE"] = str(rooms * 10 + 100)
    for item in extra:
        key, _, value = item.partition("=")
        env[key] = value
    return env


def warm_up(base_url: str, ws_url: str) -> None:
    """Before the idle reading: a few ``GET /health`` on fresh connections (the kernel spreads
    them over the workers), then ``WARM_UP_ROOMS`` tiny games played fast, so every worker has
    loaded what a game loads and the growth measured after is the run's own."""
    for _ in range(WARM_UP_REQUESTS):
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(base_url + "/health", timeout=30)
    cfg = Config(
        base_url=base_url,
        ws_url=ws_url,
        rooms=WARM_UP_ROOMS,
        pace=(0.0, 0.02),
        dice=1,
        seed=999,
        ramp_seconds=0.0,
        room_timeout=120.0,
        timeout_share=0.0,
        spectator_share=1.0,
    )
    report = asyncio.run(run_load(cfg))
    if report.problems:
        print(f"note: the warm-up games had {len(report.problems)} problem(s)", file=sys.stderr)


@dataclass
class ServerFigures:
    """What the server's processes and request log showed over one run."""

    cpu_seconds: float
    idle_rss: int
    peak_rss: int
    processes: int
    action_ms: list[float]
    other_ms: list[float]
    load_average: float


class ServerWatch:
    """Reads a local server's whole process tree (the supervisor and every worker) and its
    request log around one run: CPU time from the start to the end of the run, resident memory
    when idle and at its peak (sampled every ``interval`` on a thread), the requests logged
    meanwhile, and the machine's 1-minute load average (mean of the samples)."""

    def __init__(self, pid: int, log: ServerLog, interval: float = SAMPLE_SECONDS) -> None:
        self.pid = pid
        self.log = log
        self.interval = interval
        self.idle_rss = self.peak_rss = self.processes = 0
        self.cpu_start = float("nan")
        self.mark = (0, 0)
        self.loads: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)

    def start(self) -> None:
        """Take the idle readings and start sampling."""
        self.idle_rss, self.processes = tree_rss_bytes(self.pid)
        self.peak_rss = self.idle_rss
        self.cpu_start = tree_cpu_seconds(self.pid)
        self.mark = self.log.mark()
        self._thread.start()

    def _sample(self) -> None:
        rss, members = tree_rss_bytes(self.pid)
        self.peak_rss = max(self.peak_rss, rss)
        self.processes = max(self.processes, members)
        self.loads.append(os.getloadavg()[0])

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def stop(self, settle: float = 0.5) -> ServerFigures:
        """The figures of the run (read while every process still runs); ``settle`` seconds
        first, for the last request lines to come through the pipe."""
        cpu = tree_cpu_seconds(self.pid) - self.cpu_start
        self._stop.set()
        self._thread.join(10)
        self._sample()
        time.sleep(settle)
        action_ms, other_ms = self.log.since(self.mark)
        return ServerFigures(
            cpu_seconds=cpu,
            idle_rss=self.idle_rss,
            peak_rss=self.peak_rss,
            processes=self.processes,
            action_ms=list(action_ms),
            other_ms=list(other_ms),
            load_average=statistics.fmean(self.loads) if self.loads else float("nan"),
        )


# --- one row per run ----------------------------------------------------------------------------


@dataclass
class Row:
    """The figures of one run, as one line of the table."""

    label: str  # "" for this tree, "@before" for the compared one
    rooms: int
    pace: tuple[float, float]
    finished: int
    actions: int
    seconds: float
    p50: float
    p99: float
    server_p50: float
    server_p99: float
    push_p99: float
    server_cpu_ms_per_action: float
    server_cpu_ms_per_push: float
    client_cpu_ms_per_action: float
    idle_rss_mb: float
    peak_rss_mb: float
    open_peak: int
    rss_kb_per_connection: float
    processes: int
    lost: int
    errors: int
    problems: int
    load_average: float
    client_lag_p99: float = float("nan")

    @property
    def rate(self) -> float:
        """Accepted actions per second over the whole run."""
        return self.actions / self.seconds if self.seconds else float("nan")

    @property
    def carried(self) -> bool:
        """Every game finished, nothing lost or failed, action p99 within the target."""
        return self.finished == self.rooms and self.problems == 0 and self.p99 <= LATENCY_TARGET_MS


def make_row(
    report: Report,
    cfg: Config,
    label: str,
    server: ServerFigures | None,
    client_cpu: float,
    open_peak: int,
) -> Row:
    """One run's row: the client's figures, and the server's when it was started here."""
    recs = report.records
    actions = sum(1 for r in recs for w in r.writes if w.kind == "action")
    pushes = sum(len(c.received) for r in recs for c in r.conns)
    lat = [x * 1000 for r in recs for x in r.latencies]
    sent = [x * 1000 for r in recs for x in push_delays(r)[1]]
    nan = float("nan")
    cpu = server.cpu_seconds if server else nan
    grown = (server.peak_rss - server.idle_rss) if server else nan
    return Row(
        label=label,
        rooms=len(recs),
        pace=cfg.pace,
        finished=sum(1 for r in recs if r.final and r.final.get("status") == "finished"),
        actions=actions,
        seconds=report.elapsed,
        p50=percentile(lat, 50),
        p99=percentile(lat, 99),
        server_p50=percentile(server.action_ms, 50) if server else nan,
        server_p99=percentile(server.action_ms, 99) if server else nan,
        push_p99=percentile(sent, 99),
        server_cpu_ms_per_action=cpu * 1000 / actions if actions else nan,
        server_cpu_ms_per_push=cpu * 1000 / pushes if pushes else nan,
        client_cpu_ms_per_action=client_cpu * 1000 / actions if actions else nan,
        idle_rss_mb=server.idle_rss / 2**20 if server else nan,
        peak_rss_mb=server.peak_rss / 2**20 if server else nan,
        open_peak=open_peak,
        rss_kb_per_connection=grown / 1024 / open_peak if open_peak else nan,
        processes=server.processes if server else 0,
        lost=report.lost_updates,
        errors=sum(len(r.server_errors) for r in recs),
        problems=len(report.problems),
        load_average=server.load_average if server else nan,
        client_lag_p99=percentile(report.loop_lag_ms, 99),
    )


def server_lines(row: Row, server: ServerFigures) -> list[str]:
    """The server's side of a run, as printed under the client's summary."""
    return [
        f"server ({row.processes} processes): CPU {server.cpu_seconds:.1f} s = "
        f"{row.server_cpu_ms_per_action:.2f} ms per accepted action, "
        f"{row.server_cpu_ms_per_push:.2f} ms per room message delivered; bench client CPU "
        f"{row.client_cpu_ms_per_action:.2f} ms per action",
        f"server's own action time (its request log, n={len(server.action_ms)}): p50 "
        f"{row.server_p50:.1f} ms, p99 {row.server_p99:.1f} ms (other requests: p99 "
        f"{percentile(server.other_ms, 99):.1f} ms)",
        f"server RSS: idle {row.idle_rss_mb:.1f} MB, peak {row.peak_rss_mb:.1f} MB with up to "
        f"{row.open_peak} WebSockets open: {row.rss_kb_per_connection:.1f} KB per connection",
        f"machine load average (1 min, mean during the run): {row.load_average:.2f}",
    ]


def pace_text(pace: tuple[float, float]) -> str:
    """``0.2–0.6 s`` (or ``2 s`` when fixed)."""
    lo, hi = (f"{x:g}" for x in pace)
    return f"{lo} s" if lo == hi else f"{lo}–{hi} s"


TABLE_HEAD = (
    "| rooms | pace | tree | finished | actions/s | p50 ms | p99 ms | server p50 | server p99 "
    "| push p99 ms | server CPU ms/action | server CPU ms/push | client CPU ms/action "
    "| RSS idle→peak MB | WS open | RSS KB/WS | lost | 5xx | load avg | client lag p99 |"
)


def table_lines(rows: list[Row]) -> list[str]:
    """Every run's row (a Markdown table), the ratios of this tree to the compared one, and
    the largest number of rooms each tree carried within the target."""
    lines = [TABLE_HEAD, "|" + "---|" * TABLE_HEAD.count(" | ") + "---|"]
    for r in rows:
        tree = "before" if r.label else "this tree"
        lines.append(
            f"| {r.rooms} | {pace_text(r.pace)} | {tree} | {r.finished}/{r.rooms} | {r.rate:.1f} "
            f"| {r.p50:.0f} | {r.p99:.0f} | {r.server_p50:.1f} | {r.server_p99:.1f} "
            f"| {r.push_p99:.0f} | {r.server_cpu_ms_per_action:.2f} "
            f"| {r.server_cpu_ms_per_push:.2f} | {r.client_cpu_ms_per_action:.2f} "
            f"| {r.idle_rss_mb:.0f}→{r.peak_rss_mb:.0f} | {r.open_peak} "
            f"| {r.rss_kb_per_connection:.0f} | {r.lost} | {r.errors} | {r.load_average:.1f} "
            f"| {r.client_lag_p99:.0f} |"
        )
    for r in rows:
        old = next((o for o in rows if o.label and o.rooms == r.rooms and o.pace == r.pace), None)
        if r.label or old is None:
            continue
        lines.append(
            f"{r.rooms} rooms, pace {pace_text(r.pace)}, now / before: "
            f"actions/s ×{r.rate / old.rate:.2f}, p50 ×{r.p50 / old.p50:.2f}, "
            f"p99 ×{r.p99 / old.p99:.2f}, server p99 ×{r.server_p99 / old.server_p99:.2f}, "
            f"server CPU/action ×{r.server_cpu_ms_per_action / old.server_cpu_ms_per_action:.2f}, "
            f"RSS/WS ×{r.rss_kb_per_connection / old.rss_kb_per_connection:.2f}"
        )
    for label, name in (("", "this tree"), ("@before", "before")):
        mine = [r for r in rows if r.label == label]
        if not mine:
            continue
        small, large = min(mine, key=lambda r: r.open_peak), max(mine, key=lambda r: r.open_peak)
        if large.open_peak > small.open_peak and large.pace == small.pace:
            # what one more connection (and its share of rooms) adds, without the fixed growth
            grown = [r.peak_rss_mb - r.idle_rss_mb for r in (small, large)]
            marginal = (grown[1] - grown[0]) * 1024
            lines.append(
                f"RSS per WebSocket between runs ({name}, {small.rooms} → {large.rooms} rooms): "
                f"{marginal / (large.open_peak - small.open_peak):.0f} KB (growth from idle "
                f"{grown[0]:.0f} → {grown[1]:.0f} MB, open {small.open_peak} → "
                f"{large.open_peak})"
            )
        carried = [r.rooms for r in mine if r.carried]
        most = f"{max(carried)} rooms" if carried else "none of the runs"
        lines.append(
            f"largest run with action p99 ≤ {LATENCY_TARGET_MS:.0f} ms, nothing lost, no 5xx "
            f"({name}): {most} (of {', '.join(str(r.rooms) for r in mine)})"
        )
    return lines


# --- the runs -----------------------------------------------------------------------------------


def measure(args: argparse.Namespace, rooms: int, tree: Path, label: str) -> tuple[Row, Report]:
    """One run of ``rooms`` rooms: against ``--url``, or on a server started from ``tree`` (and
    stopped after); its row and report, printed as it ends."""
    proc = None
    watch = None
    server_log = ServerLog()
    data_dir = tempfile.mkdtemp(prefix="liars-load-")
    name = "this tree" if not label else f"{tree} ({label})"
    try:
        if args.url:
            base_url = args.url.rstrip("/")
        else:
            env = server_env(rooms, args.bot_think, args.server_env)
            options = serve_options(args.server_arg, data_dir, tree)
            proc, base_url = start_local_server(options, env, tree, server_log)
            print(
                f"== {rooms} rooms, pace {pace_text(args.pace)}, {name}: liars-dice serve "
                f"{' '.join(options)} (bot think {args.bot_think} ms)",
                flush=True,
            )
        ws_url = args.ws_url or re.sub(r"^http", "ws", base_url) + "/ws"
        if proc is not None:
            warm_up(base_url, ws_url)
            time.sleep(1.0)  # let the warm-up's last pushes and timers settle
            watch = ServerWatch(proc.pid, server_log)
        cfg = Config(
            base_url=base_url,
            ws_url=ws_url,
            rooms=rooms,
            pace=args.pace,
            dice=args.dice,
            seed=args.seed,
            ramp_seconds=args.ramp,
            # every room stops by itself: the run as a whole ends within the time limit
            room_timeout=min(args.room_timeout, max(1.0, args.time_limit - args.ramp - 30)),
            rules=tuple(r for r in args.rules.split(",") if r),
            wait_seconds=args.wait,
        )
        gauge = Gauge()
        if watch is not None:
            watch.start()
        client_cpu = time.process_time()
        report = asyncio.run(run_load(cfg, gauge))
        client_cpu = time.process_time() - client_cpu
        server = watch.stop() if watch is not None else None
    finally:
        if proc is not None:
            proc.send_signal(2)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    row = make_row(report, cfg, label, server, client_cpu, gauge.peak)
    lines = summary_lines(report, cfg) + (server_lines(row, server) if server else [])
    for line in lines:
        print(line)
    for problem in report.problems[: args.problems]:
        print(f"  {problem.kind}: {problem.detail}")
    # its table row at once: a series stopped part-way keeps the rows of the runs that ended
    print(table_lines([row])[2])
    print(flush=True)
    return row, report


def next_search(carried: list[int], failed: list[int], start: int, most: int) -> int | None:
    """The next number of rooms to try when looking for the most this tree carries: double
    until a run fails (up to ``most``), then halve the gap; None when the gap is within 10 %."""
    low = max(carried, default=0)
    above = [n for n in failed if n > low]
    if not above:
        n = low * 2 if low else start
        return n if n <= most and n not in failed else None
    high = min(above)
    if high - low <= max(1, low // 10):
        return None
    return (low + high) // 2


def parse_pace(text: str) -> tuple[float, float]:
    """``"0.2:0.6"`` (uniform range) or ``"0.5"`` (fixed), in seconds."""
    lo, _, hi = text.partition(":")
    a, b = float(lo), float(hi or lo)
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError("pace must be LOW:HIGH seconds with 0 <= LOW <= HIGH")
    return a, b


def parse_rooms(text: str) -> list[int]:
    """``"200"`` or ``"200,500,1000"``: one run per number, in that order."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"rooms must be numbers, comma-separated: {text}") from err
    if not counts or any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError("rooms must be positive numbers, comma-separated")
    return counts


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--rooms",
        type=parse_rooms,
        default=[200],
        help="concurrent rooms (default 200); a comma-separated list runs each in turn, one "
        "row each",
    )
    parser.add_argument(
        "--pace",
        type=parse_pace,
        default=(0.2, 0.6),
        help="a human's think time, LOW:HIGH seconds (default 0.2:0.6; people take 2:10)",
    )
    parser.add_argument(
        "--dice", type=int, default=2, help="starting dice, or Poker lives (default 2)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rules", default="", help="only these rule systems, comma-separated (default: a mix)"
    )
    parser.add_argument(
        "--ramp", type=float, default=20.0, help="spread room starts over this many seconds (20)"
    )
    parser.add_argument(
        "--room-timeout",
        type=float,
        default=900.0,
        help="give up on a room after this many seconds (default 900)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=1200.0,
        help="stop each run after this many seconds",
    )
    parser.add_argument("--url", help="a running server's base URL instead of starting one")
    parser.add_argument("--ws-url", help="its WebSocket URL (default: the base URL's /ws)")
    parser.add_argument(
        "--bot-think",
        default="0:300",
        metavar="MIN:MAX",
        help="bots' think time in ms for the started server (default 0:300; the server's own "
        "default is 1000:2500)",
    )
    parser.add_argument(
        "--wait", type=float, default=15.0, help="a waiting human re-reads the room after this"
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="an option for the started server's serve (repeatable)",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment for the started server (repeatable)",
    )
    parser.add_argument(
        "--compare",
        metavar="DIR",
        type=Path,
        help="also run each load on the server of this source tree (a checkout with its own "
        ".venv), alternating with this tree's; rows labelled before, with ratios",
    )
    parser.add_argument(
        "--find-max-rooms",
        action="store_true",
        help=f"after the --rooms runs, look for the most rooms this tree carries at action "
        f"p99 <= {LATENCY_TARGET_MS:.0f} ms (double until a run fails, then halve the gap)",
    )
    parser.add_argument(
        "--max-rooms", type=int, default=4000, help="--find-max-rooms goes no higher (4000)"
    )
    parser.add_argument(
        "--search-runs", type=int, default=4, help="--find-max-rooms runs at most this many (4)"
    )
    parser.add_argument("--problems", type=int, default=20, help="problems to list (default 20)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the rooms, print the figures; 1 when anything was lost or failed."""
    args = parser().parse_args(argv)
    if args.url and (args.compare or args.find_max_rooms):
        raise SystemExit("--compare and --find-max-rooms start their own servers: no --url")
    runs: list[tuple[int, Path, str]] = []
    for i, rooms in enumerate(args.rooms):
        pair = [(rooms, REPO, "")]
        if args.compare:
            pair.append((rooms, args.compare.resolve(), "@before"))
            if i % 2 == 0:  # alternate which tree goes first
                pair.reverse()
        runs += pair
    rows: list[Row] = []
    failed = False
    # a deployed stack pushes each change from its own Lambda: order across changes may vary
    tolerated = {"reordered"} if args.url else set()
    for rooms, tree, label in runs:
        row, report = measure(args, rooms, tree, label)
        rows.append(row)
        failed |= any(p.kind not in tolerated for p in report.problems)
    if args.find_max_rooms:
        for _ in range(args.search_runs):
            mine = [r for r in rows if not r.label and r.pace == args.pace]
            rooms = next_search(
                [r.rooms for r in mine if r.carried],
                [r.rooms for r in mine if not r.carried],
                args.rooms[0],
                args.max_rooms,
            )
            if rooms is None:
                break
            row, _ = measure(args, rooms, REPO, "")
            rows.append(row)
    for line in table_lines(rows):
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
