"""Benchmark of the REST service on moto's DynamoDB: requests, write units, item size, CPU time.

For a 6 × 5 game (2 humans + 4 bots, 5 dice each) and a 10 × 10 game (2 humans + 8 bots,
10 dice each) it plays the humans' turns through the service layer the routes call and prints:

- DynamoDB requests per player action, by operation (counted from botocore ``before-call``
  events), bots' replies included since they run inside the same transition;
- write units per player action: as DynamoDB would bill them (1 WCU per started KB of the
  written room item) and as moto reports ``ConsumedCapacity`` when asked for it;
- the room item's size (DynamoDB's rule: attribute names plus values) at start, largest, end;
- the median in-process time per action excluding storage (time in the store subtracted).

Run: ``.venv/bin/python bench/api.py`` (no AWS account needed). Figures only; nothing asserts.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "TOKEN_SECRET": "bench-secret-that-is-long-enough-0123456789",
    }
)

from _common import item_size
from moto import mock_aws

from chalicelib import wiring
from chalicelib.adapters.dynamo import DynamoStore
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.engine.dice import SeededRoller
from chalicelib.service import Caller, Service, accounts, lobby, play
from chalicelib.settings import reset_settings

TABLE = "liars-bench"


class TimedStore:
    """Wraps the store: accumulates the wall time spent inside it."""

    def __init__(self, inner: DynamoStore) -> None:
        self.inner = inner
        self.spent = 0.0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.inner, name)
        if not callable(target):
            return target

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return target(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - t0

        return timed


def run(label: str, bots: int, dice: int, seed: int) -> None:
    """Play one game and print its figures."""
    raw = DynamoStore(TABLE, "us-east-1")
    raw.ensure_table()
    client = raw.client
    counts: Counter[str] = Counter()
    consumed: list[float] = []

    def on_call(model: Any, params: dict[str, Any], **_: Any) -> None:
        counts[model.name] += 1
        if model.name in ("UpdateItem", "PutItem", "TransactWriteItems", "GetItem", "Query"):
            params.setdefault("ReturnConsumedCapacity", "TOTAL")

    def after(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        cc = parsed.get("ConsumedCapacity")
        if model.name == "UpdateItem" and isinstance(cc, dict):
            consumed.append(float(cc.get("CapacityUnits", 0)))

    client.meta.events.register("provide-client-params.dynamodb", on_call)
    client.meta.events.register("after-call.dynamodb", after)
    store = TimedStore(raw)
    clock = FakeClock()
    deps = wiring.Deps(
        store=store,
        notifier=FakeNotifier(),
        timers=FakeTimers(),  # type: ignore[arg-type]
        clock=clock,
        roller=SeededRoller(seed),
    )
    wiring.set_deps(deps)
    service = Service(deps)
    users = [accounts.register(service, f"{label}h{i}", "bench-password")["user"] for i in range(2)]
    callers = [Caller(u["id"], u["name"], False) for u in users]
    room = lobby.create_room(service, callers[0], {"starting_dice": dice})
    rid = room["id"]
    lobby.join(service, callers[1], rid, None)
    lobby.set_ready(service, callers[1], rid, True)
    for _ in range(bots):
        lobby.add_bot(service, callers[0], rid, "strong")
    lobby.start(service, callers[0], rid)

    def room_item() -> dict[str, Any]:
        return client.get_item(
            TableName=TABLE, Key={"pk": {"S": f"ROOM#{rid}"}, "sk": {"S": "ROOM"}}
        )["Item"]

    sizes = [item_size(room_item())]
    per_action: list[Counter[str]] = []
    wcu: list[int] = []
    cpu: list[float] = []
    rng = random.Random(seed)
    by_user = {c.user_id: c for c in callers}
    while True:
        v = play.get_room(service, rid, None)
        if v["status"] != "playing":
            break
        game = v["game"]
        if game["phase"] != "bidding":
            clock.advance(3001 if game["phase"] == "final_reveal" else 120_000)
            play.get_room(service, rid, None)
            continue
        seat = next(p for p in v["players"] if p["id"] == game["turn"]["player_id"])
        caller = by_user[seat["user_id"]]
        bid = game["current_bid"]
        turn = game["turn"]["number"]
        if bid and (rng.random() < 0.35 or bid["quantity"] >= game["total_dice"]):
            action: dict[str, Any] = {"type": "liar", "turn": turn}
        elif bid is None:
            action = {
                "type": "bid",
                "quantity": max(1, game["total_dice"] // 4),
                "face": rng.randint(2, 6),
                "turn": turn,
            }
        elif bid["face"] < 6:
            action = {
                "type": "bid",
                "quantity": bid["quantity"],
                "face": bid["face"] + 1,
                "turn": turn,
            }
        else:
            action = {"type": "bid", "quantity": bid["quantity"] + 1, "face": 2, "turn": turn}
        counts.clear()
        consumed.clear()
        store.spent = 0.0
        t0 = time.perf_counter()
        play.act(service, caller, rid, action)
        elapsed = time.perf_counter() - t0
        cpu.append(elapsed - store.spent)
        per_action.append(Counter(counts))
        wcu.extend(consumed)
        size = item_size(room_item())
        sizes.append(size)
        wcu_billed = math.ceil(size / 1024)
        per_action[-1]["_billed_wcu"] = wcu_billed
    n = len(per_action)
    ops: Counter[str] = Counter()
    for c in per_action:
        ops.update({k: v for k, v in c.items() if not k.startswith("_")})
    billed = [c["_billed_wcu"] for c in per_action]
    room_path = sum(c["GetItem"] + c["UpdateItem"] for c in per_action) / n
    print(f"== {label}: {2 + bots} players × {dice} dice, {n} player actions")
    print(
        "  DynamoDB requests per player action (mean): "
        + ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(ops.items()))
        + f"; total {sum(ops.values()) / n:.2f}"
    )
    print(
        f"  room read+write per action (GetItem+UpdateItem): {room_path:.2f}; the rest is "
        "the push fan-out's subscriber Query and, at game end, ratings"
    )
    print(
        f"  write units per action: billed by item size mean {statistics.mean(billed):.2f}, "
        f"max {max(billed)}; moto-reported mean "
        f"{statistics.mean(wcu) if wcu else float('nan'):.2f}"
    )
    print(f"  room item size: start {sizes[0]} B, largest {max(sizes)} B, end {sizes[-1]} B")
    print(
        f"  median in-process time per action excluding storage: "
        f"{statistics.median(cpu) * 1000:.2f} ms"
    )


def main() -> None:
    """Both games, on a fresh moto backend."""
    reset_settings()
    with mock_aws():
        run("6x5", bots=4, dice=5, seed=1)
        run("10x10", bots=8, dice=10, seed=2)
    wiring.reset_deps()


if __name__ == "__main__":
    main()
