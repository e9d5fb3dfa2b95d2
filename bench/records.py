"""Benchmark of game records (issue 18) on moto's DynamoDB: requests and write units per round,
and requests and read units per leaderboard read.

Rounds: two registered humans and four bots play classic 6 × 5 through the service layer (the
humans let every turn time out, so bots and timeouts decide). Every DynamoDB write is sized by
DynamoDB's billing rule (1 WCU per started KB of each item; 2 per started KB per item inside a
TransactWriteItems) and attributed to the writes that complete rounds or to all others.

Leaderboard: N listed players spread over the shards of ``gsi2``; one read of the top 20 is
counted (Query requests, items read, read units at 0.5 RCU per started 4 KB per Query as an
eventually consistent index read).

Run: ``.venv/bin/python bench/records.py [players]`` (no AWS account). Figures only.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
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
from chalicelib.ports import RatedOutcome, RatingsWrite
from chalicelib.service import Caller, Service, accounts, lobby, play, records

TABLE = "liars-records-bench"


def _kb(item: dict[str, Any]) -> int:
    return max(1, math.ceil(item_size(item) / 1024))


def _update_size(params: dict[str, Any]) -> int:
    """An UpdateItem's billed size: the values it sets (an upper-bound proxy for the item)."""
    return _kb(params.get("ExpressionAttributeValues", {}))


def rounds_bench(seed: int) -> None:
    store = DynamoStore(TABLE, "us-east-1")
    store.ensure_table()
    # (operation, record items, write units, units of the same room write as an UpdateItem)
    writes: list[tuple[str, int, int, int]] = []

    def on_call(model: Any, params: dict[str, Any], **_: Any) -> None:
        name = model.name
        if name == "TransactWriteItems":
            units, records, room = 0, 0, 0
            for entry in params["TransactItems"]:
                ((kind, body),) = entry.items()
                if kind == "Put":
                    units += 2 * _kb(body["Item"])
                    records += body["Item"]["sk"]["S"].startswith("ROUND#")
                else:
                    units += 2 * _update_size(body)
                    if body["Key"]["sk"]["S"] == "ROOM":
                        room = _update_size(body)
            writes.append((name, records, units, room))
        elif name == "UpdateItem":
            writes.append((name, 0, _update_size(params), 0))
        elif name in ("PutItem", "DeleteItem", "BatchWriteItem"):
            writes.append((name, 0, 1, 0))
        else:
            writes.append((name, 0, 0, 0))

    store.client.meta.events.register("provide-client-params.dynamodb", on_call)
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
    users = [
        accounts.register(service, f"rb{seed}h{i}", "bench-password")["user"] for i in range(2)
    ]
    callers = [Caller(u["id"], u["name"], False) for u in users]
    rid = lobby.create_room(service, callers[0], {"starting_dice": 5, "turn_seconds": 15})["id"]
    lobby.join(service, callers[1], rid, None)
    lobby.set_ready(service, callers[1], rid, True)
    for _ in range(4):
        lobby.add_bot(service, callers[0], rid, "strong")
    writes.clear()
    lobby.start(service, callers[0], rid)
    for _ in range(5000):
        if play.get_room(service, rid, None)["status"] == "finished":
            break
        clock.advance(16_000)
    rounds = len(store.list_rounds(rid))
    round_writes = [w for w in writes if w[1] > 0]
    other_writes = [w for w in writes if w[1] == 0 and w[2] > 0]
    ops = Counter(w[0] for w in writes)
    print(f"game (seed {seed}): {rounds} rounds recorded; requests during play {dict(ops)}")
    print(
        f"  writes completing rounds: {len(round_writes)} (TransactWriteItems), "
        f"{sum(w[1] for w in round_writes)} record items, "
        f"median {statistics.median(w[2] for w in round_writes)} WCU each "
        f"(room update + record, both at the transaction rate)"
    )
    print(
        f"  other writes: {len(other_writes)}, median "
        f"{statistics.median(w[2] for w in other_writes)} WCU each"
    )
    extra = sum(w[2] - w[3] for w in round_writes)
    print(
        f"  extra cost of records: {extra / max(1, rounds):.1f} WCU and 0 extra requests "
        f"per round (vs the same room writes as plain UpdateItems without records)"
    )


def leaderboard_bench(players: int) -> None:
    store = DynamoStore(TABLE + "-lb", "us-east-1")
    store.ensure_table()
    for i in range(players):
        uid = f"u{i:06d}"
        store.create_user(uid, f"player{i}", "h", False, f"player{i}")
    # Five rated games each, applied directly (the service's write, without the rooms).
    for i in range(0, players, 2):
        a, b = f"u{i:06d}", f"u{i + 1:06d}"
        for g in range(5):
            key = f"g{i}-{g}"
            delta = float((i * 7 + g * 13) % 40)
            outcomes = {
                a: RatedOutcome(1, g, {"room_id": key}, g == 4),
                b: RatedOutcome(2, g, {"room_id": key}, g == 4),
            }
            store.create_room(key, {}, {"status": "finished", "created_at": 0})
            store.save_room(
                key,
                {},
                {"status": "finished", "created_at": 0},
                1,
                ratings=RatingsWrite(key, {a: delta, b: -delta}, {}, outcomes),
            )
    sizes: list[int] = []
    ops: Counter[str] = Counter()

    def on_call(model: Any, **_: Any) -> None:
        ops[model.name] += 1

    def after(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "Query":
            sizes.append(sum(item_size(it) for it in parsed.get("Items", [])))

    store.client.meta.events.register("before-call.dynamodb", on_call)
    store.client.meta.events.register("after-call.dynamodb", after)
    deps = wiring.Deps(
        store=store,
        notifier=FakeNotifier(),
        timers=FakeTimers(),  # type: ignore[arg-type]
        clock=FakeClock(),
        roller=SeededRoller(1),
    )
    board = records.leaderboard(Service(deps), "20")["players"]
    rcu = sum(0.5 * max(1, math.ceil(s / 4096)) for s in sizes)
    print(
        f"leaderboard of {players} listed players, top {len(board)}: requests {dict(ops)}, "
        f"{sum(sizes)} bytes read, {rcu} RCU (eventually consistent); "
        "the same at any number of players (each shard reads at most 20 index items)"
    )
    ops.clear()
    sizes.clear()
    records.profile(Service(deps), "player0")
    print(f"profile read: requests {dict(ops)}")


def main() -> None:
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with mock_aws():
        for seed in (1, 2, 3):
            rounds_bench(seed)
        leaderboard_bench(players)
    wiring.reset_deps()


if __name__ == "__main__":
    main()
