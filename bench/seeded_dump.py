"""Seeded games dumped as sorted JSON: the guard of a refactor that must change no behaviour.

Plays a few games of every rule system through the service layer (the use cases the routes
call) on the in-memory SQLite store, with a fixed clock (``FakeClock``), seeded dice
(``SeededRoller``) and seeded ids (``secrets.token_hex`` replaced by a counter), and writes
to one file: every answer a use case gave (or the error status and body it refused with),
every push each watcher received (each player's and a spectator's view, with the events), and
the stored room items, rounds, chat, ratings and leaderboard at the end.

Run it on two trees and compare the outputs byte for byte::

    .venv/bin/python bench/seeded_dump.py /tmp/after.json
    (cd /work/base-888f0d9 && .venv/bin/python /tmp/seeded_dump.py /tmp/before.json)
    cmp /tmp/before.json /tmp/after.json

It runs on the tree it is started from (its working directory), before or after the service
became a package of use-case modules (``service.lobby.join(svc, …)`` or ``svc.join(…)``).
"""

from __future__ import annotations

import importlib
import itertools
import json
import random
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

from chalicelib import wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.errors import to_response
from chalicelib.service import Caller, Service
from chalicelib.settings import Settings

JsonDict = dict[str, Any]

AREAS = {
    "me": "accounts",
    "set_preferences": "accounts",
    "ticket": "accounts",
    "list_rooms": "lobby",
    "create_room": "lobby",
    "update_settings": "lobby",
    "join": "lobby",
    "leave": "lobby",
    "set_ready": "lobby",
    "approve": "lobby",
    "deny": "lobby",
    "add_bot": "lobby",
    "remove_bot": "lobby",
    "start": "lobby",
    "recreate": "lobby",
    "invite": "invitations",
    "get_room": "play",
    "act": "play",
    "elo_preview": "play",
    "history": "records",
    "leaderboard": "records",
    "profile": "records",
    "chat": "chat",
    "post_chat": "chat",
}
"""Each use case's module in ``chalicelib.service`` (when the service is a package)."""

SYSTEMS = ("classic", "perudo", "poker", "wild-stars")


def use_case(svc: Service, name: str) -> Callable[..., Any]:
    """The use case ``name`` over ``svc``: a module function, or the service's method."""
    method = getattr(svc, name, None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    module = importlib.import_module(f"chalicelib.service.{AREAS[name]}")
    fn = getattr(module, name)
    return lambda *args: fn(svc, *args)


class Dump:
    """A service over fakes whose every call and push is written down."""

    def __init__(self, seed: int) -> None:
        self.clock = FakeClock()
        self.notifier = FakeNotifier()
        self.timers = FakeTimers()
        self.store = SqliteStore(":memory:", clock=self.clock)
        self.deps = wiring.Deps(
            self.store, self.notifier, self.timers, self.clock, roller=SeededRoller(seed)
        )
        self.svc = Service(self.deps, Settings())
        self.log: list[JsonDict] = []
        self.rooms: list[str] = []
        self.users: list[Caller] = []
        self._ids = itertools.count()
        self._connections = itertools.count()

    def user(self, name: str, *, guest: bool = False) -> Caller:
        uid = f"{'g' if guest else 'u'}{next(self._ids)}"
        record = self.store.create_user(
            uid, None if guest else name, None, guest, name, now_ms=self.clock.now
        )
        caller = Caller(record.id, record.name, record.guest)
        self.users.append(caller)
        return caller

    def watch(self, room_id: str, user: Caller | None) -> None:
        """A connection of ``user`` (None: a spectator) subscribed to the room."""
        cid = f"c{next(self._connections)}"
        self.store.put_connection(cid, user.user_id if user else None, self.clock.now)
        self.store.subscribe(cid, room_id)

    def call(self, name: str, *args: Any) -> Any:
        """Run a use case; write down its answer or its refusal (status and body)."""
        entry: JsonDict = {"call": name, "args": [_plain(a) for a in args], "at": self.clock.now}
        try:
            answer = use_case(self.svc, name)(*args)
        except Exception as exc:
            known = to_response(exc)
            if known is None:
                raise
            entry["refused"] = [known[0], known[1]]
            answer = None
        else:
            entry["answer"] = answer
        self.log.append(entry)
        return answer

    def tick(self, room_id: str, ms: int) -> JsonDict:
        self.clock.advance(ms)
        view: JsonDict = self.call("get_room", room_id, None)
        return view


def _plain(value: Any) -> Any:
    if isinstance(value, Caller):
        return value.user_id
    return value


def _candidates(game: JsonDict, turn: int, rng: random.Random) -> list[JsonDict]:
    """Actions a human might try on its turn, in order (refused ones are written down too)."""
    bid = game.get("current_bid")
    out: list[JsonDict] = []
    if bid and rng.random() < 0.35:
        out.append({"type": "liar", "turn": turn})
    if bid and rng.random() < 0.2:
        out += [{"type": "calza", "turn": turn}, {"type": "accept", "turn": turn}]
    quantity = bid.get("quantity", 1) if bid else 1
    face = bid.get("face", 1) if bid else 1
    if isinstance(quantity, int) and isinstance(face, int):
        out.append({"type": "bid", "quantity": quantity, "face": min(face + 1, 6), "turn": turn})
        out.append({"type": "bid", "quantity": quantity + 1, "face": 2, "turn": turn})
    out.append({"type": "liar", "turn": turn})
    return out


def play(d: Dump, room_id: str, humans: list[Caller], rng: random.Random) -> None:
    """Play the room to its end: humans try actions (some refused), time passes between."""
    by_user = {c.user_id: c for c in humans}
    for _ in range(600):
        view = d.call("get_room", room_id, None)
        if view is None or view["status"] != "playing":
            return
        game = view["game"]
        if game["phase"] != "bidding":
            d.tick(room_id, 61_000)
            continue
        turn = game["turn"]
        seat = next(p for p in view["players"] if p["id"] == turn["player_id"])
        caller = by_user.get(seat.get("user_id") or "")
        if caller is None or rng.random() < 0.15:
            d.tick(room_id, 31_000)  # a bot thinks, or a human lets the turn time out
            continue
        for action in _candidates(game, turn["number"], rng):
            if d.call("act", caller, room_id, action) is not None:
                break
        else:
            d.tick(room_id, 31_000)
    raise AssertionError(f"room {room_id} did not finish")


def game(d: Dump, rules: str, seed: int) -> None:
    """One game of ``rules``: a lobby with its moves (refusals included), play, then after."""
    rng = random.Random(seed)
    a, b, c = d.user(f"ann{seed}"), d.user(f"bob{seed}"), d.user(f"cat{seed}")
    g = d.user(f"Guest {seed}", guest=True)
    settings: JsonDict = {"rules": rules, "starting_dice": 2, "joining": "passcode"}
    settings["passcode"] = "4321"
    room = d.call("create_room", a, settings)
    rid = room["id"]
    d.rooms.append(rid)
    for viewer in (a, b, c, None):
        d.watch(rid, viewer)
    d.call("update_settings", a, rid, {"turn_seconds": 30})
    d.call("update_settings", b, rid, {"turn_seconds": 40})  # not the host: refused
    d.call("join", b, rid, "0000")  # wrong passcode
    d.call("join", b, rid, "4321")
    d.call("invite", a, rid, f"cat{seed}")
    d.call("invite", a, rid, "nobody-here")
    d.call("me", c)
    d.call("join", c, rid, None)  # invited: no passcode
    d.call("join", g, rid, None)  # a guest needs the passcode
    d.call("set_ready", b, rid, True)
    d.call("set_ready", c, rid, True)
    d.call("add_bot", a, rid, "easy")
    d.call("add_bot", a, rid, "strong")
    view = d.call("get_room", rid, a)
    bots = [p["id"] for p in view["players"] if p["kind"] == "bot"]
    d.call("remove_bot", a, rid, bots[0])
    d.call("set_preferences", c, "auto", rid)
    d.call("start", b, rid)  # not the host
    d.call("post_chat", b, rid, "good luck")
    d.call("post_chat", b, rid, "   ")
    d.call("start", a, rid)
    d.call("leave", c, rid)  # too late
    d.call("elo_preview", a, rid, [])
    play(d, rid, [a, b, c], rng)
    d.call("history", rid)
    d.call("chat", rid, None)
    new = d.call("recreate", b, rid)
    if new is not None:
        d.rooms.append(new["id"])
        d.watch(new["id"], a)
        d.call("join", a, new["id"], "4321")
        d.call("leave", a, new["id"])
    approval = d.call("create_room", c, {"rules": rules, "joining": "approval"})
    d.rooms.append(approval["id"])
    d.watch(approval["id"], c)
    d.call("join", a, approval["id"], None)
    d.call("join", b, approval["id"], None)
    d.call("approve", c, approval["id"], a.user_id)
    d.call("deny", c, approval["id"], b.user_id)
    d.call("list_rooms", None)
    d.call("list_rooms", "finished")
    d.call("list_rooms", "nonsense")


def main(out: str) -> None:
    counter = itertools.count()
    secrets.token_hex = lambda n=None: f"{next(counter):0{2 * (n or 32)}x}"[-2 * (n or 32) :]  # type: ignore[assignment]
    result: JsonDict = {}
    for i, rules in enumerate(SYSTEMS):
        for seed in (1, 2):
            d = Dump(seed * 100 + i)
            game(d, rules, seed)
            stored: JsonDict = {}
            for rid in d.rooms:
                room = d.store.get_room(rid)
                stored[rid] = {
                    "state": room.state if room else None,
                    "version": room.version if room else None,
                    "rounds": d.store.list_rounds(rid),
                    "chat": d.store.list_chat(rid, None, 50),
                }
            users = [u.user_id for u in d.users]
            result[f"{rules}/{seed}"] = {
                "calls": d.log,
                "pushes": [[cid, message] for cid, message in d.notifier.sent],
                "rooms": stored,
                "lobby": {s: d.store.list_rooms(s) for s in ("waiting", "finished", "closed")},
                "ratings": d.store.get_ratings([u for u in users if u.startswith("u")]),
                "leaderboard": d.store.leaderboard(20),
                "open_rooms": {u: d.store.open_rooms(u) for u in users},
                "invitations": {u: d.store.list_invitations(u) for u in users},
                "wake_ups": sorted(d.timers.due(10**15)),
            }
            d.store.close()
    text = json.dumps(result, sort_keys=True, indent=1, default=repr)
    Path(out).write_text(text + "\n", encoding="utf-8")
    calls = sum(len(v["calls"]) for v in result.values())
    pushes = sum(len(v["pushes"]) for v in result.values())
    print(f"{len(result)} games, {calls} calls, {pushes} pushes -> {out} ({len(text)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "seeded_dump.json")
