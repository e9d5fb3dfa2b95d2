"""Every push fits one 32 KB WebSocket frame, up to 10 players × 10 dice with a full reveal."""

from __future__ import annotations

from typing import Any

from chalicelib import wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.effects import publish
from chalicelib.engine import game as game_flow
from chalicelib.engine import room as lobby
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Phase, Room, Status
from chalicelib.wire import MAX_PUSH_BYTES, encoded_size, room_message

T0 = 1_700_000_000_000


def big_room(roller: SeededRoller) -> tuple[Room, list[dict[str, Any]]]:
    """A started room: one human host and nine bots, ten dice each; (room, start events)."""
    host = lobby.UserRef("u-host", "H" * 24, False)
    room = lobby.create_room("bigroom", host, {"starting_dice": 10}, T0)
    for _ in range(9):
        lobby.add_bot(room, host, "easy")
    return room, lobby.start(room, host, roller, T0)


def test_every_push_of_a_10_by_10_game_fits_a_frame() -> None:
    roller = SeededRoller(5)
    clock = FakeClock(T0)
    deps = wiring.Deps(
        store=SqliteStore(clock=clock),
        notifier=FakeNotifier(),
        timers=FakeTimers(),
        clock=clock,
        roller=roller,
    )
    deps.store.put_connection("host", "u-host", T0)
    deps.store.put_connection("watcher", None, T0)
    for cid in ("host", "watcher"):
        deps.store.subscribe(cid, "bigroom")
    room, events = big_room(roller)
    version = 1
    publish(room, version, events, deps=deps)
    full_reveal_seen = False
    while room.status == Status.PLAYING:
        assert room.game is not None and room.game.deadline is not None
        before = len(deps.notifier.sent)
        events = game_flow.advance(room, room.game.deadline, roller)
        version += 1
        publish(room, version, events, deps=deps)
        sent = deps.notifier.sent[before:]
        assert len(sent) == 2
        reveal = room.game.last_reveal
        if reveal is not None and sum(len(r.dice) for r in reveal.rows) == 100:
            # The largest view: all 100 dice revealed, with each player's bids.
            full_reveal_seen = True
            for _, message in sent:
                assert message["type"] == "room"
                rows = message["room"]["game"]["last_reveal"]["rows"]
                assert [len(r["dice"]) for r in rows] == [10] * 10
    assert full_reveal_seen
    assert room.game is not None and room.game.phase == Phase.FINISHED
    sizes = [encoded_size(m) for _, m in deps.notifier.sent]
    assert max(sizes) < MAX_PUSH_BYTES
    # The finished game's view (results, dice progress of every round) still fits whole.
    for _, message in deps.notifier.sent[-2:]:
        assert message["type"] == "room" and message["room"]["results"] is not None


def test_events_are_dropped_first_then_the_view() -> None:
    view = {"id": "r1", "version": 7, "padding": "x" * 1000}
    small = room_message(view, [{"type": "bid_placed"}])
    assert small["events"] == [{"type": "bid_placed"}]

    many = [{"type": "bid_placed", "player_id": f"p{i}", "at": "2024"} for i in range(2000)]
    no_events = room_message(view, many)
    # the first events that fit are kept (what happened first), the rest dropped
    kept = no_events["events"]
    assert no_events["type"] == "room" and 0 < len(kept) < len(many) and kept == many[: len(kept)]
    assert no_events["room"] == view and no_events["events_dropped"] is True

    huge = {"id": "r1", "version": 7, "padding": "é" * MAX_PUSH_BYTES}
    changed = room_message(huge, [])
    assert changed == {"type": "room_changed", "room_id": "r1", "version": 7}
    assert all(encoded_size(m) < MAX_PUSH_BYTES for m in (small, no_events, changed))
