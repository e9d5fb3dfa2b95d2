"""Benchmark of Web Push: notifications per second, and the CPU a move costs with subscriptions.

A push service runs on loopback in a child process (so its CPU is not counted here) and
answers 201 to every POST. Two figures:

1. **Notifications per second** the server's sender (``notify.Deliverer`` with
   ``webpush.WebPushSender``: RFC 8291 encryption, a cached VAPID JWT, one HTTP request each)
   delivers to it, one after another, for one user with several subscriptions.
2. **Added CPU per move**: two registered players play a correspondence game through the
   service on SQLite ``:memory:`` (each move passes the turn to the other, who is notified),
   with 0 and with 3 subscriptions per player; the process CPU time per move is compared,
   the runs interleaved so a busy machine affects both alike.

Run: ``.venv/bin/python bench/push.py [--rounds 5] [--moves 200] [--sends 300]``. Prints
medians; nothing asserts (tests never assert timings). Loopback only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TOKEN_SECRET", "bench-secret-that-is-long-enough-0123456789")

from chalicelib import wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.notify import Deliverer
from chalicelib.push_endpoints import parse_allow_list
from chalicelib.service import Caller, Service, lobby, notifications, play
from chalicelib.settings import Settings
from chalicelib.webpush import VapidKey, WebPushSender, b64u_encode

SINK = textwrap.dedent(
    """
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()
        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """
)


def start_sink() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", SINK], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}"


def browser_keys() -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64u_encode(point), "auth": b64u_encode(os.urandom(16))}


def make_deps(origin: str) -> wiring.Deps:
    clock = FakeClock()
    store = SqliteStore(":memory:", clock=clock)
    web = WebPushSender(
        VapidKey.from_secret("bench-vapid-secret-0123456789abcdef0123456789"),
        subject="mailto:bench@example.org",
        allow=parse_allow_list(origin),
    )
    return wiring.Deps(
        store, FakeNotifier(), FakeTimers(), clock, SeededRoller(3), push=Deliverer(store, web)
    )


def notifications_per_second(origin: str, sends: int) -> float:
    deps = make_deps(origin)
    deps.store.create_user("u1", "ana", "x", False, "ana")
    for i in range(5):
        keys = browser_keys()
        notifications.subscribe(
            Service(deps), "u1", f"{origin}/push/{i}", keys["p256dh"], keys["auth"]
        )
    message = {"type": "your_turn", "room_id": "r", "rules": "classic", "title": "t", "body": "b"}
    per_call = 5
    calls = max(1, sends // per_call)
    start = time.perf_counter()
    sent = 0
    for _ in range(calls):
        sent += deps.push.notify("u1", message, ttl=3600, urgency="normal")
    elapsed = time.perf_counter() - start
    return sent / elapsed


def cpu_per_move(origin: str, subscriptions: int, moves: int) -> float:
    """Process CPU ms per human move in a correspondence game of two players."""
    deps = make_deps(origin)
    limits = Settings(
        max_rooms_per_user=100_000, room_creations_per_user=100_000, lobby_actions_per_user=100_000
    )
    svc = Service(deps, limits)
    callers = []
    for uid in ("u1", "u2"):
        deps.store.create_user(uid, uid, "x", False, uid)
        callers.append(Caller(uid, uid, False))
        for i in range(subscriptions):
            keys = browser_keys()
            notifications.subscribe(
                Service(deps), uid, f"{origin}/push/{uid}/{i}", keys["p256dh"], keys["auth"]
            )
    by_user = {c.user_id: c for c in callers}
    done = 0
    cpu = 0.0
    while done < moves:
        rid = lobby.create_room(svc, callers[0], {"pace": "correspondence", "starting_dice": 10})[
            "id"
        ]
        lobby.join(svc, callers[1], rid, None)
        lobby.set_ready(svc, callers[1], rid, True)
        lobby.start(svc, callers[0], rid)
        quantity = 1
        while done < moves:
            view: dict[str, Any] = play.get_room(svc, rid, callers[0])
            game = view["game"]
            if view["status"] != "playing" or game["turn"] is None or quantity > 18:
                break
            seat = next(p for p in view["players"] if p["id"] == game["turn"]["player_id"])
            action = {
                "type": "bid",
                "quantity": quantity,
                "face": 6,
                "turn": game["turn"]["number"],
            }
            start = time.process_time()
            play.act(svc, by_user[seat["user_id"]], rid, action)
            cpu += time.process_time() - start
            quantity += 1
            done += 1
    return cpu * 1000 / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--sends", type=int, default=300)
    args = parser.parse_args()
    proc, origin = start_sink()
    try:
        rates, zero, three = [], [], []
        for _ in range(args.rounds):
            rates.append(notifications_per_second(origin, args.sends))
            zero.append(cpu_per_move(origin, 0, args.moves))
            three.append(cpu_per_move(origin, 3, args.moves))
        print(f"push service: {origin} (loopback, child process); {args.rounds} rounds, medians")
        print(f"notifications/s (one sender, sequential): {statistics.median(rates):8.1f}")
        z, t = statistics.median(zero), statistics.median(three)
        print(f"CPU ms per move, 0 subscriptions/player: {z:8.3f}")
        print(f"CPU ms per move, 3 subscriptions/player: {t:8.3f}  (+{t - z:.3f} ms, x{t / z:.2f})")
        print(f"  i.e. {(t - z) / 3:.3f} ms of CPU per notification sent")
    finally:
        proc.terminate()
        proc.wait(5)


if __name__ == "__main__":
    main()
